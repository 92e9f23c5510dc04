"""Quoting skips the whitespace substitution only where it would change nothing."""

from __future__ import annotations

import re
import sys

import pytest

from proctor.graders._text import quote


def test_no_printable_character_but_the_space_is_whitespace() -> None:
    # what lets quote() take printable text as it is
    ws = re.compile(r"\s")
    assert [c for c in map(chr, range(sys.maxunicode + 1)) if c.isprintable() and ws.match(c)] == [" "]


@pytest.mark.parametrize(
    "text",
    [
        "plain words",
        "two  spaces",
        " leading and trailing ",
        "line\nbreak",
        "tab\there",
        "no-break\u00a0space",
        "ideographic\u3000space",
        "file\x1cseparator",
        "x" * 200,
        'a "quoted" word',
    ],
)
def test_quote_reads_every_whitespace_as_one_space(text: str) -> None:
    flat = re.sub(r"\s+", " ", text).strip()
    expected = flat if len(flat) <= 80 else flat[:79].rstrip() + "\u2026"
    assert quote(text) == '"' + expected.replace('"', "'") + '"'
