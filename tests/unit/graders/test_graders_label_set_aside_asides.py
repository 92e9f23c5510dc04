"""Another band set aside beside the answer's own, in every language: judged too much with a
phrase of a preposition between (``Un DETAIN per una carta su 12 sarebbe troppo``), refused with
an aside before "rather" (``No lo llamaría X, como puso la planta; antes Y``), conceded then
rejected (``fits X too, but that wouldn't explain ...``), confined to another scope (``X ne vaut
que pour ...``) or named in a past counterfactual (``on aurait pu discuter d'un X``). The answer's
own band is the verdict. Twins: the same sentences that do not set the band aside leave it named
(or, where the rules cannot read the mood, undetermined), never a pass."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

PORT = ["PASS_WITH_WARNING", "DETAIN", "RELEASE"]
TRANSFUSION = ["TACO", "ALLERGIC", "FEBRILE_NONHEMOLYTIC"]
INSPECTION = ["OBSERVATION", "RECTIFY_BEFORE_DEPARTURE", "DETENTION"]


@pytest.mark.parametrize(
    "answer",
    [
        "Giudizio: PASS_WITH_WARNING. Un DETAIN per una carta su 12 sarebbe troppo.",
        "Verdict: PASS_WITH_WARNING. A DETAIN for one chart out of 12 would be too much.",
        "Avis : PASS_WITH_WARNING. Un DETAIN pour une seule carte sur 12 serait excessif.",
        "Urteil: PASS_WITH_WARNING. Ein DETAIN wegen einer einzigen Karte von 12 wäre übertrieben.",
        "Dictamen: PASS_WITH_WARNING. Un DETAIN por una sola carta de 12 sería excesivo.",
        "Parecer: PASS_WITH_WARNING. Um DETAIN por uma carta em 12 seria demasiado.",
        "Oordeel: PASS_WITH_WARNING. Een DETAIN voor één kaart op de 12 zou te zwaar zijn.",
    ],
)
def test_a_band_too_much_for_a_phrase_between_is_denied(answer: str) -> None:
    outcome, reason = label(answer, "PASS_WITH_WARNING", PORT)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Giudizio: PASS_WITH_WARNING. Un DETAIN per una carta su 12 sarebbe giusto.",
        "Verdict: PASS_WITH_WARNING. A DETAIN for one chart out of 12 would be fair.",
        "Avis : PASS_WITH_WARNING. Un DETAIN pour une seule carte sur 12 serait justifié.",
        "Urteil: PASS_WITH_WARNING. Ein DETAIN wegen einer einzigen Karte von 12 wäre vertretbar.",
        "Dictamen: PASS_WITH_WARNING. Un DETAIN por una sola carta de 12 sería razonable.",
        "Parecer: PASS_WITH_WARNING. Um DETAIN por uma carta em 12 seria razoável.",
        "Oordeel: PASS_WITH_WARNING. Een DETAIN voor één kaart op de 12 zou terecht zijn.",
    ],
)
def test_a_band_judged_fair_is_no_pass(answer: str) -> None:
    outcome, reason = label(answer, "PASS_WITH_WARNING", PORT)
    assert outcome is not CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Yo no lo llamaría ALLERGIC, como puso la planta; antes TACO.",
        "I wouldn't call it ALLERGIC, as the ward did; rather TACO.",
        "Je ne l'appellerais pas ALLERGIC, comme l'a noté le service ; plutôt TACO.",
        "Ich würde es nicht ALLERGIC nennen, wie die Station schrieb; eher TACO.",
        "Eu não lhe chamaria ALLERGIC, como pôs a enfermaria; antes TACO.",
        "Non lo chiamerei ALLERGIC, come ha scritto il reparto; piuttosto TACO.",
        "Ik zou het geen ALLERGIC noemen, zoals de afdeling deed; eerder TACO.",
    ],
)
def test_rather_after_a_refusal_and_an_aside_names_the_band_after_it(answer: str) -> None:
    outcome, reason = label(answer, "TACO", TRANSFUSION)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Yo lo llamaría ALLERGIC, como puso la planta; antes TACO.",
        "Eu chamaria-lhe ALLERGIC, como pôs a enfermaria; antes TACO.",
        "Ik zou het ALLERGIC noemen, zoals de afdeling deed; eerder TACO.",
        "I'd call it ALLERGIC, as the ward did; TACO too.",
    ],
)
def test_the_same_words_after_no_refusal_do_not_name_the_later_band_alone(answer: str) -> None:
    outcome, reason = label(answer, "TACO", TRANSFUSION)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Verdict: TACO (confidence: moderate - the fever fits FEBRILE_NONHEMOLYTIC too, but that wouldn't"
        " explain the oedema)",
        "Verdict : TACO (confiance moyenne - la fièvre irait aussi avec FEBRILE_NONHEMOLYTIC, mais ça"
        " n'expliquerait pas l'œdème)",
        "Urteil: TACO (mittlere Sicherheit - das Fieber passt auch zu FEBRILE_NONHEMOLYTIC, aber das erklärt"
        " das Ödem nicht)",
        "Veredicto: TACO (confianza media: la fiebre encaja también con FEBRILE_NONHEMOLYTIC, pero eso no"
        " explicaría el edema)",
        "Veredito: TACO (confiança moderada - a febre também é compatível com FEBRILE_NONHEMOLYTIC, mas isso"
        " não explicaria o edema)",
        "Esito: TACO (fiducia media - la febbre si accorderebbe anche con FEBRILE_NONHEMOLYTIC, ma questo non"
        " spiegherebbe l'edema)",
        "Oordeel: TACO (matige zekerheid - de koorts past ook bij FEBRILE_NONHEMOLYTIC, maar dat verklaart"
        " het oedeem niet)",
    ],
)
def test_a_band_conceded_then_rejected_is_denied(answer: str) -> None:
    outcome, reason = label(answer, "TACO", TRANSFUSION)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Verdict: TACO (confidence: moderate - the fever fits FEBRILE_NONHEMOLYTIC too, and that explains"
        " the chills)",
        "Verdict : TACO (confiance moyenne - la fièvre va aussi avec FEBRILE_NONHEMOLYTIC, et ça explique"
        " les frissons)",
        "Urteil: TACO (mittlere Sicherheit - das Fieber passt auch zu FEBRILE_NONHEMOLYTIC, und das erklärt"
        " den Schüttelfrost)",
        "Veredicto: TACO (confianza media: la fiebre encaja también con FEBRILE_NONHEMOLYTIC, pero eso"
        " explica los escalofríos)",
        "Veredito: TACO (confiança moderada - a febre também é compatível com FEBRILE_NONHEMOLYTIC, e isso"
        " explica os arrepios)",
        "Esito: TACO (fiducia media - la febbre si accorda anche con FEBRILE_NONHEMOLYTIC, e questo spiega"
        " i brividi)",
        "Oordeel: TACO (matige zekerheid - de koorts past ook bij FEBRILE_NONHEMOLYTIC, en dat verklaart de"
        " rillingen)",
    ],
)
def test_a_band_conceded_and_kept_is_named(answer: str) -> None:
    outcome, reason = label(answer, "TACO", TRANSFUSION)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Avis : OBSERVATION. Le RECTIFY_BEFORE_DEPARTURE ne vaut que pour le registre des hydrocarbures,"
        " pas pour les volets coupe-feu.",
        "Finding: OBSERVATION. RECTIFY_BEFORE_DEPARTURE only applies to the oil record book, not to the fire"
        " dampers.",
        "Befund: OBSERVATION. RECTIFY_BEFORE_DEPARTURE gilt nur für das Öltagebuch, nicht für die"
        " Brandklappen.",
        "Resultado: OBSERVATION. El RECTIFY_BEFORE_DEPARTURE solo vale para el libro de hidrocarburos, no"
        " para las compuertas cortafuegos.",
        "Resultado: OBSERVATION. O RECTIFY_BEFORE_DEPARTURE só vale para o livro de registo de"
        " hidrocarbonetos, não para os registos corta-fogo.",
        "Esito: OBSERVATION. Il RECTIFY_BEFORE_DEPARTURE vale solo per il registro idrocarburi, non per le"
        " serrande tagliafuoco.",
        "Bevinding: OBSERVATION. RECTIFY_BEFORE_DEPARTURE geldt alleen voor het oliejournaal, niet voor de"
        " brandkleppen.",
    ],
)
def test_a_band_confined_to_another_scope_is_its_rule(answer: str) -> None:
    outcome, reason = label(answer, "OBSERVATION", INSPECTION)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Avis : OBSERVATION. Le RECTIFY_BEFORE_DEPARTURE vaut pour le registre des hydrocarbures et pour"
        " les volets coupe-feu.",
        "Finding: OBSERVATION. RECTIFY_BEFORE_DEPARTURE goes for the oil record book and the fire dampers"
        " alike.",
        "Befund: OBSERVATION. RECTIFY_BEFORE_DEPARTURE ergibt sich aus dem Öltagebuch und den Brandklappen.",
        "Resultado: OBSERVATION. El RECTIFY_BEFORE_DEPARTURE vale para el libro de hidrocarburos y para las"
        " compuertas cortafuegos.",
        "Resultado: OBSERVATION. O RECTIFY_BEFORE_DEPARTURE vale para o livro de registo e para os registos"
        " corta-fogo.",
        "Esito: OBSERVATION. Il RECTIFY_BEFORE_DEPARTURE vale per il registro idrocarburi e per le serrande"
        " tagliafuoco.",
        "Bevinding: OBSERVATION. RECTIFY_BEFORE_DEPARTURE volgt uit het oliejournaal en de brandkleppen.",
    ],
)
def test_a_band_for_every_scope_is_named(answer: str) -> None:
    outcome, reason = label(answer, "OBSERVATION", INSPECTION)
    assert outcome is CheckOutcome.FAIL, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Avis : OBSERVATION. NB : si le pavillon avait répondu à temps, on aurait pu discuter d'un"
        " RECTIFY_BEFORE_DEPARTURE.",
        "Finding: OBSERVATION. NB: had the flag state replied in time, we could have discussed a"
        " RECTIFY_BEFORE_DEPARTURE.",
        "Befund: OBSERVATION. NB: Hätte der Flaggenstaat rechtzeitig geantwortet, hätte man ein"
        " RECTIFY_BEFORE_DEPARTURE besprechen können.",
        "Resultado: OBSERVATION. NB: si el pabellón hubiera contestado a tiempo, se habría podido plantear"
        " un RECTIFY_BEFORE_DEPARTURE.",
        "Resultado: OBSERVATION. NB: se a bandeira tivesse respondido a tempo, poderia ter-se discutido um"
        " RECTIFY_BEFORE_DEPARTURE.",
        "Esito: OBSERVATION. NB: se la bandiera avesse risposto in tempo, si sarebbe potuto discutere di un"
        " RECTIFY_BEFORE_DEPARTURE.",
        "Bevinding: OBSERVATION. NB: als de vlaggenstaat op tijd had geantwoord, had een"
        " RECTIFY_BEFORE_DEPARTURE besproken kunnen worden.",
    ],
)
def test_a_band_in_a_past_counterfactual_is_hypothetical(answer: str) -> None:
    outcome, reason = label(answer, "OBSERVATION", INSPECTION)
    assert outcome is CheckOutcome.PASS, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Avis : OBSERVATION. NB : le pavillon a répondu à temps, on a discuté d'un RECTIFY_BEFORE_DEPARTURE.",
        "Finding: OBSERVATION. NB: the flag state replied in time, and we discussed a"
        " RECTIFY_BEFORE_DEPARTURE.",
        "Befund: OBSERVATION. NB: Der Flaggenstaat hat rechtzeitig geantwortet, wir haben ein"
        " RECTIFY_BEFORE_DEPARTURE besprochen.",
        "Resultado: OBSERVATION. NB: el pabellón contestó a tiempo y se planteó un RECTIFY_BEFORE_DEPARTURE.",
        "Resultado: OBSERVATION. NB: a bandeira respondeu a tempo e discutiu-se um RECTIFY_BEFORE_DEPARTURE.",
        "Esito: OBSERVATION. NB: la bandiera ha risposto in tempo e si è discusso di un"
        " RECTIFY_BEFORE_DEPARTURE.",
        "Bevinding: OBSERVATION. NB: de vlaggenstaat antwoordde op tijd en er is een"
        " RECTIFY_BEFORE_DEPARTURE besproken.",
    ],
)
def test_the_same_band_discussed_in_fact_is_named(answer: str) -> None:
    outcome, reason = label(answer, "OBSERVATION", INSPECTION)
    assert outcome is CheckOutcome.FAIL, reason
