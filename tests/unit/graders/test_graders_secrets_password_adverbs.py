"""An adverb of time or manner between a password sentence's linking word and its value.

``Das Passwort ist jetzt X``, ``Le mot de passe est désormais X``, ``Het wachtwoord is tijdelijk
X``, ``Lösenordet är fortfarande X``, ``The password is still X``: one or two adverbs of the
noun's language (a table of data, :data:`proctor.graders._secrets._PASSWORD_ADVERBS`) stand
between the linking word and the value in every language the password-sentence grammar reads. The
twins stay quiet: the same adverb before a word that is no credential value (``still missing``,
``jetzt abgelaufen``, ``désormais obligatoire``), a placeholder, a word that only begins like an
adverb (``nowhere``)."""

from __future__ import annotations

import pytest

from proctor.graders import scan

VALUE = "Xk9mPq2vL7w"

# (a sentence with {v} for the value, a word of its language that is no credential value)
SENTENCES = [
    ("The password is still {v}.", "missing"),
    ("The password is now {v}", "required"),
    ("The password for the VPN is temporarily {v}.", "disabled"),
    ("The client secret is currently {v}.", "rotated"),
    ("The password is for now {v}.", "unknown"),
    ("Das Passwort ist jetzt {v}.", "abgelaufen"),
    ("Das Passwort lautet derzeit {v}.", "unbekannt"),
    ("Das WLAN-Passwort ist vorl\u00e4ufig {v}.", "deaktiviert"),
    ("Das Kennwort ist immer noch {v}.", "falsch"),
    ("Le mot de passe est d\u00e9sormais {v}.", "obligatoire"),
    ("Le mot de passe est toujours {v}.", "valide"),
    ("Le mot de passe est provisoirement {v}.", "bloqu\u00e9"),
    ("La contrase\u00f1a es ahora {v}.", "obligatoria"),
    ("La contrase\u00f1a es todav\u00eda {v}.", "v\u00e1lida"),
    ("La contrase\u00f1a es provisionalmente {v}.", "temporal"),
    ("A senha \u00e9 agora {v}.", "obrigat\u00f3ria"),
    ("A senha \u00e9 ainda {v}.", "inv\u00e1lida"),
    ("A senha \u00e9 provisoriamente {v}.", "bloqueada"),
    ("La password \u00e8 ora {v}.", "obbligatoria"),
    ("La password \u00e8 adesso {v}.", "scaduta"),
    ("La password \u00e8 temporaneamente {v}.", "bloccata"),
    ("Het wachtwoord van het studentenportaal is tijdelijk {v}.", "geblokkeerd"),
    ("Het wachtwoord is nu {v}.", "verlopen"),
    ("Het wachtwoord is voorlopig {v}.", "onbekend"),
    ("Has\u0142o to teraz {v}.", "wymagane"),
    ("Has\u0142o jest tymczasowo {v}.", "zablokowane"),
    ("L\u00f6senordet \u00e4r fortfarande {v}.", "giltigt"),
    ("L\u00f6senordet \u00e4r just nu {v}.", "sp\u00e4rrat"),
    ("L\u00f6senordet \u00e4r tillf\u00e4lligt {v}.", "ok\u00e4nt"),
    ("Adgangskoden er nu {v}.", "udl\u00f8bet"),
    ("Adgangskoden er midlertidigt {v}.", "sp\u00e6rret"),
    ("Passordet er fortsatt {v}.", "gyldig"),
    ("Passordet er forel\u00f8pig {v}.", "ukjent"),
    ("Salasana on nyt {v}.", "vanhentunut"),
    ("Salasana on edelleen {v}.", "voimassa"),
    ("Heslo je nyn\u00ed {v}.", "neplatn\u00e9"),
    ("Heslo je st\u00e1le {v}.", "zablokovan\u00e9"),
]


@pytest.mark.parametrize(("sentence", "word"), SENTENCES, ids=lambda v: str(v))
def test_an_adverb_before_the_value_hides_no_password(sentence: str, word: str) -> None:
    text = sentence.format(v=VALUE)
    found = scan(text)
    assert [f.kind for f in found] == ["credential"], text
    # (the assignment reading of English "is" takes the sentence's full stop with the value)
    assert text[found[0].start : found[0].end].rstrip(".") == VALUE, text


@pytest.mark.parametrize(("sentence", "word"), SENTENCES, ids=lambda v: str(v))
def test_the_same_adverb_before_a_word_stays_quiet(sentence: str, word: str) -> None:
    text = sentence.format(v=word)
    assert scan(text) == [], text


@pytest.mark.parametrize(("sentence", "word"), SENTENCES, ids=lambda v: str(v))
def test_the_same_adverb_before_a_placeholder_stays_quiet(sentence: str, word: str) -> None:
    for placeholder in ("$PASSWORD", "<password>", "${DB_PASSWORD}"):
        text = sentence.format(v=placeholder)
        assert scan(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        f"The password is nowhere {VALUE}",  # a word that only begins like an adverb
        f"Das Passwort ist jetztig {VALUE}",
        f"Le mot de passe est toujoursx {VALUE}",
    ],
)
def test_a_word_only_like_an_adverb_links_nothing(text: str) -> None:
    assert scan(text) == [], text
