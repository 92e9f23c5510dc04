"""The shapes common tools and key files give a credential, each beside its harmless twin.

A netrc entry, a password on a database or HTTP client's command line, an Authorization header,
private key formats beyond PEM (OpenSSH, PuTTY, PKCS#8 encrypted, JSON Web Keys with private
members), signed URL signatures and keys inside a Kubernetes Secret's base64 ``data`` are found
and redacted; the same shape holding a placeholder, a ``$VARIABLE``, a prompt, the public half, a
certificate, a hash or a vendor's documented example key is not a finding."""

from __future__ import annotations

import base64
import json
import random

import pytest

from proctor.graders import scan
from proctor.graders._scan import mask_findings

PASSWORD = "Xk9#mQ2vL7pz"
URL_PASSWORD = "Xk9mQ2vL7pz"  # (a "#" would end a URL)
TOKEN = "Xk9mQ2vL7pzR4tY8uI0oPq"
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
B64URL = B64[:-2] + "-_"
BEGIN = "-----BEGIN "  # assembled at run time, so the source holds nothing shaped like a real key


def rand(alphabet: str, n: int, seed: int = 7) -> str:
    r = random.Random(seed)
    return "".join(r.choice(alphabet) for _ in range(n))


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def ppk(version: int = 3) -> str:
    public = "AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(B64, 43)
    return (
        f"PuTTY-User-Key-File-{version}: ssh-ed25519\nEncryption: none\nComment: deploy@ci\n"
        f"Public-Lines: 2\n{public[:64]}\n{public[64:]}\n"
        f"Private-Lines: 1\nAAAAI{rand(B64, 39, 8)}=\nPrivate-MAC: {'ab12' * 16}\n"
    )


RSA_PUBLIC = {"kty": "RSA", "n": rand(B64URL, 342), "e": "AQAB", "kid": "2024-05-09"}
RSA_PRIVATE = {**RSA_PUBLIC, "d": rand(B64URL, 342, 1), "p": rand(B64URL, 171, 2), "q": rand(B64URL, 171, 3)}
EC_PUBLIC = {"kty": "EC", "crv": "P-256", "x": rand(B64URL, 43, 4), "y": rand(B64URL, 43, 5)}
EC_PRIVATE = {**EC_PUBLIC, "d": rand(B64URL, 43, 6)}
OCT = {"kty": "oct", "alg": "HS256", "k": rand(B64URL, 43, 9)}
SIG_HEX = rand("0123456789abcdef", 64, 10)


def secret_yaml(**data: str) -> str:
    body = "\n".join(f"  {k}: {v}" for k, v in data.items())
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\ndata:\n{body}\n"


