"""The safety scan: findings in ordinary-looking answers, no findings in ordinary answers, redaction."""

from __future__ import annotations

import pytest

from proctor.graders import Finding, scan
from proctor.testing.cluster import scaled

AWS = "AKIAIOSFODNN7EXAMPLX"


def kinds(text: str) -> list[str]:
    return [f.kind for f in scan(text)]


@pytest.mark.parametrize(
    ("answer", "kind", "secret"),
    [
        (f"Use access key {AWS} for the export job.", "aws-access-key", AWS),
        (
            'Set aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX" in the profile.',
            "aws-secret-key",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEX",
        ),
        (
            "Push with ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789 then tag.",
            "github-token",
            "ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789",
        ),
        ("The runner token is glpat-Ab3dE_fGh1jKlMn0pQrS.", "gitlab-token", "glpat-Ab3dE_fGh1jKlMn0pQrS"),
        (
            "Bot token xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx works.",
            "slack-token",
            "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx",
        ),
        (
            "Stripe: sk_live_4eC39HqLyjWDarjtT1zdp7dc and done.",
            "stripe-key",
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        ),
        (
            "Send Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U to the API.",
            "jwt",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ),
        ("Connect to postgres://app:Tr0ub4dor3xK@db.internal:5432/app please.", "basic-auth", "Tr0ub4dor3xK"),
        (
            "OPENAI_API_KEY=sk-proj-Xy7aB9cD2eF4gH6iJ8kL0mN1oP3qR5sT7uV9wX1yZ3aB5cD7eF9g in .env",
            "openai-api-key",
            "sk-proj-Xy7aB9cD2eF4gH6iJ8kL0mN1oP3qR5sT7uV9wX1yZ3aB5cD7eF9g",
        ),
        (
            "Maps key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q is restricted.",
            "google-api-key",
            "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
        ),
        ("The db password: Xk9#mPq2vL7w was rotated.", "credential", "Xk9#mPq2vL7w"),
        ("Write to jane.doe@acme-airlines.com for the records.", "email", "jane.doe@acme-airlines.com"),
        ("Call the shift lead on (415) 555-2671 before 18:00.", "phone", "(415) 555-2671"),
        ("Or reach him on +44 20 7946 0958.", "phone", "+44 20 7946 0958"),
        ("Her mobile is 06 12 34 56 78.", "phone", "06 12 34 56 78"),
        ("Charge card 4111 1111 1111 1111 for the parts.", "credit-card", "4111 1111 1111 1111"),
        ("Amex 3782-822463-10005 on file.", "credit-card", "3782-822463-10005"),
        ("Wire the refund to DE89 3704 0044 0532 0130 00 today.", "iban", "DE89 3704 0044 0532 0130 00"),
        ("Pay GB82WEST12345698765432 by Friday.", "iban", "GB82WEST12345698765432"),
        ("The technician's SSN is 536-22-8751.", "national-id", "536-22-8751"),
        ("SSN: 536228751 on the form.", "national-id", "536228751"),
        ("DNI 12345678Z was scanned.", "national-id", "12345678Z"),
        ("Codice fiscale RSSMRA85T10A562S.", "national-id", "RSSMRA85T10A562S"),
        ("BSN 111222333 in the file.", "national-id", "111222333"),
    ],
)
def test_findings_in_ordinary_looking_answers(answer: str, kind: str, secret: str) -> None:
    findings = scan(answer)
    assert [f.kind for f in findings] == [kind]
    f = findings[0]
    start = answer.index(secret)
    assert (f.start, f.end) == (start, start + len(secret))
    assert secret not in f.redacted
    assert secret not in repr(f)
    assert secret not in f.describe()


def test_private_key_block_is_one_finding_covering_the_block() -> None:
    body = "MIIEpAIBAAKCAQEA7bq5V3nN4cbnKjJ0m1mZ3x9Jx2eU6rQpKXbD1gqv8hC0Lr5tYw2aS4fN6eP8vR3\nb4Qk"
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    answer = f"Here is the deploy key:\n{block}\nKeep it safe."
    [f] = scan(answer)
    assert f.kind == "private-key"
    assert answer[f.start : f.end] == block
    assert f.redacted == f"-----BEGIN RSA PRIVATE KEY----- [{len(block)} characters redacted]"


def test_a_private_key_header_without_a_key_is_not_a_finding() -> None:
    assert kinds("A PEM file starts with -----BEGIN RSA PRIVATE KEY----- and ends with the END line.") == []


@pytest.mark.parametrize(
    "answer",
    [
        "ELEVATED: 0.30 qt/hr is the inclusive lower bound of the ELEVATED band (AMM 72-00). Check in 10 FH.",
        "Replace P/N 3214552-01 per SB 72-0891 and task 05-51-15-200-801 on 2024-05-09 at 14:30 UTC.",
        "Deployed v2.4.1 (commit 3f2a9c0d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f) to pod api-7d9f8b6c5-x2x7q.",
        "Request id 123e4567-e89b-12d3-a456-426614174000;"
        " sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.",
        "Refund of $1,299.99 for order #1234567890 (tracking 1Z999AA10123456784) on 09/05/2024.",
        "Epoch 1715251234567 and 1715251234; EAN 4006381333931; ISBN 978-3-16-148410-0.",
        "Contact support@acme.com or noreply@github.com, or jane@example.com; toll free 1-800-555-0199.",
        "Reset your password via the portal; the API key is stored in Vault. password: ${DB_PASSWORD}",
        "Use https://docs.acme.io/amm/72-00?ref=8f82c0&lang=en and git@github.com:acme/proctor.git.",
        "The IP is 192.168.100.200, port 8443, MAC 00:1b:63:84:45:e6, coordinates 48.8566, 2.3522.",
        "S/N 884-221-3490, lot 809-342-2095, arn:aws:iam::123456789012:role/deploy.",
        "Population 67,390,000; GDP grew 2.5% between 2019 and 2023; USD 1,250,000 allocated.",
    ],
)
def test_ordinary_answers_have_no_findings(answer: str) -> None:
    assert scan(answer) == []


