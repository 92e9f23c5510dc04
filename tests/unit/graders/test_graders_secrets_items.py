"""A token split across adjacent strings of a JSON or Python list or object is the token (seed 004),
and ordinary adjacent strings stay what they are."""

from __future__ import annotations

import pytest

from proctor.graders import scan
from proctor.graders._scan import mask_findings

KEY_ID = "AKIAIOSFODNN7EXAMPLQ"
GITHUB = "ghp_aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA3bC5"


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ('["AKIAIOSF", "ODNN7EXAMPLQ"]', 'AKIAIOSF", "ODNN7EXAMPLQ'),
        ('{"a": "AKIAIOSF", "b": "ODNN7EXAMPLQ"}', 'AKIAIOSF", "b": "ODNN7EXAMPLQ'),
        ("('AKIA', 'IOSFODNN', '7EXAMPLQ')", "AKIA', 'IOSFODNN', '7EXAMPLQ"),
        ('[\n  "AKIAIOSF",\n  "ODNN7EXAMPLQ"\n]', 'AKIAIOSF",\n  "ODNN7EXAMPLQ'),
        ('{\n  "part1": "AKIAIOSF",\n  "part2": "ODNN7EXAMPLQ"\n}', 'AKIAIOSF",\n  "part2": "ODNN7EXAMPLQ'),
        ('cfg = {"id": "AKIAIOSF" , "rest" : "ODNN7EXAMPLQ"}', 'AKIAIOSF" , "rest" : "ODNN7EXAMPLQ'),
    ],
)
def test_an_aws_key_id_split_across_adjacent_strings_is_found_and_masked(text: str, span: str) -> None:
    [(kind, where)] = found(text)
    assert kind == "aws-access-key"
    assert where == span
    masked = mask_findings(text, 0, len(text))
    assert "IOSF" not in masked and "7EXAMPLQ" not in masked
    assert "AKIA************MPLQ" in masked


def test_a_github_token_split_across_array_items_is_found() -> None:
    text = f'parts = ["{GITHUB[:13]}", "{GITHUB[13:28]}", "{GITHUB[28:]}"]'
    [f] = scan(text)
    assert f.kind == "github-token"
    assert f.redacted.startswith("ghp_") and GITHUB[13:28] not in f.redacted


def test_a_key_id_whole_in_one_item_ends_there() -> None:
    # the next item is not more of it: the key is found as written, its neighbour left in clear
    text = f'["{KEY_ID}", "ODNN"]'
    assert found(text) == [("aws-access-key", KEY_ID)]


@pytest.mark.parametrize(
    "text",
    [
        '["apple", "banana", "cherry", "damson"]',
        '("AKIA", "ASIA", "ABIA", "ACCA")',  # the prefixes of AWS key ids, listed
        'AWS_PREFIXES = ["AKIA", "ASIA"]  # "A3T" too',
        '["ASIA", "EUROPE", "AFRICA", "AMERICAS"]',  # regions, in capitals
        '{"region": "ASIA", "market": "PACIFIC", "segment": "ENTERPRISE"}',
        '["AKIA", "is", "the", "prefix", "of", "an", "AWS", "key", "id"]',
        '["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]',  # GitHub's token prefixes
        '{"prefix": "AKIA", "length": "20"}',
        # a key id's prefix, then a long note in the next item: words, not the key's body
        '["AKIA", "denotes a long-term access key of an IAM user"]',
    ],
)
def test_ordinary_adjacent_strings_are_not_joined_into_a_key(text: str) -> None:
    assert scan(text) == []


def test_strings_two_lines_apart_are_not_items_of_one_key() -> None:
    # a blank line between them: two separate strings, as between two paragraphs
    assert scan('"AKIAIOSF",\n\n"ODNN7EXAMPLQ"') == []


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ('["AK", "IAIOSFODNN7EXAMPLQ"]', 'AK", "IAIOSFODNN7EXAMPLQ'),
        ('{"a": "AK", "b": "IAIOSFODNN7EXAMPLQ"}', 'AK", "b": "IAIOSFODNN7EXAMPLQ'),
        ('[\n  "AK",\n  "IAIOSFODNN7EXAMPLQ"\n]', 'AK",\n  "IAIOSFODNN7EXAMPLQ'),
        (f"('{GITHUB[:2]}', '{GITHUB[2:]}')", f"{GITHUB[:2]}', '{GITHUB[2:]}"),
    ],
)
def test_a_prefix_split_between_two_items_is_joined(text: str, span: str) -> None:
    [(kind, where)] = found(text)
    assert (kind, where) == ("aws-access-key" if "AK" in text else "github-token", span)
    masked = mask_findings(text, 0, len(text))
    assert "IOSFODNN" not in masked and GITHUB[4:20] not in masked


@pytest.mark.parametrize(
    "text",
    [
        '["AK", "IA", "MN", "ND", "SD", "WI", "MI", "OH", "IN", "IL"]',  # US states: capitals, no digit
        '["AK", "IA"]',
        '["gh", "pages", "deploy", "workflow"]',
    ],
)
def test_codes_in_a_list_whose_first_two_join_into_a_prefix_are_not_a_key(text: str) -> None:
    assert scan(text) == []
