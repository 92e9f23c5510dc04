"""A label answer the rules cannot read is undetermined, not failed (issue 25).

When the rules leave the expected label and another named, and every other one stands beside words
they did not read (a negation in its clause, a contrast before the expected label, or, when the
expected label alone is set out as the answer's field, a condition, a conditional or a threshold in
its sentence), the grader says it cannot tell which the answer gives. Two labels named plainly, or
another label set out as the field, still fail: the grader reads those."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, Unread, compile_assertion

LABELS = ["GREEN", "AMBER", "RED"]


def _check(answer: str, value: str = "AMBER"):  # type: ignore[no-untyped-def]
    return compile_assertion(Assertion(type="label", value=value, labels=LABELS)).check(answer)


@pytest.mark.parametrize(
    "answer",
    [
        # the expected label as the field, the other with a threshold, a negation, an arrow
        "Niveau retenu : AMBER. Un RED se justifierait seulement au-delà de 40 unités.",
        "Esito: AMBER. Nessun motivo per arrivare a RED.",
        "Outcome: AMBER. Three failed pumps -> RED.",
        "Bewertung: AMBER. Bei einem dritten Ausfall wäre es RED.",
        # a negation the rules do not read in the other's clause
        "Resultado: AMBER (e não simplesmente GREEN, há três fugas).",
        # another's band before a contrast, the expected one after it
        "Lo habían dejado en GREEN, pero con tres fugas esto es AMBER.",
        "De storingsdienst had GREEN ingevuld, maar met drie lekken is het AMBER.",
        "Il turno di notte l'aveva segnata GREEN, ma con tre perdite resta AMBER.",
    ],
)
def test_a_second_label_beside_words_the_rules_do_not_read_is_undetermined(answer: str) -> None:
    c = _check(answer)
    assert c.outcome is CheckOutcome.UNDETERMINED, c.reason
    assert c.unread is Unread.FORM and "cannot tell which it gives" in c.reason, c.reason


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        # two labels named plainly: the grader reads that, and it fails
        ("Niveau retenu : AMBER. Mais c'est plutôt RED.", "AMBER"),
        ("Ergebnis: AMBER. Eigentlich RED.", "AMBER"),
        ("AMBER o RED, depende del sensor.", "AMBER"),
        # the expected label before the contrast, another after it: the answer moved away from it
        ("Lo dejaron en AMBER, pero con tres fugas esto es RED.", "AMBER"),
        # another label set out as the field
        ("Esito: RED. Nessun motivo per AMBER.", "AMBER"),
        ("Veredicto: RED. Con tres fugas, nada de AMBER.", "AMBER"),
        # the expected label in a conditional of its own: it is not the answer's verdict
        ("AMBER wäre mir zu optimistisch. Ohne Prüfung bleibt es bei RED.", "AMBER"),
    ],
)
def test_labels_the_rules_do_read_still_fail(answer: str, value: str) -> None:
    c = _check(answer, value)
    assert c.outcome is CheckOutcome.FAIL, c.reason


def test_a_hedge_and_a_double_negation_are_read_not_doubted() -> None:
    # "if not RED" names RED too; "nothing other than RED" names RED: both are read, and fail
    assert _check("AMBER, if not RED.").outcome is CheckOutcome.FAIL
    assert _check("AMBER. It is nothing other than RED.").outcome is CheckOutcome.FAIL
    # the closing of an HTML comment is no arrow to a rule's band
    assert _check("AMBER. <!-- note -->RED").outcome is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "Läge der Wert unter 40, wäre es nur GREEN. Bei 52 ist es AMBER.",
        "Bei 38 wäre es nur GREEN; bei 52 ist es AMBER.",
        "Si la valeur était sous 40, ce ne serait que GREEN. À 52, c'est AMBER.",
        "Si el valor estuviera por debajo de 40, sería solo GREEN. Con 52 es AMBER.",
        "Als de waarde onder 40 lag, zou het alleen maar GREEN zijn. Bij 52 is het AMBER.",
    ],
)
def test_only_a_band_under_a_condition_is_hypothetical(answer: str) -> None:
    # "only" (nur, ne ... que, solo, alleen maar) names its band, unless a condition holds it
    c = _check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason
    assert _check("Es kann nur GREEN sein.", "GREEN").outcome is CheckOutcome.PASS
    assert _check("Het is alleen maar RED.").outcome is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "AMBER. Para RED haría falta una segunda fuga.",
        "AMBER. Pour RED, il faudrait une deuxième fuite.",
        "AMBER. Für RED bräuchte es ein zweites Leck.",
        "AMBER. Per RED servirebbe una seconda perdita.",
        "AMBER. Para RED seria preciso um segundo vazamento.",
        "AMBER. Voor RED zou er een tweede lek moeten zijn.",
        "AMBER. For RED you'd need a second leak.",
    ],
)
def test_what_a_band_would_need_is_its_rule_not_a_verdict(answer: str) -> None:
    c = _check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason
    # with no word of needing after it, "for RED" gives RED
    assert _check("Para RED, sin duda.", "RED").outcome is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Si la bomba no arranca a las 22:00, la decisión es RED.",
        "If the pump hasn't restarted by 22:00, the decision is RED.",
        "Se a bomba não arrancar às 22:00, a decisão é RED.",
    ],
)
def test_a_band_after_a_condition_with_a_clock_time_is_hypothetical(answer: str) -> None:
    # the colon of "22:00" ends no clause: the condition still holds the band
    c = _check(answer, "RED")
    assert c.outcome is CheckOutcome.FAIL and "hypothetical: RED" in c.reason, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "RED wäre überzogen, GREEN ist sowieso raus. Bleibt AMBER.",
        "GREEN ist vom Tisch: AMBER.",
        "GREEN scheidet aus. AMBER.",
        "GREEN is out; AMBER.",
        "GREEN is clearly out. AMBER.",
    ],
)
def test_a_band_set_aside_after_it_is_not_named(answer: str) -> None:
    assert _check(answer).outcome is CheckOutcome.PASS
    # "out of stock" sets nothing aside
    assert _check("AMBER is out of stock, so RED.").outcome is CheckOutcome.FAIL


def test_a_band_the_case_had_until_something_changed_is_past() -> None:
    assert _check("Verdict: AMBER (it was GREEN until the second leak).").outcome is CheckOutcome.PASS
    assert _check("It was GREEN until Monday; now AMBER.").outcome is CheckOutcome.PASS
    # "until further notice" is the band now
    assert _check("It was RED until further notice.", "RED").outcome is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Der Kunde verlangt GREEN, die Hotline hat RED vorgeschlagen. Meine Einschätzung: AMBER.",
        "O cliente pede o GREEN total, mas isso não se aplica. Fica AMBER.",
        "Le client réclame GREEN ; pour nous, c'est AMBER.",
        "Il cliente chiede GREEN, ma per noi è AMBER.",
        "AMBER. GREEN was my first thought, but the second leak rules it out.",
        "Oordeel: AMBER. GREEN was mijn eerste gedachte, maar dat gaat niet.",
    ],
)
def test_a_band_another_asks_for_or_a_first_thought_is_not_the_verdict(answer: str) -> None:
    c = _check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason


def test_what_a_band_would_need_as_its_subject_is_its_rule() -> None:
    assert _check("Overall: AMBER. RED would need a second leak above 20 l/h.").outcome is CheckOutcome.PASS
    assert _check("RED would take two leaks; here AMBER.").outcome is CheckOutcome.PASS
    # what it will need is said of the verdict
    assert _check("RED. RED will need a crew tonight.", "RED").outcome is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Décision : AMBER. J'avais d'abord penché pour GREEN, mais la deuxième fuite change tout.",
        "Je l'aurais classée GREEN au premier coup d'œil, mais avec deux fuites c'est AMBER.",
        "Me inclinaba por GREEN; con dos fugas es AMBER.",
        "Dos fugas. No procede GREEN. Veredicto: AMBER.",
        "RED is for three leaks or more, and we have two. AMBER.",
    ],
)
def test_a_first_leaning_a_refused_band_or_a_bands_rule_is_not_named(answer: str) -> None:
    c = _check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason
    # "is for now" is the band now
    assert _check("RED is for now the band.", "RED").outcome is CheckOutcome.PASS


@pytest.mark.parametrize(
    "answer",
    [
        "Veredicto: AMBER. Para pasar a RED haría falta una segunda fuga.",
        "AMBER. Um auf RED zu kommen, fehlt noch ein zweites Leck.",
        "Conclusie: AMBER (voor RED ontbreekt het tweede lek).",
        "AMBER; to go to RED we would need a second leak.",
        "Per the rule, RED only applies from 20 l/h; we measured 12. AMBER.",
    ],
)
def test_what_it_would_take_to_reach_a_band_is_its_rule(answer: str) -> None:
    c = _check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        "Según la norma, RED se reserva para tres fugas o más. Aquí hay dos: AMBER.",
        "Baixamos para AMBER depois da vistoria. Inicialmente tinha proposto RED.",
        "Il modello automatico dava RED. Secondo me è un falso positivo: AMBER.",
    ],
)
def test_a_band_reserved_for_a_case_proposed_earlier_or_given_by_a_model_is_not_named(answer: str) -> None:
    c = _check(answer)
    assert c.outcome is CheckOutcome.PASS, c.reason
