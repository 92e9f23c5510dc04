"""One pass that tells which of many patterns can match a text: the graders' prefilter.

Most answers hold nothing the slower readings look for (a language's orders to a grader, an
encoded run, a token's prefix), yet each reading is its own pass of Python's backtracking engine
over the whole answer. A :class:`Prefilter` puts a *necessary condition* of each reading (a
pattern that matches wherever the reading could) into one RE2 set, whose automaton reads the text
once for all of them (google-re2: linear time, no backtracking); a reading whose condition is
absent is skipped, and only the ones it flags run as before. So a prefilter never changes what is
found, only what is tried, provided each condition is a true necessary condition: each caller
says why its conditions are, and ``tests/unit/graders/test_graders_prefilter.py`` checks them against the
readings on the test corpora.

RE2's ``\\b``, ``\\w``, ``\\d`` and ``\\s`` are ASCII-only where Python's are Unicode, so the answer
is only prefiltered when it is ASCII (the canonical form of most answers is): on other text every
condition counts as present. Without google-re2, or for a condition RE2 cannot compile, the
same: the reading runs. And the same where RE2 fails: a set too large to compile, or a search
that runs out of memory (RE2 then answers as if nothing matched, so every set carries a condition
that always matches, and an answer without it counts as a failure). A prefilter never fails open.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["Prefilter"]


@functools.cache
def _re2() -> Any:
    """google-re2, imported when the first prefilter is built (a process that reads no answer,
    the operator, never loads it); None without it."""
    try:
        import re2
    except ImportError:  # pragma: no cover - a dependency; the graders stay correct without it
        return None
    return re2


_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})")


def _as_re2(pattern: str) -> str:
    """Python regex syntax that RE2 spells otherwise (``\\u2019`` is ``\\x{2019}``)."""
    return _UNICODE_ESCAPE.sub(r"\\x{\1}", pattern)


class Prefilter:
    """Which of ``conditions`` (regex sources) occur in a text, found in one pass."""

    def __init__(self, conditions: Sequence[str]) -> None:
        self.size = len(conditions)
        everything = frozenset(range(self.size))
        self._set: Any = None
        self._last: tuple[str, frozenset[int]] | None = None
        #: conditions RE2 cannot read: always counted as present
        self._always = everything
        re2 = _re2()
        if re2 is None:
            return
        options = re2.Options()
        options.log_errors = False
        rs = re2.Set.SearchSet(options)
        ids: list[int] = []
        for i, pattern in enumerate(conditions):
            try:
                rs.Add(_as_re2(pattern))
            except re2.error:
                continue
            ids.append(i)
        if not ids:
            return
        # a pattern every text matches, at its end (an empty pattern would match at every position,
        # a third slower): RE2 answers "nothing" both when no condition occurs and when its
        # automaton ran out of memory, so a match without it is a failure, never a "no"
        self._sentinel: int = rs.Add(r"\z")
        try:
            rs.Compile()
        except re2.error:  # too large for RE2's memory budget: every condition counts as present
            return
        self._set = rs
        self._ids = tuple(ids)
        self._always = everything - frozenset(ids)

    def possible(self, text: str) -> frozenset[int]:
        """The conditions that may occur in ``text`` (by position): those RE2 finds, and every one
        it cannot rule out (text that is not ASCII, a condition it could not compile). The last
        answer's is kept: the readings of one answer ask for it one after another."""
        last = self._last
        if last is not None and last[0] is text:
            return last[1]
        if self._set is None or not text.isascii():
            return frozenset(range(self.size))
        found = self._set.Match(text)
        if not found or self._sentinel not in found:
            out = frozenset(range(self.size))  # RE2 failed on this text: nothing is ruled out
        elif len(found) == 1:
            out = self._always  # the sentinel alone: no condition occurs
        else:
            out = self._always | frozenset(self._ids[k] for k in found if k != self._sentinel)
        self._last = (text, out)  # one assignment: a reader on another thread sees old or new
        return out
