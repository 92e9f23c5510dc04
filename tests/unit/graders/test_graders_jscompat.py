"""Reading values as promptfoo (JavaScript) reads them: numbers as text, YAML, regexes, JSON extraction."""

from __future__ import annotations

import math

import pytest
import regex
import yaml
from hypothesis import given
from hypothesis import strategies as st

from proctor.graders._jscompat import (
    JsRegexError,
    js_number,
    js_string,
    load_js_yaml,
    promptfoo_json_objects,
    to_json_value,
    translate_js_regex,
    utf16_units,
)


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0.3, "0.3"),
        (42.0, "42"),
        (-0.0, "0"),
        (100.0, "100"),
        (1.0, "1"),
        (0.5, "0.5"),
        (-1.0, "-1"),
        (1e21, "1e+21"),
        (1.5e21, "1.5e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1.25e-7, "1.25e-7"),
        (0.000001, "0.000001"),
        (123.456, "123.456"),
        (-2.5, "-2.5"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (math.nan, "NaN"),
    ],
)
def test_numbers_print_as_javascript_prints_them(x: float, text: str) -> None:
    assert js_number(x) == text


def test_js_string_of_yaml_scalars() -> None:
    assert js_string(True) == "true"
    assert js_string(None) == "null"
    assert js_string(30) == "30"
    assert js_string(2**60) == "1152921504606847000"  # a double, as JavaScript holds it
    assert js_string([1, "a", None]) == "1,a,"
    assert js_string({"a": 1}) is None


def test_yaml_is_read_with_the_core_schema_as_js_yaml_reads_it() -> None:
    doc = load_js_yaml("a: yes\nb: 1:30\nc: 0.30\nd: 0o17\ne: ~\nf: 012\ng: .inf\nh: 0x1F\ni: TRUE\n")
    assert doc == {
        "a": "yes",
        "b": "1:30",
        "c": 0.3,
        "d": 15,
        "e": None,
        "f": 12,
        "g": math.inf,
        "h": 31,
        "i": True,
    }


def test_a_duplicate_key_is_an_error_as_in_js_yaml() -> None:
    with pytest.raises(yaml.YAMLError, match="duplicated mapping key"):
        load_js_yaml("tests:\n  - vars: {a: 1}\n    vars: {a: 2}\n")
    assert load_js_yaml('{"a": 1, "a": 2}', json=True) == {"a": 2}


def test_utf16_units_split_astral_characters() -> None:
    assert utf16_units("a\U0001f600") == "a\ud83d\ude00"
    assert utf16_units("plain") == "plain"
    # U+FFFF is the last character of one unit; only what lies above it takes two
    assert utf16_units("\uffff\U00010000") == "\uffff\ud800\udc00"
    assert utf16_units("\U00010000") == "\ud800\udc00"
    assert utf16_units("\U0010ffff") == "\udbff\udfff"
    assert len(utf16_units("\U0001f600\U0001f600")) == 4


def js_search(pattern: str, text: str) -> bool:
    return regex.compile(translate_js_regex(pattern)).search(utf16_units(text)) is not None


