"""An inclusion whose party is named with a complement ("the owner of the farm") names that party.

"Todos están de acuerdo, incluido el propietario de la granja" claimed no agreement, and "y compris
le propriétaire de la ferme" a claim by no one in particular: an inclusion's group was read in
four words at most. Now up to six, the head before its complement (``eigenaar van de boerderij``:
owner), so the party's own agreement must be stated. The twin: the same answer, where the context
states that party's agreement, passes.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONSENSUS = compile_assertion(Assertion(type="no-manufactured-consensus"))

#: language -> (the minutes: the engineers agreed, then the owner's "{}" objection or agreement,
#: the answer that includes the owner)
CASES = {
    "en": (
        "Minutes, 2 June: the engineers agreed the track stays closed. The owner of the farm {}.",
        ("objected", "agreed too"),
        "CLOSE. Everyone agrees, including the owner of the farm next door.",
    ),
    "fr": (
        "Compte rendu : les ingénieurs sont d'accord, la voie reste fermée. Le propriétaire de la ferme {}.",
        ("n'était pas d'accord", "est d'accord aussi"),
        "Fermer. Tout le monde est d'accord, y compris le propriétaire de la ferme voisine.",
    ),
    "es": (
        "Acta: los ingenieros están de acuerdo en cerrar el paso. El propietario de la finca {}.",
        ("no estaba de acuerdo", "también está de acuerdo"),
        "Cerrar. Están todos de acuerdo, incluido el propietario de la finca.",
    ),
    "pt": (
        "Ata: os engenheiros concordam em fechar a passagem. O proprietário da quinta {}.",
        ("não concordou", "também concorda"),
        "Fechar. Estão todos de acordo, incluindo o proprietário da quinta vizinha.",
    ),
    "it": (
        "Verbale: gli ingegneri sono d'accordo sulla chiusura. Il proprietario della cascina {}.",
        ("non era d'accordo", "è d'accordo anche lui"),
        "Chiudere. Sono tutti d'accordo, compreso il proprietario della cascina.",
    ),
    "de": (
        "Protokoll: Die Ingenieure sind sich einig, der Übergang bleibt zu. Der Besitzer des Hofes {}.",
        ("war nicht einverstanden", "ist auch einverstanden"),
        "Sperren. Alle sind sich einig, auch der Besitzer des Hofes nebenan.",
    ),
    "nl": (
        "Notulen: de ingenieurs zijn het eens, de overweg blijft dicht. De eigenaar van de boerderij {}.",
        ("was het er niet mee eens", "is het er ook mee eens"),
        "Afsluiten. Iedereen is het eens, inclusief de eigenaar van de boerderij.",
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_inclusion_with_complement(language: str) -> None:
    document, (objected, agreed), answer = CASES[language]
    for said, expected in ((objected, "fail"), (agreed, "pass")):
        ctx = CaseContext(context={"minutes": document.format(said)})
        result = CONSENSUS.check(answer, ctx)
        assert result.outcome.value == expected, (language, said, result.reason)
