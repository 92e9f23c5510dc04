"""Small text helpers shared by the graders: quoting for reasons, apostrophes, numbers, URLs."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Longest quote of an answer (or value) put in a reason, in characters.
QUOTE_LIMIT = 80

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})
_WS = re.compile(r"\s+")


def normalize_apostrophes(text: str) -> str:
    """Curly apostrophes to ``'``; one character for one, so offsets are kept."""
    return text.translate(_APOSTROPHES)


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` in double quotes on one line, cut to ``limit`` characters with an ellipsis."""
    flat = _WS.sub(" ", text).strip()
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "\u2026"
    return '"' + flat.replace('"', "'") + '"'


def join_names(names: Iterable[str]) -> str:
    """``a``; ``a and b``; ``a, b and c``."""
    items = list(names)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


#: A number as people write it: 12, 0.30, 1,200.5, -4, 45%, 10mm (a short unit may be glued on;
#: a version string, a hash or a code such as A320 is not a number).
NUMBER = re.compile(
    r"(?<![\w.])[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
    r"(?=(?:%|[a-zA-Z\u00b0\u00b5]{1,4}(?:/[a-zA-Z]{1,4})?)?(?![\w]|\.\d))"
)


def number_values(text: str) -> frozenset[float]:
    """Every number written in ``text``, as floats (0.30 and 0.3 are the same figure)."""
    out: set[float] = set()
    for m in NUMBER.finditer(text):
        try:
            out.add(abs(float(m.group().replace(",", "").replace("\u2212", "-"))))
        except ValueError:  # pragma: no cover - the pattern only matches numbers
            continue
    return frozenset(out)


#: URLs with a scheme, or starting with ``www.``; trailing punctuation is trimmed by :func:`find_urls`.
_URL = re.compile(r"(?i)\b(?:https?|ftp)://[^\s<>\"'`\]\[{}|\\^]+|\bwww\.[^\s<>\"'`\]\[{}|\\^]+")
_TRAILING = ".,;:!?*_~'\""


def find_urls(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, url)`` for every URL in ``text``, without trailing punctuation or an unmatched ``)``."""
    out: list[tuple[int, int, str]] = []
    for m in _URL.finditer(text):
        url = m.group()
        while url:
            if url[-1] in _TRAILING or (url[-1] == ")" and url.count(")") > url.count("(")):
                url = url[:-1]
            else:
                break
        if url and "." in url:
            out.append((m.start(), m.start() + len(url), url))
    return out


def normalize_url(url: str) -> str:
    """Compare URLs without scheme, ``www.``, host case, fragment or trailing slash."""
    u = re.sub(r"(?i)^(?:https?|ftp)://", "", url)
    u = re.sub(r"(?i)^www\.", "", u)
    u = u.split("#", 1)[0]
    host, sep, rest = u.partition("/")
    return (host.lower() + sep + rest).rstrip("/")