@pytest.mark.parametrize(
    ("pattern", "text", "match"),
    [
        (r"^a$", "a\n", False),
        (r"a.b", "a\u2028b", False),
        (r"a[^]b", "a\nb", True),
        (r"[]", "anything", False),
        (r"\d", "\u0663", False),
        (r"\w", "\u00e9", False),
        (r"\bx\b", "\u00e9x\u00e9", True),
        (r"\Bx", "ax", True),
        (r"\s", "\u00a0", True),
        (r"\s", "\u0085", False),
        (r"\S", "\u0085", True),
        (r"[\s]", "\ufeff", True),
        (r"[\S]", " ", False),
        (r"[\W]", "a", False),
        (r"[\D]", "5", False),
        (r"(a)?\1b", "b", True),
        (r"\1(a)", "a", True),
        (r"(?<n>x)\k<n>", "xx", True),
        (r"\k<n>(?<n>x)", "x", True),  # a reference before its group matches the empty string
        (r"(?<n>x)|\k<n>y", "y", True),
        (r"\k<n>", "k<n>", True),
        (r"a{2}", "aa", True),
        (r"a{2}", "a", False),
        (r"^a{2}$", "aaa", False),
        (r"^a{2}$", "aa", True),
        (r"^a{2,3}$", "aaaa", False),
        (r"^a{2,3}$", "aaa", True),
        (r"^a{2,}$", "aaaaa", True),
        (r"^a{2,2}$", "aa", True),
        (r"^a{0}$", "", True),
        (r"a{2,}", "aaa", True),
        (r"a{,2}", "a{,2}", True),
        (r"x{", "x{", True),
        (r"}", "}", True),
        (r"]", "]", True),
        (r"\cJ", "\n", True),
        (r"\c1", "\\c1", True),
        (r"[\c1]", "\x11", True),
        (r"[\c_]", "\x1f", True),
        (r"[\c{]", "\\", True),
        (r"[\c{]", "\x1b", False),
        (r"[\c`]", "\x00", False),
        (r"\c_", "\x1f", False),
        (r"\c_", "\\c_", True),
        (r"\x4", "x4", True),
        (r"\z41", "z41", True),
        ("\\\u0663", "\u0663", True),  # a digit that is not ASCII is an identity escape
        ("\\\u00b2", "\u00b2", True),
        ("[\\\u0663]", "\u0663", True),
        (r"\z41", "A", False),
        (r"\y0041", "y0041", True),
        (r"\y0041", "A", False),
        (r"[\z41]", "A", False),
        (r"\u12", "u12", True),
        (r"\101", "A", True),
        (r"\8", "8", True),
        (r"\0", "\0", True),
        (r"[\b]", "\b", True),
        (r"[a-c]", "b", True),
        (r"[\d-z]", "-", True),
        (r"[a\-z]", "-", True),
        (r"(?=a)*b", "b", True),
        (r"^.$", "\U0001f600", False),
        (r"^..$", "\U0001f600", True),
        (r"a+?", "aaa", True),
        (r"(?:ab)+", "abab", True),
        (r"(?<=\$)\d", "$5", True),
        (r"(?<!\$)\d", "$5", False),
        (r"a|", "zzz", True),
        (r"\p{L}", "p{L}", True),
        (r"\Z", "Z", True),
        (r"\/", "/", True),
        (r"^\u{2}$", "uu", True),
        (r"(a)\10", "a\b", True),
        (r"\c", "\\c", True),
        (r"[\c]", "c", True),
        (r"[^\d]", "x", True),
        (r"[^\d]", "5", False),
        (r"[\s\S]", "\n", True),
        (r"\W", "_", False),
        (r"\D", "x", True),
        (r"(?!a)b", "b", True),
        (r"(?!a)a", "a", False),
        (r"x*?y", "xxy", True),
        (r"a{1,2}?b", "aab", True),
        (r"[\x41-\x43]", "B", True),
        (r"[\u0041]", "A", True),
        (r"\t\n\v\f\r", "\t\n\v\f\r", True),
        (r"[.]", "a", False),
        (r"\.", "a", False),
        (r"(?:)", "", True),
        (r"a(?=b)", "ab", True),
        (r"(?<=a)b", "cb", False),
        (r"$^", "", True),
        (r"a$|b", "b", True),
        (r"^|x", "", True),
        (r"\k", "k", True),
        (r"[a-a]", "a", True),
        (r"[\-z]", "z", True),
        (r"[\+]", "+", True),
        (r"[\+]", "-", False),
        (r"[\*,]", "-", False),
        (r"(?:a)\1", "a\x01", True),  # (?:...) takes no number: \1 is an octal escape
        (r"(?!a)\1", "\x01", True),
        (r"(?<=a)\1", "a\x01", True),
        (r"(a)\2", "a\x02", True),  # one group: \2 is an octal escape
        (r"(a)(b)\1", "aba", True),  # \1 of two groups is a backreference
        (r"(a)(b)\1", "ab\x01", False),
        (r"a(b)\1", "abb", True),
        (r"[(]\1", "(\x01", True),  # a parenthesis in a class opens no group
        (r"[a(]\1", "(\x01", True),
        (r"[a](b)\1", "abb", True),  # after a class, groups count again
        (r"\((a)\1", "(aa", True),
        (r"\(\1", "(\x01", True),
        (r"\d(a)\1", "5aa", True),
        (r"\k<a>(?<!x)", "k<a>", True),  # a lookbehind is no named group
        (r"\k[(?<a>)]", "k)", True),
        (r"\08", "\x008", True),
        (r"[\08]", "8", True),
        (r"\00", "\x00", True),
        (r"a \1", "a \x01", True),
        (r"!\1", "!\x01", True),
        (r"\x41", "A", True),
        (r"(?<n>a)\2", "a\x02", True),  # one group, named: \2 is an octal escape
        (r"(?<n>a)\2", "aa", False),
        (r"(?<n>a)\1", "aa", True),
        (r"(?<n>a)\d", "a5", True),
        (r"[\k<n>]", "<", True),
        (r"[\8]", "8", True),
        (r"[\9]", "9", True),
        (r"[\8]", "\\", False),
        (r"(?<n>a)\cJ\x41\u0042\0\f", "a\nAB\0\f", True),
    ],
)
def test_javascript_regex_meaning(pattern: str, text: str, match: bool) -> None:
    assert js_search(pattern, text) is match


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("a**", "Nothing to repeat"),
        ("*a", "Nothing to repeat"),
        ("a{2}{3}", "Nothing to repeat"),
        ("^*", "Nothing to repeat"),
        (r"\b+", "Nothing to repeat"),
        ("(?<=a)*", "Invalid quantifier"),
        ("{2}", "Nothing to repeat"),
        ("a{3,2}", "numbers out of order"),
        ("[z-a]", "Range out of order"),
        ("(a", "Unterminated group"),
        ("a)", "Unmatched ')'"),
        ("[a", "Unterminated character class"),
        ("(?i)a", "Invalid group"),
        ("(?P<n>a)", "Invalid group"),
        ("(?<1>a)", "Invalid capture group name"),
        ("(?<n>a)(?<n>b)", "Duplicate capture group name"),
        (r"(?<n>a)\k<m>", "Invalid named capture referenced"),
        (r"(?<n>a)\k", "Invalid named reference"),
        ("a\\", "\\ at end of pattern"),
        ("[\\", "\\ at end of pattern"),
        ("[a\\", "\\ at end of pattern"),
        ("(?<a", "Invalid capture group name"),
        ("(?<a)", "Invalid capture group name"),
        # with a named group anywhere, \k in a class is no identity escape
        (r"(?<n>a)[\k]", "Invalid escape"),
        (r"[\k](?<n>a)", "Invalid escape"),
        (r"\k(?<a", "Invalid named reference"),  # a group's name need not be valid to make \k one
        (r"\k(?<1>)", "Invalid named reference"),
        (r"(?<n>a)[a-\k]", "Invalid escape"),
        # which of two errors V8 names: an assertion is no atom before braces are read; a lookbehind's
        # braces are read first; a duplicate name is found when its group closes
        (r"\b{2,1}", "Nothing to repeat"),
        ("^{2,1}", "Nothing to repeat"),
        ("(?<=a){2,1}", "numbers out of order"),
        ("(?<n>(?<n>", "Unterminated group"),
        ("(?<n>a)(?<n>", "Unterminated group"),
        ("(?<n>(?<n>b))**", "Duplicate capture group name"),
        (r"(?<n>a)(?<n>b)\k<m>", "Duplicate capture group name"),
        ("(?<a>(?<a>)", "Unterminated group"),
        ("(?<a>(?<a>))", "Duplicate capture group name"),
        ("(?<a>)|(?<a>)", "Duplicate capture group name"),
        # a reference to a name no group has is found once the whole pattern is read
        (r"(?<n>\k<m>", "Unterminated group"),
        (r"\k<m>(?<n>a)[", "Unterminated character class"),
        (r"\k<m>(?<n>a)", "Invalid named capture referenced"),
    ],
)
def test_what_javascript_rejects_is_rejected(pattern: str, message: str) -> None:
    # the messages are V8's (checked against Node 22 with new RegExp(pattern))
    with pytest.raises(JsRegexError, match=regex.escape(message)):
        translate_js_regex(pattern)


