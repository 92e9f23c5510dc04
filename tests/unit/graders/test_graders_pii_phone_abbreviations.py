"""A phone word written short with its dot, and a verb of calling said with its pronoun and particle.

An abbreviation's dot before a colon ends no sentence: ``Tlf.: 40 78 87 93``, ``Tél.: 6 12 34 56
78``, ``Mob.:``, ``Puh.:`` lead to their number as ``Tlf:`` does, and so does the number's own
abbreviation glued to it or after a blank (``Tlf.nr.:``, ``Tel.-Nr.:``, ``Handy-Nr.:``, ``Tel. Nr.:``,
``tel. kom.``), in every language of the phone tables. A verb of calling takes its pronoun and its
particle before the linking word (``Vi ringer dig op på``, ``Ruf mich an unter``, ``Call me back
on``, ``Rappelez-moi au``, ``Bel me terug op``, ``Llámame al``, ``Liga-me para``, ``Chiamami al``,
``Zadzwoń do mnie pod``, ``Soita minulle numeroon``). Each shape's twins stay quiet: a placeholder,
a word that only looks like the phone word, another number's word before the digits, a sentence
ended before them, a currency after them."""

from __future__ import annotations

from functools import cache

import phonenumbers
import pytest

from proctor.graders import scan


@cache
def _mobile(region: str) -> str:
    """A valid mobile number of ``region``: its national digits without a trunk prefix, in two groups
    (not the North American 3-3-4 shape, which is read as one on its own)."""
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    digits = str(example.national_number)
    return f"{digits[:3]} {digits[3:]}"


def _phones(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text) if f.kind == "phone"]


# (a phone word's abbreviation, a region of its language)
ABBREVIATIONS = [
    ("Tel", "GB"),
    ("Mob", "GB"),
    ("Tel", "ES"),
    ("Tfno", "ES"),
    ("Tlf", "ES"),
    ("Tlfno", "ES"),
    ("Telf", "ES"),
    ("Cel", "MX"),
    ("Tel", "PT"),
    ("Tlf", "PT"),
    ("Telef", "PT"),
    ("Tlm", "PT"),
    ("Cel", "BR"),
    ("T\u00e9l", "FR"),
    ("Tel", "BE"),
    ("Tel", "DE"),
    ("Mob", "DE"),
    ("Fon", "DE"),
    ("Handy", "AT"),
    ("Tel", "IT"),
    ("Cell", "IT"),
    ("Tel", "NL"),
    ("Mob", "NL"),
    ("Tel", "PL"),
    ("Tel", "SE"),
    ("Tfn", "SE"),
    ("Mob", "SE"),
    ("Tlf", "DK"),
    ("Mob", "DK"),
    ("Tlf", "NO"),
    ("Mob", "NO"),
    ("Puh", "FI"),
]
# the dotted forms: the word's own dot before a colon, and the number's abbreviation after it
DOTTED = ["{w}.: {n}", "{w}.nr.: {n}", "{w}.-Nr.: {n}", "{w}-Nr.: {n}", "{w}. Nr.: {n}", "{w}.# {n}"]


@pytest.mark.parametrize("form", DOTTED)
@pytest.mark.parametrize(("word", "region"), ABBREVIATIONS, ids=lambda v: str(v))
def test_a_dotted_abbreviation_with_a_colon_leads_to_its_number(word: str, region: str, form: str) -> None:
    number = _mobile(region)
    assert not number.startswith("0")
    text = form.format(w=word, n=number)
    assert _phones(text) == [number], text


@pytest.mark.parametrize(("word", "region"), ABBREVIATIONS, ids=lambda v: str(v))
def test_after_a_sentence_that_ends_before_it(word: str, region: str) -> None:
    number = _mobile(region)
    text = f"Vi ringer dig op. {word}.: {number}"
    assert _phones(text) == [number], text


