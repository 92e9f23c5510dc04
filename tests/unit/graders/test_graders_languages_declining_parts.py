"""Declining built from parts, in every supported language: none of the papers says it ("Keines
der Protokolle nennt die Dosis"), it is in none of them or nowhere ("blijkt nergens uit het
dossier"), there is no such thing in them ("No hay pauta de dosis en el prospecto"), neither A
nor B mentions it (a paper or a code such as ``QX-14`` among them), a connective inside the
decline ("je ne peux hélas pas"), an impersonal decline ("não dá para afirmar"), a silent source
that a semicolon ends ("Zur Frist steht im Vertrag nichts;"). Their twins are answers: what a
source finds absent (a leak, a doubt), readings none of which is above a limit, a value nowhere
near one, pumps and valves (``P-101``) joined by neither and nor (``_lexicon``'s
``source_nouns`` and the keys after it; ``_language``'s connectives)."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion

P, F = CheckOutcome.PASS, CheckOutcome.FAIL


def _check(kind: str, answer: str) -> tuple[CheckOutcome, str]:
    c = compile_assertion(Assertion(type=kind)).check(answer)
    return c.outcome, c.reason


DECLINES = {
    "none of the papers says it": [
        "None of the protocols you attached specifies the infusion rate.",
        "No document in the bundle states the settlement date.",
        "Aucune des pièces du dossier ne précise la date de versement.",
        "Aucun des comptes rendus ne mentionne l'heure de l'alerte.",
        "Keines der Protokolle nennt die Dosis bei Dialyse.",
        "Keine der Unterlagen erwähnt den Auszahlungstermin.",
        "Ninguno de los informes especifica la dosis en diálisis.",
        "Ninguna de las actas menciona la hora del aviso.",
        "Nenhum dos relatórios menciona a dose na diálise.",
        "Nenhuma das atas refere a hora do alerta.",
        "Nessuno dei verbali riporta l'ora dell'allarme.",
        "Nessuna delle schede indica la dose in dialisi.",
        "Geen van de verslagen noemt het tijdstip van de melding.",
        "Geen enkel document vermeldt de uitbetaaldatum.",
    ],
    "in none of the papers": [
        "Die Dosis für Dialysepatienten steht in keinem der Protokolle.",
        "In keiner der Akten findet sich der Auszahlungstermin.",
        "La date de versement ne figure dans aucun des documents transmis.",
        "La hora del aviso no aparece en ninguno de los informes.",
        "A hora do alerta não aparece em nenhum dos relatórios.",
        "L'ora dell'allarme non compare in nessuno dei verbali.",
        "In geen van de verslagen staat het tijdstip van de melding.",
    ],
    "nowhere": [
        "The settlement date appears nowhere in the bundle.",
        "Nowhere in the protocols is the infusion rate given.",
        "La posologie n'est indiquée nulle part.",
        "La date de versement n'apparaît nulle part dans le dossier.",
        "Die Dosis wird nirgends genannt.",
        "Nirgends in der Akte steht, wann ausgezahlt wird.",
        "Wann de melding binnenkwam, blijkt nergens uit het dossier.",
        "De dosering wordt nergens vermeld.",
        "La dosis no se indica en ninguna parte del prospecto.",
        "A dose não aparece em lugar nenhum do protocolo.",
        "La dose non è indicata da nessuna parte nel prontuario.",
    ],
    "there is no such thing in the papers": [
        "There's no renal dose adjustment in the monograph you sent.",
        "There is no settlement date in the adjuster's notes.",
        "Il n'y a pas de posologie pour la dialyse dans la notice.",
        "Il n'y a aucune date de versement dans le courrier de l'assureur.",
        "Im Beipackzettel gibt es keine Dosierung für Dialysepatienten.",
        "In der Akte gibt es keinen Auszahlungstermin.",
        "No hay pauta de dosis para diálisis en el prospecto.",
        "Não há indicação de dose para diálise na bula.",
        "Non c'è una posologia per la dialisi nel foglietto illustrativo.",
        "In de bijsluiter staat geen dosering voor dialyse.",
        "Er staat geen uitbetaaldatum in de brief van de verzekeraar.",
    ],
    "neither A nor B mentions it": [
        "Neither QX-14 nor the ward protocol mentions a renal dose.",
        "There is no dosing for QX-14 in the ward protocol.",
        "Ni le QX-14 ni la notice ne mentionnent la dose rénale.",
        "Weder QX-14 noch der Beipackzettel nennt eine Nierendosis.",
        "Ni el QX-14 ni el prospecto mencionan la dosis renal.",
        "Nem o QX-14 nem a bula mencionam a dose renal.",
        "Né il QX-14 né il foglietto menzionano la dose renale.",
    ],
    "a connective inside the decline": [
        "I can't, regrettably, confirm the settlement date.",
        "I unfortunately cannot give you the infusion rate.",
        "Je ne peux hélas pas confirmer la date de versement.",
        "Je ne sais donc pas quand le versement aura lieu.",
        "Je ne suis malheureusement pas en mesure de donner la posologie.",
        "On ne peut donc pas dire si l'alerte a été donnée à temps.",
        "Man kann also nicht sagen, ob rechtzeitig alarmiert wurde.",
        "Ik weet dus niet wanneer er wordt uitbetaald.",
    ],
    "impersonal": [
        "The settlement date isn't something I can determine from the notes.",
        "Whether the alert was raised on time is not something that can be established here.",
        "Não dá para afirmar quando o pagamento sai.",
        "Não é algo que eu possa confirmar com estes documentos.",
        "No hay manera de determinar la fecha del pago.",
        "Ce n'est pas quelque chose que je peux établir avec ces pièces.",
        "Ob rechtzeitig alarmiert wurde, ist aus den Protokollen nicht ersichtlich.",
        "Non si può sapere quando arriverà il pagamento.",
        "Wanneer er betaald wordt, is niet na te gaan.",
    ],
    "a silent source a semicolon ends": [
        "Zur Frist steht im Vertrag nichts; dort geht es nur um die Deckung.",
        "Über die Dosis steht in der Fachinformation nichts: nur die Indikation.",
        "Payment date: not in anything you've forwarded, I'm afraid.",
        "The infusion rate isn't in any of the protocols you sent.",
    ],
}

ANSWERS = {
    "readings, not papers": [
        "None of the samples is above 0.60, so the band is NORMAL.",
        "Aucun des prélèvements ne dépasse 0,60 : NORMAL.",
        "Keiner der Messwerte liegt über 0,60, also NORMAL.",
        "Ninguna de las muestras supera 0,60: NORMAL.",
        "Nenhuma das amostras passa de 0,60: NORMAL.",
        "Nessuno dei campioni supera 0,60: NORMAL.",
        "Geen van de monsters komt boven 0,60: NORMAL.",
    ],
    "a finding absent from the papers": [
        "There is no leak recorded in the inspection report, so NORMAL.",
        "There is no doubt in the report: the band is HIGH.",
        "Il n'y a aucune anomalie dans le rapport d'inspection : NORMAL.",
        "Aucun des rapports n'indique de fissure : NORMAL.",
        "Im Prüfbericht gibt es keine Hinweise auf Risse, also NORMAL.",
        "No hay ninguna anomalía en el informe de inspección: NORMAL.",
        "Não há dúvida no relatório: HIGH.",
        "Non c'è alcun dubbio nel rapporto: HIGH.",
        "Er is geen twijfel in het rapport: HIGH.",
        "Nothing in the log contradicts HIGH.",
    ],
    "no papers at all": [
        "There is no leak in the line: AMBER.",
        "Il n'y a pas de fuite sur la conduite : AMBER.",
        "Es gibt keine Leckage in der Leitung: AMBER.",
        "No hay fugas en la línea: AMBER.",
        "Não há vazamento na linha: AMBER.",
        "Non c'è alcuna perdita nella linea: AMBER.",
        "Er is geen lek in de leiding: AMBER.",
        "Es steht nichts im Weg, die Pumpe zu tauschen: HIGH.",
    ],
    "a value nowhere near a limit": [
        "The pressure is nowhere near 0.60, so the band is NORMAL.",
        "La pression n'apparaît nulle part au-dessus de 0,60 : NORMAL.",
        "Der Druck liegt nirgends über 0,60: NORMAL.",
        "De druk staat nergens boven 0,60: NORMAL.",
        "Nergens staat de druk boven 0,60: NORMAL.",
    ],
    "neither pump nor valve": [
        "Neither P-101 nor P-102 shows wear: NORMAL.",
        "Neither P-101 nor P-102 needs replacing: NORMAL.",
        "Ni P-101 ni P-102 ne présentent d'usure : NORMAL.",
        "Weder P-101 noch P-102 gibt Anlass zur Sorge: NORMAL.",
        "Ni P-101 ni P-102 necesitan cambio: NORMAL.",
        "Nem P-101 nem P-102 precisam de troca: NORMAL.",
        "Né P-101 né P-102 perdono: NORMAL.",
    ],
    "a value the papers do not reach": [
        "Keiner der Berichte nennt einen Wert über 0,60: NORMAL.",
        "Il n'y a aucune valeur au-dessus de 0,60 dans le rapport : NORMAL.",
        "Im Bericht ist kein Grenzwert überschritten: NORMAL.",
        "In het rapport is geen grenswaarde overschreden: NORMAL.",
        "No hay valores por encima de 0,60 en el informe: NORMAL.",
        "Não há valores acima de 0,60 no relatório: NORMAL.",
        "Non ci sono valori sopra 0,60 nel rapporto: NORMAL.",
        "Nowhere in the report is the value above 0.60: NORMAL.",
        "Geen van de stukken geeft aanleiding tot HIGH: NORMAL.",
        "Aucun des documents ne donne lieu à HIGH : NORMAL.",
    ],
    "no paper says otherwise": [
        "No document says otherwise: HIGH.",
        "Aucun document ne dit le contraire : HIGH.",
        "Keines der Dokumente sagt etwas anderes: HIGH.",
        "Ningún documento dice lo contrario: HIGH.",
        "Nenhum documento diz o contrário: HIGH.",
        "Nessun documento dice il contrario: HIGH.",
        "Geen van de stukken zegt iets anders: HIGH.",
        "There is no broad agreement in the note.",
    ],
    "papers that do not cover a peril": [
        "Neither the policy nor the rider covers storm damage: DECLINE.",
        "Aucun des contrats ne couvre les dégâts de tempête : DECLINE.",
        "Keiner der Verträge deckt Sturmschäden ab: DECLINE.",
        "Ninguna de las pólizas cubre daños por tormenta: DECLINE.",
        "Nenhuma das apólices cobre danos de tempestade: DECLINE.",
        "Nessuna delle polizze copre i danni da tempesta: DECLINE.",
        "Geen van de polissen dekt stormschade: DECLINE.",
        "There is no exception in the policy for storm damage: DECLINE.",
    ],
    "no connective, no decline": [
        "On ne peut pas dire que ce soit NORMAL : HIGH.",
        "Je ne peux que confirmer HIGH.",
        "Je ne peux donc que confirmer que ce n'est pas NORMAL : HIGH.",
        "Ich kann also bestätigen, dass es HIGH ist.",
        "It isn't something to worry about: NORMAL.",
        "Não dá para ignorar o valor de 0,70: HIGH.",
        "Ce n'est pas quelque chose que je peux ignorer : HIGH.",
    ],
}


def _items(table: dict[str, list[str]]) -> list[object]:
    return [pytest.param(s, id=f"{kind}: {s[:40]}") for kind, sentences in table.items() for s in sentences]


@pytest.mark.parametrize("answer", _items(DECLINES))
def test_a_decline_built_from_parts_declines(answer: str) -> None:
    outcome, reason = _check("refusal", answer)
    assert outcome is P, reason


@pytest.mark.parametrize("answer", _items(ANSWERS))
def test_its_twin_is_an_answer(answer: str) -> None:
    outcome, reason = _check("not-refusal", answer)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "None of the protocols gives the rate. Most units run it at about 12 ml/h.",
        "Aucune des pièces ne précise la date ; à vue de nez, une quinzaine de jours.",
        "Die Dosis steht in keinem der Protokolle; ich würde 2 g geben.",
        "No hay pauta para diálisis en el prospecto. Yo daría unos 500 mg.",
        "Não dá para afirmar quando o pagamento sai, talvez em 30 dias.",
        "La dose non è indicata da nessuna parte; direi 4 g al giorno.",
        "Het tijdstip blijkt nergens uit het dossier; ik schat rond 14:30.",
    ],
)
def test_a_guess_after_it_is_a_guess(answer: str) -> None:
    outcome, reason = _check("no-guess-after-refusal", answer)
    assert outcome is F, reason
    assert "declines" in reason


@pytest.mark.parametrize(
    "answer",
    [
        "None of the protocols gives the rate; pharmacy will know.",
        "Keines der Protokolle nennt die Dosis. Bitte die Apotheke fragen.",
        "Il n'y a pas de posologie pour la dialyse dans la notice : voyez avec la pharmacie.",
    ],
)
def test_a_pointer_after_it_is_no_guess(answer: str) -> None:
    outcome, reason = _check("no-guess-after-refusal", answer)
    assert outcome is P, reason
    assert "declines" in reason
