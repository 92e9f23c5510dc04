"""Sentences side by side in a language with rules and one without. A sentence in a language without
rules that shares words with one that has them (Catalan beside Spanish: "no sé", "tres",
"indiscutible") is not read with the other language's table: the graders say undetermined, never
a verdict the table's phrase would give. A readable sentence after an unreadable one is read."""

from __future__ import annotations

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

CATALAN = "(ca;"


def test_a_spanish_refusal_phrase_inside_a_catalan_sentence_is_no_refusal() -> None:
    # "I don't know which band is right": the Spanish table's "no sé" is Catalan here
    answer = "El manual describe la bomba. No sé quina és la banda correcta segons aquest manual."
    c = compile_assertion(Assertion(type="refusal")).check(answer)
    assert c.outcome is CheckOutcome.UNDETERMINED
    assert CATALAN in c.reason


def test_a_spanish_number_word_inside_a_catalan_sentence_is_no_guess_but_unread() -> None:
    # the Spanish sentence declines; the Catalan one may guess ("potser tres hores"), which the
    # grader cannot read: neither a pass nor a guess it does not understand
    answer = "No lo sé con certeza, el manual no lo indica. Segons el manual, potser tres hores de marge."
    c = compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer)
    assert c.outcome is CheckOutcome.UNDETERMINED
    assert CATALAN in c.reason


def test_a_spanish_claim_of_agreement_inside_a_catalan_sentence_is_unread_not_unsupported() -> None:
    # "És indiscutible que...": the Spanish table's "indiscutible", in a Catalan sentence
    answer = (
        "La junta de la bomba está desgastada y hay que cambiarla. "
        "És indiscutible que cal canviar la junta de la bomba aquesta setmana."
    )
    c = compile_assertion(Assertion(type="no-manufactured-consensus")).check(
        answer, CaseContext(context={"amm": "The seal wears after 2,000 cycles."})
    )
    assert c.outcome is CheckOutcome.UNDETERMINED
    assert CATALAN in c.reason


def test_an_english_refusal_after_a_russian_sentence_is_read() -> None:
    # the English phrase is read from the full stop before it ("(^|.) no information"); that full
    # stop ends the Russian sentence, but the refusal is the English sentence's
    answer = "Я проверил всю документацию по насосу. No information on the seal is given."
    c = compile_assertion(Assertion(type="refusal")).check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason
    # the same Russian sentence alone declines nothing the grader can read
    alone = compile_assertion(Assertion(type="refusal")).check("Я проверил всю документацию по насосу.")
    assert alone.outcome is CheckOutcome.UNDETERMINED