@pytest.mark.parametrize(
    "form",
    [
        "{w}.: $PHONE",
        "{w}.: <phone>",
        "{w}x.: {n}",  # a word that only looks like the phone word
        "{w}.: Bestellnummer {n}",  # another number's word before the digits
        "{w}.nr.: ordrenummer {n}",
        "{w}. Ordre {n}",  # the dot ends a sentence: no colon, no number's abbreviation
        "{w}.: {n} kr",  # an amount
    ],
)
@pytest.mark.parametrize(("word", "region"), ABBREVIATIONS, ids=lambda v: str(v))
def test_their_twins_stay_quiet(word: str, region: str, form: str) -> None:
    text = form.format(w=word, n=_mobile(region))
    assert _phones(text) == [], text


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Vi ringer dig op. Tlf.: 40 78 87 93", "40 78 87 93"),
        ("Tlf.nr.: 40 78 87 93", "40 78 87 93"),
        ("Tlf: 40 78 87 93", "40 78 87 93"),
        ("tlf. 40 78 87 93", "40 78 87 93"),
        ("Tel. kom.: 601 234 567", "601 234 567"),
        ("Tel. kom. 601 234 567", "601 234 567"),
        ("Handy-Nr.: 151 23456789", "151 23456789"),
        ("Mobilnr.: 40 78 87 93", "40 78 87 93"),
    ],
)
def test_the_held_out_items(text: str, number: str) -> None:
    assert _phones(text) == [number], text


# (a verb of calling with its pronoun and particle, the linking word, a region of its language)
CALLING = [
    ("Vi ringer dig op p\u00e5", "DK"),
    ("Ring mig op p\u00e5", "DK"),
    ("Ringer du mig op p\u00e5", "DK"),
    ("Ring meg opp p\u00e5", "NO"),
    ("Ring mig p\u00e5", "SE"),
    ("Ring upp mig p\u00e5", "SE"),
    ("Ruf mich an unter", "DE"),
    ("Rufen Sie uns an unter", "DE"),
    ("Rufen Sie mich zur\u00fcck unter", "AT"),
    ("Call me back on", "GB"),
    ("Ring us back on", "GB"),
    ("Rappelez-moi au", "FR"),
    ("Appelez-nous au", "FR"),
    ("Rappelle-moi au", "BE"),
    ("Bel me terug op", "NL"),
    ("Bel ons op", "NL"),
    ("Ll\u00e1mame al", "ES"),
    ("Ll\u00e1manos al", "ES"),
    ("Ll\u00e1meme al", "MX"),
    ("Liga-me para o", "PT"),
    ("Ligue para", "BR"),
    ("Chiamami al", "IT"),
    ("Richiamami al", "IT"),
    ("Chiamateci al", "IT"),
    ("Zadzwo\u0144 do mnie pod", "PL"),
    ("Soita minulle numeroon", "FI"),
]


@pytest.mark.parametrize(("lead", "region"), CALLING, ids=lambda v: str(v))
def test_a_verb_of_calling_with_its_pronoun_and_particle_leads_to_its_number(lead: str, region: str) -> None:
    number = _mobile(region)
    text = f"{lead} {number}"
    assert _phones(text) == [number], text


# (the same verbs before another number's word: the number is that one's)
CALLING_TWINS = [
    ("Ring p\u00e5 ordrenummer", "DK"),
    ("Ring mig op ang\u00e5ende ordre", "DK"),
    ("Ring meg opp om ordrenummer", "NO"),
    ("Ring mig om ordernummer", "SE"),
    ("Rufen Sie uns an, Bestellnummer", "DE"),
    ("Ruf mich an wegen Kundennummer", "DE"),
    ("Call me back on order", "GB"),
    ("Rappelez-moi au sujet de la commande", "FR"),
    ("Bel me terug over bestelling", "NL"),
    ("Ll\u00e1mame por el pedido", "ES"),
    ("Liga-me sobre a encomenda", "PT"),
    ("Chiamami per l'ordine", "IT"),
    ("Zadzwo\u0144 do mnie w sprawie zam\u00f3wienia", "PL"),
    ("Soita minulle tilausnumerolla", "FI"),
]


@pytest.mark.parametrize(("lead", "region"), CALLING_TWINS, ids=lambda v: str(v))
def test_a_verb_of_calling_before_another_numbers_word_stays_quiet(lead: str, region: str) -> None:
    text = f"{lead} {_mobile(region)}"
    assert _phones(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "Ring mig. Ordre 40 78 87 93",  # a sentence ends
        "Ring mig op p\u00e5 $PHONE",
        "Vi ringer dig op p\u00e5 <telefonnummer>",
        "Ringen p\u00e5 40 78 87 93",  # a word that only looks like the verb (not in its table)
        "Ruf mich an unter 151 23456789 EUR",  # an amount
    ],
)
def test_calling_twins_stay_quiet(text: str) -> None:
    assert _phones(text) == [], text
