"""Small text helpers shared by the graders: quoting for reasons, numbers, URLs."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable

#: Longest quote of an answer (or value) put in a reason, in characters.
QUOTE_LIMIT = 80

_WS = re.compile(r"\s+")


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` in double quotes on one line, cut to ``limit`` characters with an ellipsis."""
    # printable text holds no whitespace but the ASCII space (``str.isprintable``): only a run
    # of spaces needs the substitution, and most texts quoted in reasons have none
    flat = (text if text.isprintable() and "  " not in text else _WS.sub(" ", text)).strip()
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
#: Web top-level domains: a bare ``host.tld`` with one of these is a URL even without a path
_WEB_TLDS = "com|org|net|edu|gov|mil|int|io|info|biz|app|dev|ai|co|me|tv|cloud|online|site|xyz|tech"
#: Second-level domains under a country code (``example.co.uk``, ``gov.au``)
_SECOND_LEVEL = "co|com|org|net|gov|ac|edu|or|ne|go"
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
#: A URL without a scheme: ``example.com/path``, ``docs.acme.io``, ``example.co.uk``, or any
#: ``host.xx/path`` with a path (``config.py`` alone is a file name, not a URL)
_BARE_URL_SOURCE = (
    rf"(?i)(?<![\w@.:/-])(?:{_LABEL}\.)+(?:"
    rf"(?:{_WEB_TLDS})(?::\d{{2,5}})?(?:/[^\s<>\"'`\]\[{{}}|\\^]*)?"
    rf"|(?:{_SECOND_LEVEL})\.[a-z]{{2}}(?:/[^\s<>\"'`\]\[{{}}|\\^]*)?"
    rf"|[a-z]{{2,24}}(?::\d{{2,5}})?/[^\s<>\"'`\]\[{{}}|\\^]*"
    rf")(?![\w@-]|\.[a-z0-9])"
)


@functools.cache
def _bare_url() -> re.Pattern[str]:
    """Compiled on first use (it takes tens of milliseconds to compile)."""
    return re.compile(_BARE_URL_SOURCE)


_TRAILING = ".,;:!?*_~'\""


def _trim(url: str) -> str:
    while url:
        if url[-1] in _TRAILING or (url[-1] == ")" and url.count(")") > url.count("(")):
            url = url[:-1]
        else:
            break
    return url


def find_urls(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, url)`` for every URL in ``text``, with or without a scheme (``example.com/x``,
    ``www.x.org``), without trailing punctuation or an unmatched ``)``."""
    out: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _URL.finditer(text):
        url = _trim(m.group())
        if url and "." in url:
            out.append((m.start(), m.start() + len(url), url))
            taken.append((m.start(), m.end()))
    starts = [s for s, _ in taken]
    if "." not in text:
        return out
    for m in _bare_url().finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and taken[i][0] <= m.start() < taken[i][1]:
            continue  # part of a URL with a scheme
        url = _trim(m.group())
        if url and "." in url and not url.replace(".", "").isdigit():
            out.append((m.start(), m.start() + len(url), url))
    out.sort()
    return out


_UNRESERVED_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_DEFAULT_PORT = re.compile(r":(?:80|443)$")


def _unescape_unreserved(m: re.Match[str]) -> str:
    ch = chr(int(m.group(1), 16))
    return ch if ch.isascii() and (ch.isalnum() or ch in "-._~") else "%" + m.group(1).upper()


def normalize_url(url: str) -> str:
    """Compare URLs as a browser requests them: without scheme, ``www.``, host case, a default
    port (``:80``, ``:443``), the root dot of a host (``acme.io.``), fragment, an empty query or a
    trailing slash, and with percent-escapes of unreserved characters decoded (``%7E`` is ``~``)."""
    u = re.sub(r"(?i)^(?:https?|ftp)://", "", url)
    u = re.sub(r"(?i)^www\.", "", u)
    u = u.split("#", 1)[0]
    host, sep, rest = u.partition("/")
    host = _DEFAULT_PORT.sub("", host.lower()).rstrip(".")
    rest = _UNRESERVED_ESCAPE.sub(_unescape_unreserved, rest).removesuffix("?")
    return (host + sep + rest).rstrip("/")
