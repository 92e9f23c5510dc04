"""promptfoo's contains-json extraction, as promptfoo 0.123 itself extracts (checked on Node 22)."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import compile_assertion
from proctor.graders._jscompat import JsonTooDeepError, promptfoo_json_objects, to_json_value


@pytest.mark.parametrize(
    ("answer", "objects"),
    [
        # valid JSON that PyYAML's scanner alone refuses, or that UTF-16 units would break
        ('{\n\t"band": "HIGH",\n\t"rate": 0.6\n}', [{"band": "HIGH", "rate": 0.6}]),
        ('{"a": 1,\t"b": 2}', [{"a": 1, "b": 2}]),
        ('Done \U0001f600 {"msg": "ok \U0001f44d"}', [{"msg": "ok \U0001f44d"}]),
        ('{"a": NaN}', [{"a": "NaN"}]),  # not JSON: YAML reads NaN as a string
        ('{"a": 1, "a": 2}', [{"a": 2}]),
        # // comments: outside quotes they become # comments, however many slashes; inside, text
        ("{a: x// c\n}", [{"a": "x# c"}]),
        ("{a: x///y\n}", [{"a": "x#y"}]),
        ("{a: x////y\n}", [{"a": "x##y"}]),
        ("{a: y, b: x//:c\n}", [{"a": "y", "b": "x#:c"}]),
        ('{"q": "a \\" // b"}', [{"q": 'a " // b'}]),
        ('{"q": "a \\\\" // b\n}', [{"q": "a \\"}]),
        ("{a: 'x // y'}", [{"a": "x // y"}]),
        ("{a: 'b''c // d'}", [{"a": "b'c // d"}]),
        ("{a: '' // c\n}", [{"a": ""}]),
        # a URL earlier on the line does not make a later // a URL
        ('{"u": "http://x", "n": 1 // note\n}', [{"u": "http://x", "n": 1}]),
        ('{"a": 1}//x', [{"a": 1}]),
        ("{a: b ://x}", [{"a": "b ://x"}]),  # a token with :// is a URL, not a comment
        ("{a: 1, //a://b\n b: 2}", [{"a": 1, "b": 2}]),  # only the token up to the // counts
        ("{a\n://x}", [{"a ://x": None}]),  # a line that opens with a URL's ://
        ("{a: x/y}", [{"a": "x/y"}]),
        # an apostrophe after a letter opens no quotation, so the // after it is a comment
        ("{a: it's // c\n}", [{"a": "it's"}]),
        ("{a: x'y // c\n}", [{"a": "x'y"}]),
        ("{a:\n'x // y', b: c\n}", [{"a": "x // y", "b": "c"}]),  # a quotation opening a line
        # braces are counted whatever the quotes say: the first balanced text fails, and that ends it
        ("{a: '}'}", []),
        ('{"a": "}"}', []),
        ("{a: .5, b: -1.5, c: 1.}", [{"a": 0.5, "b": -1.5, "c": 1}]),
        ('{"a": "~"}', [{"a": "~"}]),
        ('{"a": "\u00e9\U0001f600"}', [{"a": "\u00e9\U0001f600"}]),
        ('{"q": "a " // c\n}', [{"q": "a "}]),
        ('{"q": "a \\\\\\" // b"}', [{"q": 'a \\" // b'}]),  # three backslashes: the quote is escaped
        ("{a: x/ y}", [{"a": "x/ y"}]),
        ("{a: x/-y}", [{"a": "x/-y"}]),
        ("{a: 1,\n//\nb: 2}", [{"a": 1, "b": 2}]),
        # an object left open is closed at the end of the text, when that parses
        ('{"a": 1} {', [{"a": 1}]),
        ('{"a": 1', [{"a": 1}]),
        ("x {a: {b: 1}", [{"a": {"b": 1}}]),
        ("a{b{c", [{"c": None}]),
        ("{: :", []),
        ("{a: [1, 2", []),
        ("{", []),
    ],
)
def test_objects_are_extracted_as_promptfoo_extracts_them(answer: str, objects: list[object]) -> None:
    assert [to_json_value(d) for d in promptfoo_json_objects(answer)] == objects


def test_keys_are_javascript_strings() -> None:
    assert to_json_value(promptfoo_json_objects("{null: 1, true: 2, 1.50: 3, 7: 4}")[0]) == {
        "null": 1,
        "true": 2,
        "1.5": 3,
        "7": 4,
    }


TAB_INDENTED = 'Here it is:\n{\n\t"band": "HIGH",\n\t"rate": 0.6\n}'
SCHEMA = {"type": "object", "required": ["band"], "properties": {"band": {"enum": ["HIGH"]}}}


def test_tab_indented_json_is_json_to_the_promptfoo_contains_json_checks() -> None:
    def check(type_: str, value: object = None) -> bool | None:
        assertion = Assertion(type=type_, value=value, dialect="promptfoo")
        return compile_assertion(assertion).check(TAB_INDENTED).passed

    assert check("contains-json") is True
    assert check("contains-json", SCHEMA) is True
    assert check("not-contains-json") is False


def test_json_nested_deeper_than_python_reads_is_unmeasured_not_a_verdict() -> None:
    # promptfoo reads 3000 levels; Python's parsers stop near 1000. Retrying from each inner brace
    # took minutes and found an inner object; the check is now unmeasured, at once.
    shallow = '{"a":' * 900 + "1" + "}" * 900
    assert len(promptfoo_json_objects(shallow)) == 1
    deep = "x " + '{"a":' * 3000 + "1" + "}" * 3000
    with pytest.raises(JsonTooDeepError):
        promptfoo_json_objects(deep)
    for type_ in ("contains-json", "not-contains-json"):
        c = compile_assertion(Assertion(type=type_, dialect="promptfoo")).check(deep)
        assert c.passed is None
        assert "nests JSON deeper than it can be read as promptfoo reads it" in c.reason
