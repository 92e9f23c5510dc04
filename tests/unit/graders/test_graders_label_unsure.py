"""A label answer the rules cannot read is undetermined, not failed (issue 25).

When the rules leave the expected label and another named, and every other one stands beside words
they did not read (a negation in its clause, a contrast before the expected label, or, when the
expected label alone is set out as the answer's field or concluded after every other label by a word
of conclusion, a condition, a conditional or a threshold in
its sentence), the grader says it cannot tell which the answer gives. Two labels named plainly, or
another label set out as the field, still fail: the grader reads those."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, Unread, compile_assertion

LABELS = ["GREEN", "AMBER", "RED"]


def _check(answer: str, value: str = "AMBER"):  # type: ignore[no-untyped-def]
    return compile_assertion(Assertion(type="label", value=value, labels=LABELS)).check(answer)


@pytest.mark.parametrize(
    "answer",
    [
        # the expected label as the field, the other with a threshold, a negation, an arrow
        "Niveau retenu : AMBER. RED, c'est au-delà de 40 unités.",
        "Esito: AMBER. Nessun motivo per arrivare a RED.",
        "Outcome: AMBER. Three failed pumps -> RED.",
        "Bewertung: AMBER. Bei einem dritten Ausfall wäre es RED.",
        # a negation the rules do not read in the other's clause
        # ("não simplesmente GREEN" is read now: a band set aside as not enough)
        "Resultado: AMBER (e nem de perto GREEN, há três fugas).",
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


#: another band by a condition, a threshold or an arrow, then a conclusion drawn to the expected one
CONCLUDED_AFTER_A_RULE = [
    "Three failed pumps -> RED. Two failed here, so AMBER.",
    "RED, c'est au-delà de 40 unités. On en a 32, donc AMBER.",
    "Bei einem dritten Ausfall wäre es RED. Es gab zwei, also AMBER.",
    "Con una tercera avería sería RED. Hubo dos, por lo tanto AMBER.",
    "Com uma terceira avaria seria RED. Houve duas, portanto AMBER.",
    "Il RED chiesto dal cliente scatta oltre 40 unità. Siamo a 32, quindi AMBER.",
    "Bij een derde storing zou het RED zijn. Het waren er twee, dus AMBER.",
]


@pytest.mark.parametrize("answer", CONCLUDED_AFTER_A_RULE)
def test_a_band_concluded_after_another_by_words_unread_is_not_failed(answer: str) -> None:
    # the rules may read the other band's sentence as a rule (pass); never a guessed FAIL
    c = _check(answer)
    assert c.outcome is not CheckOutcome.FAIL, c.reason
    if c.outcome is CheckOutcome.UNDETERMINED:
        assert c.unread is Unread.FORM and "cannot tell which it gives" in c.reason, c.reason


@pytest.mark.parametrize(
    "answer",
    [
        # twins: the conclusion is not the last band named, or it concludes to two bands
        "Es gab zwei Ausfälle, also AMBER. Eigentlich aber RED.",
        "Hubo dos averías, así que AMBER o RED.",
        "Two failed here, so AMBER. Three failed pumps -> RED, and that is where we are.",
    ],
)
def test_a_concluded_band_beside_a_band_named_plainly_still_fails(answer: str) -> None:
    assert _check(answer).outcome is CheckOutcome.FAIL


def test_a_hedge_and_a_double_negation_are_read_not_doubted() -> None:
    # "if not RED" names RED too; "nothing other than RED" names RED: both are read, and fail
    assert _check("AMBER, if not RED.").outcome is CheckOutcome.FAIL
    assert _check("AMBER. It is nothing other than RED.").outcome is CheckOutcome.FAIL
    # the closing of an HTML comment is no arrow to a rule's band
    assert _check("AMBER. <!-- note -->RED").outcome is CheckOutcome.FAIL


#: (why, answer): a band the answer does not give, read as such, beside its AMBER
NOT_THE_VERDICT = [
    # "only" (nur, ne ... que, solo, alleen maar) under a condition
    ("only, conditional", "Läge der Wert unter 40, wäre es nur GREEN. Bei 52 ist es AMBER."),
    ("only, conditional", "Bei 38 wäre es nur GREEN; bei 52 ist es AMBER."),
    ("only, conditional", "Si la valeur était sous 40, ce ne serait que GREEN. À 52, c'est AMBER."),
    ("only, conditional", "Si el valor estuviera por debajo de 40, sería solo GREEN. Con 52 es AMBER."),
    ("only, conditional", "Als de waarde onder 40 lag, zou het alleen maar GREEN zijn. Bij 52 is het AMBER."),
    # what a band would need, or what it would take to reach it
    ("would need", "AMBER. Para RED haría falta una segunda fuga."),
    ("would need", "AMBER. Pour RED, il faudrait une deuxième fuite."),
    ("would need", "AMBER. Für RED bräuchte es ein zweites Leck."),
    ("would need", "AMBER. Per RED servirebbe una seconda perdita."),
    ("would need", "AMBER. Para RED seria preciso um segundo vazamento."),
    ("would need", "AMBER. Voor RED zou er een tweede lek moeten zijn."),
    ("would need", "AMBER. For RED you'd need a second leak."),
    ("would need", "Overall: AMBER. RED would need a second leak above 20 l/h."),
    ("would need", "RED would take two leaks; here AMBER."),
    ("would take", "Veredicto: AMBER. Para pasar a RED haría falta una segunda fuga."),
    ("would take", "AMBER. Um auf RED zu kommen, fehlt noch ein zweites Leck."),
    ("would take", "Conclusie: AMBER (voor RED ontbreekt het tweede lek)."),
    ("would take", "AMBER; to go to RED we would need a second leak."),
    # a band's rule
    ("rule", "Per the rule, RED only applies from 20 l/h; we measured 12. AMBER."),
    ("rule", "RED is for three leaks or more, and we have two. AMBER."),
    ("rule", "Según la norma, RED se reserva para tres fugas o más. Aquí hay dos: AMBER."),
    # set aside after it
    ("set aside", "RED wäre überzogen, GREEN ist sowieso raus. Bleibt AMBER."),
    ("set aside", "GREEN ist vom Tisch: AMBER."),
    ("set aside", "GREEN scheidet aus. AMBER."),
    ("set aside", "GREEN is out; AMBER."),
    ("set aside", "GREEN is clearly out. AMBER."),
    ("set aside", "Dos fugas. No procede GREEN. Veredicto: AMBER."),
    # past, first thoughts and leanings, earlier proposals
    ("past", "Verdict: AMBER (it was GREEN until the second leak)."),
    ("past", "It was GREEN until Monday; now AMBER."),
    ("first thought", "AMBER. GREEN was my first thought, but the second leak rules it out."),
    ("first thought", "Oordeel: AMBER. GREEN was mijn eerste gedachte, maar dat gaat niet."),
    ("first thought", "Décision : AMBER. J'avais d'abord penché pour GREEN, mais la fuite change tout."),
    ("first thought", "Je l'aurais classée GREEN au premier coup d'œil, mais avec deux fuites c'est AMBER."),
    ("first thought", "Me inclinaba por GREEN; con dos fugas es AMBER."),
    ("first thought", "Baixamos para AMBER depois da vistoria. Inicialmente tinha proposto RED."),
    # another party's band: what a customer asks for, what a model gave
    ("another's", "Der Kunde verlangt GREEN, die Hotline hat RED vorgeschlagen. Meine Einschätzung: AMBER."),
    ("another's", "O cliente pede o GREEN total, mas isso não se aplica. Fica AMBER."),
    ("another's", "Le client réclame GREEN ; pour nous, c'est AMBER."),
    ("another's", "Il cliente chiede GREEN, ma per noi è AMBER."),
    ("another's", "Il modello automatico dava RED. Secondo me è un falso positivo: AMBER."),
]


@pytest.mark.parametrize(("why", "answer"), NOT_THE_VERDICT)
def test_a_band_the_answer_does_not_give_is_not_named(why: str, answer: str) -> None:
    c = _check(answer)
    assert c.outcome is CheckOutcome.PASS, (why, c.reason)


#: (why, answer, value, expected): the same words where they do name the band
NAMED_TWINS = [
    ("only, no condition", "Es kann nur GREEN sein.", "GREEN", CheckOutcome.PASS),
    ("only, no condition", "Het is alleen maar RED.", "AMBER", CheckOutcome.FAIL),
    ("for, nothing needed", "Para RED, sin duda.", "RED", CheckOutcome.PASS),
    ("will need, said of the verdict", "RED. RED will need a crew tonight.", "RED", CheckOutcome.PASS),
    ("is for now", "RED is for now the band.", "RED", CheckOutcome.PASS),
    ("out of stock", "AMBER is out of stock, so RED.", "AMBER", CheckOutcome.FAIL),
    ("until further notice", "It was RED until further notice.", "RED", CheckOutcome.PASS),
]


@pytest.mark.parametrize(("why", "answer", "value", "expected"), NAMED_TWINS)
def test_the_same_words_that_name_a_band_still_do(
    why: str, answer: str, value: str, expected: object
) -> None:
    c = _check(answer, value)
    assert c.outcome is expected, (why, c.reason)


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


def _negators() -> list[tuple[str, str]]:
    from proctor.graders._lexicon import TABLE_LANGUAGES, _table

    return [
        (lang, word)
        for lang in TABLE_LANGUAGES
        for word in _table(lang)["negators"]
        if " " not in word and "'" not in word
    ]


FIELDS = ["Esito", "Verdict", "Einstufung", "Décision", "Resultado", "Oordeel"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_negators()), st.sampled_from(FIELDS))
def test_any_tables_negator_beside_the_other_label_never_makes_a_guessed_fail(
    negator: tuple[str, str], field: str
) -> None:
    # property: the expected label set out as the field and the other beside any negator of the
    # seven tables is read (negated: PASS) or said unreadable (undetermined), never failed
    _, word = negator
    c = _check(f"{field}: AMBER. {word.capitalize()} RED.")
    assert c.outcome in (CheckOutcome.PASS, CheckOutcome.UNDETERMINED), (word, c.reason)
