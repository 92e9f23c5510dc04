"""Declines that name what is lacking, not the speaker's inability (issue 25, sealed sets 21a/21b).

Held-out examiners found four forms the phrases of declining missed in every language: the
speaker without the thing ("I have no WLL for SP-2", "Für SP-2 liegt mir keine Tragfähigkeit
vor"), a paper that sets or fixes none ("None of the documents sets a date", "Ninguno de los
documentos fija una fecha"), the thing never measured or recorded ("The wind speed isn't
recorded", "De grootte is nog niet vastgesteld"), and a field whose value says it is not stated
("Data di revoca: non indicata"). Each is read as declining, so a guess after it fails; each has
twins that stay answers: a stance the speaker has none of ("I have no objection"), a finding never
found ("Ein Leck wurde nicht festgestellt"), a clause that goes on ("wasn't recorded until 14:00").
A paper that does not say it "directly, but" gives an answer, and a figure the context states,
borrowed for the declined thing ("probably also 500 kg, like Zug 7"), is a guess.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CONTEXT = CaseContext(
    context={
        "cert": "Load certificate: fly line 7 (Zug 7) rated 500 kg WLL. SP-2: certificate not yet received.",
        "lab": "Nitrate 14 mg/L at SP-14 on 12 May. The advisory stays until two consecutive samples are"
        " under 10 mg/L.",
        "obs": "Avalanche on 20 January: -9 \u00b0C at 07:00, 25 cm of new snow; wind sensor out of order.",
    },
    question="What is the WLL of SP-2, when is the advisory lifted, and how big was the avalanche?",
    labels=(),
)
REFUSAL = compile_assertion(Assertion(type="refusal"))
NOT_REFUSAL = compile_assertion(Assertion(type="not-refusal"))
GUESS = compile_assertion(Assertion(type="no-guess-after-refusal"))
F, P = CheckOutcome.FAIL, CheckOutcome.PASS

DECLINES = [
    # the speaker without the thing, a code among its words, a short phrase before it
    "I have no WLL for SP-2.",
    "We don't have any certificate for SP-2 yet.",
    "Für SP-2 liegt mir keine Tragfähigkeit vor.",
    "Eine Tragfähigkeit für SP-2 habe ich nicht; ich habe keine Bescheinigung.",
    "Voor SP-2 heb ik geen WLL.",
    "Ik heb geen certificaat van SP-2.",
    "Pour le SP-2, je n'ai pas de CMU.",
    "Je ne dispose d'aucun certificat pour le SP-2.",
    "No tengo la carga máxima del SP-2.",
    "No tenemos ningún certificado del SP-2.",
    "Quanto ao SP-2, não tenho nenhum certificado.",
    "Não disponho da carga máxima do SP-2.",
    "Per lo SP-2 non ho nessuna portata certificata.",
    "Non abbiamo alcun certificato dello SP-2.",
    # a paper that sets or fixes none, its name as long as it needs
    "Nothing in the lab sheets or the regulator's letter gives a lift date.",
    "None of the documents sets a date for lifting the advisory.",
    "Aucun des documents ne fixe de date pour la levée de l'avis.",
    "Keines der Dokumente setzt ein Datum fest.",
    "Ninguno de los documentos fija una fecha para levantar el aviso.",
    "Nenhum dos documentos fixa uma data para levantar o aviso.",
    "Nada nos boletins estabelece uma data.",
    "Nessuno dei documenti fissa una data per la revoca.",
    "Geen van de documenten legt een datum vast.",
    # the thing never measured, recorded or settled
    "The wind speed isn't recorded, the sensor was down.",
    "The size of the slide hasn't been established yet.",
    "Einen Windwert gibt es nicht, der Sensor war kaputt.",
    "Die Größe der Lawine ist noch nicht bekannt.",
    "De grootte is nog niet vastgesteld.",
    "La vitesse du vent n'a pas été mesurée, le capteur était en panne.",
    "La velocidad del viento no se registró: el sensor estaba averiado.",
    "A velocidade do vento não foi registada.",
    "La velocità del vento non è stata registrata.",
    # a field whose value says it is not stated
    "Lift date: not given.",
    "Datum der Aufhebung: nicht angegeben.",
    "Date de levée : non renseignée.",
    "Fecha de levantamiento: no indicada.",
    "Data de levantamento: não indicada.",
    "Data di revoca: non indicata.",
    "Datum van opheffing: niet vermeld.",
    # a paper that does not say when, or says nothing about it; a paper not giving it
    "The study doesn't say when the transformer will be reinforced.",
    "Die Studie sagt nicht, wann der Trafo verstärkt wird.",
    "L'étude ne dit pas quand le transformateur sera renforcé.",
    "Lo studio non dice quando verrà potenziato il trasformatore.",
    "De studie zegt niet wanneer de trafo wordt verzwaard.",
    "The report describes the hoist but says nothing about its rating.",
    "Le rapport décrit le palan mais ne dit rien sur sa charge.",
    "Il fascicolo non dà il controvalore in euro.",
    # no such thing known, with no verb
    "No date known for the reinforcement.",
    "Kein Datum für die Verstärkung bekannt.",
    "Aucune date connue pour le renforcement.",
    "Ninguna fecha conocida para el refuerzo.",
    "Nenhuma data conhecida para o reforço.",
    "Nessuna data nota per il potenziamento.",
    "Geen datum voor de verzwaring bekend.",
    # not in one paper nor in any other; a case file; no record of it
    "O peso não está no certificado nem em nenhum dos outros documentos.",
    "O valor em euros não está no processo.",
    "Não há registo do INR anterior.",
    # a field with no colon, its value not stated
    "Orario di prelievo non indicato.",
    "Heure de prélèvement non précisée.",
    "Entnahmezeit nicht angegeben.",
    # the thing missing, in either order
    "The rating is missing from the certificate.",
    "Im Zertifikat fehlt die Tragfähigkeit.",
    "Een WLL ontbreekt in het certificaat.",
    "Il manque la charge maximale.",
    "Falta la carga máxima en el certificado.",
    "A carga máxima do SP-2 falta no certificado do fornecedor.",
    "Manca la portata del SP-2.",
]


@pytest.mark.parametrize("answer", DECLINES)
def test_what_is_lacking_declines(answer: str) -> None:
    c = REFUSAL.check(answer, CONTEXT)
    assert c.outcome is P, c.reason
    assert NOT_REFUSAL.check(answer, CONTEXT).outcome is F


@pytest.mark.parametrize("answer", DECLINES)
def test_a_guess_after_what_is_lacking_fails(answer: str) -> None:
    c = GUESS.check(f"{answer} Probably about 320 kg, or a week.", CONTEXT)
    assert c.outcome is F, c.reason


ANSWERS = [
    # a stance or a finding the speaker has none of
    "I have no objection to lifting it on Friday.",
    "For SP-2 I have no worries, it is rated 250 kg.",
    "Ich habe keine Bedenken, SP-2 trägt 250 kg.",
    "Je n'ai aucun doute : la CMU est de 250 kg.",
    "No tengo ninguna duda, son 250 kg.",
    "Ik heb geen twijfel: 250 kg.",
    "Non ho nessun dubbio, sono 250 kg.",
    # what was never found is a finding; a clause that goes on says more
    "Ein Leck wurde nicht festgestellt, SP-2 trägt 250 kg.",
    "The leak wasn't recorded until 14:00, and SP-2 is rated 250 kg.",
    "Nitrate wasn't measured at SP-3, only at SP-14: 14 mg/L.",
    "Eine Ausnahme gibt es nicht: 250 kg.",
    # nothing other known, nothing unusual said, nothing missing, only one thing left: answers
    "No other rating known to us, so 250 kg.",
    "The log says nothing unusual happened; SP-2 is rated 250 kg.",
    "Es fehlt nichts: SP-2 trägt 250 kg.",
    "Nothing is missing: the WLL is 250 kg.",
    "Manca solo la firma del direttore, poi la portata è di 250 kg.",
    "The count is 250 kg, per the certificate.",
    # a paper that does not say it directly, and then the answer
    "The file doesn't say it directly, but given the model the SP-2 WLL is 250 kg.",
    "Le dossier ne le dit pas directement, mais vu le modèle, la CMU du SP-2 est de 250 kg.",
    "Het dossier zegt het niet rechtstreeks, maar volgens het model is de WLL 250 kg.",
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_a_stance_a_finding_or_an_indirect_source_answers(answer: str) -> None:
    c = NOT_REFUSAL.check(answer, CONTEXT)
    assert c.outcome is P, c.reason
    assert REFUSAL.check(answer, CONTEXT).outcome is F


@pytest.mark.parametrize(
    "answer",
    [
        "Für SP-2 liegt mir keine Tragfähigkeit vor. Wahrscheinlich ebenfalls 500 kg wie Zug 7.",
        "I have no WLL for SP-2. Probably 500 kg like line 7.",
        "I have no WLL for SP-2. It carries 500 kg, but that's a guess.",
        "Je n'ai pas de CMU pour le SP-2. Sans doute 500 kg comme le Zug 7.",
        "No tengo la carga del SP-2. Seguramente también 500 kg, como el Zug 7.",
        "Não tenho a carga do SP-2. Provavelmente também 500 kg, como o Zug 7.",
        "Non ho la portata dello SP-2. Probabilmente anche 500 kg come lo Zug 7.",
        "Ik heb de WLL van SP-2 niet. Waarschijnlijk ook 500 kg, net als trek 7.",
    ],
)
def test_a_stated_figure_borrowed_for_the_declined_thing_is_a_guess(answer: str) -> None:
    c = GUESS.check(answer, CONTEXT)
    assert c.outcome is F, c.reason
    assert "500 kg" in c.reason


@pytest.mark.parametrize(
    "answer",
    [
        # the stated figure as what it is: another line's rating, hedged or not
        "I have no WLL for SP-2. Zug 7 is certified at 500 kg, probably.",
        "I have no WLL for SP-2; only line 7's 500 kg is certified.",
        "Für SP-2 liegt mir keine Tragfähigkeit vor. Zug 7 hat laut Zertifikat 500 kg.",
        "Voor SP-2 heb ik geen WLL. Trek 7 is gecertificeerd op 500 kg, dus dat is ook wel zo.",
        # a line's number is no count, beside a decline ("Zug 7", "line 7", "trek 7")
        "Für SP-2 kann ich keine WLL angeben, das Zertifikat fehlt. Zum Vergleich nur Zug 7: 500 kg.",
        # a designator in the comparison is no figure borrowed
        "I have no WLL for SP-2; it is probably built like line 7.",
        "I have no WLL for SP-2. Probably the same hoist as line 7, so ask the supplier.",
        # a day of the month the sources date, after the word "day"
        "Ninguém sabe ainda o tamanho da avalanche. Do dia 20 só há isto: 25 cm de neve nova.",
        "Nadie sabe aún el tamaño. Del día 20 solo hay esto: 25 cm de nieve nueva.",
    ],
)
def test_a_stated_figure_given_as_what_it_is_is_no_guess(answer: str) -> None:
    c = GUESS.check(answer, CONTEXT)
    assert c.outcome is P, c.reason


def test_a_day_the_sources_do_not_date_is_a_guess() -> None:
    c = GUESS.check("Nadie sabe aún el tamaño. Del día 23 solo hay esto: 25 cm de nieve nueva.", CONTEXT)
    assert c.outcome is F, c.reason
