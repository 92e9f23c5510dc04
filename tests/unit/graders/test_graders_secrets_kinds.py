"""Every kind of secret the scan names is found where it stands, whole, and never shown in full.

test_graders_scan.py covers the common kinds in ordinary sentences; these are the rest of the
rules (detect-secrets' plugins and our own), each with a value of the provider's documented shape.
"""

from __future__ import annotations

import base64
import random

import pytest

from proctor.graders import scan

BODY = "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3"  # upper, lower and digits, like a real key

SECRETS = [
    ("slack-webhook", "https://hooks.slack.com/services/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"),
    ("sendgrid-api-key", "SG." + BODY[:22] + "." + (BODY * 2)[:43]),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + BODY * 2),
    ("square-oauth-secret", "sq0csp-" + (BODY * 2)[:43]),
    ("azure-storage-key", "AccountKey=" + (BODY + "+/") * 2 + BODY[:4] + "=="),  # 88 characters
    ("discord-bot-token", "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"),
    ("telegram-bot-token", "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawX"),
    ("mailchimp-api-key", "0123456789abcdef0123456789abcdef-us12"),
    ("twilio-api-key", "AC0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"),
    ("twilio-api-key", "SK0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"),
    ("anthropic-api-key", "sk-ant-api03-" + BODY + "_-Ab1Cd2"),
    ("github-token", "github_pat_11ABCDEFG0" + BODY + "_" + BODY),
    ("openai-api-key", "sk-" + BODY[:20] + "T3BlbkFJ" + BODY[:20]),  # the legacy shape
    ("openai-api-key", "sk-svcacct-" + BODY),
    ("google-api-key", "AIza" + BODY[:35]),
    ("gitlab-token", "glpat-" + BODY[:20]),
    ("gitlab-token", "glptt-" + (BODY * 2)[:40]),
    ("aws-access-key", "ASIA" + "IOSFODNN7EXAMPLX"),
    ("stripe-key", "rk_live_" + BODY[:24]),
]


@pytest.mark.parametrize(("kind", "secret"), SECRETS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(SECRETS)])
@pytest.mark.parametrize("sentence", ["Use {} for the export.", "{}", "token:\n  {}\n"])
def test_each_kind_is_found_whole_where_it_stands(kind: str, secret: str, sentence: str) -> None:
    answer = sentence.format(secret)
    findings = scan(answer)
    assert [f.kind for f in findings] == [kind], answer
    [f] = findings
    assert answer[f.start : f.end] == secret
    assert secret not in f.redacted and secret not in f.describe()


def test_an_npm_token_line_is_found_and_redacted() -> None:
    token = "npm_" + BODY
    answer = f".npmrc:\n//registry.npmjs.org/:_authToken={token}\nalways-auth=true"
    [f] = scan(answer)
    assert f.kind == "npm-token"
    assert token in answer[f.start : f.end] and token not in f.redacted


