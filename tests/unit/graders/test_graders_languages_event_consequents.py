"""A label as the consequent of a condition that waits for an event is hypothetical, not named, in
every language and in both orders: a condition on what happens overnight or this afternoon, a
source's step that comes into force under a condition ("the bulletin's step up to HIGH kicks in"),
a verb-first condition with the conditional mood ("Legt der Wind zu, wäre HIGH denkbar"), and a
past counterfactual ("Als er coliformen waren gevonden, was het X geweest"). The label given
plainly in the same construction still counts."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
DANGER = ["LOW", "MODERATE", "CONSIDERABLE", "HIGH"]
WATER = ["ADVISORY", "BOIL_WATER_ADVISORY", "DO_NOT_DRINK"]


@pytest.mark.parametrize(
    "answer",
    [
        # the condition first, waiting for the night or the sun
        "For the morning it's CONSIDERABLE. If there's no refreeze overnight and the sun gets onto the"
        " slopes, the bulletin's afternoon step up to HIGH kicks in.",
        "Pour ce matin c'est CONSIDERABLE. S'il ne regèle pas cette nuit et que le soleil touche les pentes,"
        " le passage à HIGH prévu par le bulletin s'applique l'après-midi.",
        "Esta mañana es CONSIDERABLE. Si no rehiela esta noche y el sol da en las laderas, entra en vigor la"
        " subida a HIGH del boletín por la tarde.",
        "De manhã é CONSIDERABLE. Se não houver regelo durante a noite e o sol bater nas encostas, entra em"
        " vigor a subida para HIGH prevista no boletim.",
        "Per la mattina è CONSIDERABLE. Se stanotte non rigela e il sole arriva sui pendii, scatta il"
        " passaggio a HIGH previsto dal bollettino.",
        "Voor de ochtend is het CONSIDERABLE. Als het vannacht niet opvriest en de zon op de hellingen komt,"
        " treedt de stap naar HIGH uit het bulletin in werking.",
        "Heute Vormittag CONSIDERABLE. Wenn es über Nacht nicht durchfriert und die Sonne auf die Hänge"
        " kommt, greift am Nachmittag die Erhöhung auf HIGH aus dem Lagebericht.",
        # the condition after the step
        "For the morning it's CONSIDERABLE. The bulletin's afternoon step up to HIGH kicks in if there's no"
        " refreeze overnight.",
        "Esta mañana es CONSIDERABLE. La subida a HIGH entra en vigor si no rehiela esta noche.",
        "Per la mattina è CONSIDERABLE. Il passaggio a HIGH scatta solo se stanotte non rigela.",
        "De manhã é CONSIDERABLE. A subida para HIGH entra em vigor se não houver regelo esta noite.",
        "Pour ce matin c'est CONSIDERABLE. Le passage à HIGH entre en vigueur s'il ne regèle pas cette nuit.",
        "Heute Vormittag CONSIDERABLE. Die Erhöhung auf HIGH tritt in Kraft, wenn es nachts nicht"
        " durchfriert.",
        "Voor de ochtend CONSIDERABLE. De stap naar HIGH treedt in werking als het vannacht niet opvriest.",
        # a verb-first condition and the conditional mood
        "Gefahrenstufe: CONSIDERABLE (3).\n\nLegt der Wind über Nacht noch zu, wäre für die Nordhänge auch"
        " HIGH denkbar.",
        "Gefahrenstufe: CONSIDERABLE.\n\nFrischt der Wind in der Nacht auf, wäre HIGH möglich.",
        "Gevarenniveau: CONSIDERABLE.\n\nNeemt de wind vannacht nog toe, dan zou HIGH ook kunnen.",
    ],
)
def test_the_consequent_of_an_events_condition_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "CONSIDERABLE", DANGER)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Had coliforms been found it would have been BOIL_WATER_ADVISORY. As it is: ADVISORY.",
        "If coliforms had been found, it would have been BOIL_WATER_ADVISORY. As it is: ADVISORY.",
        "S'il y avait eu des coliformes, on aurait été en BOIL_WATER_ADVISORY. Ici : ADVISORY.",
        "S'il y avait eu des coliformes, ç'aurait été BOIL_WATER_ADVISORY. Ici : ADVISORY.",
        "Wären Coliforme gefunden worden, wäre es BOIL_WATER_ADVISORY gewesen. So: ADVISORY.",
        "Wenn Coliforme gefunden worden wären, wäre es BOIL_WATER_ADVISORY gewesen. So: ADVISORY.",
        "Si hubiera habido coliformes, habría sido BOIL_WATER_ADVISORY. Tal como está: ADVISORY.",
        "Si se hubieran encontrado coliformes, hubiera sido BOIL_WATER_ADVISORY. Ahora: ADVISORY.",
        "Se tivessem encontrado coliformes, teria sido BOIL_WATER_ADVISORY. Assim: ADVISORY.",
        "Se ci fossero stati coliformi, sarebbe stato BOIL_WATER_ADVISORY. Così: ADVISORY.",
        "Als er coliformen waren gevonden, was het BOIL_WATER_ADVISORY geweest. Nu: ADVISORY.",
        "Hadden we coliformen gevonden, dan was het BOIL_WATER_ADVISORY geweest. Nu: ADVISORY.",
    ],
)
def test_a_past_counterfactual_is_no_verdict(answer: str) -> None:
    outcome, reason = label(answer, "ADVISORY", WATER)
    assert outcome is P, reason


@pytest.mark.parametrize(
    ("answer", "expected", "labels"),
    [
        ("It was BOIL_WATER_ADVISORY: coliforms were found.", "BOIL_WATER_ADVISORY", WATER),
        ("Had to be BOIL_WATER_ADVISORY: coliforms were found.", "BOIL_WATER_ADVISORY", WATER),
        ("C'était BOIL_WATER_ADVISORY : on a trouvé des coliformes.", "BOIL_WATER_ADVISORY", WATER),
        ("Es war BOIL_WATER_ADVISORY, es wurden Coliforme gefunden.", "BOIL_WATER_ADVISORY", WATER),
        ("Fue BOIL_WATER_ADVISORY: se encontraron coliformes.", "BOIL_WATER_ADVISORY", WATER),
        ("Foi BOIL_WATER_ADVISORY: encontraram-se coliformes.", "BOIL_WATER_ADVISORY", WATER),
        ("È stato BOIL_WATER_ADVISORY: sono stati trovati coliformi.", "BOIL_WATER_ADVISORY", WATER),
        ("Het was BOIL_WATER_ADVISORY, er zijn coliformen gevonden.", "BOIL_WATER_ADVISORY", WATER),
        ("The afternoon step up to HIGH has kicked in: HIGH.", "HIGH", DANGER),
        ("Die Erhöhung auf HIGH ist seit Mittag in Kraft.", "HIGH", DANGER),
        ("Il passaggio a HIGH è scattato a mezzogiorno.", "HIGH", DANGER),
        ("Gefahrenstufe: HIGH. Der Wind hat über Nacht zugelegt.", "HIGH", DANGER),
        ("Legt man die Kriterien des Berichts an, ist es HIGH.", "HIGH", DANGER),
        # a caveat, not an event: the verdict stands
        ("Si le capteur est fiable, la bande est HIGH.", "HIGH", DANGER),
    ],
)
def test_the_label_given_plainly_still_counts(answer: str, expected: str, labels: list[str]) -> None:
    outcome, reason = label(answer, expected, labels)
    assert outcome is P, reason
