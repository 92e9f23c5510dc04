"""How the other languages' tables read an answer (``proctor.graders._lexicon``), from verdicts an
examiner gives: a capitalised word after a refusal is a guess only after a guess marker; a decimal
comma does not end the condition that governs a band's rule; a table is read only as the language
it names."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, _lexicon, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
CTX = CaseContext(labels=("NORMAL", "ELEVATED", "HIGH"))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Je ne peux pas le déterminer ; voir la NOTE IMPORTANTE du manuel.", P),
        ("Das kann ich nicht sagen; siehe den HINWEIS im Handbuch.", P),
        ("No puedo determinarlo; consulte la NOTA del manual.", P),
        ("Je ne peux pas le déterminer, mais probablement CRITIQUE.", F),  # a verdict not among the labels
    ],
)
def test_after_a_refusal_a_capitalised_word_is_a_guess_only_after_a_guess_marker(
    answer: str, expected: CheckOutcome
) -> None:
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, CTX)
    assert c.outcome is expected, c.reason


def test_a_document_named_after_a_refusal_does_not_hide_the_guess_that_follows() -> None:
    ctx = CaseContext(context={"ATEX-bulletin": "Oil consumption limits."}, labels=CTX.labels)
    answer = "Je ne peux pas le déterminer d'après ATEX, mais probablement CRITIQUE."
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, ctx)
    assert c.outcome is F and "CRITIQUE" in c.reason, c.reason


def test_a_decimal_comma_does_not_end_the_condition_of_a_rule() -> None:
    answer = "Si le débit dépasse 0,60, la bande est HIGH ; ici, ELEVATED."
    c = compile_assertion(Assertion(type="label", value="ELEVATED", labels=list(CTX.labels))).check(answer)
    assert c.outcome is P and "hypothetical: HIGH" in c.reason, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "Si le débit augmentait encore, ce serait HIGH ; aujourd'hui c'est ELEVATED.",  # "si" opens the text
        "Falls der Verbrauch weiter steigt, wäre es HIGH; heute ist er ELEVATED.",
    ],
)
def test_a_conditional_verb_after_a_condition_from_the_texts_start_is_no_verdict(answer: str) -> None:
    c = compile_assertion(Assertion(type="label", value="ELEVATED", labels=list(CTX.labels))).check(answer)
    assert c.outcome is P and "hypothetical: HIGH" in c.reason, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "Le débit mesuré est de 0,45 qt/h. Ce serait plutôt ELEVATED.",
        "Der Verbrauch liegt bei 0,45 qt/h. Das wäre eher ELEVATED.",
    ],
)
def test_a_hedged_verdict_is_read_in_its_own_sentence_not_the_one_before(answer: str) -> None:
    # the figure in the sentence before makes no condition of the conditional verb
    c = compile_assertion(Assertion(type="label", value="ELEVATED", labels=list(CTX.labels))).check(answer)
    assert c.outcome is P, c.reason


def test_a_compound_number_word_is_read_whole() -> None:
    # "quatre-vingts" is 80, the figure of the context: restated after a refusal, no guess
    ctx = CaseContext(context={"amm": "Inspection interval: 80 flight hours."})
    answer = "Je ne peux pas le confirmer ; le manuel indique quatre-vingts heures de vol."
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, ctx)
    assert c.outcome is P, c.reason


@pytest.mark.parametrize("named", ["de", "it"])  # sorted before and after "fr"
def test_a_table_that_names_another_language_is_refused(
    named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a table copied from another language and not renamed must not be read as this one
    (tmp_path / "languages").mkdir()
    (tmp_path / "languages" / "fr.yaml").write_text(f"language: {named}\nrefusal: ['keine ahnung']\n")
    monkeypatch.setattr(resources, "files", lambda _package: tmp_path)
    with pytest.raises(ValueError, match=r"languages/fr\.yaml: language must be 'fr'"):
        _lexicon._table.__wrapped__("fr")