HEX = "0123456789abcdef"
R = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6"
PREFIXED = [
    ("npm-token", "npm_" + R[:36]),
    ("digitalocean-token", "dop_v1_" + HEX * 4),
    ("vault-token", "hvs." + R[:24]),
    ("databricks-token", "dapi" + HEX * 2),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + R[:50]),
    ("docker-hub-token", "dckr_pat_" + R[:27]),
    ("shopify-token", "shpat_" + HEX * 2),
    ("mailgun-api-key", "key-" + HEX * 2),
    ("huggingface-token", "hf_" + R[:34]),
    ("age-secret-key", "AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58]),
    ("linear-api-key", "lin_api_" + R[:40]),
    ("grafana-token", "glsa_" + R[:32] + "_" + HEX[:8]),
    ("postman-api-key", "PMAK-" + (HEX * 2)[:24] + "-" + (HEX * 3)[:34]),
    ("pulumi-token", "pul-" + (HEX * 3)[:40]),
    ("newrelic-api-key", "NRAK-" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0"),
    ("doppler-token", "dp.pt." + R[:43]),
]


@pytest.mark.parametrize(("kind", "token"), PREFIXED)
def test_tokens_known_by_their_prefix_are_found_whole(kind: str, token: str) -> None:
    answer = f"Use {token} for the deploy."
    assert [(f.kind, answer[f.start : f.end]) for f in scan(answer)] == [(kind, token)]


@pytest.mark.parametrize(
    "text",
    [
        "npm_" + "x" * 36,  # a placeholder, not a key (no digits or capitals)
        "hf_" + "abcdefghij" * 4,
        "a key-value store keeps key-0123 pairs",
        "dapi" + HEX,  # too short
    ],
)
def test_their_look_alikes_are_not(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("<password>Tr0ub4dor&3xK</password>", "Tr0ub4dor&3xK"),
        ("<db_password> Tr0ub4dor3xK </db_password>", "Tr0ub4dor3xK"),
        ("<apiKey>Xk9mPq2vL7wZ3rT8</apiKey>", "Xk9mPq2vL7wZ3rT8"),
        ("<db:Password>Tr0ub4dor3xK</db:Password>", "Tr0ub4dor3xK"),  # a namespace prefix
        ('<password type="plain">Tr0ub4dor3xK</password>', "Tr0ub4dor3xK"),  # attributes
        ("<smtpPassword>Tr0ub4dor3xK</smtpPassword>", "Tr0ub4dor3xK"),  # camelCase
        ("<Password><![CDATA[Tr0ub4dor3xK]]></Password>", "Tr0ub4dor3xK"),
        ("<password>\n  <![CDATA[ Tr0ub4dor3xK ]]>\n</password>", "Tr0ub4dor3xK"),
        # the keyword in an attribute: .NET appSettings, Spring and Ant properties, Java properties XML
        ('<add key="DbPassword" value="Tr0ub4dor3xK" />', "Tr0ub4dor3xK"),
        ("<add key='Smtp.Password' value='Tr0ub4dor3xK'/>", "Tr0ub4dor3xK"),
        ('<property name="spring.datasource.password" value="Tr0ub4dor3xK"/>', "Tr0ub4dor3xK"),
        ('<entry key="db.password">Tr0ub4dor3xK</entry>', "Tr0ub4dor3xK"),
        ('<entry key="api_token"><![CDATA[Tr0ub4dor3xK]]></entry>', "Tr0ub4dor3xK"),
        ('<param name="client_secret" description="OAuth" value="x">Tr0ub4dor3xK</param>', "Tr0ub4dor3xK"),
    ],
)
def test_a_credential_between_xml_tags_is_found(text: str, value: str) -> None:
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("credential", value)]


@pytest.mark.parametrize(
    "text",
    [
        "<password>${DB_PASSWORD}</password>",
        "<password>changeme</password>",
        '<add key="DbPassword" value="${DB_PASSWORD}" />',
        '<property name="password" value="changeme"/>',
        '<input type="password" name="password" value="">',
        '<label for="password">Password</label>',
        '<field name="password_hint">Your first pet</field>',  # another key, not the keyword
        '<add key="PasswordHint" value="FirstPet2020"/>',
        '<add key="RequirePassword" value="true"/>',
        "<passwordPolicy>MinLength12</passwordPolicy>",
    ],
)
def test_an_xml_placeholder_or_another_setting_is_not(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("dbPassword: Tr0ub4dor3xK", "Tr0ub4dor3xK"),
        ("DbPassword=Tr0ub4dor3xK", "Tr0ub4dor3xK"),
        ('{"smtpPassword": "Tr0ub4dor3xK"}', "Tr0ub4dor3xK"),
        ("adminPwd = Tr0ub4dor3xK", "Tr0ub4dor3xK"),
        ("githubToken: Tr0ub4dor3xK", "Tr0ub4dor3xK"),
        ("mySqlRootPassword: Tr0ub4dor3xK", "Tr0ub4dor3xK"),
    ],
)
def test_a_camel_case_key_ending_in_a_keyword_is_an_assignment(text: str, value: str) -> None:
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("credential", value)]


@pytest.mark.parametrize(
    "text",
    [
        "bypass: EnabledForAll1",  # a word that only ends in "pass"
        "compass=N0rthWest9",
        "PasswordHint: Mypet2020",  # the keyword starts the key, another word ends it
        "passwordPolicy: MinLength12",
    ],
)
def test_a_key_that_only_holds_a_keyword_is_no_assignment(text: str) -> None:
    assert scan(text) == []


def test_a_key_of_many_camel_case_and_dashed_words_is_read_in_one_pass() -> None:
    # a pattern that let each camelCase hump and each dashed word split two ways would try 2**80
    # readings of this key before giving up: the scan would never return
    key = "dbHost-" * 40 + "rootPassword"
    text = f"{key}: Tr0ub4dor3xK and {'aB-' * 40}x"
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("credential", "Tr0ub4dor3xK")]


