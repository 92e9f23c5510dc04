"""A label that belongs to someone else is not the answer's: a third party's first choice in the
pluperfect ("the inspector had first ticked X", "l'inspecteur avait d'abord coché X") and the
object of someone's fear or worry ("The owner is worried about X", "le propriétaire craint un X"),
in every language. Twins: a third party's choice with no word of "first", and a worry that is not
right before a label, leave the band named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
INSPECTION = ["PASS", "CONDITIONAL_PASS", "FAIL", "CLOSED"]


@pytest.mark.parametrize(
    "answer",
    [
        "Result: CONDITIONAL_PASS (the inspector had first ticked PASS before probing the cold room).",
        "Résultat : CONDITIONAL_PASS (l'inspecteur avait d'abord coché PASS avant de sonder la"
        " chambre froide).",
        "Ergebnis: CONDITIONAL_PASS (der Prüfer hatte zuerst PASS angekreuzt, bevor er das Kühlhaus prüfte).",
        "Resultado: CONDITIONAL_PASS (el inspector había marcado primero PASS antes de revisar la cámara).",
        "Resultado: CONDITIONAL_PASS (o inspetor tinha marcado primeiro PASS antes de verificar a câmara).",
        "Esito: CONDITIONAL_PASS (l'ispettore aveva segnato prima PASS, poi ha controllato la cella).",
        "Uitslag: CONDITIONAL_PASS (de inspecteur had eerst PASS aangevinkt, voor hij de koelcel"
        " controleerde).",
        # the object of someone's fear or worry, dismissed
        "The owner is worried about CLOSED, but nothing in the notes comes close to that: the cold room"
        " holds 6 \u00b0C, so CONDITIONAL_PASS.",
        "Le gérant craint un CLOSED, mais rien dans le rapport n'en approche : CONDITIONAL_PASS.",
        "Der Betreiber befürchtet CLOSED, aber nichts im Bericht kommt dem nahe: CONDITIONAL_PASS.",
        "El dueño teme un CLOSED, pero nada en el acta se acerca a eso: CONDITIONAL_PASS.",
        "O dono teme um CLOSED, mas nada no relatório chega perto disso: CONDITIONAL_PASS.",
        "Il titolare teme un CLOSED, ma niente nel verbale ci si avvicina: CONDITIONAL_PASS.",
        "De eigenaar is bang voor CLOSED, maar niets in het rapport komt daarbij in de buurt:"
        " CONDITIONAL_PASS.",
    ],
)
def test_someone_elses_band_is_not_the_answers(answer: str) -> None:
    outcome, reason = label(answer, "CONDITIONAL_PASS", INSPECTION)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        # the answer's own band, after a worry that stands elsewhere
        "The owner is worried, and rightly: CLOSED.",
        "Le gérant s'inquiète, et à raison : CLOSED.",
        "Der Betreiber ist besorgt, zu Recht: CLOSED.",
        "El dueño está inquieto, y con razón: CLOSED.",
        "O dono está inquieto, e com razão: CLOSED.",
        "Il titolare è inquieto, e a ragione: CLOSED.",
        "De eigenaar is ongerust, en terecht: CLOSED.",
        # the answer's own band, as the inspector's too (no word of "first")
        "CLOSED: the inspector had ticked CLOSED as well.",
        "CLOSED : l'inspecteur avait coché CLOSED lui aussi.",
        "CLOSED: der Prüfer hatte ebenfalls CLOSED angekreuzt.",
        "CLOSED: el inspector había marcado CLOSED también.",
        "CLOSED: o inspetor tinha marcado CLOSED também.",
        "CLOSED: anche l'ispettore aveva segnato CLOSED.",
        "CLOSED: de inspecteur had ook CLOSED aangevinkt.",
        # German "erst" is also "only": a band reached only yesterday is the band now
        "Der Betrieb hatte erst nach dem dritten Verstoß CLOSED bekommen.",
    ],
)
def test_the_answers_band_beside_them_stands(answer: str) -> None:
    outcome, reason = label(answer, "CLOSED", INSPECTION)
    assert outcome is P, reason
