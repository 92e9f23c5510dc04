"""Labels selected in the forms people use (issue 25, item 4): Markdown task lists, struck-through
alternatives, a marked row of a rules table, labels that contain one another, and a future or
conditional verb that is no verdict. Each with the examiner's verdict; a table the grader cannot
read (no row marked, nothing else said) is undetermined (form), never a guess."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, Unread, compile_assertion

P, F, U = CheckOutcome.PASS, CheckOutcome.FAIL, CheckOutcome.UNDETERMINED
BANDS = ["NORMAL", "ELEVATED", "HIGH"]
REVIEW = ["APPROVE", "APPROVE_WITH_COMMENTS", "REJECT"]

TABLE = (
    "| Band | Range | |\n|---|---|---|\n"
    "| NORMAL | < 0.30 | {n} |\n| ELEVATED | 0.30-0.60 | {e} |\n| HIGH | > 0.60 | {h} |"
)
BARE = "| Band | Range |\n|---|---|\n| NORMAL | < 0.30 |\n| ELEVATED | 0.30-0.60 |\n| HIGH | > 0.60 |"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("- [ ] NORMAL\n- [x] ELEVATED\n- [ ] HIGH", P),
        ("* [ ] NORMAL\n* [X] ELEVATED\n* [ ] HIGH", P),
        ("1. [ ] NORMAL\n2. [\u2714] ELEVATED\n3. [ ] HIGH", P),
        ("- [x] NORMAL\n- [ ] ELEVATED\n- [ ] HIGH", F),
        ("- [x] NORMAL\n- [x] ELEVATED\n- [ ] HIGH", F),  # two ticked: ambiguous
        ("~~NORMAL~~ ELEVATED: 0.45 qt/hr is inside the band.", P),
        ("Band: <del>NORMAL</del> <s>HIGH</s> ELEVATED", P),
        ("~~ELEVATED~~ NORMAL after the recheck.", F),
        (TABLE.format(n="", e="\u2714", h=""), P),
        (TABLE.format(n="", e="x", h=""), P),
        (TABLE.format(n="", e="<-", h=""), P),
        (TABLE.format(n="\u2714", e="", h=""), F),
        (BARE.replace("| ELEVATED |", "| **ELEVATED** |"), P),
        (BARE + "\n\nAt 0.45 qt/hr the reading is ELEVATED.", P),
        (BARE + "\n\nAt 0.45 qt/hr the reading is HIGH.", F),
        ("| Engine | Band |\n|---|---|\n| 2 | ELEVATED |", P),
    ],
)
def test_a_band_selected_in_markdown(answer: str, expected: CheckOutcome) -> None:
    a = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS))
    assert a.check(answer).outcome is expected, a.check(answer).reason


def test_a_table_of_every_label_with_no_row_marked_is_undetermined_as_a_form() -> None:
    c = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS)).check(BARE)
    assert c.outcome is U and c.unread is Unread.FORM
    assert "marks no row" in c.reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Decision: APPROVE.", "APPROVE"),
        ("APPROVE_WITH_COMMENTS: rename the variable.", "APPROVE_WITH_COMMENTS"),
        ("Approve with comments: rename the variable.", "APPROVE_WITH_COMMENTS"),
        ("APPROVE-WITH-COMMENTS", "APPROVE_WITH_COMMENTS"),
        ("REJECT, not APPROVE.", "REJECT"),
    ],
)
def test_labels_that_contain_one_another_name_the_longest_written(answer: str, expected: str) -> None:
    for value in REVIEW:
        outcome = compile_assertion(Assertion(type="label", value=value, labels=REVIEW)).check(answer).outcome
        assert outcome is (P if value == expected else F), (answer, value)


def test_labels_differing_only_in_separators_are_refused() -> None:
    from proctor.graders import AssertionCompileError

    with pytest.raises(AssertionCompileError, match="underscores"):
        compile_assertion(Assertion(type="label", value="A B", labels=["A B", "A_B"]))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("It will become HIGH next month; today it is ELEVATED.", P),
        ("At this rate it is heading into HIGH, but it is ELEVATED now.", P),
        ("Above 0.60 qt/hr it would be HIGH; at 0.45 it is ELEVATED.", P),
        ("It would be ELEVATED.", P),  # a hedged verdict, not a condition
        ("Elle deviendra HIGH le mois prochain ; aujourd'hui elle est ELEVATED.", P),
        ("Diventerà HIGH a breve, per ora è ELEVATED.", P),
        ("It will become ELEVATED next month; today it is NORMAL.", F),
    ],
)
def test_a_future_change_or_a_conditional_band_is_no_verdict(answer: str, expected: CheckOutcome) -> None:
    a = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS))
    assert a.check(answer).outcome is expected, a.check(answer).reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("See https://docs.acme.io:443/amm/72-00).", P),  # default port, punctuation outside
        ("See http://docs.acme.io:80/amm/72-00.", P),
        ("See HTTPS://DOCS.ACME.IO./amm/72-00", P),  # scheme and host case, the root dot
        ("See https://docs.acme.io/amm/72%2D00", P),  # an escaped unreserved character
        ("See https://docs.acme.io:8443/amm/72-00", F),  # another port is another server
        ("See https://docs.acme.io/AMM/72-00", F),  # a path is case-sensitive
        ("See https://docs.acme.io/amm/72-00?page=2", F),
    ],
)
def test_urls_are_compared_as_a_browser_requests_them(answer: str, expected: CheckOutcome) -> None:
    from proctor.graders import CaseContext

    ctx = CaseContext(context={"amm": "Task: https://docs.acme.io/amm/72-00 (revision 4)."})
    c = compile_assertion(Assertion(type="grounded-urls")).check(answer, ctx)
    assert c.outcome is expected, c.reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("- [ ] HIGH\nAt 0.45 qt/hr the band is ELEVATED.", P),  # the line after a task item is no task
        ("- [ ] HIGH\n- [ ] NORMAL\n\nAt 0.45 qt/hr the band is ELEVATED.", P),
        ("| NORMAL | |\n| ELEVATED | \u2714 |\n| HIGH | |", P),  # no header: the first row is a label row
        ("| ELEVATED | \u2714 |\n| NORMAL | |\n| HIGH | |", P),  # the marked row first, unmarked last
        ("| NORMAL | |\n| ELEVATED | **x** |\n| HIGH | |", P),  # a mark in bold
        ("|NORMAL|<0.30|\n|**ELEVATED**|0.30-0.60|\n|HIGH|>0.60|", P),  # bold, no spaces
        ("| NORMAL | < 0.30 |\n| ELEVATED | 0.30-0.60 |\n\nNot a table row: HIGH.", F),
    ],
)
def test_the_edges_of_task_items_and_tables(answer: str, expected: CheckOutcome) -> None:
    a = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS))
    assert a.check(answer).outcome is expected, a.check(answer).reason
