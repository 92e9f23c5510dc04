"""A band set aside before the answer's own, with words between the cue and the label, in every
language: another party's wish (``hätten ... gern``, ``voudraient``, ``zouden ... graag``), an
earlier placement by "us" (``Eerst stond hij bij ons op``), a requirement after it that refers
back by a pronoun against a contrast (``aber dafür bräuchte es``, ``mais pour cela il faudrait``),
and a verb-first passive condition on an event to come (``Wird der Grenzwert überschritten, ist
es X``). Twins: the answer's own wish, a placement now, no requirement and a past fact leave both
bands named."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

EXCEEDANCE = ["MINOR_EXCEEDANCE", "MAJOR_EXCEEDANCE", "REPORTING_FAILURE"]


def _minor(answer: str) -> CheckOutcome:
    return label(answer, "MINOR_EXCEEDANCE", EXCEEDANCE)[0]


@pytest.mark.parametrize(
    "answer",
    [
        "The anglers would like it logged as MAJOR_EXCEEDANCE. We see MINOR_EXCEEDANCE: 12 % over the"
        " daily limit.",
        "Les pêcheurs voudraient qu'on le classe en MAJOR_EXCEEDANCE. Nous retenons MINOR_EXCEEDANCE :"
        " 12 % au-dessus de la limite journalière.",
        "Die Angler hätten das Ganze gern als MAJOR_EXCEEDANCE. Wir sehen MINOR_EXCEEDANCE, 12 % über dem"
        " Tagesgrenzwert.",
        "Los pescadores quisieran que lo pusiéramos como MAJOR_EXCEEDANCE. Nosotros lo dejamos en"
        " MINOR_EXCEEDANCE: un 12 % por encima del límite diario.",
        "Os pescadores gostariam de ver isto classificado como MAJOR_EXCEEDANCE. Para nós é"
        " MINOR_EXCEEDANCE: 12 % acima do limite diário.",
        "I pescatori vorrebbero vederlo classificato come MAJOR_EXCEEDANCE. Per noi resta"
        " MINOR_EXCEEDANCE: 12 % sopra il limite giornaliero.",
        "De vissers zouden het graag als MAJOR_EXCEEDANCE zien. Wij houden het op MINOR_EXCEEDANCE: 12 %"
        " boven de daglimiet.",
    ],
)
def test_a_band_another_party_wishes_for_is_not_the_verdict(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "We would like it logged as MAJOR_EXCEEDANCE. We see MINOR_EXCEEDANCE: 12 % over the daily limit.",
        "Nous voudrions qu'on le classe en MAJOR_EXCEEDANCE. Nous retenons MINOR_EXCEEDANCE : 12 %"
        " au-dessus de la limite journalière.",
        "Wir hätten das Ganze gern als MAJOR_EXCEEDANCE. Wir sehen MINOR_EXCEEDANCE, 12 % über dem"
        " Tagesgrenzwert.",
        "Nosotros quisiéramos ponerlo como MAJOR_EXCEEDANCE. Nosotros lo dejamos en MINOR_EXCEEDANCE: un"
        " 12 % por encima del límite diario.",
        "Os pescadores classificaram isto como MAJOR_EXCEEDANCE. Para nós é MINOR_EXCEEDANCE: 12 % acima"
        " do limite diário.",
        "Noi vorremmo vederlo classificato come MAJOR_EXCEEDANCE. Per noi resta MINOR_EXCEEDANCE: 12 %"
        " sopra il limite giornaliero.",
        "Wij zouden het graag als MAJOR_EXCEEDANCE zien. Wij houden het op MINOR_EXCEEDANCE: 12 % boven de"
        " daglimiet.",
    ],
)
def test_the_answers_own_wish_leaves_both_named(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Eerst stond hij bij ons op REPORTING_FAILURE, omdat het monster ontbrak; het is later alsnog"
        " aangeleverd. Dus MINOR_EXCEEDANCE.",
        "Zuerst stand er bei uns auf REPORTING_FAILURE, weil die Probe fehlte; sie wurde aber"
        " nachgereicht. Also MINOR_EXCEEDANCE.",
        "At first we had it in our log as REPORTING_FAILURE because the sample was missing; it turned up"
        " later. So MINOR_EXCEEDANCE.",
        "Au départ, on l'avait mis chez nous en REPORTING_FAILURE, l'échantillon manquait ; il est arrivé"
        " depuis. Donc MINOR_EXCEEDANCE.",
        "Al principio lo teníamos en nuestro registro como REPORTING_FAILURE porque faltaba la muestra;"
        " llegó después. Así que MINOR_EXCEEDANCE.",
        "Ao princípio tínhamo-lo no nosso registo como REPORTING_FAILURE, porque faltava a amostra;"
        " chegou depois. Portanto MINOR_EXCEEDANCE.",
        "All'inizio da noi era in REPORTING_FAILURE perché mancava il campione; poi è arrivato. Quindi"
        " MINOR_EXCEEDANCE.",
    ],
)
def test_an_earlier_placement_by_us_with_words_between_is_past(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Nu staat hij bij ons op REPORTING_FAILURE, omdat het monster ontbrak. Dus MINOR_EXCEEDANCE.",
        "Jetzt steht er bei uns auf REPORTING_FAILURE, weil die Probe fehlte. Also MINOR_EXCEEDANCE.",
        "Right now we have it in our log as REPORTING_FAILURE because the sample is missing. So"
        " MINOR_EXCEEDANCE.",
        "Chez nous, il est en REPORTING_FAILURE, l'échantillon manque. Donc MINOR_EXCEEDANCE.",
        "En nuestro registro figura como REPORTING_FAILURE porque falta la muestra. Así que"
        " MINOR_EXCEEDANCE.",
        "No nosso registo está como REPORTING_FAILURE, porque falta a amostra. Portanto MINOR_EXCEEDANCE.",
        "Da noi è in REPORTING_FAILURE perché manca il campione. Quindi MINOR_EXCEEDANCE.",
    ],
)
def test_a_placement_now_leaves_both_named(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Result: MINOR_EXCEEDANCE. MAJOR_EXCEEDANCE came up too, but for that you'd need more than 20 %"
        " over the limit.",
        "Verdict : MINOR_EXCEEDANCE. On a évoqué un MAJOR_EXCEEDANCE, mais pour cela il faudrait plus de"
        " 20 % de dépassement.",
        "Ergebnis: MINOR_EXCEEDANCE. Auch MAJOR_EXCEEDANCE wurde erwogen, dafür bräuchte es aber mehr als"
        " 20 % über dem Grenzwert.",
        "Dictamen: MINOR_EXCEEDANCE. Se habló de MAJOR_EXCEEDANCE, pero para eso haría falta superar el"
        " límite en más de un 20 %.",
        "Parecer: MINOR_EXCEEDANCE. Falou-se em MAJOR_EXCEEDANCE, mas para isso seria preciso ultrapassar"
        " o limite em mais de 20 %.",
        "Esito: MINOR_EXCEEDANCE. Si è parlato di MAJOR_EXCEEDANCE, ma per quello ci vorrebbe un"
        " superamento oltre il 20 %.",
        "Oordeel: MINOR_EXCEEDANCE. MAJOR_EXCEEDANCE kwam ter sprake, maar daarvoor zou de overschrijding"
        " boven 20 % moeten liggen.",
    ],
)
def test_a_requirement_referring_back_by_a_pronoun_is_the_bands_rule(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Result: MINOR_EXCEEDANCE. MAJOR_EXCEEDANCE came up too, and for that there are good reasons.",
        "Verdict : MINOR_EXCEEDANCE. On a retenu aussi un MAJOR_EXCEEDANCE, et pour cela il y a de bonnes"
        " raisons.",
        "Ergebnis: MINOR_EXCEEDANCE. Auch MAJOR_EXCEEDANCE passt, dafür spricht der Wert von 22 %.",
        "Dictamen: MINOR_EXCEEDANCE. También es MAJOR_EXCEEDANCE, y para eso basta el 22 %.",
        "Parecer: MINOR_EXCEEDANCE. Também é MAJOR_EXCEEDANCE, e para isso chegam os 22 %.",
        "Esito: MINOR_EXCEEDANCE. È anche MAJOR_EXCEEDANCE, e per quello basta il 22 %.",
        "Oordeel: MINOR_EXCEEDANCE. Het is ook MAJOR_EXCEEDANCE, en daarvoor is 22 % genoeg.",
    ],
)
def test_a_pronoun_with_no_requirement_leaves_both_named(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Wird der Tagesgrenzwert im August erneut überschritten, ist es MAJOR_EXCEEDANCE. Für Juli bleibt"
        " es bei MINOR_EXCEEDANCE.",
        "Wordt de daggrens in augustus opnieuw overschreden, is het MAJOR_EXCEEDANCE. Voor juli blijft het"
        " MINOR_EXCEEDANCE.",
        "Should the daily limit be breached again in August, it's MAJOR_EXCEEDANCE. For July it stays"
        " MINOR_EXCEEDANCE.",
        "Si la limite journalière est à nouveau dépassée en août, c'est MAJOR_EXCEEDANCE. Pour juillet, on"
        " reste en MINOR_EXCEEDANCE.",
        "Si en agosto se vuelve a superar el límite diario, es MAJOR_EXCEEDANCE. Para julio se queda en"
        " MINOR_EXCEEDANCE.",
        "Se o limite diário voltar a ser ultrapassado em agosto, é MAJOR_EXCEEDANCE. Para julho fica"
        " MINOR_EXCEEDANCE.",
        "Se ad agosto il limite giornaliero viene superato di nuovo, è MAJOR_EXCEEDANCE. Per luglio resta"
        " MINOR_EXCEEDANCE.",
    ],
)
def test_a_passive_condition_on_an_event_to_come_is_a_rule(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Der Tagesgrenzwert wurde im August erneut überschritten, es ist MAJOR_EXCEEDANCE. Für Juli bleibt"
        " es bei MINOR_EXCEEDANCE.",
        "De daggrens werd in augustus opnieuw overschreden, het is MAJOR_EXCEEDANCE. Voor juli blijft het"
        " MINOR_EXCEEDANCE.",
        "The daily limit was breached again in August, it's MAJOR_EXCEEDANCE. For July it stays"
        " MINOR_EXCEEDANCE.",
        "La limite journalière a de nouveau été dépassée en août, c'est MAJOR_EXCEEDANCE. Pour juillet, on"
        " reste en MINOR_EXCEEDANCE.",
        "En agosto se volvió a superar el límite diario, es MAJOR_EXCEEDANCE. Para julio se queda en"
        " MINOR_EXCEEDANCE.",
        "Em agosto o limite diário voltou a ser ultrapassado, é MAJOR_EXCEEDANCE. Para julho fica"
        " MINOR_EXCEEDANCE.",
        "Ad agosto il limite giornaliero è stato superato di nuovo, è MAJOR_EXCEEDANCE. Per luglio resta"
        " MINOR_EXCEEDANCE.",
    ],
)
def test_the_same_event_as_a_past_fact_leaves_both_named(answer: str) -> None:
    assert _minor(answer) is CheckOutcome.FAIL
