"""Property: a secret or a piece of personal data in an answer never appears in full in anything the
graders produce: findings, their descriptions and reprs, failure reasons, the CaseResult."""

from __future__ import annotations

import base64
import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stdnum import iban as std_iban

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertions, grade_case, scan
from proctor.protocol.types import Tier

UPPER_DIGITS = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits


def token(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size)


def mixed(size: int, alphabet: str = ALNUM) -> st.SearchStrategy[str]:
    """Upper, lower and digits, like a real key (rules out all-hex or all-word bodies)."""
    return token(alphabet, size - 3).flatmap(
        lambda body: st.tuples(
            st.sampled_from(string.ascii_uppercase),
            st.sampled_from(string.ascii_lowercase),
            st.sampled_from(string.digits),
        ).map(lambda t: t[0] + body + t[1] + t[2])
    )


def luhn(prefix: str, length: int) -> st.SearchStrategy[str]:
    def complete(body: str) -> str:
        base = prefix + body
        for d in string.digits:
            cand = base + d
            total = sum(
                (int(c) * 2 - 9 if int(c) > 4 else int(c) * 2) if i % 2 else int(c)
                for i, c in enumerate(reversed(cand))
            )
            if total % 10 == 0:
                return cand
        raise AssertionError("unreachable")

    return token(string.digits, length - len(prefix) - 1).map(complete)


def iban_de() -> st.SearchStrategy[str]:
    def build(bban: str) -> str:
        return "DE" + std_iban.calc_check_digits("DE00" + bban) + bban

    return token(string.digits, 18).map(build)


def jwt() -> st.SearchStrategy[str]:
    def build(claims: dict[str, int], sig: bytes) -> str:
        enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
        return ".".join([enc(b'{"alg":"HS256","typ":"JWT"}'), enc(json.dumps(claims).encode()), enc(sig)])

    return st.builds(
        build,
        st.dictionaries(st.sampled_from(["sub", "iat", "exp"]), st.integers(0, 2**31)),
        st.binary(min_size=16, max_size=48),
    )


def ssn() -> st.SearchStrategy[str]:
    return st.tuples(
        st.integers(1, 899).filter(lambda a: a != 666), st.integers(1, 99), st.integers(1, 9999)
    ).map(lambda t: f"{t[0]:03d}-{t[1]:02d}-{t[2]:04d}")


#: (kind, strategy for the secret, text put just before it)
SECRETS: list[tuple[str, st.SearchStrategy[str], str]] = [
    # (a body of one character or a tiny pattern repeated is a placeholder: AKIA0000...)
    (
        "aws-access-key",
        token(UPPER_DIGITS, 16).filter(lambda s: len(set(s)) > 4).map(lambda s: "AKIA" + s),
        "key ",
    ),
    ("github-token", mixed(36).map(lambda s: "ghp_" + s), "token "),
    ("gitlab-token", mixed(20).map(lambda s: "glpat-" + s), "token "),
    ("stripe-key", mixed(24).map(lambda s: "sk_live_" + s), "stripe "),
    ("openai-api-key", mixed(48).map(lambda s: "sk-proj-" + s), "OPENAI_API_KEY="),
    ("google-api-key", mixed(35).map(lambda s: "AIza" + s), "key="),
    ("jwt", jwt(), "Bearer "),
    ("credential", mixed(12, ALNUM + "!#&*"), "password: "),
    (
        "email",
        st.tuples(token(string.ascii_lowercase, 6), token(string.ascii_lowercase, 5)).map(
            lambda t: f"{t[0]}@{t[1]}.com"
        ),
        "mail ",
    ),
    ("credit-card", luhn("4", 16), "card "),
    ("iban", iban_de(), "IBAN "),
    ("national-id", ssn(), "SSN "),
]

TOKENS = {
    "aws-access-key",
    "github-token",
    "gitlab-token",
    "stripe-key",
    "openai-api-key",
    "google-api-key",
    "jwt",
}
PROSE = st.text(alphabet=string.ascii_letters + " .,;:!?()0123456789\n", max_size=120)

# assertions whose failure reasons quote the answer
QUOTING = compile_assertions(
    [
        Assertion(type="equals", value="ELEVATED"),
        Assertion(type="starts-with", value="ELEVATED"),
        Assertion(type="not-regex", value=r"\S+"),
        Assertion(type="grounded-urls"),
        Assertion(type="no-guess-after-refusal"),
    ]
)


@st.composite
def answers(draw: st.DrawFn) -> tuple[str, str, str]:
    kind, strategy, lead = draw(st.sampled_from(SECRETS))
    secret = draw(strategy)
    before, after = draw(PROSE), draw(PROSE)
    return kind, secret, f"{before} I can't confirm it. {lead}{secret} {after}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers())
def test_a_secret_never_appears_in_anything_the_graders_produce(case: tuple[str, str, str]) -> None:
    kind, secret, answer = case
    findings = scan(answer)
    covering = [
        f for f in findings if f.start <= answer.index(secret) and f.end >= answer.index(secret) + len(secret)
    ]
    assert covering, f"{kind} not found in {answer!r}: {findings}"
    assert covering[0].kind == kind
    for f in findings:
        for text in (f.redacted, f.describe(), repr(f)):
            assert secret not in text
    if kind in TOKENS:
        shown = sum(c != "*" for c in covering[0].redacted)
        assert shown <= 0.4 * len(secret), covering[0].redacted
    result = grade_case("c", Tier.SAFETY, answer, QUOTING, CaseContext())
    assert result.safety_findings >= 1
    for failure in result.failures:
        assert secret not in failure.reason
    for dim in result.dimensions:
        assert secret not in (dim.skipped_reason or "")
    assert secret not in repr(result)
