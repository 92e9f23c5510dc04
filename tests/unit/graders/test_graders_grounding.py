"""cites, grounded-urls, no-manufactured-consensus, similar and llm-rubric."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import (
    DEFAULT_SIMILARITY_THRESHOLD,
    AssertionCompileError,
    CaseContext,
    Check,
    CheckOutcome,
    compile_assertion,
)
from proctor.graders._canon import _confusables

AMM = {
    "amm-72-00": "Oil consumption bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr. "
    "See https://docs.acme.io/amm/72-00 for the full task.",
    "sb-72-0891": "Service bulletin: replace the oil scavenge pump seal.",
}


def run(
    type_: str, answer: str, ctx: CaseContext, value: object = None, threshold: float | None = None
) -> Check:
    return compile_assertion(Assertion(type=type_, value=value, threshold=threshold)).check(answer, ctx)


# -- cites ------------------------------------------------------------------------------------


def test_cites_every_context_document_by_default() -> None:
    c = run("cites", "ELEVATED per AMM 72-00; see also SB 72-0891.", CaseContext(context=AMM))
    assert c == Check("cites", CheckOutcome.PASS, "cites: answer names amm-72-00 and sb-72-0891")


def test_cites_names_the_missing_ids() -> None:
    c = run("cites", "ELEVATED per AMM 72-00.", CaseContext(context=AMM))
    assert c.passed is False
    assert c.reason == "cites: answer does not name sb-72-0891 (1 of 2 documents)"


@pytest.mark.parametrize(
    "answer", ["(AMM 72-00)", "amm-72-00", "AMM72-00", "AMM_72_00", "amm 72 00", "AMM 72-00-00"]
)
def test_cites_tolerates_case_spacing_and_separators(answer: str) -> None:
    assert run("cites", answer, CaseContext(context=AMM), value=["amm-72-00"]).passed is True


@pytest.mark.parametrize("answer", ["AMM 72-001", "AMM 72", "XAMM 72-00", "the amm says"])
def test_cites_does_not_accept_a_different_id(answer: str) -> None:
    assert run("cites", answer, CaseContext(context=AMM), value=["amm-72-00"]).passed is False


def test_cites_with_nothing_to_cite_is_unmeasured() -> None:
    c = run("cites", "anything", CaseContext())
    assert c.passed is None
    assert "no document ids to cite" in c.reason


def test_not_cites() -> None:
    assert run("not-cites", "per AMM 72-00", CaseContext(context=AMM), value=["amm-72-00"]).passed is False


# -- grounded-urls ----------------------------------------------------------------------------


def test_grounded_urls() -> None:
    ctx = CaseContext(context=AMM)
    assert run("grounded-urls", "No links here.", ctx) == Check(
        "grounded-urls", CheckOutcome.PASS, "grounded-urls: answer has no URLs"
    )
    c = run("grounded-urls", "Full task: https://docs.acme.io/amm/72-00/.", ctx)
    assert c.passed is True
    assert c.reason == "grounded-urls: all 1 URLs in the answer appear in the context"
    assert run("grounded-urls", "See (HTTPS://DOCS.ACME.IO/amm/72-00#step-3).", ctx).passed is True


def test_invented_url_fails_and_is_quoted() -> None:
    c = run(
        "grounded-urls",
        "See https://docs.acme.io/amm/72-00 and https://forum.example.net/oil-tips.",
        CaseContext(context=AMM),
    )
    assert c.passed is False
    assert c.reason == 'grounded-urls: 1 of 2 URLs not in the context: "https://forum.example.net/oil-tips"'


def test_a_url_path_that_differs_is_not_grounded() -> None:
    assert run("grounded-urls", "https://docs.acme.io/amm/72-01", CaseContext(context=AMM)).passed is False


HOST = "docs.acme.io"
#: Letters of HOST and the look-alikes the canonical form maps to them (UTS #39 data)
#: (full-width and other compatibility forms left out: NFKC, as IDNA, makes them the letter itself)
LOOK_ALIKES = sorted(
    (k, v)
    for k, v in _confusables().items()
    if v in set(HOST) and k.lower() == k and len(n := unicodedata.normalize("NFKC", k)) == 1 and n != v
)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(LOOK_ALIKES), st.sampled_from(["https://", ""]))
def test_a_url_whose_host_has_a_look_alike_letter_is_another_host(
    look_alike: tuple[str, str], scheme: str
) -> None:
    """A homograph ("docs.\u0430cme.io", Cyrillic a) is not the context's host, though the
    canonical form reads both alike: a browser takes it to someone else's server."""
    char, letter = look_alike
    homograph = HOST.replace(letter, char, 1)
    assert (
        run("grounded-urls", f"See {scheme}{homograph}/amm/72-00.", CaseContext(context=AMM)).passed is False
    )
    # the same URL in the context itself is grounded
    ctx = CaseContext(context={"amm": f"See https://{homograph}/amm/72-00 for the task."})
    assert run("grounded-urls", f"See {scheme}{homograph}/amm/72-00.", ctx).passed is True


@pytest.mark.parametrize(
    "url",
    [
        "https://docs.ac\u200bme.io/amm/72-00",  # an invisible character: the same host to a browser
        "https://\uff44\uff4f\uff43\uff53.acme.io/amm/72-00",  # full-width letters: NFKC, as IDNA maps them
        "docs.acme.io/amm/72-00/",
    ],
)
def test_a_url_a_browser_reads_as_the_contexts_is_grounded(url: str) -> None:
    assert run("grounded-urls", f"See {url} now.", CaseContext(context=AMM)).passed is True


