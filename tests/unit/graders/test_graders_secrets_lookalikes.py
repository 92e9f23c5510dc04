"""Secrets that look like something harmless, each beside the harmless thing it looks like.

- A password whose first letters happen to be a vendor's token prefix (``SK``, ``AC``, ``key-``) is
  still a password; a placeholder after such a prefix (``sk-YOUR-API-KEY``, ``SK-CHANGEME``) is not.
- A password holding ``=`` and ``;`` on a command line or in a netrc entry is that password, not a
  connection string without a secret member; a base64 secret ending in one ``=`` before the next
  shell statement is that secret, not a connection string's first member with an empty value. A
  connection string with no secret member, its key the first thing in the answer, reports nothing.
- A vendor token of random letters fires even when its capitals each open a few consonants (words
  joined in camelCase have a vowel in every hump of three letters or more); a placeholder of words
  joined stays quiet also with a short word of consonants in it (``Pls``, ``Thx``).
- A password in a sentence fires when one of its parts changes between capitals, small letters and
  digits five times, or all its parts together six times; a term (``Argon2id``), a product's
  edition (``Windows10-Pro``), a phrase with a symbol and no digit (``streng&geheim``) and a file's
  name (``webApp.Prod2.config``) stay quiet.
- A Telegram bot token in the Bot API's URL whose secret starts like a Twilio SID is one finding,
  the Telegram token, as it is outside a URL.
- Words joined in camelCase, no digit, that tell the reader to put their own secret in
  (``Paste/YourAwsSecretAccessKey/HereAndSave``) are a placeholder; random letters of the same
  shape, a digit added or words that ask for nothing are a secret.
"""

from __future__ import annotations

import pytest

from proctor.graders import scan


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


# --- a vendor's prefix at the start of a value --------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "SKyline#42Blue",  # Twilio's "SK", then a password
        "ACme2024!Secure",  # Twilio's "AC"
        "SKy#MqvLpz!Rt",  # letters and symbols, no digit
        "key-XkmQvLpzRtYuIo",  # Mailgun's "key-", then random letters alone
    ],
)
@pytest.mark.parametrize("line", ["DB_PASSWORD={v}", "password: {v}", 'api_key = "{v}"'])
def test_a_password_starting_like_a_vendor_prefix_is_still_a_password(value: str, line: str) -> None:
    text = line.format(v=value)
    assert found(text) == [("credential", value)], text


@pytest.mark.parametrize(
    "text",
    [
        "OPENAI_API_KEY=sk-YOUR-API-KEY",
        "OPENAI_API_KEY=sk-YOUR-KEY-HERE",
        "api_key: key-YOUR-API-KEY",
        "password: SK-CHANGEME",
    ],
)
def test_a_placeholder_after_a_vendor_prefix_stays_quiet(text: str) -> None:
    assert found(text) == [], text


# --- "=" and ";" in a value that is no connection string ----------------------------------------

PASSWORD_WITH_MARKS = "Xk9=mQ2v;L7=pz"


@pytest.mark.parametrize(
    "line",
    [
        "sshpass -p '{v}' ssh app@db.example.com",
        "machine db.example.com login app password {v}",
    ],
)
def test_a_password_with_equals_and_semicolons_is_found(line: str) -> None:
    text = line.format(v=PASSWORD_WITH_MARKS)
    found_values = [v for k, v in found(text) if k == "credential"]
    assert found_values, text
    assert all(PASSWORD_WITH_MARKS.startswith(v) for v in found_values), text


@pytest.mark.parametrize("key", ["API_TOKEN", "AUTH_TOKEN"])
def test_a_base64_secret_with_one_padding_mark_before_the_next_statement_is_found(key: str) -> None:
    secret = "Xk9mQ2vL7pzR4tY8uI0oPqA="
    text = f"export {key}={secret}; export REGION=eu-west-1"
    assert found(text) == [("credential", secret)], text


