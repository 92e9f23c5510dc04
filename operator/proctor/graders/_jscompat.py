"""Reading values the way promptfoo (JavaScript) reads them, for suites imported from promptfoo.

A promptfoo suite means what promptfoo's implementation does with it, and a few of its readings
are JavaScript's, not Python's. This module reproduces the ones an imported suite depends on
(promptfoo 0.123, Node 22; checked against promptfoo itself by
``tests/integration/test_promptfoo_agreement.py``):

- :func:`translate_js_regex`: a JavaScript regular expression (``new RegExp(value)``: no flags,
  not unicode mode, with the web-compatibility syntax of ECMAScript Annex B) as an equivalent
  pattern for the ``regex`` module, run on :func:`utf16_units` of the text (JavaScript strings are
  UTF-16: ``.`` matches half an emoji). ``\\d``, ``\\w`` and ``\\b`` are ASCII, ``\\s`` is
  JavaScript's set, ``.`` stops at the four line terminators, ``$`` is the very end, and a
  backreference to a group that did not take part matches the empty string. What JavaScript
  rejects raises :class:`JsRegexError` with V8's message.
- :func:`promptfoo_json_objects`: promptfoo's ``extractJsonObjects`` (``contains-json``): from
  each ``{``, balanced braces counted without regard to strings, ``//`` comments dropped,
  missing closing braces added at the end of the text, parsed as YAML (so ``{a: 1}`` counts).
- :func:`load_js_yaml`: YAML read as js-yaml reads it (YAML 1.2 core schema: ``yes`` and
  ``1:30`` stay strings; a duplicate key is an error).
- :func:`js_string`: ``String(value)`` of a YAML scalar (``0.30`` is ``"0.3"``, ``1e21`` is
  ``"1e+21"``).
- :func:`utf16_units`: the text as UTF-16 code units (what ``.length`` and Levenshtein count).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from decimal import Decimal
from typing import Any

import yaml

# --------------------------------------------------------------------------------------------
# Strings as JavaScript sees them


def utf16_units(text: str) -> str:
    """``text`` with every astral character split into its two UTF-16 surrogates."""
    if text.isascii() or all(ord(c) < 0x10000 for c in text):
        return text
    out: list[str] = []
    for c in text:
        cp = ord(c)
        if cp < 0x10000:
            out.append(c)
        else:
            cp -= 0x10000
            out.append(chr(0xD800 + (cp >> 10)))
            out.append(chr(0xDC00 + (cp & 0x3FF)))
    return "".join(out)


def js_number(x: float) -> str:
    """``String(x)`` for a JavaScript number (Number::toString, radix 10)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    d = Decimal(repr(abs(float(x)))).normalize()
    _, digit_tuple, exp = d.as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = exp + k
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body


def js_string(value: Any) -> str | None:
    """``String(value)`` for a value read from YAML; None for values whose text is not portable."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):  # a JavaScript number is a double: 2**53 + 1 is 9007199254740992
        try:
            return js_number(float(value))
        except OverflowError:
            return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, list):
        parts = [("" if v is None else js_string(v)) for v in value]
        return None if any(p is None for p in parts) else ",".join(p for p in parts if p is not None)
    return None  # objects ("[object Object]"), dates (the local time zone's spelling)


# --------------------------------------------------------------------------------------------
# YAML as js-yaml reads it


class JsYamlLoader(yaml.SafeLoader):
    """PyYAML with js-yaml's default resolution (YAML 1.2 core schema, timestamps, merge keys)."""

    allow_duplicates = False

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not self.allow_duplicates:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"duplicated mapping key {key!r}",
                        key_node.start_mark,
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


class _JsYamlJsonLoader(JsYamlLoader):
    allow_duplicates = True  # js-yaml's {json: true}: the last value wins, as in JSON.parse


