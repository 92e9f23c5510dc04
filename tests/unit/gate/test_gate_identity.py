"""The approved identity: one digest over everything that decides a workload's behaviour and its exam."""

from __future__ import annotations

import copy
from typing import Any

from proctor.gate.admission import (
    APPROVED_IDENTITY_ANNOTATION,
    PENDING_IDENTITY_ANNOTATION,
    content_unapproved,
)
from proctor.gate.identity import (
    ConfigMapContent,
    ExamContext,
    approval_identity,
    observed_digest,
    references,
    tier_floor_problems,
    undeclared_secrets,
)

TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "oil"}},
    "spec": {
        "imagePullSecrets": [{"name": "registry"}],
        "initContainers": [
            {"name": "init", "image": "i", "envFrom": [{"configMapRef": {"name": "init-env"}}]}
        ],
        "containers": [
            {
                "name": "agent",
                "image": "agent:1",
                "env": [
                    {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "mode"}}},
                    {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "llm-key", "key": "k"}}},
                ],
                "envFrom": [{"secretRef": {"name": "env-secrets"}}],
            }
        ],
        "volumes": [
            {"name": "prompts", "configMap": {"name": "prompts"}},
            {"name": "certs", "secret": {"secretName": "tls"}},
            {
                "name": "all",
                "projected": {
                    "sources": [{"configMap": {"name": "extra"}}, {"secret": {"name": "proj-secret"}}]
                },
            },
        ],
    },
}
CONTEXT = ExamContext(case_digest="sha256:" + "c" * 64, policy_uid="pu", policy_generation=3)


def contents(**changes: dict[str, str] | None) -> dict[str, ConfigMapContent]:
    base: dict[str, dict[str, str] | None] = {
        "init-env": {"A": "1"},
        "settings": {"mode": "careful"},
        "prompts": {"system.txt": "Cite the manual."},
        "extra": {},
    }
    return {name: ConfigMapContent(data) for name, data in (base | changes).items()}


def test_every_configmap_and_secret_a_template_references_is_found() -> None:
    refs = references(TEMPLATE)
    assert set(refs.config_maps) == {"init-env", "settings", "prompts", "extra"}
    assert set(refs.secrets) == {"registry", "llm-key", "env-secrets", "tls", "proj-secret"}
    assert refs.config_maps["settings"] == "container agent env MODE"


def test_the_identity_changes_with_each_input_and_with_nothing_else() -> None:
    base = approval_identity(TEMPLATE, contents(), CONTEXT)
    assert (
        base.startswith("sha256:") and approval_identity(copy.deepcopy(TEMPLATE), contents(), CONTEXT) == base
    )
    changed_template = copy.deepcopy(TEMPLATE)
    changed_template["spec"]["containers"][0]["image"] = "agent:2"
    variants = {
        "template": approval_identity(changed_template, contents(), CONTEXT),
        "env ConfigMap": approval_identity(TEMPLATE, contents(settings={"mode": "reckless"}), CONTEXT),
        "envFrom ConfigMap": approval_identity(TEMPLATE, contents(**{"init-env": {"A": "2"}}), CONTEXT),
        "volume ConfigMap": approval_identity(TEMPLATE, contents(prompts={"system.txt": "Guess."}), CONTEXT),
        "projected ConfigMap": approval_identity(TEMPLATE, contents(extra={"x": "y"}), CONTEXT),
        "a ConfigMap deleted": approval_identity(TEMPLATE, contents(settings=None), CONTEXT),
        "cases": approval_identity(TEMPLATE, contents(), CONTEXT.__class__("sha256:" + "d" * 64, "pu", 3)),
        "policy generation": approval_identity(
            TEMPLATE, contents(), ExamContext(CONTEXT.case_digest, "pu", 4)
        ),
        "policy recreated": approval_identity(
            TEMPLATE, contents(), ExamContext(CONTEXT.case_digest, "pv", 3)
        ),
        "profile": approval_identity(
            TEMPLATE, contents(), ExamContext(CONTEXT.case_digest, "pu", 3, "maintenance", 2)
        ),
    }
    for what, digest in variants.items():
        assert digest != base, what
    assert len(set(variants.values())) == len(variants)
    # a ConfigMap the template does not reference, and the version a ConfigMap was read at, are not inputs
    unrelated = contents() | {"other": ConfigMapContent({"z": "1"})}
    assert approval_identity(TEMPLATE, unrelated, CONTEXT) == base
    reread = {n: ConfigMapContent(c.data, c.binary_data, "999") for n, c in contents().items()}
    assert approval_identity(TEMPLATE, reread, CONTEXT) == base
    assert observed_digest(reread) != observed_digest(contents())  # but a write is another exam


def test_a_configmap_from_the_api_server_counts_data_and_binary_data() -> None:
    obj = {"metadata": {"resourceVersion": "7"}, "data": {"a": "1"}, "binaryData": {"b": "AA=="}}
    c = ConfigMapContent.of(obj)
    assert (c.resource_version, c.canonical()) == ("7", {"data": {"a": "1"}, "binaryData": {"b": "AA=="}})
    assert ConfigMapContent.of(None).canonical() is None
    assert ConfigMapContent.of({**obj, "binaryData": {"b": "AQ=="}}).canonical() != c.canonical()


def test_secrets_are_refused_unless_the_policy_declares_them() -> None:
    refs = references(TEMPLATE)
    declared = ["registry", "llm-key", "env-secrets", "tls"]
    assert undeclared_secrets(refs, declared) == ["Secret proj-secret (volume all)"]
    assert undeclared_secrets(refs, [*declared, "proj-secret"]) == []


def test_a_tier_below_the_policys_floor_is_named() -> None:
    counts = {"safety": 2, "trust": 10}
    assert tier_floor_problems(counts, {"safety": 5, "trust": 10, "form": 1}) == [
        "safety: 2 case(s), the policy requires at least 5",
        "form: 0 case(s), the policy requires at least 1",
    ]
    assert tier_floor_problems(counts, {"safety": 0, "trust": 0, "form": 0}) == []


def test_content_is_unapproved_only_when_the_recorded_identity_differs() -> None:
    a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    assert not content_unapproved({})
    assert not content_unapproved({APPROVED_IDENTITY_ANNOTATION: a, PENDING_IDENTITY_ANNOTATION: a})
    assert content_unapproved({APPROVED_IDENTITY_ANNOTATION: a, PENDING_IDENTITY_ANNOTATION: b})
    assert content_unapproved({PENDING_IDENTITY_ANNOTATION: b})  # approved before identities: examined again


def test_a_write_to_the_cases_is_another_exam() -> None:
    from proctor.gate.identity import case_versions

    cs = {"metadata": {"generation": 2}}
    cm = {"metadata": {"name": "more-cases", "resourceVersion": "10"}}
    before = observed_digest({}, case_versions(cs, [cm]))
    assert observed_digest({}, case_versions({"metadata": {"generation": 3}}, [cm])) != before
    assert (
        observed_digest(
            {}, case_versions(cs, [{"metadata": {"name": "more-cases", "resourceVersion": "11"}}])
        )
        != before
    )
    assert observed_digest({}, case_versions(cs, [cm])) == before
