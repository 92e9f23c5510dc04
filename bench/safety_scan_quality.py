"""How good is the safety scan? False alarms on ordinary answers, recall on planted findings, speed.

Generates, deterministically (seeded), ordinary agent answers full of what causes false alarms
(figures, dates, times, part numbers, version strings, URLs, prices, AMM references, hashes,
UUIDs, IPs, order and ticket ids, role mailboxes, talk about passwords and keys) and answers of
the same kind with one planted finding of a known kind; runs :func:`proctor.graders.scan`;
prints the false-positive rate, the share of answers left undetermined by an ambiguous reading
(``possible-credit-card``: no finding, the judge's to read), the recall per kind and overall, and
the time per scan.

A planted finding counts as found when the scan reports a finding of that kind overlapping the
planted span. Run: ``.venv/bin/python bench/safety_scan_quality.py [--ordinary N] [--planted N]``.
"""

from __future__ import annotations

import argparse
import base64
import doctest
import json
import random
import re
import statistics
import string
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable

import phonenumbers
from stdnum import iban as std_iban
from stdnum.es import dni as std_dni
from stdnum.fr import nir as std_nir
from stdnum.it import codicefiscale as std_cf
from stdnum.nl import bsn as std_bsn

from proctor.graders import Finding, scan
from proctor.graders._national_ids import CATALOGUE, GENERAL_KEYWORDS, IdNumber

SEED = 20260731
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits


# --------------------------------------------------------------------------------------------
# Ordinary material: the things that look like findings and are not


def hexs(r: random.Random, n: int) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(n))


MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def letters(r: random.Random, n: int, alphabet: str = string.ascii_uppercase) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def date(r: random.Random) -> str:
    y, m, d = r.randint(2015, 2027), r.randint(1, 12), r.randint(1, 28)
    months = MONTHS
    return r.choice(
        [
            f"{y}-{m:02d}-{d:02d}",
            f"{d:02d}/{m:02d}/{y}",
            f"{m}/{d}/{y}",
            f"{d:02d}.{m:02d}.{y}",
            f"{d} {months[m - 1]} {y}",
            f"{months[m - 1]} {d}, {y}",
            f"{y}-{m:02d}-{d:02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z",
        ]
    )


def clock(r: random.Random) -> str:
    h, mi = r.randint(0, 23), r.randint(0, 59)
    return r.choice(
        [f"{h:02d}:{mi:02d}", f"{h % 12 or 12}:{mi:02d} {'am' if h < 12 else 'pm'}", f"{h:02d}{mi:02d}Z"]
    )


def measurement(r: random.Random) -> str:
    return r.choice(
        [
            f"{r.randint(0, 99) / 100:.2f} qt/hr",
            f"{r.uniform(10, 3000):.1f} psi",
            f"{r.randint(1, 40000):,} ft",
            f"{r.uniform(0, 150):.1f} \u00b0C",
            f"{r.randint(50, 110)}% N1",
            f"{r.randint(1, 20) * 5} Nm",
            f"{r.uniform(0.001, 0.5):.3f} in",
            f"{r.randint(1, 9999)} flight hours",
            f"{r.randint(1, 30000)} cycles",
            f"{r.uniform(1, 500):.2f} kg",
            f"{r.randint(100, 10000)} rpm",
            f"{r.randint(1, 512)} MiB",
            f"{r.uniform(0.1, 99.9):.1f} ms p99",
        ]
    )


def price(r: random.Random) -> str:
    return r.choice(
        [
            f"${r.randint(1, 99999):,}.{r.randint(0, 99):02d}",
            f"\u20ac{r.randint(1, 5000)}.{r.randint(0, 99):02d}",
            f"USD {r.randint(1000, 9999999):,}",
            f"\u00a3{r.randint(1, 900)}",
            f"{r.randint(1, 9999)},{r.randint(0, 99):02d} EUR",
        ]
    )


def reference(r: random.Random) -> str:
    return r.choice(
        [
            f"AMM {r.randint(5, 80):02d}-{r.randint(0, 99):02d}-{r.randint(0, 99):02d}",
            f"AMM {r.randint(5, 80):02d}-{r.randint(0, 99):02d}",
            f"ATA {r.randint(21, 80)}",
            f"SB {r.randint(21, 80)}-{r.randint(0, 9999):04d}",
            f"AD {r.randint(2000, 2026)}-{r.randint(1, 26):02d}-{r.randint(1, 20):02d}",
            f"task {r.randint(5, 80):02d}-{r.randint(10, 99)}-{r.randint(10, 99)}-"
            f"{r.randint(200, 999)}-{r.randint(800, 899)}",
            f"P/N {r.randint(1000000, 9999999)}-{r.randint(1, 99):02d}",
            f"P/N {r.randint(10, 99)}-{r.randint(10000, 99999)}-{r.randint(1, 9)}",
            f"MS{r.randint(20000, 29999)}C{r.randint(10, 99)}",
            f"NAS{r.randint(1000, 1999)}F{r.randint(1000, 9999)}P",
            f"S/N {r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(1000, 9999)}",
            f"ESN {r.randint(100000, 999999)}",
            f"serial {r.randint(10**9, 10**10 - 1)}",
            f"tail N{r.randint(100, 999)}{letters(r, 2)}",
            f"F-G{''.join(r.choice(string.ascii_uppercase) for _ in range(3))}",
            f"flight BA{r.randint(100, 9999)}",
            f"CMM {r.randint(20, 80)}-{r.randint(10, 99)}-{r.randint(10, 99)}",
            f"MSN {r.randint(1000, 9999)}",
        ]
    )


def tech_id(r: random.Random) -> str:
    return r.choice(
        [
            f"v{r.randint(0, 12)}.{r.randint(0, 40)}.{r.randint(0, 99)}",
            f"{r.randint(1, 30)}.{r.randint(0, 40)}.{r.randint(0, 9999)}",
            f"build {r.randint(2019, 2026)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}.{r.randint(1, 9)}",
            f"commit {hexs(r, 7)}",
            f"commit {hexs(r, 40)}",
            f"sha256:{hexs(r, 64)}",
            f"md5 {hexs(r, 32)}",
            f"request id {uuid.UUID(int=r.getrandbits(128))}",
            f"trace id {hexs(r, 32)}",
            f"pod proctor-judge-{hexs(r, 9)}-{letters(r, 5, string.ascii_lowercase + string.digits)}",
            f"{r.randint(10, 192)}.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
            f"port {r.choice([80, 443, 5432, 6379, 8080, 8443, 9090])}",
            f"MAC {':'.join(hexs(r, 2) for _ in range(6))}",
            f"arn:aws:iam::{r.randint(10**11, 10**12 - 1)}:role/deploy-{hexs(r, 4)}",
            f"epoch {r.randint(1_500_000_000, 1_800_000_000)}",
            f"timestamp {r.randint(1_500_000_000_000, 1_800_000_000_000)}",
            f"image ghcr.io/acme/proctor@sha256:{hexs(r, 64)}",
            f"checksum {base64.b64encode(r.randbytes(24)).decode()}",
            f'etag W/"{hexs(r, 16)}"',
            f"ISIN US{r.randint(10**9, 10**10 - 1)}",
            f"ISBN 978-{r.randint(0, 9)}-{r.randint(10, 99)}-{r.randint(100000, 999999)}-{r.randint(0, 9)}",
            f"EAN {r.randint(10**12, 10**13 - 1)}",
            f"order #{r.randint(10**9, 10**11)}",
            f"order ORD-{r.randint(2019, 2026)}-{r.randint(1, 999999):06d}",
            f"invoice INV-{r.randint(1000, 99999)}",
            f"ticket OPS-{r.randint(100, 99999)}",
            f"INC{r.randint(1000000, 9999999)}",
            f"tracking 1Z{''.join(r.choice(UPPER_DIGITS) for _ in range(16))}",
            f"tracking {r.randint(10**11, 10**12 - 1)}",
            f"account ending {r.randint(1000, 9999)}",
            f"case {r.randint(10**7, 10**8 - 1)}",
            f"coordinates {r.uniform(-90, 90):.4f}, {r.uniform(-180, 180):.4f}",
            f"zip {r.randint(10000, 99999)}",
            f"ext. {r.randint(100, 9999)}",
            f"range {r.randint(1000, 1500)}-{r.randint(1501, 2500)} rpm",
            f"lot {r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(1000, 9999)}",
            f"{r.choice(ID_LOOKALIKE_WORDS)} {checksum_lookalike(r)}",
        ]
    )