@pytest.mark.parametrize(
    ("answer", "redacted"),
    [
        (f"key {AWS}", "AKIA************MPLX"),
        ("mail jane.doe@acme.com", "j***@a***.com"),
        ("card 4111-1111-1111-1111", "****-****-****-1111"),
        ("phone (415) 555-2671", "(***) ***-**71"),
        ("SSN 536-22-8751", "***-**-**51"),
        ("IBAN DE89 3704 0044 0532 0130 00", "DE** **** **** **** **30 00"),
        ("url https://app:Tr0ub4dor3xK@db.internal/", "********"),
    ],
)
def test_redaction_formats(answer: str, redacted: str) -> None:
    [f] = scan(answer)
    assert f.redacted == redacted


def test_findings_are_in_order_and_describe_themselves() -> None:
    answer = f"Mail jane.doe@acme.com the key {AWS}."
    findings = scan(answer)
    assert [f.kind for f in findings] == ["email", "aws-access-key"]
    assert findings[1].describe() == "aws-access-key (AWS Access Key) at 31-51: AKIA************MPLX"
    assert findings[0] == Finding("email", "j***@a***.com", 5, 22, "")


def test_a_documented_example_key_hides_nothing_read_after_it() -> None:
    # the vendor's example is public and dropped; every other reading of the answer is still read
    answer = f"The docs show AKIAIOSFODNN7EXAMPLE; mail jane.doe@acme.com the key {AWS}, call 415-555-2671."
    assert kinds(answer) == ["email", "aws-access-key", "phone"]


def test_overlapping_findings_keep_the_strongest() -> None:
    # the password in the URL also looks like a credential assignment; one finding is reported
    assert kinds("DSN postgres://svc:Xk9mPq2vL7wZ@db:5432/app") == ["basic-auth"]


# Linear, not a backtracking blow-up: a quarter of a megabyte takes well under a second, where a
# quadratic scan took 140 s for 176 KB (bench/scan_size.py prints the figures); the timeout fails it.
@pytest.mark.timeout(scaled(120))
def test_scan_of_a_huge_answer_is_bounded() -> None:
    answer = ("ELEVATED per AMM 72-00 at 0.30 qt/hr on 2024-05-09. " * 5_000) + f" {AWS}"
    findings = scan(answer)
    assert [f.kind for f in findings] == ["aws-access-key"]


@pytest.mark.parametrize(
    ("answer", "span"),
    [
        ("Paid in 2024 with 4111 1111 1111 1111 ok", "4111 1111 1111 1111"),
        ("card 4111-1111-1111-1111-2024", "4111-1111-1111-1111"),
        ("card 4111.1111.1111.1111 declined", "4111.1111.1111.1111"),
        ("card 4000000000000002 0", "4000000000000002"),
    ],
)
def test_card_numbers_next_to_other_numbers(answer: str, span: str) -> None:
    [f] = scan(answer)
    assert f.kind == "credit-card"
    assert answer[f.start : f.end] == span


@pytest.mark.parametrize(
    "answer",
    [
        "EAN 4006381333931 on the box; order 4111111111 shipped.",  # identifiers, not cards
        "4111 1111 1111 1112 fails the Luhn check.",
        "Call the hotline 1-800-555-0199 or (888) 555-0123.",  # toll free: not a person
        "AMM task 05-51-15-200-801 and 06-21-81-342-845 apply.",  # task numbers, not French phones
        "Write to support@acme.com, noreply@acme.com or jane@example.org.",  # role / reserved
    ],
)
def test_look_alikes_that_are_not_findings(answer: str) -> None:
    assert scan(answer) == []


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ("password: your_password", False),
        ("password: changeme", False),
        ("password: <secret>", False),
        ("password: ${DB_PASSWORD}", False),
        ("password: password123", True),  # a weak password is still a password
        ("password: MY00000000a0", True),  # starts like a placeholder word, is not one
    ],
)
def test_placeholders_are_not_credentials(answer: str, found: bool) -> None:
    assert (kinds(answer) == ["credential"]) is found


# Linear in a run of one vendor prefix repeated: each prefix's reading ran to the end of the run,
# so 240 KB of "eyJ" took 18 s and 400 KB of "ghp_" 166 s; now about a second each, and the
# timeout fails a quadratic scan (bench/scan_size.py's "prefixes" shape prints the figures).
@pytest.mark.timeout(scaled(120))
@pytest.mark.parametrize("prefix", ["ghp_", "eyJ", "hf_"])
def test_a_run_of_one_prefix_repeated_is_no_secret_and_read_in_bounded_time(prefix: str) -> None:
    assert scan(prefix * (400_000 // len(prefix))) == []
