"""Manifests parse the way kubectl reads them, fast or not."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proctor.api import ManifestError, load_manifests, parse_responses
from proctor.api.loading import (
    MIMALLOC_OPTIONS,
    _fast_yaml,
    _has_directive_or_end,
    _InputError,
    _split_documents,
    _StrictLoader,
    _yaml_documents,
)

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


#: Plain scalars: words, numbers, and what YAML 1.1 reads as booleans, timestamps or sexagesimals.
_PLAIN = st.sampled_from(
    [
        *("oil", "it on", "no way", "yes", "No", "ON", "off", "<<x", "7", "-3", "2.5", "2024-01-31", "1:20"),
        *("12:30:00", "2024-1-2 10:00:00", "+1:05", "x-1:20", "1_000", "nox", "onx", "2024-01-31x"),
    ]
)
_KEYS = st.sampled_from(["a", "b", "yes", "no", "on", "id", "1:20", "2024-01-31"])
_NODES = st.recursive(
    _PLAIN,
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")
        | st.dictionaries(_KEYS, inner, max_size=3).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
        )
    ),
    max_leaves=12,
)


@given(_NODES)
def test_any_document_reads_as_pyyaml_reads_it(node: str) -> None:
    """Whatever the fast parser accepts reads as kubectl's YAML 1.1 reads it (PyYAML); the
    rest is left to PyYAML. (A block mapping: a text starting with a bracket is tried as JSON first.)"""
    text = f"k: {node}\nk2:\n  - {node}\n"
    try:
        expected = __import__("yaml").load(text, Loader=_StrictLoader)
    except _InputError:  # a duplicate key (``on`` and ``yes`` are both true): refused on both paths
        with pytest.raises(ManifestError, match="duplicate key"):
            _yaml_documents(text, "t")
        return
    assert _yaml_documents(text, "t") == [expected]


_ALLOCATOR_PROBE = """
import json, os, sys
from proctor.api import load_manifests
from proctor.api.loading import MIMALLOC_OPTIONS
names = [o.metadata.name for o in load_manifests(sys.stdin.read())]
print(json.dumps({"names": names, "env": {k: os.environ.get(k) for k in MIMALLOC_OPTIONS}}))
"""


@pytest.mark.parametrize("preset", [None, "250"])
def test_yaml_rs_allocator_gives_memory_back_unless_the_user_chose(preset: str | None) -> None:
    """yaml-rs's allocator is told to commit lazily and give freed pages back (12-15 MiB per
    grading process otherwise); a value the user set in the environment is kept."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIMALLOC_")}
    if preset is not None:
        env["MIMALLOC_PURGE_DELAY"] = preset
    out = subprocess.run(
        [sys.executable, "-c", _ALLOCATOR_PROBE],
        input=CASESET,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert seen["names"] == ["a", "b"]
    expected = dict(MIMALLOC_OPTIONS)
    if preset is not None:
        expected["MIMALLOC_PURGE_DELAY"] = preset
    assert seen["env"] == expected


# the stream's document markers and directives, read by the definition (a `^` in multi-line mode)
# that the loader's faster patterns replace; text made of the pieces where they could differ
_REFERENCE_START = re.compile(r"^---(?:[ \t].*)?$", re.MULTILINE)
_REFERENCE_DIRECTIVE_OR_END = re.compile(r"^%|^\.\.\.\s*$", re.MULTILINE)
_PIECES = st.sampled_from(
    [
        "---",
        "--- ",
        "---\t",
        "----",
        "-- -",
        "...",
        "... ",
        "%YAML 1.2",
        "%",
        "a: 1",
        " ",
        "\t",
        "\r",
        "\n",
        "\n\n",
        "x",
    ]
)


@given(st.lists(_PIECES, max_size=14).map("".join))
def test_documents_split_and_directives_found_as_by_their_definition(text: str) -> None:
    expected = [p for p in _REFERENCE_START.split(text) if p.strip() and p.strip() != "..."]
    assert _split_documents(text) == expected
    assert _has_directive_or_end(text) == (_REFERENCE_DIRECTIVE_OR_END.search(text) is not None)


def test_a_stream_that_starts_with_a_marker_keeps_every_document() -> None:
    text = "--- # first\na: 1\n---\nb: 2\n...\n"
    assert _split_documents(text) == ["\na: 1\n", "\nb: 2\n...\n"]
    assert _has_directive_or_end("\nb: 2\n...\n") and not _has_directive_or_end("a: ...\nb: 50%\n")