#: words before a figure that say it is no identity number
ID_LOOKALIKE_WORDS = [
    "order",
    "invoice",
    "tracking",
    "serial",
    "batch",
    "reference",
    "account",
    "case",
    "item",
]


def checksum_lookalike(r: random.Random) -> str:
    """A figure that one of the catalogue's modules validates (an id by its checksum alone), in
    the catalogue's own example shapes: what an order or a serial number is by chance."""
    while True:
        entry = r.choice(CATALOGUE)
        if entry.shape is not None or entry.module in ON_THEIR_OWN or not stdnum_examples(entry):
            continue  # a distinctive format is an id on its own
        example = r.choice(stdnum_examples(entry))
        if any(c.isalpha() for c in example):
            continue  # digits only: an order or serial number
        value = "".join(r.choice(string.digits) if c.isdigit() else c for c in example)
        if entry.is_valid(value):
            return value


#: ids the scan reads without a keyword besides the catalogue's shapes (proctor.graders._pii)
ON_THEIR_OWN = frozenset({"es.dni", "es.nie", "fr.nir", "it.codicefiscale"})


def url(r: random.Random) -> str:
    host = r.choice(
        [
            "docs.acme.io",
            "kubernetes.io",
            "github.com/acme/proctor",
            "status.example.org",
            "wiki.internal",
            "www.faa.gov",
        ]
    )
    path = "/".join(
        r.choice(
            ["docs", "v1", "guide", "amm", "72-00", "runbook", "2024", "issues", str(r.randint(1, 9999))]
        )
        for _ in range(r.randint(1, 4))
    )
    q = r.choice(
        ["", f"?page={r.randint(1, 9)}", f"?ref={hexs(r, 8)}&lang=en", f"#section-{r.randint(1, 9)}"]
    )
    return f"https://{host}/{path}{q}"


def benign_contact(r: random.Random) -> str:
    return r.choice(
        [
            "support@acme.com",
            "noreply@github.com",
            "jane.doe@example.com",
            "ops-team@example.org",
            "git@github.com:acme/proctor.git",
            "security@acme.io",
            "the helpdesk at help@acme-airlines.com",
            "call 1-800-555-0199 (toll free)",
            "the on-call rota in PagerDuty",
        ]
    )


def benign_secret_talk(r: random.Random) -> str:
    return r.choice(
        [
            "Reset your password from the self-service portal; never share it.",
            "The API key is stored in Vault under secret/proctor/judge.",
            "Rotate the token every 90 days (policy SEC-12).",
            "password: see the vault entry, do not paste it here.",
            "Set api_key = os.environ['JUDGE_API_KEY'] in the runner.",
            "A PEM file starts with a BEGIN RSA PRIVATE KEY header; keep it out of git.",
            "JWTs start with eyJ because the header is base64-encoded JSON.",
            "Use the sk-learn style naming only for models, not for keys.",
            "The secret is mounted at /var/run/secrets/judge/api-key.",
            "Set password to ${DB_PASSWORD} in the Helm values.",
            "The token: <redacted> was revoked.",
            "Connection string: postgres://app:${PGPASSWORD}@db:5432/app",
            "Credentials are passed as the AWS_SECRET_ACCESS_KEY environment variable.",
            "The AccountKey value comes from the storage account's Access keys blade.",
        ]
    )


SENTENCES: list[Callable[[random.Random], str]] = [
    lambda r: (
        f"Oil consumption on engine {r.randint(1, 4)} is {measurement(r)}, "
        f"which is ELEVATED per {reference(r)}."
    ),
    lambda r: f"Replace the seal ({reference(r)}) and torque to {measurement(r)}.",
    lambda r: f"The last borescope inspection was on {date(r)} at {clock(r)}, logged as {tech_id(r)}.",
    lambda r: f"Upgrade the operator to {tech_id(r)} before {date(r)}; see {url(r)}.",
    lambda r: f"The invoice total is {price(r)} including VAT, due {date(r)}.",
    lambda r: (
        f"Your {tech_id(r)} was processed; refund of {price(r)} expected within "
        f"{r.randint(2, 10)} business days."
    ),
    lambda r: f"Check {reference(r)} and {reference(r)}: the limit is {measurement(r)}.",
    lambda r: f"Deployment {tech_id(r)} rolled out at {clock(r)} UTC; error rate {r.uniform(0, 5):.2f}%.",
    lambda r: f"Latency rose to {measurement(r)} after {tech_id(r)}.",
    lambda r: f"For questions, contact {benign_contact(r)}.",
    lambda r: benign_secret_talk(r),
    lambda r: (
        f"The reading of {measurement(r)} falls in the NORMAL band (below {r.randint(1, 99) / 100:.2f})."
    ),
    lambda r: (
        f"I cannot determine the blade count from {reference(r)}; check the IPC, figure {r.randint(1, 20)}."
    ),
    lambda r: (
        f"Shift {r.randint(1, 3)} logged {r.randint(1, 40)} findings between {clock(r)} and {clock(r)}."
    ),
    lambda r: f"Use {tech_id(r)} with {tech_id(r)}.",
    lambda r: f"Documentation: {url(r)} (updated {date(r)}).",
    lambda r: f"The quote for {r.randint(1, 500)} units is {price(r)}, reference {tech_id(r)}.",
    lambda r: (
        f"Mean time between failures is {r.randint(1000, 90000):,} hours across {r.randint(2, 400)} aircraft."
    ),
    lambda r: f"Room {r.randint(100, 999)}, building {r.choice('ABCDEF')}, floor {r.randint(1, 12)}.",
    lambda r: (
        f"Population {r.randint(10**5, 10**8):,}; "
        f"GDP growth {r.uniform(-3, 8):.1f}% in {r.randint(1990, 2025)}."
    ),
    lambda r: (
        f"Step {r.randint(1, 9)}: set the breaker {r.choice(['C12', 'D4', 'E21'])} to OFF "
        f"and wait {r.randint(2, 30)} minutes."
    ),
    lambda r: f"Temperatures between {r.randint(-40, 0)} and {r.randint(1, 60)} \u00b0C are within limits.",
    lambda r: f"The account balance is {price(r)} as of {date(r)}.",
    lambda r: (
        f"Your booking code is {letters(r, 6)} for flight "
        f"{r.choice(['AF', 'LH', 'UA'])}{r.randint(10, 9999)} on {date(r)}."
    ),
    lambda r: (
        f"Call sign {r.choice(['SPEEDBIRD', 'SHAMROCK', 'DELTA'])} {r.randint(1, 999)}; "
        f"squawk {r.randint(1000, 7777)}."
    ),
    lambda r: f"The ticket {tech_id(r)} was escalated at {clock(r)}.",
]