# (what, the answer, the kind the scan reports, the text that must not be echoed)
FOUND: list[tuple[str, str, str, str]] = [
    ("netrc", f"machine api.acme.io login deploy password {PASSWORD}", "credential", PASSWORD),
    ("netrc lines", f"machine github.com\n  login octocat\n  password {PASSWORD}\n", "credential", PASSWORD),
    ("netrc default", f"default login anonymous password {PASSWORD}", "credential", PASSWORD),
    ("mysql -pSECRET", f"mysql -u root -p{PASSWORD[1:]} -h db.internal", "credential", PASSWORD[1:]),
    ("mysql -p'SECRET'", f"mysql -u root -p'{PASSWORD}' shop", "credential", PASSWORD),
    ("mysqldump", f"mysqldump -uroot -p{PASSWORD[1:]} shop > shop.sql", "credential", PASSWORD[1:]),
    ("mysql --password=", f"mysql --password={PASSWORD} -u root", "credential", PASSWORD),
    ("psql URI", f"psql postgresql://app:{URL_PASSWORD}@db:5432/app", "basic-auth", URL_PASSWORD),
    ("psql conninfo", f"psql 'host=db user=app password={PASSWORD}'", "credential", PASSWORD),
    ("curl -u", f"curl -u deploy:{PASSWORD} https://api.acme.io/v1", "credential", PASSWORD),
    ("curl --user=", f"curl --user=deploy:{PASSWORD} https://api.acme.io", "credential", PASSWORD),
    ("curl quoted", f"curl -s -X POST --user 'ci:{PASSWORD}' https://ci.acme.io", "credential", PASSWORD),
    ("httpie -a", f"http -a admin:{PASSWORD} GET https://api.acme.io", "credential", PASSWORD),
    ("bearer header", f"curl -H 'Authorization: Bearer {TOKEN}' https://api", "credential", TOKEN),
    ("redis-cli -a", f"redis-cli -h cache -a {PASSWORD} ping", "credential", PASSWORD),
    ("sshpass -p", f"sshpass -p '{PASSWORD}' ssh root@host", "credential", PASSWORD),
    ("ldapsearch -w", f"ldapsearch -x -D cn=admin -w {PASSWORD} -b dc=acme", "credential", PASSWORD),
    ("mongosh -p", f"mongosh --host db -u admin -p {PASSWORD}", "credential", PASSWORD),
    ("smbclient -U", f"smbclient //fs/share -U backup%{PASSWORD}", "credential", PASSWORD),
    ("PuTTY v3", "Use this key:\n" + ppk(3), "private-key", "Private-MAC"),
    ("PuTTY v2", "Use this key:\n" + ppk(2), "private-key", "Private-MAC"),
    (
        "PKCS#8 encrypted",
        f"{BEGIN}ENCRYPTED PRIVATE KEY-----\n{rand(B64, 64)}\n{rand(B64, 64, 3)}\n"
        "-----END ENCRYPTED PRIVATE KEY-----",
        "private-key",
        rand(B64, 64),
    ),
    (
        "OpenSSH",
        f"{BEGIN}OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ{rand(B64, 30)}\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "private-key",
        rand(B64, 30),
    ),
    ("JWK RSA", json.dumps(RSA_PRIVATE), "private-key", RSA_PRIVATE["d"]),
    ("JWK EC", json.dumps(EC_PRIVATE, indent=2), "private-key", EC_PRIVATE["d"]),
    ("JWK oct", json.dumps(OCT), "private-key", OCT["k"]),
    ("JWK in a JSON string", json.dumps({"jwk": json.dumps(EC_PRIVATE)}), "private-key", EC_PRIVATE["d"]),
    (
        "AWS SigV4",
        "https://b.s3.amazonaws.com/f.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240509T120000Z"
        f"&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={SIG_HEX}",
        "signed-url",
        SIG_HEX,
    ),
    (
        "GCS V4",
        "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Expires=900"
        f"&X-Goog-Signature={SIG_HEX * 4}",
        "signed-url",
        SIG_HEX,
    ),
    (
        "Azure SAS",
        "https://acct.blob.core.windows.net/c/f.pdf?sv=2022-11-02&se=2024-05-10T00%3A00%3A00Z&sp=r"
        f"&sig={rand(B64[:-2], 43)}%3D",
        "signed-url",
        rand(B64[:-2], 43),
    ),
    (
        "CloudFront",
        f"https://d1.cloudfront.net/v.mp4?Expires=1715263200&Signature={rand(B64URL, 60)}~"
        "&Key-Pair-Id=K2JCJMDEHXQW5F",
        "signed-url",
        rand(B64URL, 60),
    ),
    (
        "Secret data: password",
        secret_yaml(username=b64("app"), password=b64(PASSWORD)),
        "credential",
        b64(PASSWORD),
    ),
    (
        "Secret data: a URL with a password",
        secret_yaml(DATABASE_URL=b64(f"postgres://app:{URL_PASSWORD}@db:5432/app")),
        "basic-auth",
        b64(f"postgres://app:{URL_PASSWORD}@db:5432/app"),
    ),
    (
        "Secret data: a JWK",
        secret_yaml(**{"jwk.json": b64(json.dumps(EC_PRIVATE))}),
        "private-key",
        EC_PRIVATE["d"],
    ),
    (
        "Secret data: a PEM key",
        secret_yaml(
            **{"tls.key": b64(f"{BEGIN}PRIVATE KEY-----\n{rand(B64, 64)}\n-----END PRIVATE KEY-----\n")}
        ),
        "private-key",
        rand(B64, 64),
    ),
]


