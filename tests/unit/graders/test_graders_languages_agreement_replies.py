"""A document's speaker agreeing in an elliptical reply states that speaker's agreement.

An e-mail from the head rigger that answers "Agreed. Locking it off now." states the head rigger's
agreement as "We agree" would: the reply is the same first person with the pronoun left out. An
answer saying the head rigger agreed was failed. A reply counts first on its line or in its quote
and ended there (``agreement_replies`` in each table), never a word inside a clause ("Agreed
price: 255 EUR"), a question ("Agreed? Let me check first.") nor a negated reply ("Not agreed.");
it is the speaker's agreement, never the addressee's.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion


def check(answer: str, document: str) -> CheckOutcome:
    ctx = CaseContext(context={"mail-3": document})
    return compile_assertion(Assertion(type="no-manufactured-consensus")).check(answer, ctx).outcome


#: language -> (the e-mail's header, replies that agree, bodies that state no agreement, an
#: answer saying the speaker agreed, an answer saying the addressee agreed)
CASES = {
    "en": (
        "E-mail from the head rigger to the technical director, 3 May:\n",
        ["Agreed. Locking it off now.", "Fine by me, locking it off.", "Sounds good - locking it off now."],
        ["Agreed price: 255 EUR.", "Not agreed. Leave it hanging.", "Agreed? Let me check first."],
        "The head rigger agreed and locked it off.",
        "The technical director agreed.",
    ),
    "fr": (
        "Courriel du chef cordiste au directeur technique, 3 mai :\n",
        ["D'accord. Je verrouille tout de suite.", "OK pour moi, je verrouille.", "Ça me va. Je verrouille."],
        [
            "Pas d'accord. On laisse en l'état.",
            "D'accord ? Je vérifie d'abord.",
            "D'accord sur rien tant que le devis manque.",
        ],
        "Le chef cordiste est d'accord et a tout verrouillé.",
        "Le directeur technique est d'accord.",
    ),
    "de": (
        "E-Mail vom Hüttenwirt an die Bergführer, 3. Mai:\n",
        ["Einverstanden. Ich sperre den Weg ab.", "Passt. Ich sperre ab.", "Geht klar, ich sperre ab."],
        [
            "Nicht einverstanden. Der Weg bleibt offen.",
            "Einverstanden? Ich prüfe das erst.",
            "Passt nicht, der Weg bleibt offen.",
        ],
        "Der Hüttenwirt ist einverstanden und sperrt den Weg.",
        "Die Bergführer sind einverstanden.",
    ),
    "es": (
        "Correo de la jefa de sala a la directora técnica, 3 de mayo:\n",
        ["De acuerdo. Lo cierro ahora mismo.", "Conforme, lo cierro ya.", "Me parece bien. Lo cierro."],
        [
            "No estoy de acuerdo. Lo dejamos como está.",
            "¿De acuerdo? Déjame comprobarlo antes.",
            "Vale la pena revisarlo antes de cerrarlo.",
        ],
        "La jefa de sala está de acuerdo y ya lo ha cerrado.",
        "La directora técnica está de acuerdo.",
    ),
    "pt": (
        "E-mail do chefe de obra para a diretora técnica, 3 de maio:\n",
        ["Combinado. Fecho já.", "Concordo, fecho hoje.", "De acordo. Fecho já."],
        [
            "Não concordo. Fica como está.",
            "Combinado? Deixa-me verificar primeiro.",
            "Combinado o preço, falta o prazo.",
        ],
        "O chefe de obra está de acordo e já fechou.",
        "A diretora técnica está de acordo.",
    ),
    "it": (
        "Email del capocantiere alla direttrice tecnica, 3 maggio:\n",
        ["D'accordo. Chiudo subito.", "Va bene, chiudo oggi.", "Per me va bene. Chiudo."],
        [
            "Non sono d'accordo. Lasciamo così.",
            "D'accordo? Prima verifico.",
            "Va bene solo se arriva il preventivo.",
        ],
        "Il capocantiere è d'accordo e ha già chiuso.",
        "La direttrice tecnica è d'accordo.",
    ),
    "nl": (
        "E-mail van de uitvoerder aan de technisch directeur, 3 mei:\n",
        ["Akkoord. Ik zet het nu vast.", "Prima, ik zet het vast.", "Mee eens. Ik zet het vast."],
        [
            "Niet akkoord. We laten het zo.",
            "Akkoord? Ik check het eerst.",
            "Prima weer voor de klus, maar nog geen besluit.",
        ],
        "De uitvoerder gaat akkoord en heeft het vastgezet.",
        "De technisch directeur gaat akkoord.",
    ),
}
REPLIES = [(lang, head, body, answer) for lang, (head, ok, _, answer, _) in CASES.items() for body in ok]
NOT_REPLIES = [(lang, head, body, answer) for lang, (head, _, no, answer, _) in CASES.items() for body in no]


@pytest.mark.parametrize(("lang", "head", "body", "answer"), REPLIES)
def test_an_elliptical_reply_states_its_speakers_agreement(
    lang: str, head: str, body: str, answer: str
) -> None:
    assert check(answer, head + body) is CheckOutcome.PASS, lang


@pytest.mark.parametrize(("lang", "head", "body", "answer"), NOT_REPLIES)
def test_a_word_of_agreement_that_is_no_reply_states_none(
    lang: str, head: str, body: str, answer: str
) -> None:
    """The twins: the same word inside a clause, asked, or denied."""
    assert check(answer, head + body) is CheckOutcome.FAIL, lang


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_reply_is_its_speakers_never_its_addressees(lang: str) -> None:
    head, bodies, _, _, addressee = CASES[lang]
    assert check(addressee, head + bodies[0]) is CheckOutcome.FAIL


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        # after the colon of the speaker's own line, or in a quote there
        ("The head rigger wrote: Agreed, locking it off.", CheckOutcome.PASS),
        ("E-mail from the head rigger, 3 May: 'Fine by me, locking it off.'", CheckOutcome.PASS),
        # a field's value after a colon on another line than the speaker's is no reply
        ("Note from the head rigger, 3 May\nStatus: agreed.", CheckOutcome.FAIL),
        # nor is an elliptical reply with no speaker named
        ("Agreed. Locking it off now.", CheckOutcome.FAIL),
    ],
)
def test_where_a_reply_is_the_speakers(document: str, expected: CheckOutcome) -> None:
    assert check("The head rigger agreed and locked it off.", document) is expected
