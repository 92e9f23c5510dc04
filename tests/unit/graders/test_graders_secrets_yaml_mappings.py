"""A credential-named YAML key that ends its line and opens a mapping (``auth:``, ``credentials:``,
``password:``, ``secret:`` over more indented ``key: value`` lines, as Helm values write them) has no
value of its own: the next line's key is not reported as the password. Each item's twin puts a real
password in the same block, and it is found."""

from __future__ import annotations

import pytest

from proctor.graders import scan

PASSWORD = "Wq4!tZ8rKe2#Lm"

MAPPINGS = [
    "keycloak:\n  auth:\n    adminUser: keycloakadm\n    existingSecret: keycloak-admin\n",
    "mongodb:\n  auth:\n    enabled: true\n    rootUser: root\n    existingSecret: mongo-root\n",
    "smtp:\n  credentials:\n    secretName: smtp-creds\n    usernameKey: user\n",
    "database:\n  password:\n    secretKeyRef: db-creds\n    secretKeyName: pgpass\n",
    'config:\n  "secret":\n    "existingName": "app-secrets"\n',
    "registry:\n  auth:\n\n    htpasswdSecret: registry-htpasswd\n",
]


@pytest.mark.parametrize("block", MAPPINGS)
def test_a_key_opening_a_mapping_has_no_value(block: str) -> None:
    text = f"Point the chart at an existing Secret:\n```yaml\n{block}```"
    assert scan(text) == [], text


@pytest.mark.parametrize(
    "block",
    [
        # the same blocks with a password written in them: found
        f"keycloak:\n  auth:\n    adminUser: keycloakadm\n    adminPassword: {PASSWORD}\n",
        f"mongodb:\n  auth:\n    enabled: true\n    rootPassword: {PASSWORD}\n",
        f"smtp:\n  credentials:\n    password: {PASSWORD}\n",
        # a value on the next line that is no key is the key's value
        f"database:\n  password:\n    {PASSWORD}\n",
    ],
)
def test_a_password_written_in_the_block_is_still_found(block: str) -> None:
    text = f"Here are the values:\n```yaml\n{block}```"
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("credential", PASSWORD)], text