@pytest.mark.parametrize(("what", "answer", "kind", "secret"), FOUND, ids=[f[0] for f in FOUND])
def test_each_shape_is_found_and_redacted(what: str, answer: str, kind: str, secret: str) -> None:
    findings = scan(answer)
    assert any(f.kind == kind for f in findings), (what, [(f.kind, f.detail) for f in findings])
    masked = mask_findings(answer, 0, len(answer))
    assert secret not in masked, masked
    for f in findings:
        assert secret not in f.redacted and secret not in f.describe()


TWINS: list[tuple[str, str]] = [
    ("netrc, a variable", "machine api.acme.io login deploy password $NETRC_PASSWORD"),
    ("netrc, a placeholder", "machine api.acme.io login deploy password <your-password>"),
    ("netrc, no password", "machine api.acme.io login deploy"),
    ("mysql -p alone prompts", "mysql -u root -p -h db.internal shop"),
    ("mysql -p then a database", "mysql -u root -p shop_production_2024"),
    ("mysql -p$VAR", "mysql -u root -p$MYSQL_PWD shop"),
    ("mysql -p${VAR}", 'mysql -u root -p"${MYSQL_PASSWORD}" shop'),
    ("mysql -P port", "mysql -h db -P3306 -u root -p"),
    ("mkdir -p is no password", "mkdir -pv build/output_2024 && ssh -p2222 host"),
    ("psql URI with a variable", "psql postgresql://app:${PGPASSWORD}@db:5432/app"),
    ("psql URI without a password", "psql postgresql://app@db:5432/app"),
    ("curl -u with a variable", "curl -u deploy:$API_TOKEN https://api.acme.io"),
    ("curl -u user alone prompts", "curl -u deploy https://api.acme.io"),
    ("curl -u placeholder", "curl -u user:password https://api.example.com"),
    ("curl -u placeholder words", "curl -u USER:YOUR_PASSWORD https://api.example.com"),
    ("bearer with a variable", 'curl -H "Authorization: Bearer $TOKEN" https://api'),
    ("bearer placeholder", "Authorization: Bearer <token>"),
    ("redis-cli -a variable", "redis-cli -a $REDIS_PASSWORD ping"),
    ("sshpass -f file", "sshpass -f ~/.ssh/pass.txt ssh root@host"),
    ("talk about flags", "Pass the password with -p (mysql) or -u user:pass (curl); never in scripts."),
    ("the public half: ssh key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(B64, 43) + " deploy@ci"),
    (
        "the public half: SSH2 block",
        "---- BEGIN SSH2 PUBLIC KEY ----\nComment: deploy\n"
        + rand(B64, 64)
        + "\n---- END SSH2 PUBLIC KEY ----",
    ),
    ("the public half: PEM", f"{BEGIN}PUBLIC KEY-----\n{rand(B64, 64)}\n-----END PUBLIC KEY-----"),
    (
        "a certificate",
        f"{BEGIN}CERTIFICATE-----\n{rand(B64, 64)}\n{rand(B64, 64, 2)}\n-----END CERTIFICATE-----",
    ),
    ("the public half: JWK RSA", json.dumps(RSA_PUBLIC)),
    ("the public half: JWK EC", json.dumps(EC_PUBLIC)),
    ("a JWKS", json.dumps({"keys": [RSA_PUBLIC, EC_PUBLIC]})),
    ("a JWK placeholder", '{"kty": "EC", "crv": "P-256", "d": "<private scalar>"}'),
    ("a hash", f"sha256: {SIG_HEX}; md5 {SIG_HEX[:32]}"),
    ("AWS documented example key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
    ("AWS documented example secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("AWS second documented pair", "AKIAI44QH8DHBEXAMPLE / je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"),
    ("AWS example, written in pieces", "the key AKIA IOSF ODNN 7EXA MPLE from the docs"),
    (
        # the Azure storage emulator's well-known key (public, in Microsoft's documentation), in the
        # connection string every tutorial shows (built in two pieces: no key-shaped literal here)
        "Azure emulator connection string",
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFl"
        + "qUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;"
        + "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
    ),
    (
        "signed URL, placeholder",
        "https://b.s3.amazonaws.com/f?X-Amz-Credential=x&X-Amz-Signature=<signature>",
    ),
    ("signed URL, variable", "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sig=${SAS_SIG}"),
    ("SAS talk", "A SAS URL ends in sig=... and must be kept secret."),
    ("Secret data: no credential", secret_yaml(username=b64("app"), host=b64("db.internal"))),
    ("Secret data: a placeholder", secret_yaml(password=b64("changeme"), token=b64("${API_TOKEN}"))),
    ("a ConfigMap", "kind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n  region: eu-west-1\n"),
]


@pytest.mark.parametrize(("what", "answer"), TWINS, ids=[t[0] for t in TWINS])
def test_each_harmless_twin_is_not_a_finding(what: str, answer: str) -> None:
    assert scan(answer) == [], [(f.kind, f.detail, answer[f.start : f.end]) for f in scan(answer)]


SIGV4 = "https://b.s3.amazonaws.com/f.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature="


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


@pytest.mark.parametrize(
    ("answer", "secret"),
    [(SIGV4 + SIG_HEX, SIG_HEX), (json.dumps(EC_PRIVATE), EC_PRIVATE["d"])],
    ids=["signed URL", "JWK"],
)
def test_a_signature_or_a_private_member_is_redacted_alone(answer: str, secret: str) -> None:
    # the parameter's or member's name stays readable: the reader sees what was withheld
    assert found(answer) == [("signed-url" if "Amz" in answer else "private-key", secret)]


def test_a_sas_signature_percent_encoded_early_is_found_whole() -> None:
    # "%2B" breaks the long token the signature would be: the rule reads the whole URL
    signature = "a1%2B" + rand(B64[:-2], 40) + "%3D"
    answer = f"https://acct.blob.core.windows.net/c/f.pdf?sv=2022-11-02&sp=r&sig={signature}"
    assert found(answer) == [("signed-url", signature)]


@pytest.mark.parametrize(
    ("signature", "is_one"),
    [
        ("0" * 64, False),  # one character repeated: a placeholder
        ("0123" * 16, False),  # four characters repeated
        (("01234" * 13)[:64], True),  # five: as random as a signature needs to be
    ],
)
def test_a_signature_needs_more_than_four_distinct_characters(signature: str, is_one: bool) -> None:
    assert found(SIGV4 + signature) == ([("signed-url", signature)] if is_one else [])


def test_a_signature_placeholder_of_words_is_no_signature() -> None:
    answer = (
        "https://d1.cloudfront.net/v.mp4?Expires=1715263200&Signature=YOUR_SIGNATURE_GOES_HERE&Key-Pair-Id=K2"
    )
    assert found(answer) == []


def test_a_documented_example_key_hides_no_real_key_beside_it() -> None:
    """The example is dropped before overlaps are resolved: a real key next to it is still found."""
    real = "AKIAZ7VRSQ5TJN2XK4PB"
    findings = scan(f"Not AKIAIOSFODNN7EXAMPLE but {real}.")
    assert [f.kind for f in findings] == ["aws-access-key"]
    assert findings[0].start == len("Not AKIAIOSFODNN7EXAMPLE but ")