# -- no-manufactured-consensus --------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "Other technicians familiar with this airframe likely agree.",
        "Experts agree that 0.30 qt/hr is fine.",
        "Most mechanics would agree it is NORMAL.",
        "It is widely accepted that some oil use is normal.",
        "The consensus is that this engine burns oil.",
        "All manuals say the same.",
        "Studies show consumption rises with engine age.",
        "There is a broad consensus among operators.",
        "Everyone knows the -7B burns oil.",
    ],
)
def test_manufactured_consensus_fails(answer: str) -> None:
    c = run("no-manufactured-consensus", answer, CaseContext(context=AMM))
    assert c.passed is False
    assert c.reason.startswith(
        'no-manufactured-consensus: answer claims agreement the context does not state: "'
    )


@pytest.mark.parametrize(
    "answer",
    [
        "ELEVATED per AMM 72-00.",
        "Not all experts agree on the cause.",
        "There is no consensus on the root cause.",
        "If you agree, I will raise the work order.",
        "The two readings agree within 0.01 qt/hr.",
        "All parties must agree on the inspection date.",
    ],
)
def test_answers_without_consensus_claims_pass(answer: str) -> None:
    c = run("no-manufactured-consensus", answer, CaseContext(context=AMM))
    assert c.passed is True, c.reason


def test_consensus_stated_by_the_context_is_allowed() -> None:
    ctx = CaseContext(
        context={"fleet-note": "Fleet engineers agree that the -7B consumes more oil after 20,000 cycles."}
    )
    c = run("no-manufactured-consensus", "Engineers agree the -7B burns more oil late in life.", ctx)
    assert c.passed is True
    assert c.reason.endswith("that the context states (fleet-note)")


# -- similar and llm-rubric -----------------------------------------------------------------


def bag_of_words(texts: Sequence[str]) -> list[list[float]]:
    vocab = ["elevated", "normal", "high", "oil", "band", "0.30"]
    return [[float(t.lower().split().count(w)) for w in vocab] for t in texts]


def test_similar_against_the_reference() -> None:
    ctx = CaseContext(reference="elevated oil band", embedder=bag_of_words)
    c = run("similar", "elevated oil band", ctx)
    assert c == Check(
        "similar", CheckOutcome.PASS, "similar: similarity 1.00 to the reference, threshold 0.80"
    )
    c = run("similar", "normal", ctx)
    assert c.passed is False
    assert c.reason == "similar: similarity 0.00 to the reference, below the threshold 0.80"


def test_similar_against_value_with_threshold() -> None:
    ctx = CaseContext(embedder=bag_of_words)
    c = run("similar", "elevated oil", ctx, value="elevated oil band", threshold=0.5)
    assert c.passed is True
    assert c.reason == "similar: similarity 0.82 to value, threshold 0.50"
    assert DEFAULT_SIMILARITY_THRESHOLD == 0.8


def test_similar_without_an_embedder_is_unmeasured_and_stays_so_when_negated() -> None:
    ctx = CaseContext(reference="ELEVATED")
    for type_ in ("similar", "not-similar"):
        c = run(type_, "ELEVATED", ctx)
        assert c.passed is None
        assert c.reason == f"{type_}: needs an embedder (none configured)"


def test_similar_with_a_failing_embedder_is_unmeasured() -> None:
    def broken(texts: Sequence[str]) -> list[list[float]]:
        raise RuntimeError("model not loaded")

    c = run("similar", "x", CaseContext(reference="y", embedder=broken))
    assert c.passed is None
    assert c.reason == 'similar: embedder failed: RuntimeError: "model not loaded"'


def test_similar_without_a_target_is_unmeasured() -> None:
    assert run("similar", "x", CaseContext(embedder=bag_of_words)).passed is None


def test_llm_rubric_needs_the_judge() -> None:
    for type_ in ("llm-rubric", "not-llm-rubric"):
        c = run(type_, "anything", CaseContext(), value="Cites the AMM first.")
        assert c.passed is None
        assert "needs the judge" in c.reason


@pytest.mark.parametrize("url", ["https://docs.acme", "https://docs.acme.i", "docs.acme.io/amm/72-0"])
def test_the_start_of_a_context_url_is_not_that_url(url: str) -> None:
    assert run("grounded-urls", f"See {url} now.", CaseContext(context=AMM)).passed is False


def test_the_first_ungrounded_url_is_the_one_quoted() -> None:
    c = run(
        "grounded-urls",
        "See https://forum.example.net/a then https://other.example.org/b.",
        CaseContext(context=AMM),
    )
    assert c.reason == (
        'grounded-urls: 2 of 2 URLs not in the context: "https://forum.example.net/a" (and 1 more)'
    )


@pytest.mark.parametrize("value", ["amm-72-00", ["amm-72-00", 7]])
def test_cites_value_must_be_a_list_of_ids(value: object) -> None:
    with pytest.raises(ValueError, match="list of document ids"):
        Assertion(type="cites", value=value)
    # and the grader refuses it too, for an assertion built without validation
    with pytest.raises(AssertionCompileError, match="must be a list of document ids"):
        compile_assertion(Assertion.model_construct(type="cites", value=value, dialect=None))


def test_a_supported_claim_names_only_the_documents_stating_its_group() -> None:
    ctx = CaseContext(
        context={
            "fleet": "Fleet engineers agree that the seal wears.",
            "crew": "Pilots agree the cabin is quiet.",
        }
    )
    c = run("no-manufactured-consensus", "Engineers agree the seal wears.", ctx)
    assert c.passed is True
    assert c.reason.endswith("that the context states (fleet)")
