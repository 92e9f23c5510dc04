"""The cheap gates in front of the personal-data rules read exactly what their plain pattern reads."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from proctor.graders import scan
from proctor.graders._pii import _WORD_AT_ADDRESS

#: the gate as first written: correct, but quadratic on a long run of letters and digits
_PLAIN = re.compile(r"[._+0-9][A-Za-z0-9._%+-]* at [A-Za-z0-9]")


@given(st.text(alphabet="ab1._+%-X@ t", max_size=24))
def test_the_word_at_gate_reads_what_the_plain_pattern_reads(text: str) -> None:
    assert (_WORD_AT_ADDRESS.search(text) is None) == (_PLAIN.search(text) is None)


def test_an_address_with_at_as_a_word_is_found_after_a_long_base64_run() -> None:
    blob = "eHh4" * 20_000  # letters and digits with no break: every digit once restarted the gate
    assert [f.kind for f in scan(f"{blob} mail jane.doe at acme.org")] == ["email"]
    assert [f.kind for f in scan(f"{blob} we met at acme.org")] == []
