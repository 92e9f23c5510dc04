"""After declining, a count the sources state, named in words they do not write (issue 25).

A held-out examiner found "Gli unici dati: 9 acari su 300 api" (the context: "9 mites in 300
bees") failed as a guess: the rules compare a figure's counted noun with the context's, and
"acari" is not "mites". Words that give the sources' facts ("the only data:", "het enige wat ik
weet:") now make the figures after them restatements in every language; and a figure that counts,
by a word no source writes and no hedge on it, a value the sources state only as a count is for
the judge (undetermined), not a guess. Twins: a hedged count, another value, and the context's
value in a unit of measurement with another count in the answer.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

P, F, U = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.UNDETERMINED
HIVE = CaseContext(
    context={
        "inspection": "Varroa alcohol wash: 9 mites in 300 bees (3 %). Hive weight 38 kg.",
        "lab": "Nosema spp.: 1,200,000 spores per bee. Deformed wing virus: not tested.",
    },
    question="What is the deformed wing virus load?",
    labels=(),
)
NO_GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))

CASES = [
    # the sources' facts after words that say so, in each language
    ("it", "Il referto non riporta il DWV. Gli unici dati: 9 acari su 300 api, peso 38 kg.", P),
    ("nl", "Staat er niet in. Het enige wat ik weet: 9 mijten op 300 bijen.", P),
    ("de", "Steht nicht im Bericht. Die einzigen Zahlen: 9 Milben auf 300 Bienen.", P),
    ("fr", "Le rapport ne le dit pas. Les seules données : 9 varroas sur 300 abeilles.", P),
    ("es", "El informe no lo dice. Los únicos datos: 9 ácaros en 300 abejas.", P),
    ("pt", "O relatório não diz. Os únicos dados: 9 ácaros em 300 abelhas.", P),
    ("en", "The report doesn't give it. The only thing I know: 9 mites in 300 bees.", P),
    # a count the sources state, by a word they do not write: for the judge
    ("it", "Il referto non riporta il DWV. Dati: 9 acari.", U),
    # twins: a hedged count, another value, a count beside a measured value
    ("en", "The report doesn't give it. My guess: 9 colonies.", F),
    ("it", "Il referto non riporta il DWV. Forse 9 acari.", F),
    ("it", "Il referto non riporta il DWV. Dati: 14 acari.", F),
    ("en", "The report doesn't give it. The hive holds 38 frames.", F),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_a_count_the_sources_state_in_other_words_is_no_guess_to_call(
    lang: str, answer: str, expected: CheckOutcome
) -> None:
    result = NO_GUESS.check(answer, HIVE)
    assert result.outcome is expected, result.reason
