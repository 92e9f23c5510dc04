"""Passwords given in a sentence in many languages, URL passwords with punctuation, and placeholder
tokens of filler characters, each beside its harmless twin.

- A password noun (English, German, French, Spanish, Portuguese, Italian, Dutch, Polish, Swedish,
  Danish/Norwegian, Finnish, Czech, Turkish), up to a few words qualifying it, a linking word of
  its language or a colon, and a value that looks like a secret: found, the value redacted whole.
  The same sentence with a placeholder, a ``$VARIABLE``, a prompt, prose, a term (``Argon2id``), a
  hash or a figure with a unit is quiet.
- A URL's password runs from the user's ``:`` to the last ``@`` before the host, whatever it holds:
  all of it is redacted, none of it left in clear beside an e-mail reading.
- A token whose body is one character repeated, or a tiny pattern repeated, is a placeholder; a
  real token with a run inside still fires.

Every credential here is generated at random (seeded): none is an examiner's value.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.graders import scan
from proctor.graders._scan import mask_findings
from proctor.graders._secrets import filler_token, random_looking

_R = random.Random(20261206)
SYMBOLS = "!#%*+"


def _password(n: int = 14, symbols: bool = True) -> str:
    """A random password: upper, lower, digits (and a symbol), shuffled."""
    pool = string.ascii_letters + string.digits + (SYMBOLS if symbols else "")
    chars = [_R.choice(string.ascii_uppercase), _R.choice(string.ascii_lowercase), _R.choice(string.digits)]
    chars += [_R.choice(pool) for _ in range(n - 3)]
    while True:
        _R.shuffle(chars)
        value = "".join(chars)
        if random_looking(value):
            return value


PW = [_password(symbols=i % 2 == 0) for i in range(30)]
AWS_SECRET = "".join(_R.choice(string.ascii_letters + string.digits + "/+") for _ in range(39)) + "7"


def _covering(text: str, value: str) -> list[str]:
    """The kinds of the findings that cover ``value`` in ``text`` whole."""
    i = text.index(value)
    return [f.kind for f in scan(text) if f.start <= i and f.end >= i + len(value)]


def _assert_found(text: str, value: str) -> None:
    assert _covering(text, value), (text, scan(text))
    assert value not in mask_findings(text, 0, len(text))


# --- A: passwords in sentences ---------------------------------------------------------------

SENTENCES = [
    # a label and its value
    ("de", "Passwort: {v}"),
    ("de", "Kennwort = {v}"),
    ("fr", "Identifiant : ops\nMot de passe : {v}"),
    ("fr", "mdp: {v}"),
    ("es", "Usuario: soporte\nContraseña: {v}"),
    ("es", "Clave: {v}"),
    ("pt", "Senha: {v}"),
    ("nl", "wachtwoord={v}"),
    ("pl", "hasło: {v}"),
    ("sv", "lösenord: {v}"),
    ("da", "adgangskode: {v}"),
    ("no", "Passord: {v}"),
    ("fi", "Salasana: {v}"),
    ("cs", "Heslo: {v}"),
    ("tr", "Şifre: {v}"),
    ("de", "Passwort:\n{v}"),
    # a linking word, words between the noun and it
    ("en", "The password for the staging VPN is {v}."),
    ("en", "The password of the backup account was reset to {v} this morning."),
    ("en", "Password for user deploy: {v}"),
    ("en", "The client secret for the billing app is {v}"),
    ("de", "Das Root-Passwort für den Datenbankserver lautet: {v}"),
    ("de", "Das Kennwort des Dienstkontos ist {v}."),
    ("fr", "Le mot de passe du compte de service est {v}."),
    ("es", "La contraseña de la red de invitados es {v}"),
    ("pt", "A senha do banco de dados é {v} (troque-a logo)."),
    ("pt", "A palavra-passe da conta é {v}"),
    ("it", "La password dell'utente di servizio è {v}"),
    ("nl", "Het beheerderswachtwoord voor de router is {v}"),
    ("pl", "Hasło do serwera pocztowego to {v}"),
    ("sv", "Lösenordet för gästnätet är {v}."),
    ("da", "Adgangskoden til wifi er {v}"),
    ("no", "Passordet for gjestenettet er {v}"),
    ("fi", "Vierasverkon salasana on {v}"),
    ("cs", "Heslo k serveru je {v}"),
]


@pytest.mark.parametrize(
    ("lang", "sentence"), SENTENCES, ids=[f"{lang}-{i}" for i, (lang, _) in enumerate(SENTENCES)]
)
def test_a_password_in_a_sentence_is_found_whole(lang: str, sentence: str) -> None:
    value = PW[SENTENCES.index((lang, sentence)) % len(PW)]
    text = sentence.format(v=value)
    _assert_found(text, value)
    assert "credential" in _covering(text, value)


def test_a_secret_access_key_named_in_a_sentence_is_found() -> None:
    text = f"The secret access key for that service user is {AWS_SECRET} (the key id is in the vault)."
    _assert_found(text, AWS_SECRET)


QUIET_SENTENCES = [
    "Wenn das Terminal `Password:` anzeigt, gib dein Kennwort ein; es wird nicht angezeigt.",
    "Le champ « Mot de passe : » doit contenir au moins 12 caractères.",
    "The password for the VPN is stored in Vault under secret/vpn.",
    "The password for the admin account is ${ADMIN_PASSWORD}.",
    "Das Passwort für den Server ist $DB_PASSWORD.",
    "La contraseña de la base de datos es <tu-contraseña>.",
    "A senha do banco é ********.",
    "The password hash for admin is 5f4dcc3b5aa765d61d8327deb882cf99.",
    "The password hashing we use for all accounts is Argon2id.",
    "Das Passwort ist 12-stellig und läuft nach 90 Tagen ab.",
    "The password for the Wi-Fi network is WPA2-Protected.",
    "Het wachtwoord voor de router is verlopen.",
    "Hasło do serwera to hasło administratora.",
    "Lösenordet för kontot är detsamma som ditt AD-lösenord.",
    "Kör `mysql -u rapport -p` och skriv lösenordet när du blir tillfrågad.",
    "The password for user admin is sent to ops@acme-corp.com by the portal.",
    "Password: changeme",
    "The secret for the webhook is in the vault, not in the repository.",
    "Salasana on vaihdettava 90 päivän välein.",
    "The password policy for all users: 12-characters minimum.",
    # a scheme's name after a password's label: what hashes or encrypts it, no password
    "La contraseña: Argon2id con 64 MiB de memoria y tres iteraciones, según la política.",
    "Password: PBKDF2-HMAC-SHA256, 600,000 iterations.",
    "Passwort: sha512crypt (Standard unter Debian).",
    "Mot de passe : AES-256-GCM au repos, jamais en clair.",
    "Wachtwoord: WPA2-PSK op het gastennetwerk.",
    "Senha: bcrypt com custo 12.",
]


@pytest.mark.parametrize("text", QUIET_SENTENCES)
def test_prose_about_a_password_is_quiet(text: str) -> None:
    assert scan(text) == [], scan(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # twins of the schemes' names above: a password that only begins like one is found
        ("La contraseña: Argon2idX7q9 con 64 MiB de memoria.", "Argon2idX7q9"),
        ("password: aes256secret", "aes256secret"),
        ("Passwort: sha512-Wq8z!mK (bis Freitag).", "sha512-Wq8z!mK"),
    ],
)
def test_a_password_that_begins_like_a_schemes_name_is_found(text: str, value: str) -> None:
    _assert_found(text, value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Zk4mQ9xLp2vTw7Rb", True),
        ("kq3x9m2zp7w4", True),
        ("Winter2031!", True),
        ("Argon2id", False),
        ("AES-256-GCM", False),
        ("Argon2id9Xq", True),
        ("PBKDF2-SHA256", False),
        ("passwordHash", False),
        ("12-characters", False),
        ("0123456789abcdef0123", False),
        ("jane.doe@example.org", False),
        ("stored", False),
    ],
)
def test_a_value_in_prose_is_a_secret_when_it_looks_random(value: str, expected: bool) -> None:
    assert random_looking(value) is expected


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([s for _, s in SENTENCES]),
    st.text(alphabet=string.ascii_letters + string.digits, min_size=13, max_size=20),
)
def test_a_random_password_in_any_sentence_is_never_left_in_clear(sentence: str, body: str) -> None:
    value = "Q7x" + body  # upper, digit, lower: generated like a password
    if not random_looking(value):
        return  # a word-like draw ("Q7xaaaaaaaaaaaaa") is not what this property is about
    text = sentence.format(v=value)
    assert value not in mask_findings(text, 0, len(text))


# --- B: URL passwords with punctuation ---------------------------------------------------------


def _url_password(punct: str) -> str:
    left = "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(4))
    right = "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(8))
    return f"{left}{punct}{right}"


@pytest.mark.parametrize("punct", ["!", "$", "*", "+", "@", "&", "=", ",", ";", "'x", "(", ":", "#", "?"])
@pytest.mark.parametrize(
    "template",
    [
        "psql postgresql://billing:{p}@pg01.prod.internal:5432/billing -f 7.sql",
        "DATABASE_URL=mysql://shop:{p}@db01:3306/shop",
        "cache: redis://:{p}@cache01:6379/0",
        "broker amqp://orders:{p}@mq01.intern:5672/orders",
        "mongodb+srv://app:{p}@cluster0.ab12c.mongodb.net/crm?retryWrites=true",
    ],
)
def test_a_url_password_with_punctuation_is_redacted_whole(punct: str, template: str) -> None:
    if punct == "'x":
        punct = "~"  # (a quote ends a URL in prose; "~" is an unreserved character)
    password = _url_password(punct)
    text = template.format(p=password)
    kinds = _covering(text, password)
    assert kinds and "email" not in kinds, (text, scan(text))
    masked = mask_findings(text, 0, len(text))
    assert password not in masked
    # no part of it is left in clear
    for part in (password[:4], password[5:]):
        assert part not in masked, masked


def test_a_url_password_with_at_signs_runs_to_the_last_one() -> None:
    password = f"{_url_password('@')}!{_url_password('@')}"
    text = f"amqp://svc:{password}@mq01:5672/"
    assert _covering(text, password) == ["basic-auth"]


@pytest.mark.parametrize(
    "text",
    [
        'Connect with psql "postgresql://migrator:${PGPASSWORD}@pg01.internal:5432/finance".',
        "Clone ssh://git@git.acme.io:22/acme/app.git and read https://medium.com/@acme/post.",
        "The admin UI is at https://grafana.intern:3000/d/abc?orgId=1.",
        "Use redis://:<password>@cache01:6379/0 with your own password.",
        "postgresql://app:****@db:5432/app",
    ],
)
def test_a_url_without_a_password_is_quiet(text: str) -> None:
    assert [f.kind for f in scan(text) if f.kind == "basic-auth"] == []


# --- F: placeholders of filler characters ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Replace ghp_" + "X" * 36 + " with your token.",
        "Replace ghp_" + "x" * 36 + " with your token.",
        "Replace ghp_" + "0" * 36 + " with your token.",
        "Replace ghp_" + "xy" * 18 + " with your token.",
        "Replace ghp_" + "abc1" * 9 + " with your token.",
        "Key id in the form AKIA" + "X" * 16 + ".",
        "The dummy AKIA" + "0" * 16 + " is rejected by AWS.",
        "The dummy AKIA " + " ".join(["0000"] * 4) + " is rejected by AWS.",
        "STRIPE_KEY=sk_live_" + "x" * 24,
        "token glpat-" + "X" * 20,
    ],
)
def test_a_token_of_filler_characters_is_a_placeholder(text: str) -> None:
    assert scan(text) == [], scan(text)


def test_a_real_token_with_a_run_inside_still_fires() -> None:
    body = "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(28))
    token = "ghp_" + body[:8] + "0" * 8 + body[8:]
    assert [f.kind for f in scan(f"token {token}")] == ["github-token"]
    key = "AKIA" + "".join(_R.choice(string.ascii_uppercase + string.digits) for _ in range(8)) + "X" * 8
    assert [f.kind for f in scan(f"key {key}")] == ["aws-access-key"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits, min_size=16, max_size=40))
def test_only_a_repeated_body_is_filler(body: str) -> None:
    periodic = any(body == (body[:p] * len(body))[: len(body)] for p in (1, 2, 3, 4))
    assert filler_token("ghp_" + body, ("ghp_",)) is (periodic or len(set(body)) <= 2)