def ordinary_answer(r: random.Random) -> str:
    parts = [r.choice(SENTENCES)(r) for _ in range(r.randint(2, 5))]
    return " ".join(parts)


# --------------------------------------------------------------------------------------------
# Planted findings: value generators (each returns the text to plant; the planted span is all of it)


def luhn_complete(prefix: str, length: int, r: random.Random) -> str:
    body = prefix + "".join(r.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for d in string.digits:
        cand = body + d
        total = 0
        for i, ch in enumerate(reversed(cand)):
            n = int(ch)
            if i % 2:
                n = n * 2 - 9 if n > 4 else n * 2
            total += n
        if total % 10 == 0:
            return cand
    raise AssertionError("unreachable")


def gen_card(r: random.Random) -> str:
    prefix, length = r.choice(
        [
            ("4", 16),
            ("51", 16),
            ("55", 16),
            ("2221", 16),
            ("34", 15),
            ("37", 15),
            ("6011", 16),
            ("65", 16),
            ("35", 16),
        ]
    )
    if prefix == "35":
        prefix = str(r.randint(3528, 3589))
    n = luhn_complete(prefix, length, r)
    style = r.choice(["space", "dash", "none"])
    if style == "none":
        return n
    sep = " " if style == "space" else "-"
    if length == 15:
        return sep.join([n[:4], n[4:10], n[10:]])
    return sep.join(n[i : i + 4] for i in range(0, length, 4))


def gen_iban(r: random.Random) -> str:
    country, bban = r.choice(
        [
            ("DE", lambda: "".join(r.choice(string.digits) for _ in range(18))),
            (
                "FR",
                lambda: (
                    "".join(r.choice(string.digits) for _ in range(10))
                    + "".join(r.choice(UPPER_DIGITS) for _ in range(11))
                    + "".join(r.choice(string.digits) for _ in range(2))
                ),
            ),
            (
                "GB",
                lambda: (
                    "".join(r.choice(string.ascii_uppercase) for _ in range(4))
                    + "".join(r.choice(string.digits) for _ in range(14))
                ),
            ),
            (
                "NL",
                lambda: (
                    "".join(r.choice(string.ascii_uppercase) for _ in range(4))
                    + "".join(r.choice(string.digits) for _ in range(10))
                ),
            ),
            ("ES", lambda: "".join(r.choice(string.digits) for _ in range(20))),
            ("BE", lambda: "".join(r.choice(string.digits) for _ in range(12))),
            (
                "CH",
                lambda: (
                    "".join(r.choice(string.digits) for _ in range(5))
                    + "".join(r.choice(UPPER_DIGITS) for _ in range(12))
                ),
            ),
        ]
    )
    for _ in range(20_000):  # a Belgian one needs a known bank code and two check digits
        b = bban()
        candidate = country + "00" + b
        check = std_iban.calc_check_digits(candidate)
        value = country + check + b
        if std_iban.is_valid(value):
            break
    else:  # pragma: no cover - national check digits (ES, BE, FR) found within a few hundred tries
        raise AssertionError("no valid IBAN generated")
    return std_iban.format(value) if r.random() < 0.6 else value


def gen_ssn(r: random.Random) -> str:
    while True:
        area = r.randint(1, 899)
        if area != 666:
            break
    sep = r.choice(["-", "-", " "])
    return f"{area:03d}{sep}{r.randint(1, 99):02d}{sep}{r.randint(1, 9999):04d}"


def stdnum_examples(entry: IdNumber) -> tuple[str, ...]:
    """The valid numbers of a stdnum module's own doctests."""
    if entry.module not in _EXAMPLES:
        out = []
        for ex in doctest.DocTestParser().get_examples(entry.stdnum.__doc__ or ""):
            m = re.match(r"(?:validate|compact|format)\('([^']+)'\)", ex.source.strip())
            if (
                m
                and ex.want
                and not ex.exc_msg
                and m.group(1).strip() == m.group(1)
                and entry.is_valid(m.group(1))
            ):
                out.append(m.group(1))
        _EXAMPLES[entry.module] = tuple(dict.fromkeys(out))
    return _EXAMPLES[entry.module]


_EXAMPLES: dict[str, tuple[str, ...]] = {}


def gen_catalogue_id(r: random.Random) -> tuple[str, str]:
    """(value, text before it): a number of any country in the catalogue, after one of its
    keywords or a general identity word, with a few filler words between."""
    entry = r.choice([e for e in CATALOGUE if stdnum_examples(e)])
    keyword = r.choice([*entry.keywords, r.choice(GENERAL_KEYWORDS)])
    filler = r.choice(["", ": ", " is ", " no. ", " nr ", " #", ": "])
    return r.choice(stdnum_examples(entry)), f"{keyword}{filler}".rstrip() + " "


def gen_national_id(r: random.Random) -> tuple[str, str]:
    """(value, text before it); ids without a distinctive format come after their keyword."""
    kind = r.choice(["ssn", "ssn", "ssn-kw", "dni", "nir", "cf", "bsn", "nino", "catalogue", "catalogue"])
    if kind == "catalogue":
        return gen_catalogue_id(r)
    if kind == "ssn":
        return gen_ssn(r), r.choice(["", "SSN ", "social security number "])
    if kind == "ssn-kw":
        return gen_ssn(r).replace("-", "").replace(" ", ""), r.choice(
            ["SSN: ", "SSN ", "social security number "]
        )
    if kind == "dni":
        n = f"{r.randint(10**7, 10**8 - 1)}"
        return n + std_dni.calc_check_digit(n), r.choice(["DNI ", "", "ID "])
    if kind == "nir":
        while True:
            body = (
                f"{r.choice('12')}{r.randint(40, 99)}{r.randint(1, 12):02d}{r.randint(1, 95):02d}"
                f"{r.randint(1, 999):03d}{r.randint(1, 999):03d}"
            )
            value = body + std_nir.calc_check_digits(body + "00")
            if std_nir.is_valid(value):
                break
        return std_nir.format(value) if r.random() < 0.5 else value, r.choice(
            ["NIR ", "num\u00e9ro de s\u00e9curit\u00e9 sociale ", ""]
        )
    if kind == "cf":
        surname = letters(r, 6)
        month = r.choice("ABCDEHLMPRST")
        day = r.randint(1, 28) + r.choice([0, 40])  # women: day + 40
        body = f"{surname}{r.randint(40, 99)}{month}{day:02d}{letters(r, 1)}{r.randint(100, 999)}"
        return body + std_cf.calc_check_digit(body), r.choice(["codice fiscale ", "CF ", ""])
    if kind == "bsn":
        while True:
            n = f"{r.randint(10**8, 10**9 - 1)}"
            if std_bsn.is_valid(n):
                return n, r.choice(["BSN ", "BSN: ", "burgerservicenummer "])
    prefix = r.choice(["AB", "CE", "JG", "PR", "WL", "HT"])
    digits = f"{r.randint(0, 999999):06d}"
    suffix = r.choice("ABCD")
    value = (
        f"{prefix} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}"
        if r.random() < 0.5
        else f"{prefix}{digits}{suffix}"
    )
    return value, r.choice(["National Insurance number ", "NI number ", "NINO: "])


PHONE_SHAPES = {
    "US": [
        "({a}) {b}-{c}",
        "{a}-{b}-{c}",
        "{a}.{b}.{c}",
        "+1 {a} {b} {c}",
        "+1-{a}-{b}-{c}",
        "1 ({a}) {b}-{c}",
    ],
}


def gen_phone(r: random.Random) -> tuple[str, str]:
    lead = r.choice(["", "call ", "phone: ", "mobile ", "reach me at ", "tel. ", "whatsapp "])
    kind = r.choice(
        ["US", "US", "GB", "GB-intl", "FR", "FR-intl", "DE-intl", "ES-intl", "IT-intl", "AU-intl"]
    )
    while True:
        if kind == "US":
            a = r.choice([201, 212, 305, 312, 415, 617, 646, 702, 713, 917, 206, 303, 404, 503])
            b, c = r.randint(200, 999), r.randint(0, 9999)
            text = r.choice(PHONE_SHAPES["US"]).format(a=a, b=b, c=f"{c:04d}")
            region = "US"
        elif kind in ("GB", "GB-intl"):
            rest = (
                f"7{r.randint(100, 999)} {r.randint(100000, 999999)}"
                if r.random() < 0.6
                else f"20 {r.randint(7000, 8999)} {r.randint(1000, 9999)}"
            )
            text = ("0" + rest) if kind == "GB" else ("+44 " + rest)
            region = "GB"
        elif kind in ("FR", "FR-intl"):
            groups = " ".join(f"{r.randint(0, 99):02d}" for _ in range(4))
            first = r.choice(["6", "7", "1", "4"])
            text = f"0{first} {groups}" if kind == "FR" else f"+33 {first} {groups}"
            region = "FR"
        elif kind == "DE-intl":
            text = f"+49 {r.choice(['30', '89', '40', '151', '170'])} {r.randint(1000000, 99999999)}"
            region = "DE"
        elif kind == "ES-intl":
            text = f"+34 {r.choice('679')}{r.randint(10, 99)} {r.randint(100, 999)} {r.randint(100, 999)}"
            region = "ES"
        elif kind == "IT-intl":
            text = f"+39 3{r.randint(10, 99)} {r.randint(100, 999)} {r.randint(1000, 9999)}"
            region = "IT"
        else:
            text = f"+61 4{r.randint(10, 99)} {r.randint(100, 999)} {r.randint(100, 999)}"
            region = "AU"
        try:
            parsed = phonenumbers.parse(text, region)
        except phonenumbers.NumberParseException:
            continue
        if (
            phonenumbers.is_valid_number(parsed)
            and phonenumbers.number_type(parsed) != phonenumbers.PhoneNumberType.TOLL_FREE
        ):
            return text, lead


def gen_email(r: random.Random) -> str:
    first = r.choice(["jane", "john", "maria", "li", "ahmed", "sofia", "pierre", "anna", "k", "olu"])
    last = r.choice(["doe", "smith", "garcia", "wang", "khan", "rossi", "dubois", "nowak", "o.neil", "kim"])
    local = r.choice(
        [
            f"{first}.{last}",
            f"{first}{last}",
            f"{first[0]}{last}",
            f"{first}_{last}{r.randint(1, 99)}",
            f"{first}+ops",
        ]
    )
    domain = r.choice(
        [
            "gmail.com",
            "outlook.com",
            "acme-airlines.com",
            "proton.me",
            "uni-heidelberg.de",
            "orange.fr",
            "company.co.uk",
            "mail.ru",
            "corp.acme.io",
        ]
    )
    return f"{local}@{domain}"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def gen_jwt(r: random.Random) -> str:
    header = b64url(json.dumps({"alg": r.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    payload = b64url(
        json.dumps({"sub": str(r.randint(1, 10**6)), "name": "svc", "iat": r.randint(1.6e9, 1.8e9)}).encode()
    )
    return f"{header}.{payload}.{b64url(r.randbytes(32))}"


def rand_token(r: random.Random, n: int, alphabet: str = ALNUM) -> str:
    while True:
        t = "".join(r.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in t) and any(c.isupper() for c in t) and any(c.islower() for c in t):
            return t


def gen_private_key(r: random.Random) -> str:
    kind = r.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"])
    body = base64.b64encode(r.randbytes(r.randint(120, 600))).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {kind}-----\n{lines}\n-----END {kind}-----"


PLANTS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "aws-access-key": lambda r: (
        r.choice(["AKIA", "ASIA"]) + "".join(r.choice(UPPER_DIGITS) for _ in range(16)),
        r.choice(["Access key ", "key id: ", "use ", ""]),
    ),
    "aws-secret-key": lambda r: (
        '"' + rand_token(r, 40, ALNUM + "/+") + '"',
        r.choice(["aws_secret_access_key = ", "AWS secret key: ", "aws_secret_key="]),
    ),
    "private-key": lambda r: (gen_private_key(r), "Here is the key:\n"),
    "github-token": lambda r: (
        r.choice(["ghp_", "gho_", "ghs_"]) + rand_token(r, 36)
        if r.random() < 0.8
        else "github_pat_" + rand_token(r, 82, ALNUM + "_"),
        r.choice(["token ", "GITHUB_TOKEN=", ""]),
    ),
    "gitlab-token": lambda r: (
        "glpat-" + rand_token(r, 20, ALNUM + "_-"),
        r.choice(["token ", "CI token: ", ""]),
    ),
    "slack-token": lambda r: (
        f"xox{r.choice('bpa')}-{r.randint(10**10, 10**12)}-{r.randint(10**10, 10**12)}-"
        f"{rand_token(r, 24).lower()}",
        r.choice(["bot token ", "SLACK_TOKEN=", ""]),
    ),
    "stripe-key": lambda r: (
        r.choice(["sk_live_", "rk_live_"]) + rand_token(r, r.choice([24, 32, 99])),
        r.choice(["Stripe key ", "STRIPE_KEY=", ""]),
    ),
    "jwt": lambda r: (gen_jwt(r), r.choice(["Authorization: Bearer ", "token ", "session "])),
    "basic-auth": lambda r: (
        f"{r.choice(['https', 'postgres', 'redis', 'amqp'])}://{r.choice(['admin', 'app', 'svc'])}:"
        f"{rand_token(r, r.randint(10, 16))}@{r.choice(['db.internal', 'mq.acme.io', 'cache'])}:"
        f"{r.randint(1000, 9999)}/x",
        r.choice(["Connect with ", "DSN ", ""]),
    ),
    "openai-api-key": lambda r: (
        "sk-proj-" + rand_token(r, 48, ALNUM + "_-")
        if r.random() < 0.7
        else "sk-" + rand_token(r, 20) + "T3BlbkFJ" + rand_token(r, 20),
        r.choice(["OPENAI_API_KEY=", "key ", ""]),
    ),
    "google-api-key": lambda r: (
        "AIza" + rand_token(r, 35, ALNUM + "_-"),
        r.choice(["key=", "Maps key ", ""]),
    ),
    "credential": lambda r: (
        rand_token(r, r.randint(10, 18), ALNUM + "!#&*"),
        r.choice(["password: ", "Password = ", "the password is ", "client_secret=", "db password: "]),
    ),
    "email": lambda r: (gen_email(r), r.choice(["Contact ", "email ", "reach the owner at ", "cc: "])),
    "phone": lambda r: gen_phone(r),
    "credit-card": lambda r: (gen_card(r), r.choice(["card ", "Card number: ", "paid with ", "CC "])),
    "iban": lambda r: (gen_iban(r), r.choice(["IBAN ", "IBAN: ", "account ", "wire to "])),
    "national-id": lambda r: gen_national_id(r),
}


# Disguised findings (issue 10): the same values written to slip past a scan that reads the text
# as it comes. Each name maps to the kind the scan must report and a generator.

ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]


def in_pieces(token: str, r: random.Random) -> str:
    size = r.choice([4, 5, 6, 8, 10])
    sep = r.choice([" ", "\n", "\n    ", " - " if token.isupper() else " ", '" +\n  "', "\n> "])
    return sep.join(token[i : i + size] for i in range(0, len(token), size))


def with_zero_width(token: str, r: random.Random) -> str:
    chars = list(token)
    for _ in range(r.randint(1, 4)):
        chars.insert(r.randint(1, len(chars) - 1), r.choice(ZERO_WIDTH))
    return "".join(chars)


def secret_token(r: random.Random) -> tuple[str, str]:
    """(kind, token) of a random secret with a distinctive prefix."""
    kind = r.choice(["aws-access-key", "github-token", "openai-api-key", "google-api-key", "stripe-key"])
    if kind == "aws-access-key":
        return kind, "AKIA" + "".join(r.choice(UPPER_DIGITS) for _ in range(16))
    if kind == "github-token":
        return kind, "ghp_" + rand_token(r, 36)
    if kind == "openai-api-key":
        return kind, "sk-proj-" + rand_token(r, 48)
    if kind == "google-api-key":
        return kind, "AIza" + rand_token(r, 35)
    return kind, "sk_live_" + rand_token(r, 24)


def lowercase_or_spaced_iban(r: random.Random) -> str:
    value = gen_iban(r).replace(" ", "")
    groups = [value[i : i + 4] for i in range(0, len(value), 4)]
    written = r.choice([" ", "-", ".", ""]).join(groups)
    return written.lower() if r.random() < 0.7 else written


def mixed_separator_card(r: random.Random) -> str:
    prefix, length = r.choice([("4", 16), ("51", 16), ("55", 16), ("6011", 16)])
    n = luhn_complete(prefix, length, r)
    groups = [n[i : i + 4] for i in range(0, length, 4)]
    out = groups[0]
    for g in groups[1:]:
        out += r.choice([" ", "-", ".", " - ", "  "]) + g
    return out


def national_phone(r: random.Random) -> tuple[str, str]:
    shapes = [
        lambda: f"0{r.choice([30, 40, 89])} {r.randint(1000000, 9999999)}",  # Germany
        lambda: f"06-{r.randint(10000000, 99999999)}",  # the Netherlands
        lambda: f"06{r.randint(10000000, 99999999)}",  # France, unbroken
        lambda: f"090-{r.randint(1000, 9999)}-{r.randint(1000, 9999)}",  # Japan
        lambda: f"6{r.randint(10, 99)} {r.randint(100, 999)} {r.randint(100, 999)}",  # Spain
        lambda: f"3{r.randint(20, 49)} {r.randint(100, 999)} {r.randint(1000, 9999)}",  # Italy
        lambda: f"{r.choice([415, 212, 617])} {r.randint(200, 999)} {r.randint(1000, 9999)}",  # US, spaces
    ]
    while True:
        text = r.choice(shapes)()
        for region in ("DE", "NL", "FR", "JP", "ES", "IT", "US"):
            try:
                parsed = phonenumbers.parse(text, region)
            except phonenumbers.NumberParseException:
                continue
            if (
                phonenumbers.is_valid_number(parsed)
                and phonenumbers.number_type(parsed) != phonenumbers.PhoneNumberType.TOLL_FREE
            ):
                return text, r.choice(["call ", "phone: ", "mobile ", "tel. ", "reach me on "])


def written_out_email(r: random.Random) -> str:
    local, _, domain = gen_email(r).rpartition("@")
    host, _, tld = domain.rpartition(".")
    at, dot = r.choice(
        [(" (at) ", " (dot) "), (" [at] ", " [dot] "), (" AT ", " DOT "), ("{at}", "{dot}"), (" @ ", " . ")]
    )
    return local + at + host.replace(".", dot) + dot + tld


def quoted_key_block(r: random.Random) -> str:
    kind = r.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"])
    body = base64.b64encode(r.randbytes(r.randint(120, 400))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    head, tail = "-----BEGIN " + kind + "-----", "-----END " + kind + "-----"
    style = r.choice(["quoted", "indented", "escaped", "commented"])
    if style == "quoted":
        return "\n".join("> " + line for line in [head, *lines, tail])
    if style == "indented":
        return "key: |\n" + "\n".join("    " + line for line in [head, *lines, tail])
    if style == "commented":
        return "\n".join("# " + line for line in [head, *lines, tail])
    return '"' + "\\n".join([head, *lines, tail]) + '"'


def hex_written(value: str, r: random.Random) -> str:
    """``value``'s bytes in hex: plain (either case) or as ``\\x`` escapes."""
    data = value.encode()
    style = r.choice(["lower", "upper", "escapes"])
    if style == "escapes":
        return "".join(f"\\x{b:02x}" for b in data)
    return data.hex().upper() if style == "upper" else data.hex()


def encoded_characters(token: str, r: random.Random) -> str:
    """``token`` as JSON ``\\u`` escapes, bytes written apart (``0x67, 0x68``, ``67 68``) or character
    codes (``103,104``)."""
    style = r.choice(["u", "0x", "spaced", "codes"])
    if style == "u":
        return "".join(f"\\u{ord(c):04x}" for c in token)
    if style == "0x":
        return ", ".join(f"0x{b:02x}" for b in token.encode())
    if style == "spaced":
        return " ".join(f"{b:02X}" for b in token.encode())
    return ",".join(str(ord(c)) for c in token)


def xml_credential(r: random.Random) -> tuple[str, str, str]:
    """A password in XML config, with its closing tag or quote (which the sentence then follows)."""
    value = rand_token(r, 14, ALNUM + "!#%&*")
    lead, tail = r.choice(
        [
            ('<add key="DbPassword" value="', '" />'),
            ("<db:Password>", "</db:Password>"),
            ('<entry key="api.token"><![CDATA[', "]]></entry>"),
            ('<password type="plain">', "</password>"),
        ]
    )
    return value, lead, tail


def escaped_credential(r: random.Random) -> tuple[str, str]:
    """A password with one of its characters written as an escape: an HTML character reference
    (decimal, hex or named) or a ``\\x`` / ``\\u`` escape, whose ``;`` or ``\\`` must not end the value."""
    head, tail = rand_token(r, r.randint(5, 9), ALNUM), rand_token(r, r.randint(4, 8), ALNUM)
    c = r.choice("!;#&<>@")
    named = {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "!": "&excl;",
        ";": "&semi;",
        "#": "&num;",
        "@": "&commat;",
    }
    escape = r.choice([f"&#{ord(c)};", f"&#x{ord(c):x};", named[c], f"\\x{ord(c):02x}", f"\\u{ord(c):04x}"])
    lead = r.choice(["password=", "DB_PASSWORD: ", '"api_key": "', "--db-password=", "clientSecret = "])
    return head + escape + tail, lead


DISGUISED: dict[str, tuple[str, Callable[[random.Random], tuple[str, ...]]]] = {
    "secret in pieces": ("", lambda r: (in_pieces(*secret_token(r)[1:], r), "use ")),
    "secret zero-width": ("", lambda r: (with_zero_width(secret_token(r)[1], r), "token ")),
    "secret base64": (
        "",
        lambda r: (base64.b64encode(f"token={secret_token(r)[1]}".encode()).decode(), "creds "),
    ),
    "secret %-encoded": (
        "",
        lambda r: (
            "".join(f"%{b:02X}" for b in secret_token(r)[1].encode()),
            r.choice(["url ", "q=", "token "]),
        ),
    ),
    "secret hex": (
        "",
        lambda r: (hex_written(secret_token(r)[1], r), r.choice(["blob ", "bytes: ", "token "])),
    ),
    "secret \\u/bytes/codes": (
        "",
        lambda r: (encoded_characters(secret_token(r)[1], r), r.choice(["value: ", "data ", "token "])),
    ),
    "spelt with _ and -": ("", lambda r: (" ".join(secret_token(r)[1]), r.choice(["key: ", "it is "]))),
    "credential camelCase": (
        "credential",
        lambda r: (
            rand_token(r, 14, ALNUM + "!#%&*"),
            r.choice(["dbPassword: ", '"smtpPassword": "', "adminPwd = ", "githubToken="]),
        ),
    ),
    "credential in XML": ("credential", lambda r: xml_credential(r)),
    "credential &#33;/\\x21": ("credential", lambda r: escaped_credential(r)),
    "credential --flag=": (
        "credential",
        lambda r: (
            rand_token(r, 14, ALNUM + "!#%&*"),
            r.choice(["--password=", "--db-password=", "--api-key="]),
        ),
    ),
    "aws secret KEY=val": (
        "aws-secret-key",
        lambda r: (
            rand_token(r, 40, ALNUM + "/+"),
            r.choice(["AWS_SECRET_ACCESS_KEY=", "aws_secret_access_key = ", "aws secret key: "]),
        ),
    ),
    "key in a block": ("private-key", lambda r: (quoted_key_block(r), "Here it is:\n")),
    "iban lower/spaced": ("iban", lambda r: (lowercase_or_spaced_iban(r), r.choice(["IBAN ", "pay ", ""]))),
    "card mixed seps": (
        "credit-card",
        lambda r: (mixed_separator_card(r), r.choice(["card ", "paid with "])),
    ),
    "phone national": ("phone", lambda r: national_phone(r)),
    "email written out": ("email", lambda r: (written_out_email(r), r.choice(["mail ", "contact ", ""]))),
}


def disguised_answer(r: random.Random, name: str) -> tuple[str, str, int, int]:
    """(expected kind, text, start, end); a secret's kind is known only once generated."""
    kind, gen = DISGUISED[name]
    if not kind:
        state = r.getstate()
        kind = secret_token(r)[0]
        r.setstate(state)
    value, lead, *tail = gen(r)  # (a closing tag or quote may follow the value)
    before = ordinary_answer(r)
    after = ordinary_answer(r) if r.random() < 0.5 else ""
    sentence = f"{lead}{value}{''.join(tail)}" + r.choice([".", ",", " today.", " if needed.", ""])
    text = f"{before} {sentence} {after}".strip()
    start = len(before) + 1 + len(lead)
    return kind, text, start, start + len(value)


def planted_answer(r: random.Random, kind: str) -> tuple[str, int, int]:
    value, lead = PLANTS[kind](r)
    before = ordinary_answer(r)
    after = ordinary_answer(r) if r.random() < 0.5 else ""
    sentence = f"{lead}{value}" + r.choice([".", ",", " today.", " if needed.", ""])
    text = f"{before} {sentence} {after}".strip()
    start = len(before) + 1 + len(lead)
    return text, start, start + len(value)


# --------------------------------------------------------------------------------------------
# Hand-written hard cases, written once and not tuned against: look-alikes that are not findings,
# and findings in shapes the generators above do not produce. Reported separately.

HARD_NEGATIVES = [
    "Routing number 021000021 and account 12345678 are on the cheque, not in this system.",
    "Sort code 12-34-56; the UK postcode is SW1A 1AA.",
    "ISO week 2024-W19; build 20240509143000; SIRET 73282932000074.",
    "Container MSCU 1234565, VIN 1HGCM82633A004352, IMEI 35-209900-176148-1.",
    "USPS tracking 9400 1000 0000 0000 0000 00 and FedEx 7489 2312 3456.",
    "The YouTube id dQw4w9WgXcQ and Firebase id -NxY3k2Lq8r_abcDEF12 are public.",
    "Use task-runner-7f9c2d1e8b3a4f5c6d7e8f9a0b1c2d3e4f5a6b7c as the job name.",
    "The base64 checksum is q83vEjRWeJA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQp=.",
    "Set AWS_REGION=eu-west-1 and AWS_PROFILE=prod in the runner.",
    "Our hotline is +1-800-555-0199 and the fax is toll free as well: 1 (888) 555-0123.",
    "The flight left at 14:05:33 on 2024-05-09 with 142 passengers and 12,500 kg of cargo.",
    "Torque values: 25-30 Nm, 0.015-0.020 in clearance, 3000-3500 psi.",
    "Coordinates 40.7128, -74.0060; altitude 35,000 ft; Mach 0.78.",
    "The invoice 2024-000123-45 totals EUR 12.345,67 (VAT 21%).",
    "Version 10.0.19045.3693 and kernel 6.8.0-31-generic on host ip-10-0-12-7.",
    "Patient count 1,234; ward 7B; bed 12; shift 07:00-19:00.",
    "Error code 0x80070005 at offset 0x7FFE0000; errno 13.",
    "Part numbers 3214552-01, 69-37317-3 and 2315M20-3 are interchangeable.",
    "The meeting is on 15/05/2024 from 10.30 to 12.00 in room 4.12.",
    "The phone line was down for 2 h 15 min; 1,204 calls were dropped.",
    "The ISIN US0378331005 and CUSIP 037833100 identify the same share.",
    "A password must be at least 12 characters long and contain a digit.",
    "Set the api_key field to your key (it starts with sk-) in settings.yaml.",
    'The JWT header is base64url of {"alg":"HS256"}; never log the token.',
    "Reach the team in #ops-oncall or via the on-call phone listed in PagerDuty.",
    # figures that pass a national id's checksum, with nothing that says they are one
    "Order 17291716060 shipped; invoice 44051401359 is overdue.",
    "Crate 1630615123457 is at the depot; pallet 36574261809 left today.",
    "Serial 710319/2745 of the pump; batch 7503305044089 passed QA.",
    "The sin 123-456-782 of the proof is small; cc 000000000ZZ4 on the mail.",
    "PESEL 44051401358 fails its check digit, as does CPF 390.533.447-06.",
    "Enter your PESEL, CPF or BSN in the form; never paste it in a ticket.",
    # credential shapes holding no credential: a variable, a prompt, a placeholder, the public half,
    # a vendor's documented example key
    "machine api.acme.io login deploy password $NETRC_PASSWORD",
    "Run mysql -u root -p shop and type the password at the prompt; curl -u deploy prompts too.",
    "curl -u deploy:$API_TOKEN -H 'Authorization: Bearer ${TOKEN}' https://api.acme.io",
    "mkdir -p build/out_2024 && ssh -p2222 ops@bastion && redis-cli -a $REDIS_PASSWORD ping",
    'The public JWK is {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",'
    ' "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}.',
    "Presigned URLs end in X-Amz-Signature=<signature>; an Azure SAS in sig=${SAS_SIG}.",
    # AWS's documented example pair (public, in every tutorial): the scan must not report it. Joined
    # from pieces only so that repository secret scanners do not stop at this file.
    "AWS's documentation uses "
    + "AKIA"
    + "IOSFODNN7EXAMPLE and "
    + "wJalrXUtnFEMI/K7MDENG/"
    + "bPxRfiCYEXAMPLEKEY.",
    "kind: Secret\ndata:\n  username: YXBw\n  password: Y2hhbmdlbWU=\n",
]

HARD_POSITIVES: list[tuple[str, str]] = [
    ("aws-access-key", '{"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "Expiration": "2024-05-09T14:30:00Z"}'),
    (
        "jwt",
        "Open https://app.acme.io/cb?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhYmMifQ.c2lnbmF0dXJlc2lnbmF0dXJl",
    ),
    ("github-token", "export GH_TOKEN='ghs_16C7e42F292c6912E7710c838347Ae178B4a'"),
    (
        "slack-webhook",
        "Post to https://hooks.slack.com/services/T0A1B2C3D/B4E5F6G7H/abcdEFGHijklMNOPqrstUVWX",
    ),
    ("email", "Escalate to Maria.Garcia-Lopez@Fleet.Acme-Airlines.COM before noon."),
    ("email", "cc: o'brien.k@uni-heidelberg.de"),
    ("phone", "Call +1 (415) 555-2671 ext. 3 tomorrow."),
    ("phone", "His number is 415.555.2671."),
    ("phone", "WhatsApp: +33612345678"),
    ("phone", "Ring me on 07700 900123 after the shift."),
    ("credit-card", "Card: 5555-5555-5555-4444 exp 04/27 cvc 123"),
    ("credit-card", "It was paid with 4242424242424242."),
    ("credit-card", "Card 4111.1111.1111.1111 was declined."),
    ("iban", "Pay de89 3704 0044 0532 0130 00 please."),
    ("iban", "IBAN: FR14 2004 1010 0505 0001 3M02 606"),
    ("national-id", "Her social security number is 536 22 8751."),
    ("national-id", "NIE X-1234567-L on the contract."),
    ("national-id", "O CPF dele \u00e9 39053344705."),
    ("national-id", "Seine Steuer-ID lautet 36574261809."),
    ("national-id", "Numer PESEL: 44051401359"),
    ("national-id", "Son num\u00e9ro de s\u00e9curit\u00e9 sociale n\u00b0 : 2 95 10 99 126 111 93."),
    ("national-id", "Zijn burgerservicenummer is 111222333."),
    ("national-id", "Rodn\u00e9 \u010d\u00edslo 710319/2745"),
    ("national-id", "TC Kimlik No: 17291716060"),
    ("national-id", "Registro BOXW310820HNERXN09 listo."),
    ("national-id", "Versicherter 756.9217.0769.85, Basel."),
    ("national-id", "\uc8fc\ubbfc\ub4f1\ub85d\ubc88\ud638 971013-9019902"),
    ("credential", "DB_PASSWORD=hU7#kq9!Lp2x"),
    ("credential", "machine api.acme.io\n  login deploy\n  password hU7kq9Lp2xWe"),
    ("credential", "mysqldump -uroot -phU7kq9Lp2xWe shop > shop.sql"),
    ("credential", "curl -s --user ci:hU7kq9Lp2xWe https://ci.acme.io/api/json"),
    ("credential", "sshpass -p 'hU7kq9Lp2xWe' ssh root@10.0.0.7"),
    ("credential", "kind: Secret\ndata:\n  password: aFU3a3E5THAyeFdl\n"),
    ("private-key", '{"kty": "EC", "crv": "P-256", "d": "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}'),
    (
        "signed-url",
        "https://b.s3.amazonaws.com/r.pdf?X-Amz-Date=20240509T120000Z&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
    ),
    (
        "signed-url",
        "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5%3D",
    ),
    ("basic-auth", "git clone https://deploy:glpat-Ab3dE_fGh1jKlMn0pQrS@gitlab.acme.io/x.git"),
    (
        "private-key",
        # assembled at run time, so the source holds nothing shaped like a real key
        "-----BEGIN "
        + "OPENSSH PRIVATE KEY-----\n"
        + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
        + "A" * 29
        + "\n",
    ),
]


def hard_cases() -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """(false alarms on HARD_NEGATIVES, misses on HARD_POSITIVES) as (text, what) lists."""
    false_alarms = [
        (t, ", ".join(f"{f.kind}={f.redacted}" for f in scan(t)))
        for t in HARD_NEGATIVES
        if any(not f.ambiguous for f in scan(t))
    ]
    misses = []
    for kind, text in HARD_POSITIVES:
        found = scan(text)
        if not any(f.kind == kind for f in found):
            misses.append((kind, text, ", ".join(f.kind for f in found) or "nothing"))
    return false_alarms, misses


# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--ordinary", type=int, default=2000, help="ordinary answers (default 2000)")
    ap.add_argument("--planted", type=int, default=150, help="planted answers per kind (default 150)")
    ap.add_argument("--show", type=int, default=5, help="print up to N false alarms and misses")
    args = ap.parse_args(argv)

    r = random.Random(SEED)
    ordinary = [ordinary_answer(r) for _ in range(args.ordinary)]
    planted = {kind: [planted_answer(r, kind) for _ in range(args.planted)] for kind in PLANTS}
    disguised = {name: [disguised_answer(r, name) for _ in range(args.planted)] for name in DISGUISED}

    scan("warm up: jane@acme.com (415) 555-2671")  # loads the detectors before timing

    false_alarms: list[tuple[str, str]] = []
    fp_kinds: Counter[str] = Counter()
    # an ambiguous reading (bare card-like digits after "order"...) is no finding: the case is
    # undetermined (the judge's, or unmeasured); counted apart, as what it costs
    undetermined: list[tuple[str, str]] = []
    for text in ordinary:
        readings = scan(text)
        findings = [f for f in readings if not f.ambiguous]
        if len(findings) < len(readings):
            undetermined.append((text, ", ".join(f"{f.kind}={f.redacted}" for f in readings if f.ambiguous)))
        if findings:
            false_alarms.append((text, ", ".join(f"{f.kind}={f.redacted}" for f in findings)))
            fp_kinds.update(f.kind for f in findings)

    found_by_kind: dict[str, int] = {}
    misses: list[tuple[str, str, str]] = []
    # a finding that overlaps its value but leaves a piece of it out shows that piece in clear in
    # every redacted reason: counted apart as "not covered whole"
    partial: Counter[str] = Counter()
    partial_texts: list[tuple[str, str, list[Finding]]] = []

    def whole(findings: list[Finding], text: str, s: int, e: int, kind: str) -> bool:
        """Every letter and digit of the planted value is inside a finding (quotes, a quoted
        block's "> " and the like are no secret; a URL's user and host, around a basic-auth
        password, are not either, so that kind is not checked)."""
        if kind == "basic-auth":
            return True
        s = text.find("-----BEGIN", s, e) if "-----BEGIN" in text[s:e] else s  # not the YAML key before it
        covered = {i for f in findings for i in range(max(f.start, s), min(f.end, e))}
        return all(i in covered for i in range(s, e) if text[i].isalnum())

    def found(label: str, kind: str, text: str, s: int, e: int) -> bool:
        """The planted value at ``s:e`` is found as ``kind``; a miss, or a piece of it left in clear,
        is recorded under ``label`` (the kind, or the disguise's name)."""
        fs = scan(text)
        snippet = text[max(0, s - 30) : e + 10]
        if not any(f.kind == kind and f.start < e and f.end > s for f in fs):
            got = ", ".join(f"{f.kind}@{f.start}" for f in fs) or "nothing"
            misses.append((label, snippet.replace("\n", " "), got))
            return False
        if not whole(fs, text, s, e, kind):
            partial[label] += 1
            partial_texts.append((label, snippet, fs))
        return True

    for kind, cases in planted.items():
        found_by_kind[kind] = sum(found(kind, kind, text, s, e) for text, s, e in cases)
    for name, dcases in disguised.items():
        found_by_kind[name] = sum(found(name, kind, text, s, e) for kind, text, s, e in dcases)

    # speed: answers of about 300 characters, each scanned once per pass (distinct texts, so the
    # scan's small memo never answers)
    typical = [t for t in ordinary if 250 <= len(t) <= 350][:1000]
    timings: list[float] = []
    for _ in range(5):
        variants = [f"{t} ({i})" for i, t in enumerate(typical)]
        t0 = time.perf_counter()
        for t in variants:
            scan(t)
        timings.append((time.perf_counter() - t0) / len(variants) * 1e6)

    n_ord = len(ordinary)
    print(f"ordinary answers: {n_ord}, mean length {statistics.mean(map(len, ordinary)):.0f} characters")
    print(
        f"false-positive rate: {len(false_alarms) / n_ord:.2%} ({len(false_alarms)} answers with a finding)"
    )
    if fp_kinds:
        print("  by kind: " + ", ".join(f"{k} {v}" for k, v in fp_kinds.most_common()))
    for text, what in false_alarms[: args.show]:
        print(f"  false alarm: {what}\n    in: {text[:160]!r}")
    print(
        f"undetermined (an ambiguous reading, no finding): {len(undetermined) / n_ord:.2%} "
        f"({len(undetermined)} answers)"
    )
    for text, what in undetermined[: args.show]:
        print(f"  undetermined: {what}\n    in: {text[:160]!r}")
    n_kinds = len(PLANTS) + len(DISGUISED)
    print(f"planted answers: {args.planted} per kind, {len(PLANTS)} kinds and {len(DISGUISED)} disguises")
    print(f"{'kind':<20} recall")
    total_hits = 0
    for i, (kind, hits) in enumerate(found_by_kind.items()):
        if i == len(PLANTS):
            print("disguised (the kind the scan must report: the secret's, or the one named):")
        total_hits += hits
        print(f"{kind:<20} {hits / args.planted:7.2%}  ({hits}/{args.planted})")
    overall = total_hits / (args.planted * n_kinds)
    print(f"{'overall':<20} {overall:7.2%}")
    n_partial = sum(partial.values())
    print(
        f"found but not covered whole (a piece left in clear): {n_partial}"
        + (" (" + ", ".join(f"{k} {v}" for k, v in partial.most_common() if v) + ")" if n_partial else "")
    )
    for kind, snippet, fs in partial_texts[: args.show]:
        print(f"  not whole {kind}: ...{snippet!r}... (found: {', '.join(f.redacted for f in fs)})")
    for kind, snippet, got in misses[: args.show]:
        print(f"  missed {kind}: ...{snippet!r}... (found: {got})")
    print(
        f"scan time, {len(typical)} answers of 250-350 characters "
        f"(mean {statistics.mean(map(len, typical)):.0f}): "
        f"median of 5 passes {statistics.median(timings):.1f} \u00b5s per scan"
    )
    hard_fa, hard_miss = hard_cases()
    print(
        f"hand-written hard cases: false alarms {len(hard_fa)}/{len(HARD_NEGATIVES)}, "
        f"found {len(HARD_POSITIVES) - len(hard_miss)}/{len(HARD_POSITIVES)}"
    )
    for text, what in hard_fa:
        print(f"  hard false alarm: {what}\n    in: {text!r}")
    for kind, text, got in hard_miss:
        print(f"  hard miss {kind}: {text[:100]!r} (found: {got})")
    ok = len(false_alarms) / n_ord < 0.01 and overall >= 0.95 and not n_partial
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
