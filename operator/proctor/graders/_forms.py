"""How an answer selects a label in Markdown: a ticked task-list item, a struck-through
alternative, a marked row of a table (issue 25, item 4).

People answer a classification in the forms their tools render, not only in sentences:

- a task list: ``- [x] ELEVATED`` ticked among ``- [ ] NORMAL`` unticked; an unticked item
  selects nothing, whatever its words;
- a struck-through alternative: ``~~NORMAL~~ ELEVATED`` (also ``<s>``, ``<del>``, ``<strike>``);
- a table with one row per label and a mark in the chosen row (a cell holding only ``x``, ``✓``,
  ``✔``, ``☑``, ``✅``, ``●``, ``←``, ``<-``, ``yes``, ``current``, ``selected``, or their words
  in the other six languages: ``sí``, ``oui``, ``ja``, ``sim``, ``sì``, ``gewählt``..., a word
  of yes with a note after it, ``ja (4,5 %)``, ``sí, 4,5 %``, or the label in bold in that row
  alone); the other rows are rules, not verdicts.

A table that lists two labels or more and marks no row selects nothing the grader can see: the
label check is then *undetermined (form)* unless the rest of the answer names a label.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

_TASK = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\[([ xX\u2713\u2714])\][ \t]", re.MULTILINE)
_STRUCK = re.compile(
    r"~~(?=\S)[^~\n]{1,200}?~~|<(s|del|strike)\b[^>]*>.{0,400}?</\1\s*>", re.IGNORECASE | re.DOTALL
)
_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)
_RULE_ROW = re.compile(r"^[ \t]*\|?[ \t:|-]+\|?[ \t]*$")
_MARKS = frozenset(
    {
        "x",
        "\u2713",
        "\u2714",
        "\u2611",
        "\u2705",
        "\u25cf",
        "\u2190",
        "<-",
        "<--",
        "yes",
        "current",
        "selected",
        "this one",
        "chosen",
        # "yes", "chosen", "current" in the other languages the graders read (with and without
        # their accents: the canonical text may fold them)
        "s\u00ed",
        "si",
        "s\u00ec",
        "oui",
        "ja",
        "sim",
        "gekozen",
        "gew\u00e4hlt",
        "ausgew\u00e4hlt",
        "choisi",
        "s\u00e9lectionn\u00e9",
        "elegido",
        "seleccionado",
        "escolhido",
        "selecionado",
        "scelto",
        "selezionato",
        "geselecteerd",
        "aktuell",
        "actuel",
        "actual",
        "atual",
        "attuale",
        "huidig",
    }
)


@dataclass(frozen=True, slots=True)
class _Table:
    start: int
    end: int
    rows: tuple[tuple[int, int, bool], ...]  # (start, end, marked) of each row


@dataclass(frozen=True, slots=True)
class Forms:
    """The Markdown forms of a text: struck spans, task items, tables (offsets in that text)."""

    struck: tuple[tuple[int, int], ...]
    tasks: tuple[tuple[int, int, bool], ...]  # (line start, line end, ticked)
    tables: tuple[_Table, ...]
    #: the task items' starts, once: :meth:`task_at` is asked for every label a long answer repeats
    _task_starts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_task_starts", tuple(s for s, _, _ in self.tasks))

    @property
    def any(self) -> bool:
        return bool(self.struck or self.tasks or self.tables)

    def is_struck(self, pos: int) -> bool:
        return any(s <= pos < e for s, e in self.struck)

    def task_at(self, pos: int) -> bool | None:
        """Whether the task item holding ``pos`` is ticked (None: not in a task item)."""
        i = bisect.bisect_right(self._task_starts, pos) - 1
        if i >= 0 and self.tasks[i][0] <= pos < self.tasks[i][1]:
            return self.tasks[i][2]
        return None

    def row_at(self, pos: int) -> tuple[_Table, int] | None:
        for t in self.tables:
            if t.start <= pos < t.end:
                for i, (s, e, _) in enumerate(t.rows):
                    if s <= pos < e:
                        return t, i
        return None


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


#: A cell that opens with a word of "yes" and goes on with more after a mark (``ja (4,5 %)``,
#: ``oui (4,5 %)``, ``sí, 4,5 %``): the yes is the mark, the rest a note on it
_YES_WITH_NOTE = re.compile(
    r"^[*_]*(?:yes|s[i\u00ed\u00ec]|oui|ja|sim)[*_]*\s*[(,;:/\u2013\u2014-]\s*\S", re.IGNORECASE
)


def _marked(line: str) -> bool:
    return any(
        c.lower() in _MARKS or c.lower().strip("*_ ") in _MARKS or _YES_WITH_NOTE.match(c)
        for c in _cells(line)
    )


def forms(text: str) -> Forms:
    """The Markdown forms of ``text`` (cheap when there are none: three searches)."""
    struck = tuple(m.span() for m in _STRUCK.finditer(text)) if ("~~" in text or "<" in text) else ()
    tasks = []
    if "[" in text:
        for m in _TASK.finditer(text):
            end = text.find("\n", m.end())
            tasks.append((m.start(), len(text) if end < 0 else end, m.group(1) != " "))
    tables: list[_Table] = []
    if "|" in text:
        rows: list[tuple[int, int, bool]] = []
        last_end = -2
        for m in _ROW.finditer(text):
            if rows and m.start() != last_end + 1:
                tables.append(_Table(rows[0][0], rows[-1][1], tuple(rows)))
                rows = []
            if not _RULE_ROW.match(m.group()):
                rows.append((m.start(), m.end(), _marked(m.group())))
            last_end = m.end()
        if rows:
            tables.append(_Table(rows[0][0], rows[-1][1], tuple(rows)))
    return Forms(struck, tuple(tasks), tuple(t for t in tables if len(t.rows) >= 2))


_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")


def bold_at(text: str, pos: int) -> bool:
    """Whether ``pos`` is inside ``**bold**`` or ``__bold__`` on its line."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    line = text[start : len(text) if end < 0 else end]
    return any(s <= pos - start < e for s, e in (m.span() for m in _BOLD.finditer(line)))