def test_js_string_of_floats_lists_and_objects() -> None:
    assert js_string(-0.5) == "-0.5"
    assert js_string([1.5, [2, 3]]) == "1.5,2,3"
    assert js_string([{"a": 1}]) is None
    assert js_string(["", None]) == ","


def test_promptfoo_json_extraction_reads_comments_and_quotes_as_promptfoo_does() -> None:
    assert promptfoo_json_objects("{a: 'it''s', // c\n b: 2}") == [{"a": "it's", "b": 2}]
    assert promptfoo_json_objects('{"a": "x // not a comment"}') == [{"a": "x // not a comment"}]
    assert promptfoo_json_objects("{a: 1, /// three slashes\n b: 2}") == [{"a": 1, "b": 2}]
    assert promptfoo_json_objects('{"q": "say \\"hi\\" // x"}') == [{"q": 'say "hi" // x'}]
    assert promptfoo_json_objects("don't {a: 1}") == [{"a": 1}]
    assert promptfoo_json_objects("{a: {b: {c: 1}}} {d: 2}") == [{"a": {"b": {"c": 1}}}, {"d": 2}]
    assert promptfoo_json_objects("{x: 1 } } {y: 2}") == [{"x": 1}, {"y": 2}]


def test_promptfoo_json_extraction() -> None:
    assert promptfoo_json_objects('a {"x": 1} b {"y": [2]} c') == [{"x": 1}, {"y": [2]}]
    assert promptfoo_json_objects("[1, 2]") == []
    assert promptfoo_json_objects("{a: 1}") == [{"a": 1}]
    assert promptfoo_json_objects('{"a": {"b": 1}') == [{"a": {"b": 1}}]
    assert promptfoo_json_objects('{"a": 1, // note\n "b": 2}') == [{"a": 1, "b": 2}]
    assert promptfoo_json_objects('{"u": "http://x.org/a"}') == [{"u": "http://x.org/a"}]
    assert promptfoo_json_objects("{: :}") == []
    assert promptfoo_json_objects("no braces") == []


