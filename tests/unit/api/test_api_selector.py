"""A GatePolicy's selector: the API server's syntax for listing, the same answer for one object."""

from __future__ import annotations

import pytest

from proctor.api import LabelSelector

SELECTOR = LabelSelector.model_validate(
    {
        "matchLabels": {"tier": "prod"},
        "matchExpressions": [
            {"key": "region", "operator": "In", "values": ["eu", "us"]},
            {"key": "team", "operator": "NotIn", "values": ["sandbox"]},
            {"key": "owner", "operator": "Exists"},
            {"key": "canary", "operator": "DoesNotExist"},
        ],
    }
)


def test_the_query_is_the_api_servers_syntax() -> None:
    assert SELECTOR.query() == "tier=prod,region in (eu,us),team notin (sandbox),owner,!canary"
    assert LabelSelector().query() == ""


@pytest.mark.parametrize(
    ("labels", "selected"),
    [
        ({"tier": "prod", "region": "eu", "owner": "a"}, True),
        ({"tier": "prod", "region": "us", "owner": "a", "team": "core"}, True),
        ({"tier": "dev", "region": "eu", "owner": "a"}, False),  # matchLabels
        ({"tier": "prod", "region": "asia", "owner": "a"}, False),  # In
        ({"tier": "prod", "owner": "a"}, False),  # In needs the key
        ({"tier": "prod", "region": "eu", "owner": "a", "team": "sandbox"}, False),  # NotIn
        ({"tier": "prod", "region": "eu"}, False),  # Exists
        ({"tier": "prod", "region": "eu", "owner": "a", "canary": "yes"}, False),  # DoesNotExist
    ],
)
def test_matches_agrees_with_the_query(labels: dict[str, str], selected: bool) -> None:
    assert SELECTOR.matches(labels) is selected


def test_an_empty_selector_selects_everything() -> None:
    assert LabelSelector().matches({}) and LabelSelector().matches({"a": "b"})
