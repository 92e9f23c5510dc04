"""The regexes inside a JSON schema: refused when the assertion is compiled if the engine cannot
read them, undetermined when they backtrack for ever, and the first problem named in promptfoo's
contains-json."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import AssertionCompileError, CheckOutcome, compile_assertion

DRAFT_4 = "http://json-schema.org/draft-04/schema#"


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        # draft 4's meta-schema does not check patternProperties' keys: the regex engine must
        (
            {"$schema": DRAFT_4, "type": "object", "patternProperties": {"^(x": {"type": "string"}}},
            'json-schema: invalid pattern "^(x" in the schema: missing ) at position 3',
        ),
        (
            {"$schema": DRAFT_4, "allOf": [{"type": "object"}, {"patternProperties": {"[z-a]": {}}}]},
            'json-schema: invalid pattern "[z-a]" in the schema: bad character range at position 4',
        ),
    ],
)
def test_a_schema_with_a_pattern_the_engine_cannot_read_is_refused_when_compiled(
    schema: dict[str, object], message: str
) -> None:
    # refused when the suite is loaded, not found out as an error on every answer
    with pytest.raises(AssertionCompileError) as err:
        compile_assertion(Assertion(type="json-schema", value=schema))
    assert str(err.value) == message


def test_a_schema_pattern_that_backtracks_for_ever_makes_the_check_undetermined() -> None:
    a = compile_assertion(Assertion(type="json-schema", value={"type": "string", "pattern": "^(a+)+$"}))
    c = a.check('"' + "a" * 50_000 + '!"')
    assert c.outcome is CheckOutcome.UNDETERMINED
    assert c.reason.startswith('json-schema: the schema\'s pattern "^(a+)+$" timed out after ')


def test_promptfoo_contains_json_names_the_problem_of_the_first_object() -> None:
    schema = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
    a = compile_assertion(Assertion(type="contains-json", value=schema, dialect="promptfoo"))
    c = a.check('First {"name": "pump"}, then {"id": "seven"}.')
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason == (
        "contains-json: answer contains JSON, but none matches the schema: \"'id' is a required property\""
    )
