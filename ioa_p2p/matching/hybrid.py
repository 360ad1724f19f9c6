"""The offline matcher: dense + lexical retrieval over every card, late interaction on the shortlist.

Stage 1 (every card, a few ms at 10k): the query's wordllama and MiniLM cosines with each card (one
matrix product over the cards' concatenated vectors) and its BM25 score over the card fields, each
standardised and weighted (:mod:`~ioa_p2p.matching.calibration`). Stage 2 (the best ``shortlist`` cards):
MiniLM late interaction (:mod:`~ioa_p2p.matching.late`) is added. :meth:`HybridMatcher.rank` returns the
shortlist re-ranked, then the rest in stage-1 order, each with a calibrated score in [0, 1].

Card vectors (:meth:`HybridMatcher.card_vectors`) are ``[wordllama / sqrt 2 | MiniLM / sqrt 2]``
(640-d, unit length, model id :data:`HYBRID_MODEL_ID`): their dot product with another such vector is the
mean of the two cosines, which is what a directory's vector index and the LSH keys use. The first 256
values times sqrt 2 are exactly the wordllama vector of the default card scheme
(``wordllama/l2_supercat/256``), so cards of both schemes share that scheme's LSH buckets
(``ioa_p2p.dht.lsh.card_buckets``).
"""

from __future__ import annotations

import copy
import math
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ioa_p2p.card.schemes import HYBRID_MODEL_ID, LITE_MODEL_ID
from ioa_p2p.errors import UsageError

from .base import Match
from .calibration import HYBRID, LATE, LEXICAL, LITE, MINILM, WORDLLAMA, Calibration
from .encoders import Matrix, MiniLMEncoder, TokenStates, WordLlamaEncoder
from .late import DEFAULT_CAPACITY, LateIndex
from .lexical import BM25Index
from .profile import CardProfile

_SPLIT = WordLlamaEncoder.dim
_HALF = 1.0 / math.sqrt(2.0)
QUERY_CACHE = 64
#: Card texts whose vectors are remembered (a card that leaves the index and comes back, or a new version
#: of a card with the same text, is not embedded again): about 2.5 KB each.
CARD_CACHE = 4096
#: Card texts whose late-interaction token states are remembered the same way (10-20 KB each).
STATE_CACHE = 512
_QueryCode = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None, TokenStates | None]


