"""grounded-urls and the context's longer URLs: a URL the context writes as the start of a longer
path is grounded wherever it stands in the context, one that is only the start of a longer host
is not. And only-entities' pattern that backtracks for ever is undetermined."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import AssertionCompileError, CaseContext, CheckOutcome, compile_assertion

GROUNDED_URLS = compile_assertion(Assertion(type="grounded-urls"))
ANSWER = "See https://docs.acme.io/manual for the limits."


@pytest.mark.parametrize(
    "context",
    [
        "Manual: https://docs.acme.io/manual/v2/index.html",
        "https://docs.acme.io/manual/v2/index.html is the manual.",  # at the context's very start
        # the first place it is written is the start of a longer word; the second is a path
        "Old: https://docs.acme.io/manuals and new: https://docs.acme.io/manual/v2",
    ],
)
def test_a_url_the_context_writes_as_the_start_of_a_longer_path_is_grounded(context: str) -> None:
    c = GROUNDED_URLS.check(ANSWER, CaseContext(context={"d": context}))
    assert c.outcome is CheckOutcome.PASS


def test_a_url_that_is_only_the_start_of_a_longer_host_in_the_context_is_not_grounded() -> None:
    c = GROUNDED_URLS.check(
        "See https://docs.acme for the limits.", CaseContext(context={"d": "https://docs.acme.io/manual"})
    )
    assert c.outcome is CheckOutcome.FAIL
    assert c.reason == 'grounded-urls: 1 of 1 URLs not in the context: "https://docs.acme"'


def test_an_identifier_pattern_that_backtracks_for_ever_makes_only_entities_undetermined() -> None:
    a = compile_assertion(Assertion(type="only-entities", pattern="(a+)+$", allowed=["N123"]))
    c = a.check("a" * 30_000 + "!")
    assert c.outcome is CheckOutcome.UNDETERMINED
    assert c.reason == "only-entities: the pattern /(a+)+$/ timed out after 0.25 s"


def test_an_identifier_pattern_that_is_no_regex_is_refused_when_compiled() -> None:
    with pytest.raises(AssertionCompileError) as err:
        compile_assertion(Assertion(type="only-entities", pattern="N(12", allowed=["N123"]))
    assert str(err.value) == 'only-entities: invalid pattern "N(12": missing ) at position 4'
