"""A SealedSecret's ``encryptedData`` values are ciphertext only the controller in the cluster can
decrypt: a long run of base64 that encodes no text is no password, in YAML or in JSON, as a SOPS
``ENC[...]`` value is none. Each item's twin is the same document where the value is no
ciphertext (a password written under ``encryptedData``, the blob under a Secret's ``stringData``
or a sibling key), and it is reported."""

from __future__ import annotations

import base64
import json
import random

import pytest

from proctor.graders import scan

_R = random.Random(32)


def _sealed(n: int) -> str:
    """What kubeseal writes: the session key's length, then ciphertext, in base64."""
    return base64.b64encode(b"\x02\x00" + bytes(_R.randrange(256) for _ in range(n))).decode()


PASSWORD = "Wq4!tZ8rKe2#Lm"
BLOB, BLOB2 = _sealed(540), _sealed(380)


def _yaml(section: str, password: str, token: str) -> str:
    return (
        "Commit this file; only the controller can decrypt it:\n```yaml\n"
        "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: billing-db\n"
        f"spec:\n  {section}:\n    password: {password}\n    # rotated in May\n\n"
        f"    apiToken: {token}\n  template:\n    metadata:\n      name: billing-db\n```"
    )


def _json(section: str, password: str) -> str:
    doc = {"kind": "SealedSecret", "spec": {section: {"password": password}, "template": {}}}
    return "The sealed file, as JSON:\n" + json.dumps(doc, indent=2)


@pytest.mark.parametrize(
    "text",
    [
        _yaml("encryptedData", BLOB, BLOB2),
        _json("encryptedData", BLOB),
        json.dumps({"encryptedData": {"pw": BLOB}}),
    ],
    ids=["yaml", "json", "json-one-line"],
)
def test_sealed_values_are_ciphertext(text: str) -> None:
    assert scan(text) == [], text


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # a password written where ciphertext belongs is still a password
        (_yaml("encryptedData", PASSWORD, BLOB2), [PASSWORD]),
        # the same blobs under a plain Secret's stringData are its values
        (_yaml("stringData", BLOB, BLOB2), [BLOB, BLOB2]),
        (_json("stringData", BLOB), [BLOB]),
        # a blob beside encryptedData, not in it
        (f"spec:\n  encryptedData:\n    other: {BLOB2}\n  password: {BLOB}\n", [BLOB]),
    ],
    ids=["password-in-encrypted-data", "yaml-string-data", "json-string-data", "sibling-key"],
)
def test_what_is_no_ciphertext_is_still_found(text: str, values: list[str]) -> None:
    assert [text[f.start : f.end] for f in scan(text) if f.kind == "credential"] == values, text
