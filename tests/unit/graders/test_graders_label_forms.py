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
        # "yes" among "no" in the languages the graders read
        (TABLE.format(n="no", e="s\u00ed", h="no"), P),
        (TABLE.format(n="non", e="oui", h="non"), P),
        (TABLE.format(n="nein", e="ja", h="nein"), P),
        (TABLE.format(n="sim", e="n\u00e3o", h="n\u00e3o"), F),
    ],
)
def test_a_band_selected_in_markdown(answer: str, expected: CheckOutcome) -> None:
    a = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS))
    assert a.check(answer).outcome is expected, a.check(answer).reason


def test_a_table_of_every_label_with_no_row_marked_is_undetermined_as_a_form() -> None:
    c = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS)).check(BARE)
    assert c.outcome is U and c.unread is Unread.FORM
    assert "marks no row" in c.reason
    # every row in bold marks none either: bold selects a row only beside rows that are not
    every_bold = (
        "| Band | Range |\n|---|---|\n"
        "| **NORMAL** | < 0.30 |\n| **ELEVATED** | 0.30-0.60 |\n| **HIGH** | > 0.60 |"
    )
    c = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS)).check(every_bold)
    assert c.outcome is U and c.unread is Unread.FORM


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
        ("| **ELEVATED** | 0.30-0.60 |\n| NORMAL | < 0.30 |\n| HIGH | > 0.60 |", P),  # bold on the first line
        ("| Engine 2 | ELEVATED, not HIGH |", P),  # one row is no table: read as written
    ],
)
def test_the_edges_of_task_items_and_tables(answer: str, expected: CheckOutcome) -> None:
    a = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS))
    assert a.check(answer).outcome is expected, a.check(answer).reason


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("| NORMAL | |\n| ELEVATED | \u2714 |", P),  # a table of two rows is a table
        ("- [ ] HIGH\n- [x] ELEVATED\n- [ ] NORMAL", P),  # the last item, with no line after it
        ("| NORMAL | x |\n\n| ELEVATED | x |\n| HIGH | |", F),  # a blank line ends a table: two marks
        ("| NORMAL | |\n| ELEVATED | x |\n\n| Engine | 2 |\n| Flight | 114 |", P),  # a table before another
    ],
)
def test_the_smallest_table_and_the_last_task_item(answer: str, expected: CheckOutcome) -> None:
    a = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS))
    assert a.check(answer).outcome is expected, a.check(answer).reason


#: A one-label table (the reading), then a reference table of the other bands with no row marked.
READING_THEN_BANDS = (
    "| Reading | Band |\n|---|---|\n| 0.45 qt/hr | ELEVATED |\n\nReference bands:\n\n"
    "| Band | Range |\n|---|---|\n| NORMAL | below 0.30 qt/hr |\n| HIGH | above 0.60 qt/hr |"
)
#: A rules table, then the band chosen in a second table, then a sign-off table.
RULES_CHOICE_SIGNOFF = (
    "| Band | Range |\n|---|---|\n| NORMAL | below 0.30 qt/hr |\n| ELEVATED | 0.30 to 0.60 qt/hr |\n"
    "| HIGH | above 0.60 qt/hr |\n\nEngine 2 today:\n\n"
    "| Band | Engine 2 |\n|---|---|\n| NORMAL | |\n| ELEVATED | x |\n| HIGH | |\n\n"
    "| Checked by | Date |\n|---|---|\n| J. Smith | 2026-12-06 |"
)


@pytest.mark.parametrize("answer", [READING_THEN_BANDS, RULES_CHOICE_SIGNOFF])
def test_each_table_of_an_answer_is_read_on_its_own(answer: str) -> None:
    # read as one table, the first answer lists three bands and marks none (undetermined), and the
    # second's mark is looked up in the rules table (undetermined): each table selects on its own
    c = compile_assertion(Assertion(type="label", value="ELEVATED", labels=BANDS)).check(answer)
    assert c.outcome is P, c.reason


def test_where_each_form_begins_and_ends() -> None:
    from proctor.graders._forms import bold_at, forms

    text = "~~NORMAL~~ now\n- [ ] HIGH\n- [x] ELEVATED\n| A | x |\n| B | |\nend"
    f = forms(text)
    assert f.any
    assert f.struck == ((0, 10),)
    assert [f.is_struck(p) for p in (0, 9, 10)] == [True, True, False]
    high, elevated = text.index("- [ ] HIGH"), text.index("- [x] ELEVATED")
    assert f.tasks == ((high, high + 10, False), (elevated, elevated + 14, True))
    assert [f.task_at(p) for p in (high - 1, high, high + 9, high + 10, elevated, elevated + 14)] == [
        None,
        False,
        False,
        None,  # the newline after the item
        True,
        None,
    ]
    assert forms("- [x] ELEVATED\n- [ ] HIGH").task_at(0) is True  # an item at the very start
    # bold on the first line, and from a line's first character
    assert bold_at("**ELEVATED** now", 3) and bold_at("| A |\n**B**", 8) and not bold_at("**A** B", 6)
    a, b = text.index("| A"), text.index("| B")
    assert [(t.start, t.end, t.rows) for t in f.tables] == [(a, b + 7, ((a, a + 9, True), (b, b + 7, False)))]
    row_at = f.row_at
    assert [row_at(p) and row_at(p)[1] for p in (a - 1, a, a + 8, a + 9, b, b + 6, b + 7)] == [  # type: ignore[index]
        None,
        0,
        0,
        None,  # the newline between the rows
        1,
        1,
        None,
    ]
    assert not forms("NORMAL, not HIGH: ELEVATED.").any
    assert forms("- [x] ELEVATED").any and forms("<s>HIGH</s> ELEVATED").any
    assert forms("| NORMAL | |\n| ELEVATED | x |").any


def test_bold_is_read_on_the_line_that_holds_the_position() -> None:
    from proctor.graders._forms import bold_at

    text = "NORMAL\n**ELEVATED** or HIGH\n__HIGH__"
    first = text.index("**")
    assert [bold_at(text, p) for p in (first - 1, first, first + 11, first + 12)] == [
        False,
        True,
        True,
        False,
    ]
    last = text.index("__")
    assert [bold_at(text, p) for p in (last - 1, last, len(text) - 1)] == [False, True, True]
    assert bold_at("**HIGH**", 0) and not bold_at("HIGH **x**", 0)