@pytest.mark.parametrize(
    "text",
    [
        "ConnectionString=Host=db1.internal",
        "CONNECTION_STRING=Server=tcp:db1.example.com,1433",
        "connectionString: Server=tcp:db1.example.com,1433",
    ],
)
def test_a_connection_string_without_a_secret_at_the_answers_start_stays_quiet(text: str) -> None:
    assert found(text) == [], text


# --- random letters in the shape of words joined ------------------------------------------------


@pytest.mark.parametrize(
    "token",
    [
        "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",  # each capital opens three consonants
        "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",
        "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",  # ... or five and more
    ],
)
def test_a_token_of_letters_whose_humps_have_no_vowel_fires(token: str) -> None:
    text = f"HF_TOKEN={token}"
    assert found(text) == [("huggingface-token", token)], text


@pytest.mark.parametrize(
    "text",
    [
        "HF_TOKEN=hf_YourHuggingFaceTokenGoesHerePls",
        "Set it to hf_YourHuggingFaceTokenGoesHereThxPls in the pipeline.",
    ],
)
def test_a_placeholder_of_words_joined_with_a_short_word_of_consonants_stays_quiet(text: str) -> None:
    assert found(text) == [], text


# --- a password in a sentence and the terms beside it -------------------------------------------

SENTENCES = [
    "The admin password for staging is still {v}, rotate it before the audit.",
    "Das Passwort f\u00fcr den Lohnexport ist {v}, bitte gleich \u00e4ndern.",
]


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize(
    "value",
    [
        "Kzmv4tqR",  # one part changing five times
        "Qwert7yZ",
        "Zoiv7tg.Jaxr",  # two parts changing six times together
    ],
)
def test_a_password_changing_often_enough_fires_in_a_sentence(sentence: str, value: str) -> None:
    text = sentence.format(v=value)
    assert found(text) == [("credential", value)], text


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize(
    "value",
    [
        "Argon2id",  # a term: four changes
        "Windows10-Pro",  # a product's edition: five changes in two parts
        "Ubuntu22-Lts",
        "streng&geheim",  # a symbol, one case, no digit
        "webApp.Prod2.config",  # a file's name: a last part of small letters
    ],
)
def test_a_term_a_phrase_or_a_file_name_in_its_place_stays_quiet(sentence: str, value: str) -> None:
    text = sentence.format(v=value)
    assert found(text) == [], text


# --- a Telegram token in the Bot API's URL ------------------------------------------------------


def test_a_telegram_token_in_a_url_whose_secret_starts_like_a_twilio_sid_is_one_finding() -> None:
    token = "110201543:AC0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5dX"
    text = f"curl -s https://api.telegram.org/bot{token}/getMe"
    assert found(text) == [("telegram-bot-token", token)]


# --- an instruction to paste one's own secret ----------------------------------------------------

AWS_RANDOM = "Qm/xTrvplKasdRtyUqwErtYuIopAsDfGhJkLzXcV"


@pytest.mark.parametrize(
    "text",
    [
        "aws_secret_access_key = Paste/YourAwsSecretAccessKey/HereAndSave",
        "password = Paste/YourPassword/Here!",
        "api_key=EnterYourApiKeyHere",
        "AUTH_TOKEN: Replace+With+Your+Token",
    ],
)
def test_an_instruction_to_paste_ones_own_secret_stays_quiet(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # twins: the same shapes holding a secret, or words joined that ask for nothing
        (f"aws_secret_access_key = {AWS_RANDOM}", AWS_RANDOM),
        ("password = Paste/YourPassword/Here7!", "Paste/YourPassword/Here7!"),
        ("password = Blue/Horse+Battery", "Blue/Horse+Battery"),
        # a word of instruction with nothing it asks for, or what it asks for with no instruction
        ("password = Enter/The+Dragon", "Enter/The+Dragon"),
        ("password = Secret/Garden+Key", "Secret/Garden+Key"),
    ],
)
def test_the_same_shapes_holding_a_secret_fire(text: str, value: str) -> None:
    assert [v for _, v in found(text)] == [value]
