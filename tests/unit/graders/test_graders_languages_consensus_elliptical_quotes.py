"""A speaker's elliptical agreement with an object, and a decision log's reply (session 35).

"Email from the consulting arborist, Dr R. Okafor, 3 March: 'Agree with PRUNE ...'" stated no
one's agreement: a reply was read only when ended right after its words ("Agreed."), and the
name after the role was not the speaker's. A log's line ("05:55 Northsound Ferries duty manager:
Agreed.") opens with a time, not a name, so its reply was no one's either.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"doc-1": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


#: the speaker's first words agree with something, in each language
QUOTES = [
    (
        "en",
        'Email from the consulting arborist, Dr R. Okafor, 3 March: "Agree with the prune, recheck'
        ' at 12 months."',
    ),
    (
        "fr",
        "Courriel de l'arboriste conseil, Dr R. Okafor, 3 mars : « D'accord pour la taille, contrôle"
        " à 12 mois. »",
    ),
    (
        "de",
        "E-Mail des Baumgutachters, Dr. R. Okafor, 3. März: „Einverstanden mit dem Rückschnitt,"
        " Kontrolle in 12 Monaten.“",
    ),
    (
        "es",
        "Correo del arborista consultor, Dr R. Okafor, 3 de marzo: «De acuerdo con la poda, revisión"
        " a los 12 meses.»",
    ),
    (
        "pt",
        "E-mail do arborista consultor, Dr R. Okafor, 3 de março: «De acordo com a poda, revisão aos"
        " 12 meses.»",
    ),
    (
        "it",
        "Email dell'arboricoltore consulente, Dr R. Okafor, 3 marzo: «D'accordo con la potatura,"
        " controllo a 12 mesi.»",
    ),
    (
        "nl",
        "E-mail van de adviserend boomverzorger, Dr R. Okafor, 3 maart: \u2018Akkoord met de snoei,"
        " controle na 12 maanden.\u2019",
    ),
]

#: the answer names the speaker by name; its twin names a group the context never states
ANSWERS = [
    (
        "en",
        "Dr Okafor agrees with the prune, including the 12-month recheck.",
        "The residents agree with the prune.",
    ),
    (
        "fr",
        "L'arboriste consultant, le Dr Okafor, est d'accord pour une taille.",
        "Les riverains sont d'accord pour une taille.",
    ),
    (
        "de",
        "Dr. Okafor ist mit dem Rückschnitt einverstanden; die Anwohner wollen den Baum nur erhalten.",
        "Die Anwohner sind mit dem Rückschnitt einverstanden.",
    ),
    (
        "es",
        "El Dr. Okafor está de acuerdo con la poda, incluida la revisión a los 12 meses.",
        "Los vecinos están de acuerdo con la poda.",
    ),
    (
        "pt",
        "O Dr. Okafor concorda com a poda, incluindo a revisão aos 12 meses.",
        "Os moradores concordam com a poda.",
    ),
    (
        "it",
        "Il Dr. Okafor è d'accordo con la potatura, compreso il controllo a 12 mesi.",
        "I residenti sono d'accordo con la potatura.",
    ),
    (
        "nl",
        "Dr. Okafor is het ermee eens; de bewonersvereniging heeft alleen gevraagd de boom te behouden.",
        "De bewoners zijn het eens met de snoei.",
    ),
]


@pytest.mark.parametrize(("lang", "document"), QUOTES)
@pytest.mark.parametrize(("answer_lang", "answer", "twin"), ANSWERS)
def test_an_elliptical_agreement_with_an_object_is_the_speakers(
    lang: str, document: str, answer_lang: str, answer: str, twin: str
) -> None:
    assert check(answer, document) is CheckOutcome.PASS, (lang, answer_lang)
    assert check(twin, document) is CheckOutcome.FAIL, (lang, answer_lang)


@pytest.mark.parametrize(
    "document",
    [
        "Consulting arborist, Dr R. Okafor, 3 March: 'Agree with the prune.'",
        'Email from the consulting arborist, Dr R. Okafor: "Agreed."',
    ],
)
def test_the_name_after_a_role_names_the_speaker(document: str) -> None:
    assert check("Dr Okafor agrees with the prune.", document) is CheckOutcome.PASS
    assert check("The consulting arborist agrees with the prune.", document) is CheckOutcome.PASS


def test_agreement_as_a_word_of_a_clause_is_no_reply() -> None:
    """Not a reply: "agreed with" inside a sentence, nor a value after a field's colon."""
    for document in (
        'Email from the consulting arborist: "The council agreed with the residents last year."',
        "Status: agree with caveats",
    ):
        assert check("The consulting arborist agrees with the prune.", document) is CheckOutcome.FAIL


LOG = (
    "Decision log\n05:40 Harbour master: hold the 06:30 sailing.\n"
    "05:55 Northsound Ferries duty manager: Agreed.\n06:05 Passengers informed by SMS."
)


@pytest.mark.parametrize(
    ("answer", "twin"),
    [
        ("Northsound agreed to the hold at 05:55.", "The passengers agree with the hold."),
        (
            "Northsound est d'accord avec le report (accord à 05:55).",
            "Les passagers sont d'accord avec le report.",
        ),
        (
            "Northsound ist mit der Verschiebung einverstanden (05:55).",
            "Die Passagiere sind mit der Verschiebung einverstanden.",
        ),
        (
            "Northsound está de acuerdo con el aplazamiento (05:55).",
            "Los pasajeros están de acuerdo con el aplazamiento.",
        ),
        ("A Northsound concorda com o adiamento (05:55).", "Os passageiros concordam com o adiamento."),
        (
            "Northsound è d'accordo con il rinvio (ok alle 05:55).",
            "I passeggeri sono d'accordo con il rinvio.",
        ),
        (
            "Northsound staat achter het uitstel (akkoord om 05:55).",
            "De passagiers zijn het eens met het uitstel.",
        ),
    ],
)
def test_a_log_lines_reply_is_its_speakers(answer: str, twin: str) -> None:
    assert check(answer, LOG) is CheckOutcome.PASS
    assert check(twin, LOG) is CheckOutcome.FAIL


def test_a_time_before_a_field_makes_no_speaker() -> None:
    """The harbour master's line gives an order, no reply: no agreement by the harbour master."""
    assert check("The harbour master agrees with the hold.", LOG) is CheckOutcome.FAIL
