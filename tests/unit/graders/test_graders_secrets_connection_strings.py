"""A connection string assigned to a credential key is read member by member.

``connectionString: "DefaultEndpointsProtocol=http;AccountName=...;AccountKey=...;"`` once fired a
``credential`` on ``DefaultEndpointsProtocol=http``: a ``;`` ends an assignment's value, so the
value of the connection-string key was the string's first member, no secret. Now a value that is
a connection string (its first member's name no credential's, and another member after it, or a
key naming a connection string) reports only its secret members (``AccountKey=``,
``SharedAccessKey=``, ``Password=``, ``Pwd=``): the Azure storage emulator's documented key makes
no finding in any of these forms, and a real key in the same shape is reported on the key alone.
"""

from __future__ import annotations

import pytest

from proctor.graders import scan
from proctor.graders._secrets import _connection_string_secrets

# the Azure storage emulator's well-known key (public, in Microsoft's documentation), in two pieces
EMULATOR_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVE" + "rCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
REAL_KEY = "Xq78vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVE" + "rCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
STORAGE = (
    "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={};"
    "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"
)
PASSWORD = "Xk9mP2vL7wQz"
SB_KEY = "q8Nf3Lw7Zp2Xr5Tb9Vc1Yd4Ke6Gh0Jm3Ps8Ua2Wi5Oo="
#: a connection string of each form the scan reads, its secret in ``{}``, and the secret's kind
FORMS = [
    ("azure storage", STORAGE, "azure-storage-key"),
    (
        "service bus",
        "Endpoint=sb://ns1.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
        "SharedAccessKey={}",
        "credential",
    ),
    (
        "ADO.NET",
        "Server=tcp:db1.database.windows.net,1433;Initial Catalog=app;User ID=app;Password={};Encrypt=True;",
        "credential",
    ),
    ("Npgsql", "Host=localhost;Database=app;Username=app;Password={}", "credential"),
    ("JDBC", "jdbc:sqlserver://db1:1433;databaseName=app;user=sa;password={};", "credential"),
    ("ODBC", "Driver={{ODBC Driver 18}};Server=db1;Uid=app;Pwd={};", "credential"),
]
#: the keys and marks a connection string is assigned with
WRAPS = [
    "{}",
    'connectionString: "{}"',
    "export AZURE_STORAGE_CONNECTION_STRING='{}'",
    'StorageConnectionString = "{}"',
    "ConnectionStrings__Default={}",
    '"conn_str": "{}"',
    "<connectionString>{}</connectionString>",
    '<add key="StorageConnectionString" value="{}"/>',
    '--connection-string "{}"',
    "--connection-string={}",
    "The connection string is {}",
]


def _found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


@pytest.mark.parametrize("wrap", WRAPS)
def test_the_emulators_documented_connection_string_is_quiet(wrap: str) -> None:
    text = wrap.format(STORAGE.format(EMULATOR_KEY))
    assert _found(text) == [], text


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize(("form", "shape", "kind"), FORMS, ids=[f[0] for f in FORMS])
def test_a_real_secret_in_a_connection_string_fires_on_the_secret_alone(
    wrap: str, form: str, shape: str, kind: str
) -> None:
    secret = {"azure storage": REAL_KEY, "service bus": SB_KEY}.get(form, PASSWORD)
    text = wrap.format(shape.format(secret))
    found = _found(text)
    assert [k for k, _ in found] == [kind], (text, found)
    value = found[0][1]
    assert value.endswith(secret.rstrip("=")) or value.rstrip("=").endswith(secret.rstrip("="))
    assert value in (secret, "AccountKey=" + secret), (text, found)  # the key, not the string's start
    redacted = scan(text)[0].redacted
    assert "DefaultEndpoints" not in redacted and secret[:6] not in redacted


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize(
    "text",
    [
        "Server=db1;Database=app;Trusted_Connection=True;",
        "Server=db1;Database=app;User ID=app;Password=changeme",
        "Host=localhost;Database=app;Username=app;Password=${DB_PASSWORD}",
        "DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey=<your key>;",
        "UseDevelopmentStorage=true",
    ],
)
def test_a_connection_string_without_a_secret_is_quiet(wrap: str, text: str) -> None:
    answer = wrap.format(text)
    assert _found(answer) == [], answer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a secret member first is reported as before, whole
        ('connection_string="Password=Xk9mP2vL7wQz;Host=db"', [("credential", "Password=Xk9mP2vL7wQz")]),
        # a password holding "=" is no connection string: no member follows it, no key names one
        ("password=Xk9=mP2vL7wQ", [("credential", "Xk9=mP2vL7wQ")]),
        ("DB_PASSWORD=Xk9mP2vL7wQz", [("credential", "Xk9mP2vL7wQz")]),
        ("api_key: 'Rk2=Tq9vW4xZ7'", [("credential", "Rk2=Tq9vW4xZ7")]),
        ("conn_str=AccountKey=" + EMULATOR_KEY, []),
        ("conn_str=AccountKey=" + REAL_KEY, [("azure-storage-key", "AccountKey=" + REAL_KEY)]),
    ],
)
def test_credential_values_that_are_no_connection_string(text: str, expected: list[tuple[str, str]]) -> None:
    assert _found(text) == expected, text


def test_the_members_read() -> None:
    text = "<c>Server=db1;Uid=app;Pwd=Xk9mP2vL7wQz ;SharedAccessKeyName=Root;AccountKey=Ab1</c>"
    start, end = text.index("Server"), text.index("</c>")
    assert [v for _, _, v in _connection_string_secrets(text, start, end) or []] == ["Xk9mP2vL7wQz", "Ab1"]
    assert _connection_string_secrets("pw=Xk9=mP2vL7wQ", 3, 15) is None  # no member follows, no key
    assert _connection_string_secrets("x=Password=abc;Host=db", 2, 14) is None  # a secret member first
