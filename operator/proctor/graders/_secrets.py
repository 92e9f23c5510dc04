"""Secrets and credentials in an answer: the token rules, key blocks, assignments, and their disguises.

Runs on the canonical text (:mod:`proctor.graders._canon`: zero-width characters are already
gone, look-alike letters mapped). Findings are ``Raw`` tuples in canonical offsets; the scan
(:mod:`proctor.graders._scan`) maps them back to the answer as written.

Detectors: detect-secrets' compiled patterns (run in-process with offsets; JWTs checked with the
plugin's own validity test) and patterns of our own (current OpenAI and Anthropic keys, Google API
keys, GitHub fine-grained tokens, AWS secret keys assigned without quotes, ``credential``: a
password, secret, token or key keyword assigned a value with letters and digits or symbols, in
``KEY=value``, ``key: value``, ``"key": "value"``, JSON-escaped and ``--flag value`` forms; a
connection string so assigned read member by member, its secret members the findings:
:func:`_connection_string_secrets`), a
password given in a sentence in fourteen languages (a grammar: noun, qualifying words, linking
word or colon, a value that looks random: :data:`_PASSWORD_GRAMMAR`), and a URL's password read to
the last ``@`` before its host, whatever it holds. A token whose body is filler (``ghp_XXXX...``,
``AKIA0000...``) is a placeholder (:func:`filler_token`); a SealedSecret's ``encryptedData`` values
are ciphertext (:func:`sealed_ciphertext`).
The entropy detectors are not used: they fire on hashes, UUIDs and digests, which ordinary answers
carry.

Disguises, each found in linear time:

- a token written in pieces: its prefix (``AKIA``, ``ghp_``, ``sk-``...) followed by fragments of
  its alphabet with separators between them (spaces, line breaks and indentation, ``-`` ``.``
  ``|`` and quotes where the token's alphabet has none, string concatenation ``" + "``), as long
  as no fragment is a word of prose (:func:`split_findings`);
- a private key whose lines are quoted (``> ``, ``# ``, ``// ``), indented, or joined by literal
  ``\n`` escapes inside a JSON or code string.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from proctor.graders._offline import without
from proctor.graders._prefilter import Prefilter

#: A finding before redaction: (start, end, priority, kind, detail, value or None), offsets in
#: the scanned text; ``value`` is the secret without its separators when it was written in pieces.
Raw = tuple[int, int, int, str, str, str | None]

_Check = Callable[[str], bool]

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: str
    detail: str
    pattern: re.Pattern[str]
    priority: int
    group: int = 0
    #: characters a token continues with: the finding covers the whole token, not just the
    #: prefix a pattern requires
    extend: str = ""
    check: _Check | None = None
    #: the match may not continue a longer word on its left
    left_boundary: bool = True
    #: the text must contain one of these for the pattern to be worth running (case-sensitive)
    hints: tuple[str, ...] = ()
    #: ... or one of these, in lower case
    keywords: tuple[str, ...] = ()
    #: ... and match this cheap pattern
    gate: re.Pattern[str] | None = None
    #: the secret is a long token (20+ characters of letters, digits and ``_-+/=.``), and its
    #: hints appear inside that token: the rule runs only on texts that have such a token
    in_token: bool = True
    #: the token's alphabet when it may be written in pieces (its hints are its prefixes);
    #: empty: not looked for in pieces (hints inside the token, or too short to tell from prose)
    split: str = ""
    #: the longest token looked for in pieces
    split_limit: int = 512
    #: a character the window around a long token must hold for the rule to be worth running
    token_needs: str = ""
    #: a case-sensitive pattern run on the lower-cased text; the rule is then tried only from the
    #: start of each word an anchor is in (a long case-insensitive alternation tried at every
    #: word of a long answer costs a quarter of a second per megabyte)
    anchor: re.Pattern[str] | None = None
    #: the pattern starts where its anchor does (a noun that begins it): tried once at each anchor
    #: outside the matches already made, never searched for
    at_anchor: bool = False
    #: whether the text around a match shows its value to be no secret (``text``, the value's
    #: start and end)
    context_clears: Callable[[str, int, int], bool] | None = None
    #: the branches of an ``at_anchor`` pattern's alternation, each alone: when the pattern's match
    #: fails the check, the first branch whose match passes it is taken instead (the alternation
    #: stops at its first branch that matches at all)
    branches: tuple[re.Pattern[str], ...] = ()
    #: a key block (PEM, OpenSSH, PuTTY): found by its header, it needs a body and covers the
    #: block to its end
    block: bool = False
    #: the value assigned may be a connection string (:func:`_connection_string_secrets`): then
    #: its secret members are the findings, not the value whole or its first member
    members: bool = False


_GITLAB_HINTS = (
    "glpat-",
    "gldt-",
    "glft-",
    "glsoat-",
    "glrt-",
    "GR1348941",
    "glcbt-",
    "glimt-",
    "glptt-",
    "glagent-",
    "gloas-",
)
_TOKEN = _ALNUM + "_-"
_UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#: The prefixes of AWS unique ids (access keys, users, roles, groups, policies...): a group of a key
#: id in pieces that is one of them is a list of these prefixes, not a key (a random group of four
#: letters is one of them about once in 38,000)
_AWS_ID_PREFIXES = frozenset(
    ("ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "AKIA", "ANPA", "ANVA", "APKA", "AROA", "ASCA", "ASIA")
)
_B64 = _TOKEN + "+/="

_PLACEHOLDER = re.compile(
    r"(?i)^(?:[x*#._-]{3,}|<[^>]*>?|\$\{?[\w.-]*\}?|\{\{?[^}]*\}?\}?|%\([\w.-]*\)[sd]|%[A-Za-z_]\w*%|%[sd]|"
    # a placeholder word, alone or joined to more words: "changeme", "your_password", "my-secret"
    r"(?:your|my|the|some|example|sample|dummy|fake|test|placeholder|redacted|changeme|password|"
    r"passwd|secret|pass|pwd|token|hunter2|none|null|undefined)(?:[_-][a-z]+)*)$"
)


def not_placeholder(value: str) -> bool:
    return not _PLACEHOLDER.match(value) and not _instruction(value)


#: The words of an instruction to put one's own secret in (``PasteYourApiKeyHere``) ...
_INSTRUCTION_VERBS = frozenset({"your", "paste", "insert", "replace", "enter"})
#: ... and of what it asks for or where
_INSTRUCTION_OBJECTS = frozenset(
    {"key", "token", "secret", "password", "passphrase", "credential", "credentials", "here", "value"}
)


def _instruction(value: str) -> bool:
    """Words joined in camelCase, no digit, that tell the reader to put their own secret in
    (``Paste/YourAwsSecretAccessKey/HereAndSave``, ``YourPasswordHere``): a placeholder. A passphrase
    of words (``HereComesTheSun``, ``CorrectHorseBatteryStaple``) asks for nothing and stays one."""
    if not _words_joined(value):  # (a digit is in no word joined)
        return False
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z]+", value)}
    return bool(words & _INSTRUCTION_VERBS) and bool(words & _INSTRUCTION_OBJECTS)


#: A value a CI runner masked in its log: GitLab's ``[MASKED]`` (with the text around the masked
#: variable kept: ``pre[MASKED]``), GitHub Actions' ``***``, Jenkins' ``****``, in full; or a value
#: masked in part, as a console previews it (``sk-****abcd``): none shows a secret
_CI_MASKED = re.compile(r"(?i:.*\[masked\].*)|\*{3,}|.*\*{4,}.*")


def _url_password(value: str) -> bool:
    """A URL's password that is one: no placeholder, no vendor's token of filler
    (``https://svc:ghp_XXXX...@github.com``, as the documentation writes a credential store's line;
    a password of digits alone, ``x:4111111111111111@``, is still one), no CI runner's mask
    (``https://gitlab-ci-token:[MASKED]@gitlab.com``)."""
    prefixes = _token_prefixes()
    return (
        not_placeholder(value)
        and _CI_MASKED.fullmatch(value) is None
        and not (value.startswith(prefixes) and filler_token(value, prefixes))
    )


def _telegram_secret(token: str) -> bool:
    """A Telegram bot token whose secret (after the bot's number and the colon) is no filler."""
    return not filler_token(token.partition(":")[2])


def _webhook_secret(url: str) -> bool:
    """A Slack webhook whose secret (its last segment) is no filler: Slack's documentation writes
    ``.../services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX``."""
    return not filler_token(url.rstrip("/").rpartition("/")[2])


#: A path in the strict sense: absolute, of two segments or more, the first a directory's name
#: in small letters (``/run/secrets/db``, ``/etc/credstore/stripe-api-key``), or from the home or
#: the working directory (``~/.pw``, ``./secrets/db``, ``../keys/app.pem``); a segment holds no
#: ``+`` or ``=`` (base64's), so a secret with slashes in it is none
_PATH = r"(?:/[a-z0-9._-]+(?:/[\w.@~-]+)+|(?:~|\.\.?)(?:/[\w.@~-]+)+)/?"
#: A value that only says where a secret lives, read from a file: a path as ``file:`` names it
#: (``password=file:/run/secrets/db``), as a command line reads a file's content (curl's and
#: HTTPie's ``@``: ``DB_PASSWORD=@/run/secrets/db``), or a credential's name and the file it is
#: loaded from (systemd's ``LoadCredential=``, ``LoadCredentialEncrypted=``: ``stripe:/etc/credstore/
#: stripe-api-key``); a name and a value (``SetCredential=db-password:Xk9mPq2vL7wQz``) is a secret
_PATH_REFERENCE = rf"(?:file:(?://)?|@|[A-Za-z0-9_.@-]{{1,64}}:)?{_PATH}"
#: The names of hashing, cipher and key-agreement schemes and their modes, as policies write them
_SCHEME = (
    r"(?:argon2(?:id|i|d)?|[bs]crypt|yescrypt|pbkdf2|hmac|sha-?(?:1|224|256|384|512)(?:crypt)?|"
    r"sha3-?(?:224|256|384|512)|md5(?:crypt)?|blake2[bs]?|aes-?(?:128|192|256)?|chacha20|poly1305|"
    r"rsa(?:-?(?:2048|3072|4096))?|ecdsa|ed25519|x25519|wpa[23]?|psk|sae|ntlm(?:v2)?|totp|hotp|"
    r"gcm|cbc|ctr)"
)
_NOT_A_CREDENTIAL = re.compile(
    _PATH_REFERENCE + r"|"  # a path or a reference to one
    r"[vV]?\d+(?:[._-]\d+)*[a-zA-Z]?"  # a version or a figure
    r"|[a-z]+(?:[-_.][a-z0-9]+)+"  # kebab/snake/dotted words: prose, file and setting names
    r"|[A-Z][A-Z0-9]*_[A-Z0-9_]+"  # an environment variable's name
    r"|.*(?:://|[()\[\]{}$<>]).*"  # a URL, code, a template or a placeholder
    r"|%[A-Za-z_]\w*%"  # a Windows environment variable (%DB_PASSWORD%)
    # a secret's spec as Docker BuildKit and Podman take it (``--secret id=npmrc,src=$HOME/.npmrc``,
    # ``--mount=type=secret,id=aws``): the name of a secret and where it is read from, not its value
    r"|(?:id|src|source|env|type|target|dst|required|mode|uid|gid)=[^=]*"
    # a header's or a key's name with its colon (``basic auth: `Authorization: Basic <...>` ``): a
    # label in prose, the value after it
    r"|[A-Za-z][A-Za-z-]*:"
    r"|[/.~].*"  # a path
    # a value masked in part: a redaction's preview (the scan's own markers, ``[redacted
    # aws-access-key: AKIA************MPLX]``, or a console's ``sk-****abcd``) shows no secret
    r"|.*\*{4,}.*"
    # ... or in full by a CI runner, also as a URL's password read with its host after it
    # (``x-access-token:***@github.com``: GitHub Actions' mask)
    r"|\*{3,}(?:@.*)?"
    # a scheme's name (``Argon2id``, ``PBKDF2-HMAC-SHA256``, ``AES-256-GCM``, ``WPA2-PSK``): what a
    # policy says hashes or encrypts the password (``La contraseña: Argon2id con 64 MiB``), no value
    rf"|(?i:{_SCHEME}(?:[-_/]{_SCHEME})*)"
)


_PRINTF_PLACEHOLDER = re.compile(r"%[sd](?![A-Za-z0-9])")
#: ``user:password`` decoded from base64 (not a URL: ``scheme://...``), group 1 the password
_DECODED_USER_PASS = re.compile(r"[\w.@+-]{1,128}:(?!//)(\S{1,256})")


def looks_like_credential(value: str) -> bool:
    """A value assigned to a password/secret/token keyword: long enough, letters and digits (or
    symbols), not a placeholder, a version string, words, code, a path or a URL (judged without
    the full stop that may end its sentence: ``--token=%API_TOKEN%.``)."""
    # a printf placeholder (``%s``, ``%d``) stands for a word: read as one letter, the value must
    # be a credential without it ("user%d" and "prefix-%s-suffix" are templates; "Rct2HH%zCJu8%d"
    # is a password that ends in "%d")
    value = _PRINTF_PLACEHOLDER.sub("x", value.rstrip("."))
    decoded = _printable_base64(value)
    if decoded is not None:
        # base64 of text (a Kubernetes Secret's data, a Basic header): judged as that text, so
        # base64 of "changeme" or of "${DB_PASSWORD}" is the placeholder it encodes; of
        # "user:password", by its password ("npmuser:changeme" is a placeholder too)
        pair = _DECODED_USER_PASS.fullmatch(decoded)
        return looks_like_credential(pair.group(1) if pair else decoded)
    if len(value) < 8 or not not_placeholder(value) or _NOT_A_CREDENTIAL.fullmatch(value):
        return False
    if _placeholder_after_prefix(value):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    return has_alpha and (has_digit or has_symbol)


def _placeholder_after_prefix(value: str) -> bool:
    """A vendor's token prefix and a placeholder (``hf_YOUR_TOKEN_HERE``, ``ghp_<token>``,
    ``key-your-api-key``, words joined in camelCase: ``hf_YourAccessTokenHere``): the shape of a
    token with no token in it."""
    prefix = next((p for p in _token_prefixes() if value.startswith(p)), None)
    if prefix is None:
        return False
    rest = value[len(prefix) :].lstrip("_-.")
    return bool(rest) and (
        not not_placeholder(rest)
        or _ENV_NAME.fullmatch(rest) is not None
        or (
            not any(c.isdigit() for c in rest)
            and not rest.isupper()
            and not rest.islower()
            and _words_joined(rest)
        )
    )


#: an environment variable's name, or a placeholder written as one (``YOUR_TOKEN_HERE``)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+")


_BASE64_TEXT = re.compile(r"(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _printable_base64(value: str) -> str | None:
    """The text ``value`` encodes when it is padded base64 of printable ASCII (4+ characters),
    else None. Random credentials almost never decode to printable text: each byte has about a
    one in three chance, so a 12-character password decodes to 9 printable bytes once in 20,000."""
    if len(value) < 8 or _BASE64_TEXT.fullmatch(value) is None:
        return None
    try:
        raw = base64.b64decode(value, validate=True)
    except (ValueError, binascii.Error):
        return None
    if len(raw) < 4 or not all(32 <= b < 127 for b in raw):
        return None
    return raw.decode("ascii")


#: What a placeholder token's body is made of besides its filler: the separators of its groups
_NOT_FILLER = re.compile(r"[^A-Za-z0-9]+")


def filler_token(token: str, prefixes: Sequence[str] = ()) -> bool:
    """A placeholder in a token's shape: after its prefix (the longest of ``prefixes`` it starts
    with), its letters and digits are one character repeated or a pattern of up to four repeated
    (``ghp_XXXX...``, ``ghp_xxxx...``, ``AKIA0000...``, ``sk_live_abab...``), or two characters at
    most (``AKIA`` then groups of zeros and of ``X`` in turn). A random body of 8 characters or
    more is never that (two characters: one chance in about 10^10 for 8 of 62); a real token with
    a run inside
    (``...Qz000000Tk...``) is not either."""
    prefix = max((p for p in prefixes if token.startswith(p)), key=len, default="")
    body = _NOT_FILLER.sub("", token[len(prefix) :])
    if len(body) < 8:
        return False
    if len(set(body)) <= 2:
        return True
    return any(body == (body[:p] * (len(body) // p + 1))[: len(body)] for p in range(3, 5))


@functools.cache
def _token_prefixes() -> tuple[str, ...]:
    """The prefixes the token rules know their tokens by (``ghp_``, ``AKIA``, ``sk_live_``, ``xox``...)."""
    return tuple(sorted({h for rule in _secret_engine().rules for h in rule.hints}, key=len, reverse=True))


def token_prefix_starts(text: str, pos: int) -> Iterator[int]:
    """Where a vendor's token prefix starts in ``text`` from ``pos`` on (``AKIA``, ``ghp_``, ``hf_``,
    ``sk-``, ``xox``...: the prefixes of the tokens that may be written in pieces), the longest at
    each place."""
    for m in _secret_engine().split_hints.finditer(text, pos):
        yield m.start()


def assigned_credential(value: str) -> bool:
    """A value given to a credential key, flag or label that is a credential
    (:func:`looks_like_credential`) and no token of filler (:func:`filler_token`): a known
    prefix and filler (``GITHUB_TOKEN=ghp_XXXX...``, ``token: AKIA0000...``) or filler alone
    is the placeholder the token rules take it for, whatever key it is given to."""
    return looks_like_credential(value) and not filler_token(value.rstrip("."), _token_prefixes())


#: Words joined in camelCase, each part of a value (``YourHuggingFaceTokenHere``, ``HFTokenHere``,
#: ``ThisIsNotARealKey``, ``hf``): small letters, an acronym, capitals each opening a run of two
#: small letters or more or a word of two letters (``Is``, ``My``, ``To``...), the words ``A`` and
#: ``I`` before one, capitals last
_TWO_LETTER_WORDS = "Is|It|In|Of|On|To|My|At|As|An|Be|By|Do|Go|If|Me|No|Or|So|Up|Us|We"
_CAMEL_WORDS = re.compile(
    r"[a-z]*(?:[A-Z]{1,4}(?=[A-Z][a-z]))?"
    rf"(?:[AI]?(?:[A-Z][a-z]{{2,}}|(?:{_TWO_LETTER_WORDS})(?![a-z])))*[A-Z]*"
)
_CAMEL_HUMP = re.compile(r"[A-Z]([a-z]+)")
_VOWELS = frozenset("aeiouy")


def _words_joined(value: str) -> bool:
    """Whether each part of ``value`` is words joined in camelCase, each hump of three letters or
    more with a vowel (a placeholder's ``hf_YourHuggingFaceAccessTokenHere``): 34 letters drawn at
    random in both cases are that about once in 15,000 (they hold a small letter alone after a
    capital that makes no word, capitals together inside, a hump of consonants)."""
    for part in _NOT_FILLER.split(value):
        if _CAMEL_WORDS.fullmatch(part) is None or not all(
            len(h) < 3 or set(h) & _VOWELS for h in _CAMEL_HUMP.findall(part)
        ):
            return False
    return True


def _mixed_token(value: str) -> bool:
    """An API key body: upper and lower case, and a digit, or no words joined in camelCase (rules
    out words, hex hashes and placeholders): a Hugging Face token is 34 letters, and any random
    body may hold no digit (one in 600 of npm's 36 characters)."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and (any(c.isdigit() for c in value) or not _words_joined(value))
    )


#: Tokens known by their prefix that detect-secrets has no plugin for (the formats gitleaks'
#: rules document): (kind, detail, pattern, hints, check)
_PREFIXED_TOKENS: tuple[tuple[str, str, str, tuple[str, ...], _Check | None], ...] = (
    ("npm-token", "npm access token", r"npm_[A-Za-z0-9]{36}", ("npm_",), _mixed_token),
    (
        "digitalocean-token",
        "DigitalOcean token",
        r"do[por]_v1_[a-f0-9]{64}",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        None,
    ),
    (
        "vault-token",
        "HashiCorp Vault token",
        r"hv[sbr]\.[A-Za-z0-9_-]{24,}",
        ("hvs.", "hvb.", "hvr."),
        _mixed_token,
    ),
    ("databricks-token", "Databricks token", r"dapi[a-f0-9]{32}(?:-\d)?", ("dapi",), None),
    (
        "pypi-token",
        "PyPI upload token",
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        ("pypi-AgEIcHlwaS5vcmc",),
        None,
    ),
    ("docker-hub-token", "Docker Hub access token", r"dckr_pat_[A-Za-z0-9_-]{27,}", ("dckr_pat_",), None),
    (
        "shopify-token",
        "Shopify access token",
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        None,
    ),
    ("mailgun-api-key", "Mailgun API key", r"key-[a-f0-9]{32}(?![A-Za-z0-9])", ("key-",), None),
    (
        "huggingface-token",
        "Hugging Face token",
        r"hf_[A-Za-z0-9]{34,40}(?![A-Za-z0-9])",
        ("hf_",),
        _mixed_token,
    ),
    (
        "age-secret-key",
        "age secret key",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58,}",
        ("AGE-SECRET-KEY-1",),
        None,
    ),
    ("linear-api-key", "Linear API key", r"lin_api_[A-Za-z0-9]{40}", ("lin_api_",), None),
    (
        "grafana-token",
        "Grafana service account token",
        r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
        ("glsa_",),
        None,
    ),
    ("postman-api-key", "Postman API key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", ("PMAK-",), None),
    ("pulumi-token", "Pulumi access token", r"pul-[a-f0-9]{40}", ("pul-",), None),
    ("newrelic-api-key", "New Relic user API key", r"NRAK-[A-Z0-9]{27}", ("NRAK-",), None),
    ("newrelic-api-key", "New Relic admin API key", r"NRAA-[a-f0-9]{27}", ("NRAA-",), None),
    ("newrelic-api-key", "New Relic insert key", r"NRII-[A-Za-z0-9_-]{32}", ("NRII-",), _mixed_token),
    ("newrelic-api-key", "New Relic browser API token", r"NRJS-[a-f0-9]{19}", ("NRJS-",), None),
    # every kind of Doppler token: personal, service (with its config's name: dp.st.prd.X), CLI,
    # service account, SCIM, audit
    (
        "doppler-token",
        "Doppler token",
        r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])",
        ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
        _mixed_token,
    ),
)
#: ... whose body is base64 (``+``, ``/`` and ``=`` padding in it: read in pieces with that alphabet)
_PREFIXED_B64_TOKENS: tuple[tuple[str, str, str, tuple[str, ...], _Check | None], ...] = (
    # a Grafana Cloud access policy token: glc_ and base64 of compact JSON ({"o":"...","n":...}),
    # padded or not
    (
        "grafana-token",
        "Grafana Cloud access policy token",
        r"glc_[A-Za-z0-9+/]{32,400}={0,2}",
        ("glc_",),
        _mixed_token,
    ),
    # a Grafana API key (before service accounts): base64 of {"k":"...","n":"...","id":N}
    ("grafana-token", "Grafana API key", r"eyJrIjoi[A-Za-z0-9+/]{70,400}={0,2}", ("eyJrIjoi",), None),
)


def _twilio_ok(value: str) -> bool:
    body = value[2:]
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


#: An AWS secret access key assigned without quotes (``AWS_SECRET_ACCESS_KEY=wJalr...``, ``aws secret
#: key: wJalr...``): 40 characters of base64 after an AWS secret keyword.
_AWS_SECRET_UNQUOTED = re.compile(
    r"(?i:aws[\w .-]{0,20}?secret[\w .-]{0,20}?)[\"']?\s*"
    r"(?:=|:=|=>|:|\s+is\s*:?|\s)\s*\\?[\"'`]?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)


def _aws_secret_ok(value: str) -> bool:
    """40 characters of base64 with upper and lower case letters and digits or ``/+``, or letters
    alone that are no words joined (one key in 4,000 has neither a digit nor ``/+``); no
    instruction to paste one's own (:func:`_instruction`)."""
    return (
        not _instruction(value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and (any(c.isdigit() or c in "/+" for c in value) or not _words_joined(value))
    )


#: Keywords of an assignment whose value is a secret; prefixes such as ``DB_`` or
#: ``spring.datasource.`` allowed.
_CREDENTIAL_KEYWORD = (
    r"(?:password|passwd|passphrase|passcode|pwd|pass|secret|client[_ -]?secret|secret[_ -]?key|"
    r"secret[_ -]?access[_ -]?key|access[_ -]?key|api[_ -]?key|apikey|api[_ -]?token|access[_ -]?token|"
    r"auth[_ -]?token|bearer[_ -]?token|private[_ -]?token|refresh[_ -]?token|session[_ -]?token|"
    r"token|credentials?|auth|session[_ -]?key|signing[_ -]?key|encryption[_ -]?key|master[_ -]?key|"
    r"account[_ -]?key|conn(?:ection)?[_ -]?str(?:ing)?|"
    # a private key's or a pre-shared key's value written inline (WireGuard's ``PrivateKey =`` and
    # ``PresharedKey =``, a service account's ``"private_key":``): a PEM block is its own finding
    r"private[_ -]?key|pre[_ -]?shared[_ -]?key)"
)
#: the humps of a camelCase key before its keyword (``smtp`` of ``smtpPassword``, ``my``, ``Sql`` and
#: ``Root`` of ``mySqlRootPassword``), after the snake, kebab or dotted words (``spring.datasource.``).
#: Each hump ends where a capital starts, so a key splits one way only, and the keyword is tried
#: after at most five of them: a free run of letters here would try it at every capital of a word
_CAMEL_WORD = r"(?-i:(?:[A-Za-z][a-z0-9]*(?=[A-Z])){0,4})"
#: One character of an assigned value: anything but a space, a quote, ``,``, ``;``, a closing
#: bracket (``)``, ``]``, ``}``: a value in a flow mapping, ``{password: X}``, or in brackets) or ``\``
#: (which end a value, or escape the quote that closes it), or one escape written in the value:
#: an HTML character reference (``Tr0ub4dor&#33;3xK``: its ``;`` does not end the value), a
#: ``\x`` or ``\u`` escape (``Tr0ub4dor\x213xK``). Without these the value stopped at the escape
#: and its rest was left in clear beside the finding, or a value with one early was not read.
_VALUE_UNIT = (
    r"(?:[^\s\"'`,;)\]}\\&]|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});|&"
    r"|\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4})"
)
#: A YAML key, the first thing on a line after a key that ends its own line: that key opens a
#: mapping (``auth:`` over ``username: orders``, ``existingSecret: orders-db``), or holds nothing;
#: the next line's key is not its value
_YAML_KEY = r"""[\"']?[\w./-]+[\"']?[ \t]*:(?:\s|$)"""
#: what stands between a key's mark and its value: blanks on the same line, or line breaks and
#: the next line's indentation, which a YAML key does not end
_TO_VALUE = rf"(?:[ \t]{{0,64}}|\s{{0,64}}?\n[ \t]{{0,64}}(?!{_YAML_KEY}))"
#: English adverbs of time or manner between ``is`` and a value ("the password is still X", "the
#: token is now X"); every language's for a password in a sentence: :data:`_PASSWORD_ADVERBS`
_ADVERBS_EN = (
    r"now|still|currently|presently|temporarily|again|already|just|simply|also|right[ \t]+now"
    r"|for[ \t]+now|from[ \t]+now[ \t]+on|at[ \t]+present|at[ \t]+the[ \t]+moment"
    r"|for[ \t]+the[ \t]+time[ \t]+being"
)
#: Keywords that name a credential also with a qualifier after them in an environment variable's
#: name: the host, the environment or the instance it is for (Terraform's ``TF_TOKEN_app_terraform_io``,
#: ``VAULT_TOKEN_PROD``, ``STRIPE_API_KEY_LIVE``, ``DB_PASSWORD_2``); not the looser ``pass``, ``auth``,
#: ``credentials``, whose names go on to many settings (``AUTH_MODE``, ``CREDENTIALS_PROFILE``)
_QUALIFIABLE_KEYWORD = (
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|"
    r"(?:access|signing|encryption|master|account|session|private)[_-]?key)"
)
#: ... and the words of such a name that make it another setting's than the credential's value
#: (``TOKEN_URL``, ``PASSWORD_FILE``, ``SECRET_NAME``, ``API_KEY_ID``, ``API_KEY_HEADER``)
_KEY_ATTRIBUTE = (
    r"(?:urls?|uri|endpoint|host|hostname|port|server|domain|file|filename|path|dir|directory|location|"
    r"names?|ids?|type|kind|ttl|expiry|expires|expiration|lifetime|timeout|interval|length|len|size|"
    r"min|max|minimum|maximum|count|hash|hashed|header|param|parameter|field|prefix|suffix|env|var|"
    r"variable|ref|reference|arn|policy|mode|method|scheme|format|version|provider|source|helper|"
    r"command|cmd|store|backend|cache|enabled|disabled|required|rotation|user|username|login|email|"
    r"issuer|audience|algorithm|alg|pattern|regex|label|description|help|hint|prompt|placeholder|"
    r"template|namespace|mount|role|scope|scopes|region|encryption|cipher|engine|level|strength)"
)
_KEY_QUALIFIER = rf"(?:_(?!{_KEY_ATTRIBUTE}(?![a-z0-9]))[a-z0-9]+){{1,4}}"
_CREDENTIAL = re.compile(
    rf"(?i:(?<![\w.-])(?:[a-z0-9]+[_.-])*{_CAMEL_WORD}"
    rf"(?:{_CREDENTIAL_KEYWORD}|{_QUALIFIABLE_KEYWORD}{_KEY_QUALIFIER})(?![a-z]))"
    # a JSON-escaped quote may close the key (\"password\": \"...\")
    rf"\\?[\"']?\s{{0,64}}(?:(?i:is(?:[ \t]+(?:{_ADVERBS_EN})(?![a-z])){{0,2}})\s{{0,64}}:?|=|:=|=>|:)"
    rf"{_TO_VALUE}\\?[\"'`]?"
    rf"({_VALUE_UNIT}{{8,}})"
)
#: ... and XML: a value between the tags of an element named after the keyword
#: (``<password>...</password>``, ``<db:Password type="plain">``), or a config element naming the
#: keyword in its ``key`` or ``name`` attribute, the value in ``value`` or between its tags
#: (``<add key="DbPassword" value="..."/>`` in .NET, ``<property name="db.password" value="..."/>``,
#: ``<entry key="password">...</entry>`` in Java); a CDATA section or not. One pattern, so the
#: keyword anchors are looked for once for both
_XML_NAME = rf"(?:[a-z0-9]+[_.:-])*{_CAMEL_WORD}{_CREDENTIAL_KEYWORD}"
_CREDENTIAL_XML = re.compile(
    rf"(?i:(?:(?<=<){_XML_NAME}(?:\s[^<>]{{0,200}})?>"
    rf"|(?:(?<=key=[\"'])|(?<=name=[\"'])){_XML_NAME}[\"'](?:\s+value\s*=\s*[\"']|[^<>]{{0,200}}>))"
    r"\s*(?:<!\[CDATA\[\s*)?)([^<>\s\"'`]{8,}?)(?:[\"']|(?:\s*\]\]>)?\s*</)"
)
#: ... and a command-line flag with its value (``--password s3cr3t!x9``, ``--db-password=s3cr3t!x9``)
_CREDENTIAL_FLAG = re.compile(
    rf"(?i:(?<![\w-])--?(?:[a-z0-9]+-)*{_CREDENTIAL_KEYWORD}(?![\w-]))"
    rf"(?:\s{{1,64}}|=)[\"'`]?((?!-){_VALUE_UNIT}{{8,}})"
)
#: The password of a URL's user information (``postgresql://user:PASSWORD@host``, and without a
#: user name: ``redis://:PASSWORD@cache:6379``): everything from the user's ``:`` to the LAST ``@``
#: before the host, whatever it holds (``Qe7!vR2m``, ``Tr7$kP2w``, ``Hv8*Lq3n``, ``p@ss!Word9``: the
#: characters RFC 3986 wants escaped are often written as they are). detect-secrets' pattern stops
#: at the first of ``!$&'()*+,;=@``, so the password was not read, or read in part and its rest left
#: in clear (an e-mail reading took ``vR2m...@host``). A ``/``, a space or a quote ends it (a path
#: follows); the user name holds no ``:``, ``@`` or ``/``. Linear: one try per ``://``, each ending at
#: the next ``/`` or space, and the host needs only its first character.
_URL_PASSWORD = re.compile(r"://[^\s:/?#@\[\]\"'`<>]*:([^\s/\"'`<>]+)@(?=[A-Za-z0-9\[])")


_CREDENTIAL_ANCHOR = re.compile(_CREDENTIAL_KEYWORD)

#: A member of a connection string (``Name=value;Name=value...``: Azure storage's and Service Bus',
#: ADO.NET's, ODBC's, JDBC's properties): its name (``AccountName``, ``User ID``, ``Data Source``),
#: ``=``, its value to the next ``;`` (or the end of the value it is read in)
_CONNECTION_MEMBER = re.compile(r"[ \t]*([A-Za-z][\w .]{0,63}?)[ \t]*=[ \t]*([^;]*)")
#: ... the rest of a member whose value an assignment's stopped short (at the ``,`` of
#: ``Server=tcp:db1,1433``), then the next member's name and ``=`` (bounded: whether a member
#: follows)
_CONNECTION_NEXT = re.compile(r"[^;\s\"'`<>]{0,256};[ \t]*[A-Za-z][\w .]{0,63}?[ \t]*=")
#: A member's name that is a credential's (``Password``, ``Pwd``, ``AccountKey``, ``SharedAccessKey``;
#: not ``SharedAccessKeyName``, ``AccountName``, ``DefaultEndpointsProtocol``)
_CREDENTIAL_NAME = re.compile(rf"(?i:(?:[a-z0-9]+[_.-])*{_CAMEL_WORD}{_CREDENTIAL_KEYWORD})")
#: A connection string's key right before a value (``connectionString: "``,
#: ``AZURE_STORAGE_CONNECTION_STRING='``, ``conn_str=``, ``--connection-string "``, ``<connectionString>``,
#: ``<add key="StorageConnectionString" value="``, ``the connection string is``): the rest of its
#: word, then marks, quotes, blanks, ``is`` or ``value`` alone
_CONNECTION_KEY_BEFORE = re.compile(
    r"(?i:conn(?:ection)?[_ -]?str(?:ing)?s?)\w{0,64}(?:[^\w\n]|(?i:is|value)(?!\w)){0,32}$"
)
_CONNECTION_KEY_REACH = 256


def _connection_string_secrets(text: str, start: int, end: int) -> list[tuple[int, int, str]] | None:
    """When the value ``text[start:end]`` assigned to a credential key is a connection string (or
    its first member: a ``;`` ends an assignment's value), the value of each of its members whose
    name is a credential's (``AccountKey=``, ``SharedAccessKey=``, ``Password=``, ``Pwd=``), as
    ``(start, end, value)``; None when it is no connection string. It is one when its first member's
    name is no credential's (``DefaultEndpointsProtocol=http``, ``Server=tcp:db1,1433``,
    ``Host=localhost``: no secret, and never one to report) and another member follows, or the key
    names a connection string (``connectionString:``, ``AZURE_STORAGE_CONNECTION_STRING=``). The
    secret members after the value's end are read as assignments of their own; a documented
    example key among them (the Azure storage emulator's) is dropped as everywhere, so the string
    whose only secret it is reports nothing."""
    first = _CONNECTION_MEMBER.match(text, start, end)
    if first is None or not first.group(2) or _CREDENTIAL_NAME.fullmatch(first.group(1).strip()):
        return None
    follows = ";" in text[start:end] or _CONNECTION_NEXT.match(text, end) is not None
    if not follows and not _CONNECTION_KEY_BEFORE.search(text, max(0, start - _CONNECTION_KEY_REACH), start):
        return None
    return [
        (m.start(2), m.start(2) + len(m.group(2).rstrip()), m.group(2).rstrip())
        for m in _CONNECTION_MEMBER.finditer(text, first.end(), end)
        if _CREDENTIAL_NAME.fullmatch(m.group(1).strip())
    ]


#: the text up to the last character that is not one of the words before a credential keyword
#: ("spring.datasource.", "--db-", an XML namespace's "db:"): one greedy pass, however long
#: those words are
_UP_TO_WORDS = re.compile(r"(?s:.*)[^a-z0-9_.:-]")
#: the rest of the words a keyword is in: a keyword ends its words (what follows it is ``=``,
#: ``:``, a quote or a space)
_REST_OF_WORDS = re.compile(r"[a-z0-9_.-]*")
#: how far past a keyword's words an assignment is looked for: more than the spaces and quotes
#: between key and value may take (64 spaces each) and the value's first 8 characters; a value
#: running past it is matched whole
_ASSIGNMENT_WINDOW = 400


#: A password (or a secret key) given in a sentence, in the languages the scan reads: its noun, a
#: few words that qualify it ("for the guest network", "fur das Gastenetz", "do usuario de
#: servico", "for user admin"), a linking word of the noun's language or a colon, then the value:
#: ``Passwort: X``, ``Mot de passe : X``, ``Das WLAN-Passwort fur das Gastenetz lautet: X``,
#: ``A senha do usuario de servico e X``, ``The secret access key for that IAM user is X``. The scan
#: reads the canonical text: no diacritics on ASCII letters ("contrasena", "losenord", "e" for "é"
#: and "è", "ar" for "är"). Each entry: language, its nouns, whether a noun may end a compound
#: ("WLAN-Passwort", "Domanenpasswort", "beheerderswachtwoord"), its linking words.
_PASSWORD_GRAMMAR: tuple[tuple[str, str, bool, str], ...] = (
    (
        "en",
        r"pass(?:word|phrase|code)s?|passwd|pass[ -]phrase|(?:aws[ _-])?secret(?:[ _-]access)?[ _-]key"
        r"|client[ _-]secret|secret",
        False,
        r"is|was|(?:(?:is|was|has[ \t]+been|have[ \t]+been)[ \t]+)?(?:set|changed|reset|updated)[ \t]+to"
        r"|is[ \t]+now",
    ),
    ("de", r"passwort|kennwort", True, r"ist|lautet|lautete|heisst|heißt|war"),
    ("fr", r"mot[ -]de[ -]passe|mdp|cle[ _-]secrete", False, r"est|etait|sera"),
    ("es", r"contrasena|clave(?:[ _-]de[ _-]acceso|[ _-]secreta)?", False, r"es|era|sera"),
    ("pt", r"senha|palavra[ -]passe|chave[ _-]secreta", False, r"e|era|sera|fica"),
    ("it", r"password|parola[ _-]d'ordine|chiave[ _-]segreta", False, r"e|e'|era|sara"),
    ("nl", r"wachtwoord|paswoord", True, r"is|luidt|was|wordt"),
    ("pl", r"has(?:ło|ła|łem|le|lo|la)", False, r"to|jest|brzmi|wynosi"),
    ("sv", r"losenord(?:et)?", True, r"ar|var|lyder"),
    ("da/no", r"adgangskode(?:n)?|passord(?:et)?|kodeord(?:et)?", True, r"er|var|lyder"),
    ("fi", r"salasana(?:si|nsa|mme|nne)?", True, r"on|oli"),
    ("cs", r"hesl(?:o|a)", False, r"je|zni|bylo"),
    ("tr", r"sifre(?:si|niz|n)?|parola(?:s[i\u0131]|n[i\u0131]z)?", False, r"(?!)"),  # (a colon only)
)
#: Adverbs of time or manner that may stand between a linking word and the value, one or two, by the
#: grammar's language (canonical spelling: no diacritics on ASCII letters; ``æ``, ``ø`` and ``ł``
#: stay): "The password is still X", "Das Passwort ist jetzt X", "Le mot de passe est désormais X",
#: "Het wachtwoord is tijdelijk X", "Lösenordet är fortfarande X". The value must still look random:
#: "The password is still missing", "Das Passwort ist jetzt abgelaufen" stay prose
_PASSWORD_ADVERBS: dict[str, str] = {
    "en": _ADVERBS_EN,
    "de": r"jetzt|nun|noch|immer[ \t]+noch|derzeit|zurzeit|zur[ \t]+zeit|vorlaufig|vorubergehend|momentan"
    r"|aktuell|weiterhin|wieder|bereits|schon|ab[ \t]+sofort|einfach|auch",
    "fr": r"desormais|dorenavant|maintenant|toujours|actuellement|temporairement|provisoirement|encore"
    r"|deja|a[ \t]+present|pour[ \t]+l'instant|pour[ \t]+le[ \t]+moment|simplement|aussi",
    "es": r"ahora|todavia|aun|actualmente|temporalmente|provisionalmente|ya|nuevamente|de[ \t]+nuevo"
    r"|de[ \t]+momento|por[ \t]+ahora|ahora[ \t]+mismo|simplemente|tambien",
    "pt": r"agora|ainda|atualmente|temporariamente|provisoriamente|ja|novamente|de[ \t]+novo"
    r"|de[ \t]+momento|por[ \t]+enquanto|por[ \t]+agora|simplesmente|tambem",
    "it": r"ora|adesso|ancora|attualmente|temporaneamente|provvisoriamente|gia|di[ \t]+nuovo|per[ \t]+ora"
    r"|al[ \t]+momento|semplicemente|anche",
    "nl": r"nu|nog|nog[ \t]+steeds|tijdelijk|voorlopig|momenteel|weer|al|inmiddels|vanaf[ \t]+nu"
    r"|op[ \t]+dit[ \t]+moment|gewoon|ook",
    "pl": r"teraz|nadal|wciaz|obecnie|aktualnie|tymczasowo|juz|ponownie|po[ \t]+prostu|tez|takze",
    "sv": r"nu|fortfarande|tillfalligt|just[ \t]+nu|annu|redan|numera|igen|tills[ \t]+vidare"
    r"|for[ \t]+narvarande|ocksa",
    "da/no": r"nu|na|stadig|stadigv(?:æ|ae)k|fortsat|fortsatt|fremdeles|midlertidigt?|forel(?:ø|o)pig"
    r"|for[ \t]+tiden|allerede|igen|ogs(?:a|aa)",
    "fi": r"nyt|viela|edelleen|tilapaisesti|valiaikaisesti|talla[ \t]+hetkella|jo|taas|myos",
    "cs": r"nyni|ted|stale|docasne|aktualne|jiz|uz|zatim|opet|take",
}
_LETTER_BEFORE = r"(?<![^\W\d_])"
_NO_LETTER_AFTER = r"(?![^\W\d_])"
#: One word qualifying the noun: any token without a space (a file, a host, a name in backticks or
#: quotes: "dev.tfvars", ".env", ".p12", "`dev.tfvars`", "db01.intern", "(staging)"), but not one
#: that ends a sentence or a clause (a full stop, a colon, a comma... at its end); not a word that
#: makes the noun's value something else ("password hash", "password policy": a digest or a rule,
#: not the password)
_QUALIFIER_WORD = (
    r"[ \t]+(?!(?:hash(?:es|ed)?|digest|salt|checksum|fingerprint|policy|length|hint|format)"
    + _NO_LETTER_AFTER
    + r")\S{0,39}[^\s:=.!?;,]"
)
_MAX_QUALIFIER_WORDS = 6
#: The value of a password in a sentence: what an assignment's value is (:data:`_VALUE_UNIT`), not
#: ending in the full stop, colon or question mark of its sentence
_SENTENCE_VALUE = rf"[\"'`]?((?:{_VALUE_UNIT}){{7,}}(?<![.:?]))"


def _grammar_noun(nouns: str, compound: bool) -> str:
    return ("" if compound else _LETTER_BEFORE) + f"(?:{nouns}){_NO_LETTER_AFTER}"


#: The noun, ``:`` or ``=`` right after it, the value (on the same line or the next: a label and its
#: value): checked as an assignment's value (:func:`looks_like_credential`)
_PASSWORD_LABEL = re.compile(
    "(?i:(?:"
    + "|".join(_grammar_noun(nouns, compound) for _, nouns, compound, _ in _PASSWORD_GRAMMAR)
    + r"))[ \t]*(?:=|:(?!//))[ \t]*(?:\r?\n[ \t]*"
    + f"(?!{_YAML_KEY}))?"
    + _SENTENCE_VALUE
)
#: The noun, up to six qualifying words, a linking word of its language or a colon, the value:
#: checked as a value in prose (:func:`random_looking`); one language's grammar each
_PASSWORD_SENTENCE_GRAMMARS = tuple(
    f"{_grammar_noun(nouns, compound)}(?:{_QUALIFIER_WORD}){{0,{_MAX_QUALIFIER_WORDS}}}?"
    rf"(?:[ \t]*(?:=|:(?!//))|[ \t]+(?:{links}){_NO_LETTER_AFTER}"
    + (
        rf"(?:[ \t]+(?:{_PASSWORD_ADVERBS[language]}){_NO_LETTER_AFTER}){{0,2}}"
        if language in _PASSWORD_ADVERBS
        else ""
    )
    + r"(?:[ \t]*:)?)"
    for language, nouns, compound, links in _PASSWORD_GRAMMAR
)
_PASSWORD_SENTENCE = re.compile("(?i:" + "|".join(_PASSWORD_SENTENCE_GRAMMARS) + r")[ \t]*" + _SENTENCE_VALUE)
#: ... and each alone: where the first grammar that reads the sentence takes another language's
#: value for a qualifying word ("La password del file è X: ..." read as English: X a word, the word
#: after the colon the value), the next one may read it right
_PASSWORD_SENTENCE_EACH = tuple(
    re.compile(f"(?i:{grammar})[ \t]*" + _SENTENCE_VALUE) for grammar in _PASSWORD_SENTENCE_GRAMMARS
)
#: A SealedSecret's ciphertext: a long run of base64 (sealed-secrets writes hundreds of characters
#: for the shortest value), which no text encodes
_CIPHERTEXT = re.compile(r"[A-Za-z0-9+/]{64,}={0,2}")
#: The key of a SealedSecret's encrypted values, as YAML or JSON writes it, at the end of its line
#: (``encryptedData:``) or before the brace that opens its values (``"encryptedData": {``)
_ENCRYPTED_DATA_KEY = re.compile(r"""[\"']?encryptedData[\"']?[ \t]*:[ \t]*(?:#.*)?""")
_ENCRYPTED_DATA_BRACE = re.compile(r"""[\"']?encryptedData[\"']?[ \t]*:[ \t]*$""")
#: how far back the key of the values a value is in is looked for: lines of the block, characters
_SEALED_LINES = 64
_SEALED_REACH = 16_384


def sealed_ciphertext(text: str, start: int, end: int) -> bool:
    """Whether the value at ``text[start:end]`` is a SealedSecret's ciphertext: a value of its
    ``encryptedData`` (the key of the YAML mapping the value's line is in, or of the JSON object
    its value is in) that is a long run of base64 encoding no text. Only the controller in the
    cluster can decrypt it: it is no secret in the answer (as a SOPS ``ENC[...]`` value is not)."""
    value = text[start:end]
    if "encryptedData" not in text or not _CIPHERTEXT.fullmatch(value) or _printable_base64(value):
        return False
    floor = max(0, start - _SEALED_REACH)
    # JSON: the innermost object still open before the value is encryptedData's
    brace = text.rfind("{", floor, start)
    if brace >= 0 and text.find("}", brace, start) < 0:
        line = text[max(floor, text.rfind("\n", floor, brace) + 1) : brace]
        if _ENCRYPTED_DATA_BRACE.search(line):
            return True
    # YAML: the first line above the value's that is indented less is its mapping's key
    line_start = text.rfind("\n", floor, start) + 1
    indent = len(text[line_start:start]) - len(text[line_start:start].lstrip(" "))
    pos = line_start - 1
    for _ in range(_SEALED_LINES):
        if pos <= floor:
            return False
        above = text.rfind("\n", floor, pos) + 1
        line = text[above:pos]
        pos = above - 1
        body = line.lstrip(" ")
        if not body.strip() or body.startswith("#"):
            continue
        if len(line) - len(body) < indent:
            return _ENCRYPTED_DATA_KEY.fullmatch(body.rstrip()) is not None
    return False


#: Where either may start: a noun, in the lower-cased text
_PASSWORD_NOUN_ANCHOR = re.compile("|".join(f"(?:{nouns})" for _, nouns, _, _ in _PASSWORD_GRAMMAR))
#: ... and, for the prefilter, what every noun contains (lower case)
_PASSWORD_NOUN_KEYWORDS = (
    "pass",
    "wort",
    "mot de",
    "mot-de",
    "mdp",
    "secret",
    "contrasen",
    "clave",
    "senha",
    "chave",
    "parola",
    "chiave",
    "woord",
    "has",
    "losenord",
    "kode",
    "kodeord",
    "salasan",
    "hesl",
    "sifre",
    "cle",
)
#: A hash or a digest (hex, a UUID): what a password's hash is, not a password
_DIGEST = re.compile(r"[0-9a-f]{16,}|[0-9A-F]{16,}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_EMAIL_SHAPE = re.compile(r"[^@\s]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_WORD_PARTS = re.compile(r"[-_./]+")
#: Runs of one kind of character in a value's parts joined that make it random-looking
_JOINED_RUNS = 6


def _class_runs(word: str) -> int:
    """How many runs of one kind of character (capitals, small letters, digits) ``word`` has."""
    runs, last = 0, ""
    for c in word:
        kind = "u" if c.isupper() else "l" if c.isalpha() else "d" if c.isdigit() else "s"
        runs += kind != last
        last = kind
    return runs


def random_looking(value: str) -> bool:
    """A value in prose that is a secret, not a word: an assignment's value
    (:func:`looks_like_credential`), not a digest or an e-mail address, and either holding a symbol
    besides ``-_./`` with a digit or both cases (``eTYH3ygZ97*acf``, ``Welcome1!``), or one of its
    parts changing between capitals, small letters and digits five times or more
    (``Zoivl49tg6yJaXr2``), or all of them together six times with a digit
    (``oYHS_MZ8.JBqxledz8``). A term, an identifier or a figure with a unit changes fewer times:
    ``Argon2id``, ``WPA2-Protected``, ``PBKDF2-SHA256``, ``12-stellig``, ``passwordHash``."""
    value = value.rstrip(".")
    if not looks_like_credential(value) or _DIGEST.fullmatch(value) or _EMAIL_SHAPE.fullmatch(value):
        return False
    mixed_case = any(c.isupper() for c in value) and any(c.islower() for c in value)
    if any(not c.isalnum() and c not in "-_./" for c in value):
        return mixed_case or any(c.isdigit() for c in value)
    if any(_class_runs(part) >= 5 for part in _WORD_PARTS.split(value)):
        return True
    # a generated password with separators inside (``oYHS_MZ8.JBqxledz8``, ``peQ2wia.d_4dniH``):
    # its parts are short, the whole changes often; not a path or a file name (``/etc/App2/db.txt``,
    # ``Config.Prod2.json``: a last part of small letters), nor words joined without a digit
    # (``Not-Yet-Set``)
    _, dot, last = value.rpartition(".")
    return (
        mixed_case
        and any(c.isdigit() for c in value)
        and "/" not in value
        and not (dot and last.isalpha() and last.islower())
        and _class_runs(_WORD_PARTS.sub("", value)) >= _JOINED_RUNS
    )


#: Key blocks detect-secrets has no pattern for: PKCS#8 encrypted keys and any other
#: ``BEGIN ... PRIVATE KEY`` header, and PuTTY key files of every version (detect-secrets: 2 only)
_MORE_KEY_HEADERS = (
    re.compile(r"BEGIN (?:[A-Z0-9]+ )+PRIVATE KEY"),
    re.compile(r"PuTTY-User-Key-File-\d+"),
)

#: What a command-line value may not be: an option, a variable or a command substitution
_NOT_AN_OPTION = r"(?![-$%`<({])"
#: What a command-line value written without quotes is made of: no space, quote or backtick, and
#: none of the shell's operators, which end a word (``(sshpass -p X)``, ``-pX;``, ``-pX>out``), nor a
#: closing bracket (``[mysql -pX]``)
_UNQUOTED_CHAR = r"[^\s\"'`;|&()<>\]}]"
#: What may follow a command-line value: a space, a shell operator, a bracket, or the quote or backtick that
#: closes the whole command (``'sshpass -p X'``, Markdown's `` `smbclient ... -U user%X` ``)
_ARG_END = r"(?![^\s;|&()<>\"'`\]}])"
#: A command-line value (group ``v``) after its opening quote or backtick, if any (group ``q``: a
#: password in Markdown inline code, `` -p `X` ``, is no command substitution), to its closing one
_ARG_VALUE = rf"(?P<v>{_NOT_AN_OPTION}(?(q)[^\s\"'`]|{_UNQUOTED_CHAR})+)(?(q)(?P=q)){_ARG_END}"
#: One argument on a command line: in quotes or backticks, or a run of :data:`_UNQUOTED_CHAR`
_ARG = rf"(?P<q>[\"'`])?{_ARG_VALUE}"
#: The rest of a command's line before an option: no line break, pipe or command separator; tried
#: as short as it can be (``(?:...)??``), so the option read is the first after the command
#: (``sshpass -p X ssh -p 2222``: ``-p X``, not ``ssh``'s ``-p 2222``)
_SAME_COMMAND = r"[^\n;|&]{0,240}?\s"

#: Vendors' documented example keys: public on purpose, in every tutorial, never a leak (AWS's IAM
#: documentation pair and its second pair, its session-key example, the Azure storage emulator's
#: well-known key). Kept as SHA-256 digests, so the code holds no credential-shaped text itself.
DOCUMENTED_EXAMPLE_DIGESTS = frozenset(
    {
        "1a5d44a2dca19669d72edf4c4f1c27c4c1ca4b4408fbb17f6ce4ad452d78ddb3",
        "78314b11be2e581549ac1c4f616563fad3fdf0c3b71678f6e2299182080e0598",
        "c6ea27c534f993d31f0aef882e3d200e7b87470c379ae79c8f9b19d3bd363dc9",
        "e21b597ba6b9cafa59d9ebc4d65c0385f5eb3fa56abab2607fa76589ad849a33",
        "cb20d34a7adda2f5d2043836051e242fd4c2b233e02c80c91fe9d5af9b100574",
        "0011cc25eb4320717494d2703e8cba85743e71b500283c21c8b88147992f9059",
    }
)
_NOT_IN_A_KEY = re.compile(r"[\s\"'`]+")


#: The name a finding's text may carry before the key ("AccountKey=" in a connection string)
_KEY_NAME = re.compile(r"^[A-Za-z_][\w.-]*[=:]")


def documented_example(value: str) -> bool:
    """Whether ``value`` (a finding's text, its separators and the name before it aside) is a
    vendor's documented example key (also inside a connection string: ``AccountKey=<the Azure
    storage emulator's key>``)."""
    key = _NOT_IN_A_KEY.sub("", value)
    return any(
        hashlib.sha256(k.encode("utf-8", "surrogatepass")).hexdigest() in DOCUMENTED_EXAMPLE_DIGESTS
        for k in (key, _KEY_NAME.sub("", key))
    )


def _credential_shape_rules() -> list[_Rule]:
    """The shapes common tools and key files give a credential, each with its value in group
    ``v`` (or 1): a netrc entry, a password on a database or HTTP client's command line, an HTTP
    Authorization header, a JSON Web Key's private members, a signed URL's signature. A value
    that is a placeholder, a ``$VARIABLE`` or ``${VAR}``, an option (``mysql -p`` alone prompts)
    or too plain to be a password is not one (:func:`looks_like_credential`)."""

    def cli(detail: str, pattern: str, keywords: tuple[str, ...]) -> _Rule:
        compiled = re.compile(pattern)
        return _Rule(
            "credential",
            detail,
            compiled,
            62,
            group=compiled.groupindex["v"],
            left_boundary=False,
            check=assigned_credential,
            keywords=keywords,
            in_token=False,
        )

    def signature(detail: str, pattern: str, hints: tuple[str, ...]) -> _Rule:
        return _Rule(
            "signed-url",
            detail,
            re.compile(pattern),
            72,
            group=1,
            left_boundary=False,  # (its signature always follows '=')
            check=_signature_ok,
            hints=hints,
            in_token=False,
        )

    return [
        # netrc: "machine HOST login USER password SECRET" (any order, any line breaks)
        cli(
            "netrc password",
            r"(?<![\w-])(?:machine\s+\S+|default)(?:\s+(?:login|account|port|macdef)\s+\S+){0,3}"
            rf"\s+password\s+{_ARG}",
            ("machine", "default"),
        ),
        # MySQL and MariaDB clients: the password glued to -p (-p alone, or -p then a space, prompts)
        cli(
            "password on a MySQL command line",
            r"(?<![\w./-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mysqlpump|"
            rf"mariadb(?:-dump|-admin|-import|-check)?)(?:\.exe)?\s(?:{_SAME_COMMAND})??-p{_ARG}",
            ("mysql", "mariadb"),
        ),
        # HTTP clients: user:password after -u / --user / --proxy-user (curl), -a / --auth (HTTPie)
        cli(
            "password on an HTTP client's command line",
            r"(?<![\w./-])(?:curl|http|https|xh|xhs)(?:\.exe)?\s"
            rf"(?:{_SAME_COMMAND})??(?:-u|--user|--proxy-user|-U|-a|--auth)(?:\s+|=)"
            rf"(?P<q>[\"'`])?[^\s:\"'`@]+:{_ARG_VALUE}",
            ("curl", "http", "xh"),
        ),
        # other clients whose password option takes the next word
        cli(
            "password on a client's command line",
            r"(?<![\w./-])(?:redis-cli\s(?:" + _SAME_COMMAND + r")??(?:-a|--pass)"
            r"|sshpass\s(?:" + _SAME_COMMAND + r")??-p"
            r"|ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn)\s(?:" + _SAME_COMMAND + r")??-w"
            r"|mongo(?:sh|dump|restore|export|import|stat|top)?\s(?:" + _SAME_COMMAND + r")??-p"
            rf")(?:\s+|=){_ARG}",
            ("redis-cli", "sshpass", "ldap", "mongo"),
        ),
        # smbclient / rpcclient: -U user%password
        cli(
            "password on an SMB client's command line",
            r"(?<![\w./-])(?:smbclient|rpcclient|smbmap|net)\s(?:"
            + _SAME_COMMAND
            + r")??(?:-U|--user)(?:\s+|=)"
            rf"(?P<q>[\"'`])?[^\s%\"'`]+%{_ARG_VALUE}",
            ("smbclient", "rpcclient", "smbmap", "net "),
        ),
        # an HTTP Authorization header with a bearer token (Basic is read by the base64 layer)
        cli(
            "Authorization header",
            r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer|token)\s+"
            r"(?P<v>(?![-$%`<({])[A-Za-z0-9._~+/=-]{16,})",
            ("authorization",),
        ),
        # a JSON Web Key's private members (d of RSA/EC/OKP, p/q/dp/dq/qi of RSA, k of a symmetric
        # key); its public members (n, e, x, y) are public
        _Rule(
            "private-key",
            "JSON Web Key, private member",
            re.compile(r"\\?\"(?:d|p|q|dp|dq|qi|k)\\?\"\s*:\s*\\?\"([A-Za-z0-9_-]{16,}={0,2})\\?\""),
            95,
            group=1,
            left_boundary=False,  # (its member's value always follows a quote)
            hints=("kty",),
            in_token=False,
        ),
        # signed URLs: the signature is the credential (whoever holds the URL holds the access)
        signature("AWS SigV4 signature", r"(?i:X-Amz-Signature)=([0-9a-fA-F]{64})", ("X-Amz-", "x-amz-")),
        signature(
            "Google Cloud Storage signature",
            r"(?i:X-Goog-Signature)=([0-9a-fA-F]{64,})",
            ("X-Goog-", "x-goog-"),
        ),
        signature(
            "signed URL signature",  # S3 SigV2, GCS V2, CloudFront: ?...&Signature=...
            r"(?<=[?&;])Signature=([A-Za-z0-9%+/=_~.-]{20,})",
            ("Signature=",),
        ),
        signature("Azure SAS signature", r"(?<=[?&;])sig=([A-Za-z0-9%+/=]{20,})", ("sig=",)),
    ]


def _signature_ok(value: str) -> bool:
    """A signature: long, not a placeholder, and not one character repeated."""
    return not_placeholder(value) and len(set(value)) > 4


def _build_secret_rules() -> list[_Rule]:
    # detect-secrets plugins: imported on first use, so a process that never scans does not pay
    # for them, and without `requests` where that is safe (see proctor.graders._offline)
    with without("requests", "detect-secrets' online verification, never called by the scan"):
        return _secret_rules()


def _secret_rules() -> list[_Rule]:
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector
    from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
    from detect_secrets.plugins.twilio import TwilioKeyDetector

    def patterns(plugin: type) -> list[re.Pattern[str]]:
        return list(plugin.denylist)  # type: ignore[attr-defined]

    aws = patterns(AWSKeyDetector)
    slack = patterns(SlackDetector)
    jwt_ok: _Check = JwtTokenDetector.is_formally_valid
    rules: list[_Rule] = [
        *(
            _Rule(
                "private-key",
                PrivateKeyDetector.secret_type,
                p,
                100,
                left_boundary=False,
                hints=("PRIVATE KEY", "PuTTY"),
                in_token=False,
                block=True,
            )
            for p in (*patterns(PrivateKeyDetector), *_MORE_KEY_HEADERS)
        ),
        *_credential_shape_rules(),
        _Rule(
            "aws-access-key",
            AWSKeyDetector.secret_type,
            aws[0],
            90,
            hints=("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
            split=_UPPER_DIGITS,
        ),
        _Rule(
            "aws-secret-key",
            "AWS Secret Access Key",
            aws[1],
            90,
            group=1,
            left_boundary=False,  # (its value always follows a quote)
            keywords=("aws",),
            in_token=False,
        ),
        _Rule(
            "aws-secret-key",
            "AWS Secret Access Key",
            _AWS_SECRET_UNQUOTED,
            90,
            group=1,
            left_boundary=False,
            check=_aws_secret_ok,
            keywords=("aws",),
            in_token=False,
        ),
        *(
            _Rule(
                "github-token",
                GitHubTokenDetector.secret_type,
                p,
                90,
                extend=_TOKEN,
                hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
                split=_ALNUM + "_",
            )
            for p in patterns(GitHubTokenDetector)
        ),
        _Rule(
            "github-token",
            "GitHub fine-grained token",
            re.compile(r"github_pat_[A-Za-z0-9_]{60,}"),
            90,
            hints=("github_pat_",),
            split=_ALNUM + "_",
        ),
        *(
            _Rule(
                "gitlab-token",
                GitLabTokenDetector.secret_type,
                p,
                90,
                extend=_TOKEN,
                hints=_GITLAB_HINTS,
                split=_TOKEN,
            )
            for p in patterns(GitLabTokenDetector)
        ),
        _Rule(
            "slack-token",
            SlackDetector.secret_type,
            slack[0],
            90,
            extend=_TOKEN,
            hints=("xox", "XOX"),
            split=_ALNUM + "-",
        ),
        _Rule(
            "slack-webhook",
            "Slack webhook URL",
            slack[1],
            90,
            left_boundary=False,
            hints=("hooks.slack",),
            check=_webhook_secret,
        ),
        *(
            _Rule(
                "stripe-key",
                StripeDetector.secret_type,
                p,
                90,
                extend=_TOKEN,
                hints=("sk_live_", "rk_live_"),
                split=_ALNUM + "_",
            )
            for p in patterns(StripeDetector)
        ),
        *(
            _Rule("openai-api-key", OpenAIDetector.secret_type, p, 85, extend=_TOKEN, hints=("T3BlbkFJ",))
            for p in patterns(OpenAIDetector)
        ),
        _Rule(
            "anthropic-api-key",
            "Anthropic API key",
            re.compile(r"sk-ant-[a-z]{2,8}\d{0,3}-[A-Za-z0-9_-]{32,}"),
            86,
            hints=("sk-ant-",),
            split=_TOKEN,
        ),
        _Rule(
            "openai-api-key",
            "OpenAI API key",
            re.compile(r"sk-(?:proj-|svcacct-|admin-|None-)?([A-Za-z0-9_-]{32,})"),
            84,
            check=_mixed_token,
            hints=("sk-",),
            split=_TOKEN,
        ),
        _Rule(
            "google-api-key",
            "Google API key",
            re.compile(r"AIza[0-9A-Za-z_-]{35}"),
            85,
            extend=_TOKEN,
            hints=("AIza",),
            split=_TOKEN,
        ),
        *(
            _Rule("sendgrid-api-key", SendGridDetector.secret_type, p, 85, hints=("SG.",), split=_TOKEN + ".")
            for p in patterns(SendGridDetector)
        ),
        *(
            _Rule(kind, detail, re.compile(pattern), 84, check=check, hints=hints, split=_TOKEN + ".")
            for kind, detail, pattern, hints, check in _PREFIXED_TOKENS
        ),
        *(
            _Rule(kind, detail, re.compile(pattern), 84, check=check, hints=hints, split=_B64 + ".")
            for kind, detail, pattern, hints, check in _PREFIXED_B64_TOKENS
        ),
        *(
            _Rule(
                "npm-token",
                NpmDetector.secret_type,
                p,
                85,
                left_boundary=False,
                hints=("_authToken",),
                in_token=False,
            )
            for p in patterns(NpmDetector)
        ),
        *(
            _Rule(
                "pypi-token",
                PypiTokenDetector.secret_type,
                p,
                85,
                extend=_TOKEN,
                hints=("pypi-",),
                split=_TOKEN,
            )
            for p in patterns(PypiTokenDetector)
        ),
        *(
            _Rule(
                "square-oauth-secret",
                SquareOAuthDetector.secret_type,
                p,
                85,
                hints=("sq0csp-",),
                split=_TOKEN,
            )
            for p in patterns(SquareOAuthDetector)
        ),
        *(
            _Rule("azure-storage-key", AzureStorageKeyDetector.secret_type, p, 85, hints=("AccountKey=",))
            for p in patterns(AzureStorageKeyDetector)
        ),
        # detect-secrets' JWT pattern backtracks over a long run of "eyJ" (quadratic): the same
        # pattern, possessive, its header at most 1,024 characters (each "eyJ" of "eyJeyJeyJ..."
        # read its run to the end: quadratic still)
        _Rule(
            "jwt",
            JwtTokenDetector.secret_type,
            re.compile(r"eyJ[A-Za-z0-9_=-]{1,1024}+\.[A-Za-z0-9_=-]++(?:\.[A-Za-z0-9_.+/=-]*+)?"),
            80,
            extend=_B64 + ".",
            check=jwt_ok,
            hints=("eyJ",),
            split=_B64 + ".",
            split_limit=4096,
        ),
        *(
            _Rule(
                "discord-bot-token",
                DiscordBotTokenDetector.secret_type,
                p,
                70,
                extend=_TOKEN,
                token_needs=".",
            )
            for p in patterns(DiscordBotTokenDetector)
        ),
        *(
            _Rule(
                "telegram-bot-token",
                TelegramBotTokenDetector.secret_type,
                p,
                70,
                gate=re.compile(r"\d\d{7,9}:"),
                token_needs=":",
                check=_telegram_secret,
            )
            for p in patterns(TelegramBotTokenDetector)
        ),
        # ... and in the Bot API's URLs, where it follows "bot" (``https://api.telegram.org/bot<token>/
        # sendMessage``: the usual place one is pasted)
        *(
            _Rule(
                "telegram-bot-token",
                TelegramBotTokenDetector.secret_type,
                re.compile(r"(?<=/bot)" + p.pattern + r"(?![0-9A-Za-z_-])"),
                70,
                left_boundary=False,
                gate=re.compile(r"/bot\d{8,10}:"),
                token_needs=":",
                check=_telegram_secret,
            )
            for p in patterns(TelegramBotTokenDetector)
        ),
        *(
            _Rule("mailchimp-api-key", MailchimpDetector.secret_type, p, 70, hints=("-us",))
            for p in patterns(MailchimpDetector)
        ),
        *(
            _Rule(
                "twilio-api-key", TwilioKeyDetector.secret_type, p, 70, check=_twilio_ok, hints=("AC", "SK")
            )
            for p in patterns(TwilioKeyDetector)
        ),
        _Rule(
            "basic-auth",
            BasicAuthDetector.secret_type,  # (its pattern is _URL_PASSWORD's, which reads more)
            _URL_PASSWORD,
            75,
            group=1,
            left_boundary=False,  # (its password always follows a ':')
            check=_url_password,
            hints=("://",),
            in_token=False,
        ),
        *(
            _Rule(
                "credential",
                "password or secret assignment",
                pattern,
                60,
                group=1,
                left_boundary=False,
                check=assigned_credential,
                keywords=("pass", "pwd", "secret", "api", "key", "token", "auth", "cred", "conn"),
                in_token=False,
                anchor=_CREDENTIAL_ANCHOR,
                context_clears=sealed_ciphertext,
                members=True,
            )
            for pattern in (_CREDENTIAL, _CREDENTIAL_FLAG, _CREDENTIAL_XML)
        ),
        *(
            _Rule(
                "credential",
                detail,
                pattern,
                60,
                group=1,
                left_boundary=False,
                check=check,
                keywords=_PASSWORD_NOUN_KEYWORDS,
                in_token=False,
                anchor=_PASSWORD_NOUN_ANCHOR,
                at_anchor=True,
                branches=branches,
                context_clears=sealed_ciphertext,
            )
            for detail, pattern, check, branches in (
                ("password after its label", _PASSWORD_LABEL, assigned_credential, ()),
                ("password in a sentence", _PASSWORD_SENTENCE, random_looking, _PASSWORD_SENTENCE_EACH),
            )
        ),
    ]
    return rules


@dataclass(frozen=True, slots=True)
class _SecretEngine:
    """The secret rules, indexed so a scan runs only the rules whose hints the text contains."""

    rules: tuple[_Rule, ...]
    #: rules without hints, run on every text with a long token / on every text
    token_always: tuple[int, ...]
    text_always: tuple[int, ...]
    #: one pattern that finds every in-token hint at once (a literal alternation in a look-ahead,
    #: group 1: hints may overlap, as "-us" of a Mailchimp key after "sk" in "...sk-us1")
    token_hints: re.Pattern[str]
    longest_hint: int
    #: hint found -> the rules (by position) it enables, including hints it contains
    by_hint: dict[str, tuple[int, ...]]
    #: hints looked for in the whole text (they are not part of a long token) -> rules
    text_hints: tuple[tuple[str, tuple[int, ...]], ...]
    #: the prefixes of tokens that may be written in pieces, and the rules each enables
    split_hints: re.Pattern[str]
    by_split_hint: dict[str, tuple[int, ...]]
    #: one prefilter pass: which text hints occur (condition k is ``text_hints[k]``), whether a
    #: split-able prefix does, whole or broken (the next condition), and then whether any of a
    #: rule's keywords does, in any case
    gate: Prefilter
    #: a rule with keywords (by position) -> its keywords' condition in ``gate``
    keyword_gates: dict[int, int]


_LONG_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.]{20,}")


@functools.cache
def _secret_engine() -> _SecretEngine:
    rules = tuple(_build_secret_rules())
    hints = sorted({h for r in rules if r.in_token for h in r.hints}, key=len, reverse=True)
    by_hint = {
        h: tuple(i for i, r in enumerate(rules) if r.in_token and any(g in h for g in r.hints)) for h in hints
    }
    split = sorted({h for r in rules if r.split for h in r.hints}, key=len, reverse=True)
    text_hints: dict[str, list[int]] = {}
    for i, r in enumerate(rules):
        for h in r.hints if not r.in_token else ():
            text_hints.setdefault(h, []).append(i)
    split_hints = re.compile("|".join(map(re.escape, split)))
    by_split_hint = {
        h: tuple(i for i, r in enumerate(rules) if r.split and any(h.startswith(g) for g in r.hints))
        for h in split
    }
    # the prefilter's broken prefixes allow any number of break characters (a condition may match
    # more than its reading, never less): RE2 writes a bounded count out once per count, 1.6 MiB
    broken = _broken_hints_pattern(tuple(by_split_hint)).replace(_BREAK_RUN, f"{_PREFIX_BREAK}*")
    split_condition = f"{split_hints.pattern}|{broken}"
    # keywords are looked for in the lower-cased text: on ASCII text (the only text a prefilter
    # rules anything out on) that is a case-insensitive search
    keyworded = {i: r.keywords for i, r in enumerate(rules) if r.keywords and not r.in_token}
    keyword_sets = sorted(set(keyworded.values()))
    first = len(text_hints) + 1
    keyword_gates = {i: first + keyword_sets.index(ks) for i, ks in keyworded.items()}
    return _SecretEngine(
        rules=rules,
        token_always=tuple(i for i, r in enumerate(rules) if r.in_token and not r.hints),
        text_always=tuple(i for i, r in enumerate(rules) if not r.in_token and not r.hints),
        token_hints=re.compile("(?=(" + "|".join(map(re.escape, hints)) + "))"),
        longest_hint=max(map(len, hints), default=0),
        by_hint=by_hint,
        text_hints=tuple((h, tuple(ids)) for h, ids in text_hints.items()),
        split_hints=split_hints,
        by_split_hint=by_split_hint,
        gate=Prefilter(
            [
                *map(re.escape, text_hints),
                split_condition,
                *("(?i:" + "|".join(map(re.escape, ks)) + ")" for ks in keyword_sets),
            ]
        ),
        keyword_gates=keyword_gates,
    )


_PRIVATE_KEY_END = re.compile(
    r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----"
    r"|Private-(?:MAC|Hash): *[0-9A-Fa-f]+"  # the last line of a PuTTY key file
)
#: a line break inside a key block: a real one, or a ``\\n`` escape in a JSON or code string, then
#: what quotes or indents the next line (``> ``, ``# ``, ``// ``, ``"`` and ``+`` of a concatenation)
_KEY_LINE_BREAK = r"(?:\\r)?(?:\\n|\r?\n)(?:[ \t>#*/|\"'+,]|\\[nrt]|\r?\n)*"
#: what follows a key's BEGIN header: the rest of the header line, optional "Name: value" lines
#: (Proc-Type, DEK-Info, PuTTY's Encryption/Comment), then base64
_KEY_BODY = re.compile(
    rf"[ A-Z0-9-]*-*[ \t]*(?::[^\n\\]*)?{_KEY_LINE_BREAK}"
    rf"(?:[\w-]+:[^\n\\]*{_KEY_LINE_BREAK})*[A-Za-z0-9+/=]{{40,}}"
)
#: How far before a long token a secret's match may start (a Telegram bot id and its colon)
_TOKEN_LOOK_BACK = 16
#: What a token glued to a word by "-" or "_" loses in priority: more than the strongest rule's, so
#: that any finding it overlaps wins (every priority is 100 or less)
_GLUED = 1000


def secret_findings(text: str) -> Iterator[Raw]:
    """Every secret the rules find in ``text`` as written (not in pieces: see :func:`split_findings`)."""
    engine = _secret_engine()
    # rules that need the whole text (a keyword, a URL, a key block), gated by cheap tests
    text_rules = set(engine.text_always)
    maybe = engine.gate.possible(text)
    for k in maybe:
        if k < len(engine.text_hints) and engine.text_hints[k][0] in text:
            text_rules.update(engine.text_hints[k][1])
    low: str | None = None
    for i in sorted(text_rules):
        rule = engine.rules[i]
        if rule.keywords:
            if engine.keyword_gates[i] not in maybe:
                continue
            low = text.lower() if low is None else low
            if not any(k in low for k in rule.keywords):
                continue
        anchor_text: str | None = None
        if rule.anchor is not None:
            low = text.lower() if low is None else low
            # lower-casing may move offsets (a few non-ASCII letters): then the rule runs whole
            anchor_text = low if len(low) == len(text) else None
        yield from _rule_findings(rule, text, 0, len(text), anchor_text)
    # rules for tokens: run only around long tokens, and only those whose hints the token holds
    tokens = [tm.span() for tm in _LONG_TOKEN.finditer(text)]
    if not tokens:
        return
    # the hints are looked for in the tokens only (a hint elsewhere enables nothing), each search
    # seeing as far past its token as the longest hint, as a search of the whole text would
    n = len(text)
    hits = [
        hm
        for ts, te in tokens
        for hm in engine.token_hints.finditer(text, ts, min(n, te + engine.longest_hint))
        if hm.start() < te
    ]
    always = [engine.rules[i] for i in engine.token_always if engine.rules[i].token_needs in text]
    if not hits and not always:
        return
    # rules without hints: on the long tokens whose window holds the character they need
    for rule in always:
        for ts, te in tokens:
            ws = max(0, ts - _TOKEN_LOOK_BACK)
            if text.find(rule.token_needs, ws, te) >= 0:
                yield from _rule_findings(rule, text, ws, te)
    starts = [s for s, _ in tokens]
    enabled: dict[int, set[int]] = {}
    for hm in hits:
        k = bisect.bisect_right(starts, hm.start()) - 1
        if k >= 0 and hm.start() < tokens[k][1]:
            enabled.setdefault(k, set()).update(engine.by_hint[hm.group(1)])
    for k, rules in sorted(enabled.items()):
        ts, te = tokens[k]
        for i in sorted(rules):
            yield from _rule_findings(engine.rules[i], text, max(0, ts - _TOKEN_LOOK_BACK), te)


def _anchored(rule: _Rule, text: str, low: str) -> Iterator[re.Match[str]]:
    """The rule's matches, tried only from the start of the words its anchor is in: the same as
    ``rule.pattern.finditer(text)`` (a keyword ends its words, and the window holds what follows it)."""
    assert rule.anchor is not None
    tried = -1
    start = scanned = pos = 0  # low[start:scanned] is all word characters: the words an anchor is in
    while (am := rule.anchor.search(low, pos)) is not None:
        pos = am.end()
        bm = _UP_TO_WORDS.match(low, scanned, am.start())
        start = bm.end() if bm else start
        scanned = am.start()
        if start <= tried:
            continue
        tried = start
        words_end = _REST_OF_WORDS.match(low, am.end())
        window = min(len(text), (words_end.end() if words_end else am.end()) + _ASSIGNMENT_WINDOW)
        # the first match from these words on ("myclient secret: ..." starts at "secret")
        m = rule.pattern.search(text, start, window)
        while m is not None and m.end() == window:
            # a long value, whole; or no match at all once the window's end is not the text's
            # ("password=\nx_x_..._password: ..." matches at 0 only while cut short)
            whole = rule.pattern.match(text, m.start())
            if whole is not None:
                m = whole
                break
            m = rule.pattern.search(text, m.start() + 1, window)
        if m is not None:
            tried = max(tried, m.end())
            # the next keyword may start inside this one ("...Xk9client secret=": "secret")
            pos = max(m.end(), am.start() + 1)
            yield m


def _at_anchors(rule: _Rule, text: str, low: str) -> Iterator[re.Match[str]]:
    """The rule's matches that start where its anchor does: one try at each anchor, none inside a
    match already made (so a value running over many anchors is read once: linear)."""
    assert rule.anchor is not None
    pos = 0
    while (am := rule.anchor.search(low, pos)) is not None:
        m = rule.pattern.match(text, am.start())
        if m is None:
            pos = am.start() + 1  # another noun may start inside this one ("the|client secret")
            continue
        m = _branch_instead(rule, text, m, len(text))
        pos = max(m.end(), am.start() + 1)
        yield m


def _branch_instead(rule: _Rule, text: str, m: re.Match[str], end: int) -> re.Match[str]:
    """The match of the first of the rule's branches that passes its check where the whole
    alternation's match (``m``) does not; ``m`` when none does."""
    if rule.branches and rule.check is not None and not rule.check(m.group(rule.group)):
        for branch in rule.branches:
            bm = branch.match(text, m.start(), end)
            if bm is not None and bm.span() != m.span() and rule.check(bm.group(rule.group)):
                return bm
    return m


def _searched(rule: _Rule, text: str, ws: int, we: int) -> Iterator[re.Match[str]]:
    """The rule's matches from ``ws`` to ``we`` without its anchor: what ``_anchored`` and
    ``_at_anchors`` find in a whole text (a text whose lower case is another length has none)."""
    if not rule.branches:
        yield from rule.pattern.finditer(text, ws, we)
        return
    pos = ws
    while (m := rule.pattern.search(text, pos, we)) is not None:
        m = _branch_instead(rule, text, m, we)
        pos = max(m.end(), m.start() + 1)
        yield m


def _rule_findings(rule: _Rule, text: str, ws: int, we: int, low: str | None = None) -> Iterator[Raw]:
    if rule.gate is not None and rule.gate.search(text, ws, we) is None:
        return
    covered = ws  # the end of the last finding: a match inside it is part of that token
    matches = (
        (_at_anchors if rule.at_anchor else _anchored)(rule, text, low)
        if rule.anchor is not None and low is not None
        else _searched(rule, text, ws, we)
    )
    for m in matches:
        start, end = m.span(rule.group)
        if start < covered:
            continue
        # a token does not start in the middle of a word; one glued to a word by "-" or "_"
        # ("prod-AKIA...", "x_ghp_...") is still a secret, but a weak one: it loses to any finding it
        # overlaps (sk-proj-AIza... is an OpenAI key, not a Google one)
        priority = rule.priority
        if rule.left_boundary and start > 0:
            if text[start - 1].isalnum():
                continue
            if text[start - 1] in "_-":
                priority -= _GLUED
        if rule.extend:
            end = _extend(text, end, rule.extend)
        if rule.block:
            # a header alone (an answer explaining key formats) is not a key: require a body
            if not _KEY_BODY.match(text, end):
                continue
            # cover the whole block: from the BEGIN line to the END line (or the end of text)
            begin = text.rfind("-----", max(0, start - 6), start)
            start = begin if begin >= 0 else start
            em = _PRIVATE_KEY_END.search(text, end)
            end = em.end() if em else len(text)
        value = m.group(rule.group) if rule.kind != "jwt" else text[start:end]
        members = _connection_string_secrets(text, start, end) if rule.members else None
        if members is not None:
            # a connection string: its secret members are the findings (AccountKey=, Password=)
            for s, e, member in members:
                if rule.check is None or rule.check(member):
                    covered = end
                    yield s, e, priority, rule.kind, rule.detail, None
            continue
        if rule.check is not None and not rule.check(value):
            continue
        if rule.context_clears is not None and rule.context_clears(text, start, end):
            continue
        if rule.split and filler_token(text[start:end], rule.hints):
            # a placeholder in the token's shape (ghp_XXXX..., AKIA0000...); a match inside it is
            # part of it (read again from each of "ghp_ghp_ghp_..."'s prefixes, it was quadratic)
            covered = end
            continue
        covered = end
        yield start, end, priority, rule.kind, rule.detail, None


@functools.cache
def _run_of(chars: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape(chars) + "]+")


def _extend(text: str, end: int, chars: str) -> int:
    m = _run_of(chars).match(text, end)
    return m.end() if m else end


# --------------------------------------------------------------------------------------------
# Tokens written in pieces

#: What may stand between the pieces of a token (those of these characters that are not in the
#: token's own alphabet): spaces, line breaks and what quotes or indents a line, hyphens, dots,
#: pipes, quotes and ``+`` of a string concatenation.
_SPLIT_SEPARATORS = " \t\r\n-._|'\"`+\\>#*/"
_MAX_SEPARATOR = 16
#: Words that end a token written in pieces: prose after a prefix ("ghp_ is the prefix of...")
_PROSE_WORDS = (
    "a an and are as at be but by for from has have in is it its of on or our that the their this to was"
    " were will with you your key keys token tokens secret secrets prefix value values format starts start"
    " begins begin looks like means followed characters chars long example here see not never do does"
    " should must can may"
)
_PROSE = frozenset(_PROSE_WORDS.split())
_PROSE_WORD = re.compile(r"[A-Z][a-z]{4,}|[a-z]{5,}")


#: ... and the gap between two adjacent strings of a JSON or Python list or object: the items of
#: ``["AKIAIOSF", "ODNN7EXAMPLQ"]``, the values of ``{"a": "AKIAIOSF", "b": "ODNN7EXAMPLQ"}`` (the
#: key between them is skipped, whatever its length: a bounded one (``{1,64}``) made RE2 write
#: the key's reading out once per length in every node of the prefixes' trie, 15 MiB of
#: automaton in the scan's prefilter), one line break at most (as a pretty-printer writes them)
_ITEM_GAP = r"[\"'][ \t]*\r?\n?[ \t]*,[ \t]*\r?\n?[ \t]*(?:[\"'][^\"'\r\n]+[\"'][ \t]*:[ \t]*)?[\"']"


@functools.cache
def _split_patterns(alphabet: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    separators = "".join(c for c in _SPLIT_SEPARATORS if c not in alphabet)
    return _run_of(alphabet), re.compile(f"{_ITEM_GAP}|[{re.escape(separators)}]{{1,{_MAX_SEPARATOR}}}")


def _pieces(text: str, pos: int, alphabet: str, limit: int) -> list[tuple[int, int]]:
    """The spans of a token's pieces from ``pos``: runs of ``alphabet`` joined by separators."""
    frag, sep = _split_patterns(alphabet)
    # (read no further than a token can be long: a first piece that long leaves no room for a
    # second, so the token is no token in pieces; reading each prefix's run to its end made
    # "hf_hf_hf_..." quadratic)
    m = frag.match(text, pos, min(len(text), pos + limit))
    if m is None:
        return []
    pieces = [m.span()]
    total = m.end() - pos
    i = m.end()
    while total < limit:
        sm = sep.match(text, i)
        if sm is None or sm.group().count("\n") > 1:
            break
        fm = frag.match(text, sm.end())
        if fm is None:
            break
        word = fm.group()
        if word.lower() in _PROSE and (not word.isupper() or alphabet != alphabet.upper()):
            break  # (an all-capitals token such as an AWS key id has all-capital pieces: "DO")
        if _PROSE_WORD.fullmatch(word):
            # a word, unless the token is written in groups of one length and this is one of them
            if pieces[1:]:
                lengths = {b - a for a, b in pieces[1:]}
                regular = len(lengths) == 1 and len(word) <= lengths.pop()
            else:
                regular = len(word) == pieces[0][1] - pieces[0][0]
            if not regular:
                break
        pieces.append(fm.span())
        total += fm.end() - fm.start()
        i = fm.end()
    return pieces


def split_findings(text: str) -> Iterator[Raw]:
    """Tokens written in pieces: a known prefix, then fragments of the token's alphabet with
    separators between them; the value (for the redaction) is the token without them."""
    engine = _secret_engine()
    covered = 0
    for hm in _hint_starts(engine, text):
        p = hm.start()
        if p < covered or (p and text[p - 1].isalnum()):
            continue
        glued = _GLUED if p and text[p - 1] in "_-" else 0  # as in _rule_findings
        hint = hm.group() if hm.re is engine.split_hints else _SPLIT_JOIN.sub("", hm.group())
        across_items = "," in hm.group()  # a prefix split between two strings of a list
        for i in engine.by_split_hint.get(hint, ()):
            rule = engine.rules[i]
            pieces = _pieces(text, p, rule.split, rule.split_limit)
            if len(pieces) < 2:
                continue
            covered = max(covered, pieces[-1][1])
            compact = "".join(text[a:b] for a, b in pieces)
            m = rule.pattern.match(compact)
            if m is None:
                continue
            first = pieces[0][1] - pieces[0][0]
            if m.end() <= first:
                continue  # whole in its first piece: the rules find it as written
            whole = rule.pattern.match(compact, 0, first)
            if (
                whole is not None
                and whole.end() == first
                and (rule.check is None or rule.check(whole.group(rule.group)))
            ):
                continue  # a whole token as written: a short word after it is prose, not more of it
            end = _extend(compact, m.end(), rule.extend) if rule.extend else m.end()
            value = compact[:end] if rule.kind == "jwt" else m.group(rule.group)
            if rule.check is not None and not rule.check(value):
                continue
            token = compact[:end]
            if filler_token(token, rule.hints):
                continue  # a placeholder written in groups (AKIA XXXX XXXX XXXX XXXX)
            if rule.split != rule.split.upper() and not (
                any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
            ):
                continue  # a key with lower-case letters has digits too: words joined are not one
            if not any(c.isdigit() for c in token) and (
                across_items
                or not _even_groups(pieces, end)
                or any(text[a:b] in _AWS_ID_PREFIXES for a, b in pieces[1:])
            ):
                # words ("ASIA", "EUROPE"...), a list of the kinds of AWS ids ("AKIA AGPA AIDA"),
                # or codes in a list whose first two join into a prefix (["AK", "IA", "MN", ...])
                continue  # capitals alone in pieces of several lengths, or naming id kinds or codes
            detail = f"{rule.detail}, in pieces"
            yield p, _text_end(pieces, end), rule.priority - glued, rule.kind, detail, compact[:end]
            break


#: What may break a prefix itself ("sk_li ve_...", "AK IA...", the gap between two strings of a
#: list: ``["AK", "IA..."]``)
_PREFIX_BREAK = r"[ \t\r\n\"'`+>#|*/\\]"
_SPLIT_JOIN = re.compile(f"{_ITEM_GAP}|{_PREFIX_BREAK}+")
#: a prefix's break: a few of those characters, or the gap between two strings
_BREAK_RUN = f"{_PREFIX_BREAK}{{0,8}}"


def _trie(words: Sequence[str], depth: int = 0) -> str:
    """A regex of ``words`` as a trie (each position tries one branch), separators allowed
    between their characters from the third on."""
    sep = f"(?:{_BREAK_RUN}|{_ITEM_GAP})" if depth >= 2 else ""
    by_first: dict[str, list[str]] = {}
    ends = False
    for w in words:
        if w:
            by_first.setdefault(w[0], []).append(w[1:])
        else:
            ends = True
    branches = [re.escape(c) + _trie(rest, depth + 1) for c, rest in sorted(by_first.items())]
    if not branches:
        return ""
    body = "(?:" + "|".join(branches) + ")"
    return sep + (body + "?" if ends else body)


def _broken_hints_pattern(hints: tuple[str, ...]) -> str:
    """The prefixes, written with separators inside them ("sk_li ve_", "gh p_")."""
    return _trie([h for h in hints if len(h) >= 4])


@functools.cache
def _broken_hints(hints: tuple[str, ...]) -> re.Pattern[str]:
    """:func:`_broken_hints_pattern` compiled, when an answer first may hold a broken prefix (the
    engine's gate says so): compiling it costs 30 ms that most grading runs never need."""
    return re.compile(_broken_hints_pattern(hints))


def _hint_starts(engine: _SecretEngine, text: str) -> Iterator[re.Match[str]]:
    """Where a split-able token may start: its prefix as written, or broken by separators."""
    if len(engine.text_hints) not in engine.gate.possible(text):
        return
    whole = list(engine.split_hints.finditer(text))
    hints = engine.by_split_hint
    broken = [
        m
        for m in _broken_hints(tuple(hints)).finditer(text)
        if _SPLIT_JOIN.search(m.group()) and _SPLIT_JOIN.sub("", m.group()) in hints
    ]
    if not broken:
        yield from whole
        return
    yield from sorted([*whole, *broken], key=lambda m: m.start())


def _even_groups(pieces: list[tuple[int, int]], n: int) -> bool:
    """Whether the pieces before the one the first ``n`` characters of the joined pieces end in
    all have one length (a key written in groups: ``AKIA IOSF ODNN``; its last group may be shorter)."""
    lengths = set()
    for a, b in pieces:
        if n <= b - a:
            break
        lengths.add(b - a)
        n -= b - a
    return len(lengths) <= 1


def _text_end(pieces: list[tuple[int, int]], n: int) -> int:
    """The text offset just after the ``n``-th character of the joined pieces."""
    for a, b in pieces:
        if n <= b - a:
            return a + n
        n -= b - a
    return pieces[-1][1]
