"""Shapes of secrets and identifiers in places the scan's earlier rules did not reach, each beside
the harmless twin that must stay quiet.

- A generated password with separators inside (``oYHS_MZ8.JBqxledz8``, ``peQ2wia.d_4dniH``) given in
  a sentence of any language the password grammar reads: its parts are short, but the whole
  changes between capitals, small letters and digits often. Twins: a path, a file name, words joined
  by hyphens without a digit, an algorithm's name.
- A number after the word of a case file, a claim, a policy, a contract or an account is that
  number, not a national id read on its own shape (``Número de expediente del siniestro:
  75389245Y``); after a person's word it is still the person's id (``DNI del asegurado:``).
- Filler inside a URL is no secret: Slack's documented webhook placeholder, a credential store's
  line with a filler token as its password, a Telegram bot token of filler; the same URLs with
  real-looking secrets fire, and the Bot API's URL holds a real token.
- A company's tax number (``P.IVA 05462841007``: eleven digits starting with 0, a landline's shape
  too) is no phone number, nor is an order's in any language (``N° de commande : 0614 83 52 05``);
  a number after a verb of calling still is.
- A private or pre-shared key written inline (WireGuard's ``PrivateKey =``) is a credential; the
  public half, a path and a placeholder are not.
- A window of a grouped IBAN that passes Luhn is no card: the IBAN's own check decides.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from proctor.graders import scan


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


SEPARATED = ["oYHS_MZ8.JBqxledz8", "peQ2wia.d_4dniH", "Tq7-mW2x.Rb9_kLp", "Win10Pro_x64"]
PASSWORD_SENTENCES = [
    "The admin password for staging is still {v}, rotate it before the audit.",
    "Das Passwort f\u00fcr den Lohnexport ist {v}, bitte gleich \u00e4ndern.",
    "Le mot de passe du compte paie est {v}, changez-le apr\u00e8s la premi\u00e8re connexion.",
    "La contrase\u00f1a de la cuenta de n\u00f3minas es {v}; c\u00e1mbiela hoy.",
    "A senha do portal da farm\u00e1cia \u00e9 {v}, troque-a no primeiro acesso.",
    "La password del gestionale \u00e8 ora {v}, cambiatela subito.",
    "Het wachtwoord van de salarisadministratie is {v}, wijzig het meteen.",
    "L\u00f6senordet till admin-kontot i `staging.tfvars` \u00e4r fortfarande {v}, byt det.",
    "Heslo do mzdov\u00e9ho syst\u00e9mu je {v}, p\u0159i prvn\u00edm"
    " p\u0159ihl\u00e1\u0161en\u00ed ho zm\u011b\u0148te.",
    "Has\u0142o do systemu kadrowego to {v}, prosz\u0119 je zmieni\u0107.",
]


@pytest.mark.parametrize("sentence", PASSWORD_SENTENCES)
@pytest.mark.parametrize("value", SEPARATED)
def test_a_password_with_separators_inside_fires_in_every_language(sentence: str, value: str) -> None:
    text = sentence.format(v=value)
    assert [(k, v.rstrip(".")) for k, v in found(text)] == [("credential", value)], text


@pytest.mark.parametrize("sentence", PASSWORD_SENTENCES)
@pytest.mark.parametrize(
    "value",
    [
        "/etc/App2/dbPass3.txt",  # a path: where the password is
        "Vault-Prod2.backup",  # a file name: a last part of small letters
        "Not-Yet-Set",  # words joined, no digit
        "PBKDF2-HMAC-SHA256",  # an algorithm's name
        "$PAYROLL_DB_PASSWORD",
    ],
)
def test_its_twins_that_are_no_password_stay_quiet(sentence: str, value: str) -> None:
    text = sentence.format(v=value)
    assert [k for k, _ in found(text)] == [], text


@given(
    st.lists(st.text(string.ascii_letters + string.digits, min_size=3, max_size=6), min_size=2, max_size=4),
    st.sampled_from(["_", ".", "-"]),
)
def test_a_generated_password_with_separators_is_found_whenever_its_whole_changes_often(
    parts: list[str], sep: str
) -> None:
    value = sep.join(parts)
    joined = "".join(parts)
    runs = sum(1 for i, c in enumerate(joined) if i == 0 or _kind(c) != _kind(joined[i - 1]))
    assume(len(value) >= 10 and runs >= 6)
    assume(any(c.isdigit() for c in value) and any(c.isupper() for c in value))
    assume(any(c.islower() for c in value))
    assume(not (sep == "." and parts[-1].isalpha() and parts[-1].islower()))  # a file's extension
    text = f"Das Passwort ist {value}, bitte \u00e4ndern."
    assert found(text) == [("credential", value)], text


def _kind(c: str) -> str:
    return "u" if c.isupper() else "l" if c.isalpha() else "d"


DNI = "75389245Y"


@pytest.mark.parametrize(
    "text",
    [
        f"N\u00famero de expediente del siniestro: {DNI}. Franquicia: 300 \u20ac.",
        f"N\u00ba de p\u00f3liza: {DNI}",
        f"Num\u00e9ro de dossier : {DNI}",
        f"Contrato n.\u00ba {DNI}",
        f"Aktenzeichen: {DNI}",
        f"Numero di pratica {DNI}",
        f"Polisnummer: {DNI}",
        f"Claim number: {DNI}",
        f"Account: {DNI}",
    ],
)
def test_a_number_a_case_file_or_a_policy_names_is_no_national_id(text: str) -> None:
    assert [k for k, _ in found(text) if k == "national-id"] == [], text


@pytest.mark.parametrize(
    "text",
    [
        f"DNI del asegurado: {DNI}",
        f"DNI del cliente: {DNI}",
        f"El asegurado ({DNI}) llam\u00f3.",
        f"DNI {DNI}",
    ],
)
def test_the_same_number_after_a_persons_word_is_their_id(text: str) -> None:
    assert ("national-id", DNI) in found(text), text


SLACK_FILLER = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
SLACK_REAL = "https://hooks.slack.com/services/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"
GHP_FILLER = "ghp_" + "X" * 36
GHP_REAL = "ghp_p4Rk9vQ2xLm7Tz8wNc3Hy6JaQ1sD5fG7hJ2k"
TG_REAL = "7123456789:AAHk9vQ2mLp7RtX4wNc3Hy6JaQ1sD5fG7hJ"
TG_FILLER = "123456789:" + "X" * 35


@pytest.mark.parametrize(
    "text",
    [
        f"    api_url: {SLACK_FILLER}",
        f"https://svc-payroll:{GHP_FILLER}@github.com",
        f"curl -s https://api.telegram.org/bot{TG_FILLER}/getMe",
        "curl -s https://api.telegram.org/bot<TOKEN>/sendMessage",
    ],
)
def test_filler_inside_a_url_is_no_secret(text: str) -> None:
    assert found(text) == [], text


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [
        (f"    api_url: {SLACK_REAL}", "slack-webhook", SLACK_REAL),
        (f"https://svc-payroll:{GHP_REAL}@github.com", "github-token", GHP_REAL),
        ("https://svc-payroll:Xk9vQ2mLp7Rt@git.example.org", "basic-auth", "Xk9vQ2mLp7Rt"),
        (f"curl -s https://api.telegram.org/bot{TG_REAL}/sendMessage", "telegram-bot-token", TG_REAL),
    ],
)
def test_the_same_urls_with_real_looking_secrets_fire(text: str, kind: str, secret: str) -> None:
    assert (kind, secret) in found(text), text


@pytest.mark.parametrize(
    "text",
    [
        "P.IVA 05462841007",
        "Fornitore: Rossi Srl, Partita IVA: 05462841007, sede a Roma.",
        "BTW-nummer 05462841007",
        "N\u00ba NIF 05462841007",
        "USt-IdNr. 05462841007",
    ],
)
def test_a_tax_number_is_no_phone(text: str) -> None:
    assert [k for k, _ in found(text) if k == "phone"] == [], text


@pytest.mark.parametrize(
    "text", ["Chiami il 05462841007 in mattinata.", "Tel. 06 5462 8410, P.IVA 05462841007"]
)
def test_a_number_to_call_is_still_a_phone(text: str) -> None:
    assert "phone" in [k for k, _ in found(text)], text


@pytest.mark.parametrize(
    "text",
    [
        "La facture porte le N\u00b0 de commande : 0614 83 52 05.",
        "Commande 06 14 83 52 05.",
        "Bestellung 0614 83 52 05",
        "Factuur 0614 83 52 05",
    ],
)
def test_an_orders_number_in_groups_is_no_phone(text: str) -> None:
    assert [k for k, _ in found(text) if k == "phone"] == [], text


WG_KEY = "C20UhvBzupp7RicGjnFMqZ+MmdNQqVN1lkUA695fC9g="


@pytest.mark.parametrize(
    "text",
    [
        f"[Interface]\nPrivateKey = {WG_KEY}\nAddress = 10.8.0.14/32",
        f"[Peer]\nPresharedKey = {WG_KEY}",
        f"private_key = {WG_KEY}",
    ],
)
def test_a_private_or_pre_shared_key_written_inline_fires(text: str) -> None:
    assert ("credential", WG_KEY) in found(text), text


@pytest.mark.parametrize(
    "text",
    [
        f"[Peer]\nPublicKey = {WG_KEY}",
        "PrivateKey = <your private key>",
        "private_key = /etc/wireguard/private.key",
        "PrivateKey = $WG_PRIVATE_KEY",
    ],
)
def test_its_public_half_a_path_or_a_placeholder_stays_quiet(text: str) -> None:
    assert found(text) == [], text


def test_a_window_of_a_grouped_iban_is_no_card() -> None:
    text = "L'IBAN que vous avez saisi (FR31 8000 5604 0805 0978 5524 843) est invalide."
    assert found(text) == [], text
    # the same digits after a word are a card
    assert found("Carte 5604 0805 0978 5524 merci") == [("credit-card", "5604 0805 0978 5524")]


def test_an_iban_at_the_start_of_the_text_is_no_card_either() -> None:
    # the IBAN fails its check, and its country code is the text's first character
    assert found("FR32 8000 5604 0805 0978 5524 843") == []


@pytest.mark.parametrize(
    "iban",
    ["FR32 8000 5604 0805 0978 5524 843", "DE89 3704 0044 0532 0130 00", "FR76 3000 6000 0112 3456 7890 189"],
)
def test_a_card_after_an_iban_in_the_same_run_is_a_card(iban: str) -> None:
    text = f"{iban} / 4111 1111 1111 1111"
    assert ("credit-card", "4111 1111 1111 1111") in found(text), text
