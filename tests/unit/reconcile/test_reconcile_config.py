"""The operator's settings from the environment."""

from __future__ import annotations

import pytest

from proctor import __version__
from proctor.reconcile.config import OperatorConfig
from proctor.reconcile.plan import DEFAULT_BACKOFF, DEFAULT_MAX_ATTEMPTS


def test_defaults_without_environment() -> None:
    config = OperatorConfig.from_env({})
    assert config == OperatorConfig()
    assert config.judge_image == f"ghcr.io/proctor-dev/proctor:{__version__}"
    assert config.backoff == DEFAULT_BACKOFF
    assert config.max_attempts == DEFAULT_MAX_ATTEMPTS
    assert config.reconcile_interval == 30.0
    assert config.start_grace_seconds == 30.0  # a judge pod that cannot start: ERROR after this
    assert config.job_ttl_seconds == 3600
    assert config.run_history == 50
    assert config.metrics_port == 9090
    assert config.manage_judge_rbac is True
    assert config.namespaces == ()


def test_every_variable_is_read() -> None:
    config = OperatorConfig.from_env(
        {
            "PROCTOR_JUDGE_IMAGE": "registry.local/proctor:dev",
            "PROCTOR_RETRY_BACKOFF": "1,2.5,10",
            "PROCTOR_MAX_ATTEMPTS": "3",
            "PROCTOR_RECONCILE_INTERVAL": "0.5",
            "PROCTOR_JOB_TTL_SECONDS": "120",
            "PROCTOR_RUN_HISTORY": "7",
            "PROCTOR_METRICS_PORT": "19090",
            "PROCTOR_MANAGE_JUDGE_RBAC": "false",
            "PROCTOR_COLLECTOR_URL": "http://proctor-collector.proctor-system.svc:4318/",
            "PROCTOR_COLLECTOR_TOKEN": "op-token",
            "PROCTOR_MONITOR_INTERVAL": "5",
        }
    )
    assert config == OperatorConfig(
        judge_image="registry.local/proctor:dev",
        backoff=(1.0, 2.5, 10.0),
        max_attempts=3,
        reconcile_interval=0.5,
        job_ttl_seconds=120,
        run_history=7,
        metrics_port=19090,
        manage_judge_rbac=False,
        collector_url="http://proctor-collector.proctor-system.svc:4318",
        collector_token="op-token",
        monitor_interval=5.0,
    )
    assert "op-token" not in repr(config)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5", (5.0,)),
        (" 1, 2 ,3 ", (1.0, 2.0, 3.0)),
        ("1,,2,", (1.0, 2.0)),
        ("", DEFAULT_BACKOFF),
    ],
)
def test_backoff_is_a_comma_separated_list_of_seconds(text: str, expected: tuple[float, ...]) -> None:
    assert OperatorConfig.from_env({"PROCTOR_RETRY_BACKOFF": text}).backoff == expected


@pytest.mark.parametrize(
    ("text", "expected"), [("false", False), ("False", False), ("FALSE", False), ("true", True)]
)
def test_rbac_management_is_on_unless_false(text: str, expected: bool) -> None:
    assert OperatorConfig.from_env({"PROCTOR_MANAGE_JUDGE_RBAC": text}).manage_judge_rbac is expected


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PROCTOR_MAX_ATTEMPTS", "three"),
        ("PROCTOR_RETRY_BACKOFF", "1,soon"),
        ("PROCTOR_METRICS_PORT", "9090.5"),
        ("PROCTOR_RECONCILE_INTERVAL", "30s"),
    ],
)
def test_a_malformed_number_is_refused_at_startup(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=r"invalid literal|could not convert"):
        OperatorConfig.from_env({name: value})


def test_the_process_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROCTOR_MAX_ATTEMPTS", "2")
    monkeypatch.setenv("PROCTOR_JUDGE_IMAGE", "x:1")
    config = OperatorConfig.from_env()
    assert (config.max_attempts, config.judge_image) == (2, "x:1")


def test_unrelated_variables_are_ignored() -> None:
    assert OperatorConfig.from_env({"HOME": "/root", "PROCTOR_K": "v"}) == OperatorConfig()