def test_a_rejected_pattern_is_named_as_written() -> None:
    # the message quotes the pattern as the user wrote it, printable (not as UTF-16 surrogates)
    with pytest.raises(JsRegexError) as err:
        translate_js_regex("\U0001f600{2,1}")
    message = str(err.value)
    assert message == "Invalid regular expression: /\U0001f600{2,1}/: numbers out of order in {} quantifier"
    message.encode("utf-8")


def test_yaml_special_floats_merge_keys_and_dates_as_promptfoo_loads_them() -> None:
    doc = load_js_yaml(
        "a: -.inf\nb: .NaN\nc: +.inf\nd: -.INF\ne: .Inf\nf: +12\ng: -0o7\nh: 1e3\ni: 1_000\nj: 0b11"
    )
    assert doc["a"] == doc["d"] == -math.inf
    assert doc["c"] == doc["e"] == math.inf
    assert math.isnan(doc["b"])
    assert {k: doc[k] for k in "fghij"} == {"f": 12, "g": "-0o7", "h": 1000, "i": "1_000", "j": "0b11"}
    # merge keys are applied, more than one among them, and a key of the mapping's own wins
    merged = load_js_yaml("a: &x {b: 1}\nc:\n  <<: *x\n  <<: {e: 3}\n  d: 2\nf:\n  <<: *x\n  b: 2\n")
    assert merged == {"a": {"b": 1}, "c": {"b": 1, "e": 3, "d": 2}, "f": {"b": 2}}
    # a date is a JavaScript Date: JSON.stringify writes it in UTC with milliseconds
    dates = load_js_yaml(
        "d: 2020-01-02\ne: 2020-1-2 3:04:05\nf: 2020-01-02T03:04:05Z\n"
        "g: 2020-01-02T03:04:05.123456+02:00\nh: 0099-01-02\ni: 2020-01-02 03:04:05.5 -1\n"
    )
    assert to_json_value(dates) == {
        "d": "2020-01-02T00:00:00.000Z",
        "e": "2020-01-02T03:04:05.000Z",
        "f": "2020-01-02T03:04:05.000Z",
        "g": "2020-01-02T01:04:05.123Z",
        "h": "0099-01-02T00:00:00.000Z",
        "i": "2020-01-02T04:04:05.500Z",
    }