def _core_resolvers(cls: type[yaml.SafeLoader]) -> None:
    cls.yaml_implicit_resolvers = {}
    add = cls.add_implicit_resolver
    add("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    add("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
    add(
        "tag:yaml.org,2002:int",
        re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
        list("-+0123456789"),
    )
    add(
        "tag:yaml.org,2002:float",
        re.compile(
            r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    )
    add(
        "tag:yaml.org,2002:timestamp",
        re.compile(
            r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
            r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?"
            r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?"
            r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$"
        ),
        list("0123456789"),
    )
    add("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])


# js-yaml 5 resolves a number whose double is not finite (a 400-digit integer, 1e400) as neither an
# integer nor a float: it stays a string.


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int | str:
    text = str(loader.construct_scalar(node))
    if text.startswith("0o"):
        value = int(text[2:], 8)
    elif text.startswith("0x"):
        value = int(text[2:], 16)
    elif math.isinf(float(text)):
        return text  # (before int(), which refuses more than 4300 digits)
    else:
        return int(text)
    try:
        float(value)
    except OverflowError:
        return text
    return value


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float | str:
    text = str(loader.construct_scalar(node))
    lower = text.lower()
    if lower.endswith(".inf"):
        return -math.inf if lower.startswith("-") else math.inf
    if lower == ".nan":
        return math.nan
    value = float(lower)
    return text if math.isinf(value) else value


for _cls in (JsYamlLoader, _JsYamlJsonLoader):
    _core_resolvers(_cls)
    _cls.add_constructor("tag:yaml.org,2002:int", _construct_int)
    _cls.add_constructor("tag:yaml.org,2002:float", _construct_float)


def load_js_yaml(text: str, *, json: bool = False) -> Any:
    """One YAML document read as promptfoo's ``loadYaml`` reads it (``json``: duplicates allowed)."""
    return yaml.load(text, Loader=_JsYamlJsonLoader if json else JsYamlLoader)


# --------------------------------------------------------------------------------------------
# promptfoo's contains-json


def _escaped_quote(line: str, i: int) -> bool:
    n = 0
    j = i - 1
    while j >= 0 and line[j] == "\\":
        n += 1
        j -= 1
    return n % 2 == 1


_ALPHA = re.compile(r"[a-zA-Z]")
_JS_SPACE = re.compile(r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def _slash_comments_to_hash(text: str) -> str:
    """promptfoo's ``convertSlashCommentsToHash``: ``// x`` outside quotes becomes ``# x``."""
    out_lines = []
    for line in text.split("\n"):
        state = "normal"
        result: list[str] = []
        i = 0
        converted: str | None = None
        while i < len(line):
            ch = line[i]
            nxt = line[i + 1] if i + 1 < len(line) else ""
            prev = line[i - 1] if i > 0 else ""
            if state == "normal":
                if ch == "'" and not _ALPHA.match(prev):
                    state = "single"
                    result.append(ch)
                elif ch == '"':
                    state = "double"
                    result.append(ch)
                elif ch == "/" and nxt == "/":
                    start = 0
                    for j in range(i - 1, -1, -1):
                        if _JS_SPACE.match(line[j]):
                            start = j + 1
                            break
                    if "://" in line[start : i + 2]:
                        result.append(ch)
                    else:
                        count = 2
                        while i + count < len(line) and line[i + count] == "/":
                            count += 1
                        converted = "".join(result) + "#" * (count // 2) + line[i + count :]
                        break
                else:
                    result.append(ch)
            elif state == "single":
                result.append(ch)
                if ch == "'" and not _escaped_quote(line, i) and not _ALPHA.match(nxt):
                    state = "normal"
            else:
                result.append(ch)
                if ch == '"' and not _escaped_quote(line, i):
                    state = "normal"
            i += 1
        out_lines.append(converted if converted is not None else "".join(result))
    return "\n".join(out_lines)


_MAX_PROMPTFOO_JSON = 100_000


def _from_utf16(units: str) -> str:
    """The text of UTF-16 code units (a slice between ASCII braces never splits a surrogate pair)."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # JSON.parse has no NaN or Infinity (js-yaml reads them as strings)


class JsonTooDeepError(ValueError):
    """JSON nested deeper than Python's parsers go (about 1000 levels), which promptfoo would read."""


def _parse_candidate(candidate: str) -> Any:
    """js-yaml's ``load(convertSlashCommentsToHash(candidate), {json: true})``; None when it throws.

    Valid JSON is read as JSON first: js-yaml reads it the same, while PyYAML's YAML 1.1 scanner
    refuses some of it (a tab between tokens, as in tab-indented JSON).
    """
    text = _slash_comments_to_hash(candidate)
    try:
        try:
            return json.loads(text, parse_constant=_reject_constant)
        except ValueError:
            pass
        try:
            return load_js_yaml(text, json=True)
        except (yaml.YAMLError, ValueError):
            return None
    except RecursionError:
        # js-yaml reads what Python's parsers cannot; retrying from each inner brace would be
        # quadratic and find less than promptfoo finds, so no verdict can be promptfoo's
        raise JsonTooDeepError(
            "the answer nests JSON deeper than it can be read as promptfoo reads it"
        ) from None


def promptfoo_json_objects(text: str) -> list[Any]:
    """promptfoo's ``extractJsonObjects`` on ``text`` (UTF-16 code units, as JavaScript indexes)."""
    s = utf16_units(text)
    found: list[Any] = []
    i = 0
    n = len(s)
    while i < n:
        if s[i] == "{":
            opened, closed = 1, 0
            j = i + 1
            limit = min(i + _MAX_PROMPTFOO_JSON, n)
            while j < limit and opened > closed:
                if s[j] == "{":
                    opened += 1
                if s[j] == "}":
                    closed += 1
                j += 1
                if opened == closed or j == n or j == i + _MAX_PROMPTFOO_JSON:
                    candidate = s[i:j]
                    if opened > closed:
                        candidate += "}" * (opened - closed)
                    doc = _parse_candidate(_from_utf16(candidate))
                    if isinstance(doc, dict | list):
                        found.append(doc)
                        i = j - 1
                        break
        i += 1
    return found


def _json_key(key: Any) -> str:
    """A YAML key as a JavaScript object's key: ``String(key)`` (``null`` is "null", not "None")."""
    text = js_string(key)
    return text if text is not None else str(key)


def to_json_value(value: Any) -> Any:
    """A YAML-loaded value as JSON data (dates become ISO strings, as JSON.stringify writes them)."""
    if isinstance(value, dict):
        return {_json_key(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    if isinstance(value, _dt.datetime | _dt.date):
        return _js_date_json(value)
    return value


def _js_date_json(value: _dt.date) -> str:
    """``JSON.stringify`` of the Date js-yaml makes: UTC (a time without a zone is UTC), milliseconds."""
    if isinstance(value, _dt.datetime):
        t = value.astimezone(_dt.UTC) if value.tzinfo is not None else value
    else:
        t = _dt.datetime(value.year, value.month, value.day)
    return f"{t.year:04d}-{t:%m-%dT%H:%M:%S}.{t.microsecond // 1000:03d}Z"


# --------------------------------------------------------------------------------------------
# JavaScript regular expressions


class JsRegexError(ValueError):
    """JavaScript would reject the pattern (``new RegExp`` throws a SyntaxError)."""


_LINE_TERMINATORS = "\\n\\r\\u2028\\u2029"
_JS_SPACE_CLASS = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_CLASS_ESCAPES = {
    "d": "0-9",
    "w": "A-Za-z0-9_",
    "s": _JS_SPACE_CLASS,
}
_WORD = "[A-Za-z0-9_]"
_SYNTAX = set("^$\\.*+?()[]{}|")
_CONTROL = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_HEX = set("0123456789abcdefABCDEF")


def _lit(c: str) -> str:
    return f"\\U{ord(c):08x}"


def _quantifier_at(p: str, i: int) -> tuple[int, int | None, int] | None:
    """A braced quantifier ``{n}``, ``{n,}``, ``{n,m}`` at ``p[i]``: (min, max, end) or None."""
    m = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}").match(p, i)
    if m is None:
        return None
    lo = int(m.group(1))
    hi: int | None = lo if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
    return lo, hi, m.end()


class _JsRegexTranslator:
    def __init__(self, source: str) -> None:
        self.source = source  # for messages: self.src's lone surrogates cannot be printed
        self.src = utf16_units(source)
        self.i = 0
        self.names: list[str] = []
        self.referenced: list[str] = []  # the names \k<name> refers to
        self._count_groups()

    def error(self, msg: str) -> JsRegexError:
        return JsRegexError(f"Invalid regular expression: /{self.source}/: {msg}")

    def _count_groups(self) -> None:
        p = self.src
        i, in_class = 0, False
        total, has_names = 0, False
        while i < len(p):
            c = p[i]
            if c == "\\":
                i += 2
                continue
            if in_class:
                if c == "]":
                    in_class = False
            elif c == "[":
                in_class = True
            elif c == "(":
                if p.startswith("(?<", i) and not p.startswith(("(?<=", "(?<!"), i):
                    total += 1
                    has_names = True  # whatever follows: V8 reads \k as a reference from here on
                elif not p.startswith("(?", i):
                    total += 1
            i += 1
        self.total_groups = total
        self.has_names = has_names

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.src[j] if j < len(self.src) else ""

    def translate(self) -> str:
        out = self.disjunction()
        if self.i < len(self.src):
            raise self.error("Unmatched ')'" if self.peek() == ")" else "Unexpected character")
        if any(name not in self.names for name in self.referenced):
            raise self.error("Invalid named capture referenced")  # V8 checks once the pattern is read
        return out

    def disjunction(self) -> str:
        alts = [self.alternative()]
        while self.peek() == "|":
            self.i += 1
            alts.append(self.alternative())
        return "|".join(alts)

    def alternative(self) -> str:
        parts: list[str] = []
        while self.i < len(self.src) and self.peek() not in ("|", ")"):
            parts.append(self.term())
        return "".join(parts)

    def term(self) -> str:
        c = self.peek()
        quantifiable = True
        if c == "^":
            self.i += 1
            atom, quantifiable = "^", False
        elif c == "$":
            self.i += 1
            atom, quantifiable = "\\Z", False
        elif c == "\\" and self.peek(1) in ("b", "B"):
            self.i += 2
            if self.src[self.i - 1] == "b":
                atom = f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))"
            else:
                atom = f"(?:(?<={_WORD})(?={_WORD})|(?<!{_WORD})(?!{_WORD}))"
            quantifiable = False
        elif c == "(":
            atom, quantifiable = self.group()
        elif c in "*+?":
            raise self.error("Nothing to repeat")
        elif c == "{":
            if _quantifier_at(self.src, self.i) is not None:
                raise self.error("Nothing to repeat")
            self.i += 1
            atom = _lit("{")
        elif c == "[":
            atom = self.char_class()
        elif c == ".":
            self.i += 1
            atom = f"[^{_LINE_TERMINATORS}]"
        elif c == "\\":
            atom = self.atom_escape()
        else:
            self.i += 1
            atom = _lit(c)
        return self.quantified(atom, quantifiable)

    def quantified(self, atom: str, quantifiable: bool) -> str:
        c = self.peek()
        braced = _quantifier_at(self.src, self.i) if c == "{" else None
        if c not in ("*", "+", "?") and braced is None:
            return atom
        lookbehind = atom.startswith(("(?<=", "(?<!"))
        if not quantifiable and not lookbehind:
            raise self.error("Nothing to repeat")  # ^ $ \b \B: V8 says so before reading the braces
        if braced is None:
            self.i += 1
            q = c
        else:
            lo, hi, end = braced
            if hi is not None and hi < lo:
                raise self.error("numbers out of order in {} quantifier")
            self.i = end
            q = f"{{{lo},{'' if hi is None else hi}}}" if hi != lo else f"{{{lo}}}"
        if lookbehind:
            raise self.error("Invalid quantifier")
        if self.peek() == "?":
            self.i += 1
            q += "?"
        return f"(?:{atom}){q}"

    def group(self) -> tuple[str, bool]:
        p = self.src
        self.i += 1
        name: str | None = None
        if p.startswith("?:", self.i):
            self.i += 2
            prefix, quantifiable = "(?:", True
        elif p.startswith(("?=", "?!"), self.i):
            prefix = "(" + p[self.i : self.i + 2]
            self.i += 2
            quantifiable = True  # Annex B: a lookahead may be quantified
        elif p.startswith(("?<=", "?<!"), self.i):
            prefix = "(" + p[self.i : self.i + 3]
            self.i += 3
            quantifiable = False
        elif p.startswith("?<", self.i):
            m = re.compile(r"\?<([A-Za-z_$][A-Za-z0-9_$]*)>").match(p, self.i)
            if m is None:
                raise self.error("Invalid capture group name")
            name = m.group(1)
            self.i = m.end()
            prefix, quantifiable = f"(?P<{self._pyname(name)}>", True
        elif self.peek() == "?":
            raise self.error("Invalid group")
        else:
            prefix, quantifiable = "(", True
        body = self.disjunction()
        if self.peek() != ")":
            raise self.error("Unterminated group")
        self.i += 1
        if name is not None:  # V8 takes a group's name when the group closes
            if name in self.names:
                raise self.error("Duplicate capture group name")
            self.names.append(name)
        return prefix + body + ")", quantifiable

    @staticmethod
    def _pyname(name: str) -> str:
        return "g_" + name.replace("$", "_S_")

    def atom_escape(self) -> str:
        p = self.src
        self.i += 1  # the backslash
        if self.i >= len(p):
            raise self.error("\\ at end of pattern")
        c = p[self.i]
        if c in "123456789":  # ASCII: "\\٣" is an identity escape
            m = re.compile(r"[0-9]+").match(p, self.i)
            assert m is not None
            n = int(m.group(0))
            if n <= self.total_groups:
                self.i = m.end()
                return f"(?:(?({n})\\{n}))"
            # Annex B: not a backreference; an octal escape, or 8 / 9 as themselves
            return self.legacy_octal_or_identity()
        if c == "k" and self.has_names:
            m = re.compile(r"k<([A-Za-z_$][A-Za-z0-9_$]*)>").match(p, self.i)
            if m is None:
                raise self.error("Invalid named reference")
            self.referenced.append(m.group(1))
            self.i = m.end()
            py = self._pyname(m.group(1))
            return f"(?:(?({py})(?P={py})))"
        if c in "dDwWsS":
            self.i += 1
            inner = _CLASS_ESCAPES[c.lower()]
            return f"[{'^' if c.isupper() else ''}{inner}]"
        return _lit(self.char_escape())

    def legacy_octal_or_identity(self) -> str:
        return _lit(self.char_escape())

    def char_escape(self, in_class: bool = False) -> str:
        """The character an escape at ``src[i]`` (after the backslash) stands for; advances."""
        p = self.src
        c = p[self.i]
        if c in _CONTROL:
            self.i += 1
            return _CONTROL[c]
        if c == "c":
            nxt = self.peek(1)
            if nxt.isascii() and (nxt.isalpha() or (in_class and (nxt.isdigit() or nxt == "_"))):
                self.i += 2
                return chr(ord(nxt) % 32)
            # "\c" not followed by a control letter: a backslash, then "c" is read as itself
            return "\\"
        if c in "01234567":  # Annex B's legacy octal escapes, \0 among them
            m = re.compile(r"[0-3][0-7]{0,2}|[4-7][0-7]?").match(p, self.i)
            assert m is not None
            self.i = m.end()
            return chr(int(m.group(0), 8))
        if c == "x":
            h = p[self.i + 1 : self.i + 3]
            if len(h) == 2 and all(x in _HEX for x in h):
                self.i += 3
                return chr(int(h, 16))
        if c == "u":
            h = p[self.i + 1 : self.i + 5]
            if len(h) == 4 and all(x in _HEX for x in h):
                self.i += 5
                return chr(int(h, 16))
        if c == "k" and self.has_names:  # in a class (atom_escape reads \k outside one)
            raise self.error("Invalid escape")
        self.i += 1
        return c  # identity escape

    def char_class(self) -> str:
        p = self.src
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        items: list[str] = []  # pieces of a Python class body
        while True:
            if self.i >= len(p):
                raise self.error("Unterminated character class")
            if p[self.i] == "]":
                self.i += 1
                break
            lo, lo_set = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                save = self.i
                self.i += 1
                hi, hi_set = self.class_atom()
                if lo_set is not None or hi_set is not None:
                    # Annex B: a range with a class escape at either end is the union of both ends and "-"
                    items.append(lo_set if lo_set is not None else _lit(lo))
                    items.append(_lit("-"))
                    items.append(hi_set if hi_set is not None else _lit(hi))
                    continue
                if ord(lo) > ord(hi):
                    self.i = save
                    raise self.error("Range out of order in character class")
                items.append(f"{_lit(lo)}-{_lit(hi)}")
                continue
            items.append(lo_set if lo_set is not None else _lit(lo))
        if not items:
            return "[\\s\\S]" if negated else "(?!)"
        return f"[{'^' if negated else ''}{''.join(items)}]"

    def class_atom(self) -> tuple[str, str | None]:
        """One class atom: (the character, None) or ("", a class body for \\d \\w \\s and their negations)."""
        p = self.src
        c = p[self.i]
        if c != "\\":
            self.i += 1
            return c, None
        self.i += 1
        if self.i >= len(p):
            raise self.error("\\ at end of pattern")
        e = p[self.i]
        if e in "dws":
            self.i += 1
            return "", _CLASS_ESCAPES[e]
        if e in "DWS":
            self.i += 1
            return "", self._complement(_CLASS_ESCAPES[e.lower()])
        if e == "b":
            self.i += 1
            return "\b", None
        if e == "-":
            self.i += 1
            return "-", None
        if e in "89":
            self.i += 1
            return e, None
        return self.char_escape(in_class=True), None

    @staticmethod
    def _complement(body: str) -> str:
        # A negated escape inside a class: the regex module's set operations say it exactly.
        return f"[^{body}]"


def translate_js_regex(source: str) -> str:
    """The ``regex``-module pattern (V1 syntax) equivalent to ``new RegExp(source)`` on UTF-16 text."""
    return "(?V1)" + _JsRegexTranslator(source).translate()
