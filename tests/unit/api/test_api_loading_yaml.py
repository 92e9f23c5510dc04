"""Manifests parse the way kubectl reads them, fast or not."""

from __future__ import annotations

import pytest

from proctor.api import ManifestError, load_manifests, parse_responses
from proctor.api.loading import _fast_yaml, _yaml_documents

CASESET = """\
apiVersion: proctor.dev/v1alpha1
kind: CaseSet
metadata: {name: a}
spec:
  cases:
    - {id: c1, tier: form, input: "turn it on", assert: [{type: contains, value: "it on"}]}
---
apiVersion: proctor.dev/v1alpha1
kind: CaseSet
metadata: {name: b}
spec:
  cases:
    - id: c2
      tier: trust
      input: |
        multi
        --- not a separator (indented)
"""


def test_multi_document_streams_parse_with_the_native_parser() -> None:
    assert _fast_yaml(CASESET) is not None
    names = [r.metadata.name for r in load_manifests(CASESET)]
    assert names == ["a", "b"]
    assert load_manifests(CASESET)[1].spec.cases[0].input == "multi\n--- not a separator (indented)\n"


@pytest.mark.parametrize("text", ["a: yes", "a: on", "- off", "a: [No, x]", "{On: 1}"])
def test_yaml_1_1_scalars_are_read_as_kubectl_reads_them(text: str) -> None:
    assert _fast_yaml(text) is None  # left to PyYAML, whose YAML 1.1 matches kubectl
    assert _yaml_documents(text, "t") == [__import__("yaml").safe_load(text)]


def test_a_bare_yes_answer_is_refused_as_kubectl_would_read_a_boolean() -> None:
    with pytest.raises(ManifestError, match="quote it"):
        parse_responses("c1: yes\n", where="answers.yaml")
    assert parse_responses('c1: "yes"\n', where="answers.yaml") == {"c1": "yes"}


def test_syntax_errors_name_the_source() -> None:
    with pytest.raises(ManifestError, match=r"cs\.yaml: not valid YAML"):
        load_manifests("spec: [\n", source="cs.yaml")


def test_json_takes_the_fast_path() -> None:
    assert _yaml_documents('{"a": [1, 2]}', "t") == [{"a": [1, 2]}]