class HybridMatcher:
    """A :class:`~ioa_p2p.matching.Matcher` over wordllama, MiniLM, BM25 and late interaction.

    ``calibration`` chooses the signals (weights of 0 turn one off); :func:`hybrid_matcher` and
    :func:`lite_matcher` build the two supported configurations.
    """

    def __init__(
        self,
        calibration: Calibration = HYBRID,
        *,
        shortlist: int = 10,
        late_capacity: int = DEFAULT_CAPACITY,
        model_id: str = HYBRID_MODEL_ID,
        query_cache: int = QUERY_CACHE,
    ) -> None:
        if shortlist < 1:
            raise UsageError("the shortlist must hold at least one card")
        self.calibration = calibration
        self.shortlist = shortlist
        self.query_cache = query_cache
        self._model_id = model_id
        self._wordllama = WordLlamaEncoder()
        self._minilm = MiniLMEncoder() if self._needs_minilm else None
        self._keys: list[str] = []
        self._rows: dict[str, int] = {}
        self._profiles: dict[str, CardProfile] = {}
        self._matrix: Matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._lex_ids: npt.NDArray[np.intp] = np.zeros(0, dtype=np.intp)  # row -> BM25 document id
        self._prior: npt.NDArray[np.float32] = np.zeros(0, dtype=np.float32)  # row -> added to fused
        self._lexical = BM25Index()
        self._late = LateIndex(late_capacity)
        self._queries: OrderedDict[str, _QueryCode] = OrderedDict()
        self._cards: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()  # dense text -> row
        self._states: OrderedDict[str, TokenStates] = OrderedDict()  # dense text -> token states

    # ------------------------------------------------------------------ identity

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        # from the encoders, not the calibration: a variant of a hybrid matcher keeps its 640-d rows
        return _SPLIT + (MiniLMEncoder.dim if self._minilm is not None else 0)

    @property
    def _needs_minilm(self) -> bool:
        return self.calibration.uses(MINILM) or self.calibration.uses(LATE)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def variant(self, calibration: Calibration) -> HybridMatcher:
        """This index scored with another calibration (benchmarks, calibration runs); shares the index,
        so it must not be used after this matcher changes."""
        clone = copy.copy(self)
        clone.calibration = calibration
        clone._queries = OrderedDict()
        if clone._needs_minilm and self._minilm is None:
            raise UsageError("this matcher has no MiniLM vectors; build the variant from a hybrid matcher")
        return clone

    def load(self) -> None:
        """Load the models now (about 1 s) instead of on first use."""
        self._wordllama.load()
        if self._minilm is not None:
            self._minilm.load()

    def loaded(self) -> bool:
        """Whether every model this matcher uses is loaded in the process (they are shared by its
        matchers): ranking then starts at once."""
        return WordLlamaEncoder.loaded() and (self._minilm is None or MiniLMEncoder.loaded())

    def holds_models(self) -> bool:
        """Whether any model this matcher uses is loaded (wordllama alone after a card was embedded)."""
        return WordLlamaEncoder.loaded() or (self._minilm is not None and MiniLMEncoder.loaded())

    def unload(self) -> None:
        """Drop the models (the process's, shared with its other matchers): the index, the cached card
        vectors and token states stay, and the next embedding loads them again."""
        WordLlamaEncoder.unload()
        if self._minilm is not None:
            MiniLMEncoder.unload()

    # ------------------------------------------------------------------ cards

    def card_vectors(self, profiles: Iterable[CardProfile]) -> Matrix:
        """The vector each card publishes (see the module docstring)."""
        return self._encode_cards(list(profiles), keys=None)

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Plain texts (queries) as vectors of this matcher's scheme: what LSH probes and vector indexes
        compare with card vectors. With :meth:`model_id` and :attr:`dim` this makes the matcher an
        ``ioa_p2p.embedding.Embedder``."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._wordllama.embed(list(texts))]
        if self._minilm is not None:
            parts.append(self._minilm.embed(list(texts)))
        if len(parts) == 1:
            return parts[0]
        return (np.concatenate(parts, axis=1) * _HALF).astype(np.float32)

    def index(
        self, cards: Mapping[str, CardProfile], vectors: Mapping[str, npt.NDArray[np.float32]] | None = None
    ) -> None:
        """Add or replace cards by key (a key is the caller's id for the card, e.g. its peer id).

        ``vectors`` may give a card's published vector when it was made under this matcher's
        :attr:`model_id` (checked by the caller); those cards are not re-embedded, and their token
        states for late interaction are computed when they first reach a shortlist.
        """
        given = {k: v for k, v in (vectors or {}).items() if k in cards}
        for key in cards:
            if key not in given and (known := self._cards.get(cards[key].dense_text())) is not None:
                given[key] = known  # embedded before (the same text)
        for key, vector in given.items():
            if np.shape(vector) != (self.dim,) or not np.isfinite(vector).all():
                shape = np.shape(vector)
                raise UsageError(f"card {key!r} has a vector of shape {shape}, expected ({self.dim},)")
        fresh = [k for k in cards if k not in given]
        encoded = dict(zip(fresh, self._encode_cards([cards[k] for k in fresh], keys=fresh), strict=True))
        if self._minilm is not None and given:
            tokens = self._minilm.content_tokens([cards[k].dense_text() for k in given])
            for key, toks in zip(given, tokens, strict=True):
                self._late.add(key, toks, self._states.get(cards[key].dense_text()))
        for key, profile in cards.items():
            row = self._put_row(key, np.asarray(given.get(key, encoded.get(key)), dtype=np.float32))
            self._profiles[key] = profile
            self._lex_ids[row] = self._lexical.add(key, profile.lexical_fields())

    def embed_items(self, texts: Sequence[str]) -> Matrix:
        """Short texts (a card's separate claims) as wordllama rows: cheap, for
        :mod:`~ioa_p2p.matching.breadth`."""
        return self._wordllama.embed(list(texts))

    def set_priors(self, priors: Mapping[str, float]) -> None:
        """Set what is added to each card's fused score whatever the query (0 for cards not named): the
        caller's standing of the card, e.g. a discount for a card that claims every skill, or its record
        of past tasks (:class:`~ioa_p2p.dht.ranking.CardRanker`). Scores stay comparable: the priors are
        in fused units, and calibrated probabilities are computed from the sum."""
        self._prior[: len(self._keys)] = 0.0
        for key, value in priors.items():
            row = self._rows.get(key)
            if row is not None:
                self._prior[row] = float(value)

    def vectors(self, keys: Sequence[str] | None = None) -> Matrix:
        """The indexed vectors of ``keys`` (every card's, in index order, for None), one row each; a key
        that is not indexed gets a zero row."""
        count = len(self._keys)
        if keys is None:
            return self._matrix[:count].copy()
        out = np.zeros((len(keys), self.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            row = self._rows.get(key)
            if row is not None:
                out[i] = self._matrix[row]
        return out

    def prior(self, key: str) -> float:
        row = self._rows.get(key)
        return 0.0 if row is None else float(self._prior[row])

    def remove(self, keys: Iterable[str]) -> None:
        for key in keys:
            row = self._rows.pop(key, None)
            if row is None:
                continue
            last = len(self._keys) - 1
            if row != last:  # swap with the last row
                moved = self._keys[last]
                self._keys[row] = moved
                self._rows[moved] = row
                self._matrix[row] = self._matrix[last]
                self._lex_ids[row] = self._lex_ids[last]
                self._prior[row] = self._prior[last]
            self._keys.pop()
            self._profiles.pop(key, None)
            self._lexical.remove(key)
            self._late.remove(key)

    def _put_row(self, key: str, vector: npt.NDArray[np.float32]) -> int:
        row = self._rows.get(key)
        if row is None:
            row = len(self._keys)
            self._keys.append(key)
            self._rows[key] = row
            if row >= self._matrix.shape[0]:
                grown = np.zeros((max(16, 2 * row), self.dim), dtype=np.float32)
                grown[: self._matrix.shape[0]] = self._matrix
                self._matrix = grown
                ids = np.zeros(grown.shape[0], dtype=np.intp)
                ids[: self._lex_ids.shape[0]] = self._lex_ids
                self._lex_ids = ids
                prior = np.zeros(grown.shape[0], dtype=np.float32)
                prior[: self._prior.shape[0]] = self._prior
                self._prior = prior
            self._prior[row] = 0.0
        self._matrix[row] = vector
        return row

    def _encode_cards(self, profiles: list[CardProfile], keys: list[str] | None) -> Matrix:
        texts = [p.dense_text() for p in profiles]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._wordllama.embed(texts)]
        if self._minilm is not None:
            pooled, states = self._minilm.encode(texts, states=keys is not None)
            parts.append(pooled)
            for key, text, state in zip(keys or (), texts, states, strict=False):
                self._late.add(key, state.tokens, state)
                self._remember_states(text, state)
        rows = parts[0] if len(parts) == 1 else (np.concatenate(parts, axis=1) * _HALF).astype(np.float32)
        for text, row in zip(texts, rows, strict=True):
            self._cards[text] = row
            self._cards.move_to_end(text)
        while len(self._cards) > CARD_CACHE:
            self._cards.popitem(last=False)
        return rows

    # ------------------------------------------------------------------ ranking

    def rank(self, query: str, k: int, *, among: Collection[str] | None = None) -> list[Match]:
        """The ``k`` best cards for ``query`` (all indexed cards, or only those ``among``), best first."""
        if k <= 0 or not self._keys or not query.strip():
            return []
        rows = self._candidate_rows(among)
        if rows.size == 0:
            return []
        cal = self.calibration
        count = len(self._keys)
        block = self._matrix[:count] if among is None else self._matrix[rows]
        lex_ids = self._lex_ids[:count] if among is None else self._lex_ids[rows]
        prior = self._prior[:count] if among is None else self._prior[rows]
        parts = self._dense_parts(block, *self._encode_query(query)[:2])
        query_states = self._encode_query(query)[2]
        lexical = self._lexical.score_ids(query)[lex_ids]
        top = float(lexical.max()) if lexical.size else 0.0
        parts[LEXICAL] = lexical / top if top > 0 else lexical
        fused = prior.astype(np.float32, copy=True)
        for signal, values in parts.items():
            weight = cal.weights.get(signal, 0.0)
            if weight:
                fused += weight * (values if signal == LEXICAL else self._standard(signal, values))
        order = _best_rows(fused, max(k, self.shortlist))
        head, tail = order[: self.shortlist], order[self.shortlist :]
        keys = {i: self._keys[int(rows[i])] for i in order}
        late: dict[str, float] = {}
        if query_states is not None:
            late = self._late_scores(query_states, [keys[i] for i in head])
            default = cal.standard[LATE][0]
            for i in head:
                fused[i] += cal.weights[LATE] * cal.standardise(LATE, late.get(keys[i], default))
            head.sort(key=lambda i: (-float(fused[i]), keys[i]))
        ranked = head + tail
        return [self._match(i, keys[i], float(fused[i]), parts, late) for i in ranked[:k]]

    def _dense_parts(
        self,
        block: Matrix,
        wordllama: npt.NDArray[np.float32],
        pooled: npt.NDArray[np.float32] | None,
    ) -> dict[str, npt.NDArray[np.float32]]:
        """Both cosines of every card row in one matrix product (a contiguous pass over the rows)."""
        if pooled is None:
            return {WORDLLAMA: block @ wordllama}
        query = np.zeros((self.dim, 2), dtype=np.float32)
        query[:_SPLIT, 0] = wordllama * math.sqrt(2.0)
        query[_SPLIT:, 1] = pooled * math.sqrt(2.0)
        both = block @ query
        return {WORDLLAMA: both[:, 0], MINILM: both[:, 1]}

    def _encode_query(self, query: str) -> _QueryCode:
        """The query's vectors and token states (the last :data:`QUERY_CACHE` queries are remembered)."""
        cached = self._queries.get(query)
        if cached is None:
            wl = self._wordllama.embed([query])[0]
            pooled, states = None, None
            if self._minilm is not None:
                vectors, token_states = self._minilm.encode([query], states=self.calibration.uses(LATE))
                pooled = vectors[0]
                states = token_states[0] if token_states else None
            cached = (wl, pooled, states)
            self._queries[query] = cached
            while len(self._queries) > self.query_cache:
                self._queries.popitem(last=False)
        self._queries.move_to_end(query)
        return cached

    def _candidate_rows(self, among: Collection[str] | None) -> npt.NDArray[np.intp]:
        if among is None:
            return np.arange(len(self._keys))
        return np.array(sorted(self._rows[k] for k in set(among) if k in self._rows), dtype=np.intp)

    def _standard(self, signal: str, values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        mean, std = self.calibration.standard.get(signal, (0.0, 1.0))
        out: npt.NDArray[np.float32] = ((values - mean) / std).astype(np.float32)
        return out

    def _late_scores(self, query_states: TokenStates, keys: list[str]) -> dict[str, float]:
        assert self._minilm is not None
        missing = self._late.missing(keys)
        if missing:  # evicted from the bounded cache: encode again
            texts = [self._profiles[k].dense_text() for k in missing]
            _, states = self._minilm.encode(texts)
            for key, text, state in zip(missing, texts, states, strict=True):
                self._late.put(key, state)
                self._remember_states(text, state)
        return self._late.scores(query_states, keys)

    def _remember_states(self, text: str, states: TokenStates) -> None:
        self._states[text] = states
        self._states.move_to_end(text)
        while len(self._states) > STATE_CACHE:
            self._states.popitem(last=False)

    def _match(
        self,
        i: int,
        key: str,
        fused: float,
        parts: Mapping[str, npt.NDArray[np.float32]],
        late: Mapping[str, float],
    ) -> Match:
        detail = {signal: float(values[i]) for signal, values in parts.items()}
        if key in late:
            detail[LATE] = late[key]
        return Match(key, self.calibration.probability(fused), fused, detail)


def _best_rows(fused: npt.NDArray[np.float32], count: int) -> list[int]:
    """Indices of the ``count`` highest scores, best first (ties: lower index first), without a full sort."""
    whole = count >= len(fused)
    chosen = np.arange(len(fused)) if whole else np.argpartition(-fused, count - 1)[:count]
    return sorted((int(i) for i in chosen), key=lambda i: (-float(fused[i]), i))


def hybrid_matcher(**options: int) -> HybridMatcher:
    """The offline default: wordllama + MiniLM int8 + BM25 + late interaction."""
    return HybridMatcher(HYBRID, model_id=HYBRID_MODEL_ID, **options)


def lite_matcher(**options: int) -> HybridMatcher:
    """Without onnxruntime: wordllama + BM25 (its card vectors are the previous default's)."""
    return HybridMatcher(LITE, model_id=LITE_MODEL_ID, **options)


__all__ = ["HYBRID_MODEL_ID", "LITE_MODEL_ID", "HybridMatcher", "hybrid_matcher", "lite_matcher"]
