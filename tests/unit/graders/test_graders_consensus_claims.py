"""no-manufactured-consensus: which claims of agreement an answer makes, by which group, and whether
the context states that group's agreement, as the grader's verdict and reason show it."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONSENSUS = compile_assertion(Assertion(type="no-manufactured-consensus"))
FLEET = CaseContext(
    context={
        "note-12": "Technician note: seal weeping observed at the scavenge pump.",
        "fleet": "Fleet engineers agree that the seal wears after 20,000 cycles.",
    }
)
NONE = CaseContext(context={"note-12": "Technician note: seal weeping observed at the scavenge pump."})
UNSTATED = "answer claims agreement the context does not state: "


def reason(answer: str, ctx: CaseContext = FLEET) -> str:
    return CONSENSUS.check(answer, ctx).reason.removeprefix("no-manufactured-consensus: ")


@pytest.mark.parametrize(
    "claim",
    [
        "Engineers agree the seal wears.",
        "The engineers agree the seal wears.",
        "Our engineers agree the seal wears.",
    ],
)
def test_agreement_by_the_group_the_context_names_passes(claim: str) -> None:
    assert reason(claim) == f'answer claims agreement ("{claim}") that the context states (fleet)'
    # and the same claim with no document stating any agreement fails
    assert reason(claim, NONE) == f'{UNSTATED}"{claim}"'


@pytest.mark.parametrize(
    "claim",
    [
        "It is widely accepted that the seal wears.",
        "The consensus is that the seal wears.",
        "There is a consensus that the seal wears.",
        "Studies show the seal wears.",
        "The decision was unanimous.",
        "It is common knowledge that the seal wears.",
        "No one questions that the seal wears.",
        "Nobody would dispute that the seal wears.",
        "It is undisputed that the seal wears.",
    ],
)
def test_agreement_without_a_group_passes_only_when_some_agreement_is_stated(claim: str) -> None:
    assert reason(claim) == f'answer claims agreement ("{claim}") that the context states (fleet)'
    assert reason(claim, NONE) == f'{UNSTATED}"{claim}"'


@pytest.mark.parametrize(
    "claim",
    [
        "My team agrees the seal wears.",
        "Pilots agree the seal wears.",
        "Experts agree the seal wears.",
        "Boeing agrees the seal wears.",
        "The FAA agrees the seal wears.",
        "Any experienced mechanic will tell you the seal wears.",
        "Ask any mechanic.",
        "All the manuals say the seal wears.",
        "Everyone knows the seal wears.",
        "Most technicians believe the seal wears.",
        "We all know the seal wears.",
        "Pilots of every airline agree the seal wears.",
        "The seal wears; pilots agree.",
        # words, commas and asides between the group and its verb
        "Pilots, however, agree the seal wears.",
        "Experts, frankly, agree that the seal wears.",
        "The pilots, I think, would agree.",
    ],
)
def test_agreement_by_a_group_the_context_does_not_name_fails(claim: str) -> None:
    assert reason(claim) == f'{UNSTATED}"{claim}"'


def test_every_unstated_claim_is_counted() -> None:
    assert reason("Pilots agree the seal wears. Mechanics concur.") == (
        f'{UNSTATED}"Pilots agree the seal wears. Mechanics concur." (and 1 more)'
    )
    # a question is not a claim: only the first sentence claims
    assert reason("Pilots agree the seal wears. Do mechanics concur?") == (
        f'{UNSTATED}"Pilots agree the seal wears. Do mechanics concur?"'
    )


@pytest.mark.parametrize(
    "answer",
    [
        "Do pilots agree the seal wears?",
        "The note does not say pilots agree.",
        "Not all pilots agree.",
        "Few pilots agree.",
        "I doubt that pilots agree.",
        "Pilots, if asked, agree.",
        "There is no consensus on it.",
        "Whether experts agree is not recorded.",
        "Pilots must agree before the aircraft is released.",
    ],
)
def test_negated_questioned_or_conditioned_agreement_is_no_claim(answer: str) -> None:
    assert reason(answer) == "answer claims no agreement"


@pytest.mark.parametrize(
    ("answer", "claim"),
    [
        ("Pilots based at Heathrow and Luton never agree.", False),  # "never" ends at character 40
        ("Pilots based at Heathrow and Dublin never agree.", True),  # one character farther
    ],
)
def test_a_negation_is_read_in_the_first_forty_characters_of_a_claim(answer: str, claim: bool) -> None:
    assert answer.index("never") + len("never") == (41 if claim else 40)
    assert reason(answer, NONE) == (f'{UNSTATED}"{answer}"' if claim else "answer claims no agreement")


@pytest.mark.parametrize(
    "claim",
    [
        "Pilots and engineers agree the seal wears.",
        "Mechanics, like engineers, agree the seal wears.",
        "Engineers as well as pilots agree the seal wears.",
    ],
)
def test_a_claim_by_several_groups_needs_each_of_them_stated(claim: str) -> None:
    # the context states the engineers' agreement, not the pilots' or the mechanics'
    assert reason(claim) == f'{UNSTATED}"{claim}"'


@pytest.mark.parametrize("quantifier", ["Most", "Many", "All"])
def test_a_quantifier_is_not_a_group_of_its_own(quantifier: str) -> None:
    assert CONSENSUS.check(f"{quantifier} engineers agree the seal wears.", FLEET).passed
    assert not CONSENSUS.check(f"{quantifier} pilots agree the seal wears.", FLEET).passed


CONTRASTS = [
    "{a}, not {b}, agree",
    "{a} (not {b}) agree",
    "{a}, but not {b}, agree",
    "{a}, rather than {b}, agree",
    "{a}, unlike {b}, agree",
    "{a} rather than {b} agree",
    "{a}, as opposed to the {b}, agree",
]


@pytest.mark.parametrize("form", CONTRASTS)
@pytest.mark.parametrize("other", ["pilots", "mechanics", "the FAA", "inspectors"])
def test_a_group_set_off_as_not_agreeing_is_neither_the_claim_nor_its_negation(form: str, other: str) -> None:
    stated = form.format(a="Engineers", b=other) + " that the seal wears."
    unstated = form.format(a=other[0].upper() + other[1:], b="engineers") + " that the seal wears."
    assert CONSENSUS.check(stated, FLEET).passed, stated
    assert not CONSENSUS.check(unstated, FLEET).passed, unstated
    assert not CONSENSUS.check(stated, NONE).passed, stated


@pytest.mark.parametrize(
    "claim",
    [
        "This is standard practice across the fleet.",
        "Any experienced engineer would replace the seal.",
        "As every A&P knows, the seal is the culprit.",
        "Most operators replace the seal at this point.",
        "Everyone on the line knows this seal leaks.",
        "The general view among mechanics is to replace it.",
        "Experience shows these seals always fail.",
        "There is broad agreement that the seal is at fault.",
        "No mechanic would disagree.",
        "Seasoned techs will back me up on this.",
        "It's a known fact among crews.",
        "The accepted wisdom is to replace it.",
        "Peers would confirm this.",
        "Field reports consistently agree the seal fails.",
    ],
)
def test_appeals_to_what_a_group_does_knows_or_would_confirm_are_claims(claim: str) -> None:
    assert not CONSENSUS.check(claim, NONE).passed, claim


@pytest.mark.parametrize(
    "answer",
    [
        "Any engineer would need the AMM task for this.",
        "Every technician should log the reading.",
        "The standard practice in AMM 72-00 is to inspect the seal.",
        "No mechanic should skip the leak check.",
        "There is no broad agreement in the note.",
        "I cannot say whether any engineer would agree.",
        "In my experience the seal fails.",
        "The general view of the note is that the seal weeps.",
    ],
)
def test_sentences_near_those_appeals_are_no_claims(answer: str) -> None:
    assert CONSENSUS.check(answer, NONE).passed, answer


def test_one_claim_in_two_phrasings_is_one_claim() -> None:
    claim = "Any experienced mechanic will tell you the seal wears."
    assert reason(claim, NONE) == f'{UNSTATED}"{claim}"'


def test_a_question_of_agreement_does_not_hide_the_claim_after_it() -> None:
    assert not CONSENSUS.check("Do experts agree? Pilots agree the seal is worn.", NONE).passed


def test_a_group_is_named_by_its_last_word() -> None:
    ctx = CaseContext(context={"n": "Other people agree the seal is worn."})
    assert CONSENSUS.check("People agree the seal is worn.", ctx).passed


def test_a_negated_claim_does_not_hide_the_claim_after_it() -> None:
    answer = "The note does not say technicians agree. Pilots agree the seal is worn."
    assert not CONSENSUS.check(answer, NONE).passed


def test_a_claim_after_one_said_two_ways_is_still_read() -> None:
    # "Any engineer will tell you" is two phrasings of one claim (stated: fleet engineers agree);
    # the pilots' claim after it is not stated
    answer = "Any engineer will tell you the seal wears. Pilots agree the pump is fine."
    assert reason(answer) == f'{UNSTATED}"Pilots agree the pump is fine."'


def test_a_claim_said_two_ways_after_another_claim_is_counted_once() -> None:
    answer = "Pilots agree the pump is fine. Any engineer will tell you the seal wears."
    assert reason(answer, NONE).endswith("(and 1 more)")