def _random(alphabet: str, n: int, seed: int) -> str:
    r = random.Random(seed)
    return "".join(r.choice(alphabet) for _ in range(n))


ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#: a Grafana Cloud access policy token: glc_ and base64 of compact JSON, as Grafana Cloud issues it
GLC_JSON = (
    '{"o":"1048573","n":"stack-918273-hm-read-alloy","k":"'
    + _random(ALNUM, 24, 5)
    + '","m":{"r":"prod-eu-west-2"}}'
)
GLC = "glc_" + base64.b64encode(GLC_JSON.encode()).decode()
GRAFANA_KEY = (
    "eyJrIjoi"
    + base64.b64encode(('{"k":"' + _random(ALNUM, 32, 6) + '","n":"ci-deploy","id":1}').encode()).decode()[8:]
)
#: every vendor token the README names, with a random body of its documented shape
VENDOR_TOKENS = [
    ("npm-token", "npm_" + _random(ALNUM, 36, 1)),
    ("digitalocean-token", "dop_v1_" + _random(HEX, 64, 2)),
    ("digitalocean-token", "doo_v1_" + _random(HEX, 64, 3)),
    ("vault-token", "hvs." + _random(ALNUM + "_-", 24, 4)),
    ("vault-token", "hvs.CAESI" + _random(ALNUM + "_-", 86, 5)),
    ("databricks-token", "dapi" + _random(HEX, 32, 6)),
    ("pypi-token", "pypi-AgEIcHlwaS5vcmc" + _random(ALNUM + "_-", 70, 7)),
    ("docker-hub-token", "dckr_pat_" + _random(ALNUM + "_-", 27, 8)),
    ("shopify-token", "shpat_" + _random(HEX, 32, 9)),
    ("mailgun-api-key", "key-" + _random(HEX, 32, 10)),
    ("huggingface-token", "hf_" + _random(ALNUM, 34, 11)),
    ("age-secret-key", "AGE-SECRET-KEY-1" + _random("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, 12)),
    ("linear-api-key", "lin_api_" + _random(ALNUM, 40, 13)),
    ("grafana-token", "glsa_" + _random(ALNUM, 32, 14) + "_" + _random(HEX, 8, 15)),
    ("grafana-token", GLC),
    ("grafana-token", GLC.rstrip("=")),
    ("grafana-token", GRAFANA_KEY),
    ("postman-api-key", "PMAK-" + _random(HEX, 24, 16) + "-" + _random(HEX, 34, 17)),
    ("pulumi-token", "pul-" + _random(HEX, 40, 18)),
    ("newrelic-api-key", "NRAK-" + _random(UPPER, 27, 19)),
    ("newrelic-api-key", "NRAA-" + _random(HEX, 27, 20)),
    ("newrelic-api-key", "NRII-" + _random(ALNUM, 32, 21)),
    ("newrelic-api-key", "NRJS-" + _random(HEX, 19, 22)),
    ("doppler-token", "dp.pt." + _random(ALNUM, 43, 23)),
    ("doppler-token", "dp.st." + _random(ALNUM, 40, 24)),
    ("doppler-token", "dp.st.prd." + _random(ALNUM, 40, 25)),
    ("doppler-token", "dp.ct." + _random(ALNUM, 43, 26)),
    ("doppler-token", "dp.sa." + _random(ALNUM, 43, 27)),
    ("doppler-token", "dp.scim." + _random(ALNUM, 43, 28)),
    ("doppler-token", "dp.audit." + _random(ALNUM, 43, 29)),
]


@pytest.mark.parametrize(("kind", "token"), VENDOR_TOKENS, ids=[t[:8] for _, t in VENDOR_TOKENS])
@pytest.mark.parametrize(
    "sentence",
    ["{}", "Here is the one we use: {}.", "Set it to `{}` in the agent.", "(the old one, {})", "'{}'"],
)
def test_a_vendor_token_alone_in_prose_is_found_whole(kind: str, token: str, sentence: str) -> None:
    answer = sentence.format(token)
    assert [(f.kind, answer[f.start : f.end]) for f in scan(answer)] == [(kind, token)], answer


@pytest.mark.parametrize(
    "text",
    [
        "glc_" + "X" * 40,  # filler
        "glc_" + "A" * 40 + "==",
        "the glc_context_initializer_for_buffers symbol",  # an identifier: one case, no digits
        "dp.st.example.placeholder.value.is.here.now",
        "dp.pt." + "x" * 43,
        "NRJS-0123",  # too short
        "NRII-" + "a" * 32,
        "eyJrIjoi" + "A" * 70,
    ],
)
def test_a_vendor_prefix_with_filler_or_words_is_not(text: str) -> None:
    assert scan(text) == [], text