def test_numbers_beyond_a_double_stay_text_as_in_js_yaml_5() -> None:
    big = "1" + "0" * 400
    doc = load_js_yaml(
        f"a: {big}\nb: 1e400\nc: -1E400\nd: 0x{'F' * 300}\ne: 0x{'F' * 20}\nf: 9007199254740993\n"
        f"g: {'9' * 5000}\nh: 1e308\ni: 0o{'7' * 400}\nj: -{big}\n"
    )
    assert doc == {
        "a": big,
        "b": "1e400",
        "c": "-1E400",
        "d": "0x" + "F" * 300,
        "e": 0xFFFFFFFFFFFFFFFFFFFF,
        "f": 9007199254740993,
        "g": "9" * 5000,
        "h": 1e308,
        "i": "0o" + "7" * 400,
        "j": "-" + big,
    }
    assert [js_string(doc[k]) for k in "efh"] == ["1.2089258196146292e+24", "9007199254740992", "1e+308"]


def test_an_integer_is_a_double_to_javascript() -> None:
    assert js_string(2**53 + 1) == "9007199254740992"
    assert js_string(-(2**53) - 1) == "-9007199254740992"
    assert js_string(10**400) == "Infinity"
    assert js_string(-(10**400)) == "-Infinity"


@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_a_safe_integer_prints_its_digits(n: int) -> None:
    assert js_string(n) == str(n)


@given(st.text())
def test_utf16_units_are_the_utf16_encoding(text: str) -> None:
    data = text.encode("utf-16-le", "surrogatepass")
    units = "".join(chr(int.from_bytes(data[i : i + 2], "little")) for i in range(0, len(data), 2))
    assert utf16_units(text) == units


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"a+?", "aaa", "a"),
        (r"a*?b", "aab", "aab"),
        (r"a{1,2}?", "aaa", "a"),
        (r"a??", "a", ""),
        (r"a{2,}?", "aaaa", "aa"),
        (r"(?:ab)+", "ababx", "abab"),
        (r"\d+", "x12y", "12"),
    ],
)
def test_what_a_javascript_regex_finds(pattern: str, text: str, found: str) -> None:
    # the text a match covers, which a reason quotes: lazy quantifiers stop early
    m = regex.compile(translate_js_regex(pattern)).search(utf16_units(text))
    assert m is not None and m.group() == found


def test_duplicates_behind_merge_keys_and_unhashable_keys_are_errors() -> None:
    with pytest.raises(yaml.YAMLError, match="duplicated mapping key"):
        load_js_yaml("x: &x {b: 1}\ny:\n  <<: *x\n  a: 1\n  a: 2\n")
    with pytest.raises(yaml.YAMLError):
        load_js_yaml("? [1, 2]\n: a\n")  # js-yaml: "object-based map does not support complex keys"
