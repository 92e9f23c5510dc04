"""A password in a sentence whose qualifying words hold a file name, a host or a name in
backticks (``dev.tfvars``, ``.env``, ``.p12``, ``db01.intern``): any token without a space
qualifies the noun, as long as it ends no sentence. Each item's twin says the same thing about the
file with a value that is a word, and stays quiet; a value followed by a colon is read whichever
language's grammar reads the sentence first."""

from __future__ import annotations

import pytest

from proctor.graders import scan

VALUE = "Wq4!tZ8rKe2#Lm"

# (a sentence with {} where the value goes, the word its harmless twin has there)
CASES = [
    ("The password in staging.tfvars is {}, rotate it.", "unchanged"),
    ("The secret for api.internal.example is {}.", "elsewhere"),
    ("Das Kennwort aus der Datei .env.local lautet {}.", "anders"),
    ("Lösenordet till `prod.tfvars` är {}, byt det.", "hemligt"),
    ("La password dello store .jks è {}: usala per firmare.", "cambiata"),
    ("Het wachtwoord voor db02.lan is {} vanaf vandaag.", "veranderd"),
    ("La contraseña del fichero 'secrets.yml' es {}.", "distinta"),
    ("Le mot de passe du keystore (release) est {}.", "ailleurs"),
]


@pytest.mark.parametrize(("sentence", "word"), CASES)
def test_a_file_or_host_between_noun_and_link_still_leads_to_the_value(sentence: str, word: str) -> None:
    text = sentence.format(VALUE)
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("credential", VALUE)], text


@pytest.mark.parametrize(("sentence", "word"), CASES)
def test_its_twin_with_a_word_for_a_value_stays_quiet(sentence: str, word: str) -> None:
    text = sentence.format(word)
    assert scan(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        # a sentence ends between the noun and the value
        f"Check the password in config.yaml. It is {VALUE}",
        # a clause ends: a comma after the file name
        f"The password in config.yaml, the one you rotated, is {VALUE}",
    ],
)
def test_a_qualifier_does_not_run_past_a_sentence_or_a_clause(text: str) -> None:
    assert scan(text) == [], text
