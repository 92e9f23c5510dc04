"""One canonical form of a text, for every text assertion and the safety scan.

An adversary hides a word from a grader by writing it so that it looks the same to a reader and
differs to a program: ``N\u041eRMAL`` with a Cyrillic ``\u041e``, ``pass\u200bword`` with a
zero-width space, ``\uff21\uff2b\uff29\uff21...`` in full width, ``AMM\u00a072\u201100`` with a
no-break space and hyphen. Every grader therefore reads :func:`canonical` of the answer (and of
the values it compares with), never the raw text; the original is kept for the messages, which
quote what the agent wrote.

What :func:`canonical` does, character by character (so every canonical character maps back to
one original character, and a reason can quote the original):

- Unicode compatibility folding (NFKC of each character): full-width and mathematical letters,
  ligatures, superscripts and the like become their plain letters;
- a letter with diacritics whose base is an ASCII letter becomes that letter (``Ó`` -> ``O``), and
  a combining mark right after an ASCII letter is dropped (``N\u0301ORMAL`` -> ``NORMAL``);
- confusable letters (Unicode's confusables data, via ``confusable-homoglyphs``: Cyrillic and
  Greek look-alikes and many more) become the ASCII letter they imitate; letters never become
  digits nor digits letters;
- decimal digits of any script become ASCII digits (``٣`` -> ``3``);
- invisible characters are removed: format characters (zero-width spaces and joiners, bidi
  controls and isolates, the soft hyphen, word joiners, tag characters), variation selectors,
  Hangul fillers, and ASCII control characters other than tab and line breaks;
- space variants (no-break, thin, ideographic...) become ``" "``; line and paragraph separators
  ``"\\n"``; hyphen variants (hyphen, non-breaking hyphen, figure dash, minus sign, full-width and
  small hyphen-minus) become ``"-"`` (en and em dashes stay: they separate words);
- curly single quotes and primes become ``'``; curly and low double quotes become ``"``.

Case is kept (``contains`` is case-sensitive) and so are line breaks. ASCII text without control
characters is returned as it is, at no cost.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Generic, TypeVar

__all__ = ["Canonical", "canonical", "canonical_text", "text_cache"]

_T = TypeVar("_T")


class _TextCache(Generic[_T]):
    """A memo of a function of one text, bounded in entries and in characters held (a few huge
    answers must not pin gigabytes), least recently used out first."""

    def __init__(self, fn: Callable[[str], _T], maxsize: int, max_chars: int) -> None:
        self._fn = fn
        self._maxsize = maxsize
        self._max_chars = max_chars
        self._data: OrderedDict[str, _T] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def __call__(self, text: str) -> _T:
        with self._lock:
            hit = self._data.get(text)
            if hit is not None:
                self._data.move_to_end(text)
                return hit
        value = self._fn(text)
        if len(text) > self._max_chars:
            return value
        with self._lock:
            if text not in self._data:
                self._data[text] = value
                self._chars += len(text)
                while len(self._data) > self._maxsize or self._chars > self._max_chars:
                    old, _ = self._data.popitem(last=False)
                    self._chars -= len(old)
        return value

    def cache_clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._chars = 0


def text_cache(
    maxsize: int = 256, max_chars: int = 16_000_000
) -> Callable[[Callable[[str], _T]], _TextCache[_T]]:
    """Memoise a function of one text (see :class:`_TextCache`)."""

    def wrap(fn: Callable[[str], _T]) -> _TextCache[_T]:
        return _TextCache(fn, maxsize, max_chars)

    return wrap


#: ASCII control characters removed (tab, line feed, vertical tab, form feed, carriage return stay).
_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
#: Invisible characters outside the format category (Cf) that Unicode lists as default-ignorable
#: (the Mongolian vowel separator, U+180E, is Cf in Unicode 6.3 and later, so it is not listed).
_IGNORABLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x180B, 0x180C, 0x180D, 0x180F),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
    ]
)
_HYPHENS = frozenset("\u2010\u2011\u2012\u2212\u2043\ufe63\uff0d\u02d7\u2796\u00ad")
_SINGLE_QUOTES = frozenset("\u2018\u2019\u201a\u201b\u02bc\u2032\u2035\u00b4\uff07")
_DOUBLE_QUOTES = frozenset("\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02")


#: :func:`derive_confusables`, written out (``hack/confusables.py`` rewrites it; a unit
#: test checks that it is what the data gives): reading the whole UTS #39 file at each start cost a
#: tenth of a second and 6 MiB that stayed with the process.
CONFUSABLES_FILE = "confusables.json"


@functools.cache
def _confusables() -> dict[str, str]:
    """Non-ASCII letters and digits -> the ASCII letter or digit they imitate (:data:`CONFUSABLES_FILE`)."""
    table: dict[str, str] = json.loads(
        resources.files("proctor.graders").joinpath(CONFUSABLES_FILE).read_text(encoding="utf-8")
    )
    return table


def derive_confusables() -> dict[str, str]:
    """Non-ASCII letters and digits -> the ASCII letter or digit they imitate (from UTS #39 data,
    via ``confusable-homoglyphs``): the table :data:`CONFUSABLES_FILE` holds."""
    import confusable_homoglyphs  # data only: its JSON file is read once

    data_file = resources.files(confusable_homoglyphs).joinpath("confusables.json")
    data: dict[str, list[dict[str, str]]] = json.loads(data_file.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        cat = unicodedata.category(char)
        if cat[0] not in "LN":
            continue
        is_letter = cat[0] == "L"
        candidates = [
            g["c"]
            for g in glyphs
            if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum() and g["c"].isalpha() == is_letter
        ]
        if not candidates:
            continue
        if char.isupper():
            same = [c for c in candidates if c.isupper()] or (["I"] if "l" in candidates else [])
        elif char.islower():
            same = [c for c in candidates if c.islower()]
        else:
            same = []
        out[char] = (same or candidates)[0]
    return out


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Me")


@functools.lru_cache(maxsize=65536)
def _map_char(ch: str) -> str:
    """The canonical form of one non-ASCII (or control) character; ``""`` to remove it."""
    o = ord(ch)
    if o < 0x80:
        return "" if _ASCII_CONTROLS.match(ch) else ch
    cat = unicodedata.category(ch)
    if cat == "Cf" or o in _IGNORABLE or ch == "\u00ad":
        return ""
    if cat == "Zs":
        return " "
    if cat in ("Zl", "Zp") or ch == "\u0085":
        return "\n"
    if cat == "Cc":
        return ""
    if ch in _HYPHENS:
        return "-"
    if ch in _SINGLE_QUOTES:
        return "'"
    if ch in _DOUBLE_QUOTES:
        return '"'
    if cat == "Nd":
        return str(unicodedata.decimal(ch))
    imitated = _confusables().get(ch)
    if imitated is not None:
        # before NFKC, which can turn a look-alike into a letter that no longer looks like the
        # one it imitates (lunate sigma, like "c", becomes final sigma)
        return imitated
    out = []
    for c in unicodedata.normalize("NFKC", ch):
        out.append(_map_folded(c))
    return "".join(out)


def _map_folded(c: str) -> str:
    if c.isascii():
        return c
    if c in _HYPHENS:
        return "-"
    if c in _SINGLE_QUOTES:
        return "'"
    if c in _DOUBLE_QUOTES:
        return '"'
    if unicodedata.category(c) == "Nd":
        return str(unicodedata.decimal(c))
    decomposed = unicodedata.normalize("NFKD", c)
    base = decomposed[0]
    if all(_is_mark(m) for m in decomposed[1:]):
        # a letter with marks is the letter it is written on: "\u00e9" is "e", and the Greek
        # alpha with tonos ("\u03ac") the "a" its alpha imitates; one with no marks is itself
        return base if base.isascii() else _confusables().get(base, c)
    return _confusables().get(c, c)


@dataclass(frozen=True, slots=True)
class Canonical:
    """A text in canonical form (``text``), with the ``original`` it came from.

    ``span`` maps a span of ``text`` back to the span of ``original`` it came from, so a reason
    quotes what the agent wrote. When canonicalisation changed no length (the common case),
    offsets are the same in both.
    """

    text: str
    original: str
    #: breakpoints of the offset map: canonical offsets where a piece starts, and the original
    #: offset of each (empty when both texts have the same offsets)
    _canon_starts: tuple[int, ...] = field(default=(), repr=False)
    _orig_starts: tuple[int, ...] = field(default=(), repr=False)

    @property
    def changed(self) -> bool:
        return self.text is not self.original and self.text != self.original

    def offset(self, pos: int) -> int:
        """The original offset of canonical offset ``pos`` (inside an expansion such as ``ﬁ`` ->
        ``fi``: the expanded character's offset)."""
        if not self._canon_starts:
            return min(pos, len(self.original))
        i = bisect.bisect_right(self._canon_starts, pos) - 1
        if i < 0:
            return 0
        if self._is_replacement(i):
            return self._orig_starts[i]
        return min(self._orig_starts[i] + (pos - self._canon_starts[i]), self._piece_end(i))

    def _piece_end(self, i: int) -> int:
        return self._orig_starts[i + 1] if i + 1 < len(self._orig_starts) else len(self.original)

    def _is_replacement(self, i: int) -> bool:
        """Whether piece ``i`` is one original character replaced by a different number of them."""
        end = self._canon_starts[i + 1] if i + 1 < len(self._canon_starts) else len(self.text)
        return end - self._canon_starts[i] != self._piece_end(i) - self._orig_starts[i]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the canonical span ``[start, end)``: from the character that made
        ``start`` to the end of the one that made ``end - 1`` (a replaced character is one
        original character, so half of an expansion is the whole of it)."""
        s = self.offset(start)
        if end <= start:
            return s, s
        e = self.offset(end - 1) + 1
        return s, max(s, min(e, len(self.original)))

    def source(self, start: int, end: int) -> str:
        """The original text of the canonical span ``[start, end)``."""
        s, e = self.span(start, end)
        return self.original[s:e]


#: Runs of what canonicalisation may change: anything but printable ASCII, tab and line breaks.
_SPECIAL = re.compile(r"[^\x09-\x0d\x20-\x7e]+")


@functools.lru_cache(maxsize=65536)
def _char(ch: str) -> tuple[str, bool]:
    """``(canonical form, is a combining mark)`` of one character."""
    if _is_mark(ch):
        # an invisible mark (a variation selector, the combining grapheme joiner) goes wherever
        # it is, not only after a letter: ``oil \ufe0fpressure`` is ``oil pressure``
        return ("", False) if ord(ch) in _IGNORABLE else (ch, True)
    return _map_char(ch), False


#: The last few texts canonicalised, by identity: grading one answer asks for its canonical form
#: once per assertion and again for the scan (about eight times), with the same string object.
_RECENT: list[tuple[str, Canonical]] = []
_RECENT_SIZE = 4


def canonical(text: str) -> Canonical:
    """``text`` in canonical form (see the module documentation); memoised for the last texts
    that needed work (plain ASCII is its own canonical form, at no cost)."""
    global _RECENT
    for seen, done in _RECENT:
        if seen is text:
            return done
    plain = text.isascii() and _ASCII_CONTROLS.search(text) is None
    c = Canonical(text, text) if plain else _canonical(text)
    # a whole new list, never one changed in place: a reader on another thread sees one or the other
    _RECENT = [(text, c), *_RECENT[: _RECENT_SIZE - 1]]
    return c


@text_cache(maxsize=512)
def _canonical(text: str) -> Canonical:
    pieces: list[str] = []
    # breakpoints of the offset map, from 0 -> 0: each character replaced by another number of
    # them (0 when removed) is a piece of its own, and the text after it maps 1:1 again
    canon_starts: list[int] = [0]
    orig_starts: list[int] = [0]
    out_len = 0
    pos = 0
    last = ""  # the last canonical character written
    for m in _SPECIAL.finditer(text):
        i = m.start()
        if i > pos:
            pieces.append(text[pos:i])
            out_len += i - pos
            last = text[i - 1]
        for k, ch in enumerate(m.group()):
            mapped, mark = _char(ch)
            if mark and last.isascii() and last.isalnum():
                mapped = ""
            pieces.append(mapped)
            if len(mapped) != 1:
                canon_starts += (out_len, out_len + len(mapped))
                orig_starts += (i + k, i + k + 1)
            out_len += len(mapped)
            if mapped:
                last = mapped[-1]
        pos = m.end()
    if pos < len(text):
        pieces.append(text[pos:])
    return Canonical("".join(pieces), text, tuple(canon_starts), tuple(orig_starts))


def _visible(ch: str) -> bool:
    o = ord(ch)
    if o < 0x80:
        return not _ASCII_CONTROLS.match(ch)
    cat = unicodedata.category(ch)
    return not (cat in ("Cf", "Cc") or o in _IGNORABLE or ch == "\u00ad")


def as_browsed(text: str) -> str:
    """``text`` with its invisible characters removed and NFKC applied, and no look-alike letter
    mapped: how a browser reads a URL. A Cyrillic "\\u0430" in a host names another host (a homograph),
    so URLs are compared in this form, where the canonical form would make the two one."""
    if text.isascii() and not _ASCII_CONTROLS.search(text):
        return text
    return unicodedata.normalize("NFKC", "".join(ch for ch in text if _visible(ch)))


def canonical_text(text: str) -> str:
    """Just the canonical text (for values an assertion compares with)."""
    return canonical(text).text
