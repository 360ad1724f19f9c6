"""Scoring card sketches against a query the way the node's matcher scores cards (pure).

A page search (:mod:`~ioa_p2p.dht.expand`) fetches only the few best candidates by sketch, and the node
then ranks the fetched cards with its hybrid matcher (wordllama and MiniLM cosines, BM25 over the card's
terms; ``ioa_p2p.matching.hybrid``). Choosing the cards by the wordllama cosine alone missed the matcher's
top 5 too often (at 50 agents of the teaming data the top 5 lay among the best 16 by that cosine 0.89 of
the time), so :class:`SketchScorer` mirrors the matcher's first stage on what a sketch carries
(``ioa_p2p.card.sketch``):

- the family part (wordllama): its cosine with the query's family view, standardised with the matcher's
  fixed constants (:data:`~ioa_p2p.matching.calibration.HYBRID`);
- the rest (MiniLM), when the sketch has one of the query's own scheme: its cosine with the query's rest,
  standardised the same way; a sketch without one (version 1, another scheme) counts its family part
  twice, so both kinds of sketch stay on one scale (a query without a rest counts the family part once:
  with the terms' weight of 2 that chose the matcher's top 5 slightly better, 0.88 against 0.85 among
  the best 12 at 160 agents);
- the terms (version 2): Okapi BM25 (``k1`` 1.2, ``b`` 0.75) of the query's term hashes over the hashes
  each candidate lists, with document frequencies and lengths taken over the candidates listed so far,
  divided by the best candidate's, weighted like the matcher's lexical signal (2).

Offline (``bench/bench_sketch_coverage.py``, 2026-11-27, agents of the teaming data): the matcher's top 5
lies among the best 12 by this score 1.00 of the time at 50 and 160 agents when the sketches carry the
MiniLM rest (cards of the matcher's 640-d scheme), 0.87 / 0.88 with the wordllama view and the terms
alone (cards of the default wordllama scheme; among the best 24: 0.98 / 0.96), 0.81 / 0.80 with the
view alone. Hence :func:`fetch_count`: a search fetches ``page_fetch`` cards (24), half as many when the
best candidates' sketches carry a rest comparable with the query's.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ioa_p2p.card import AgentCard
from ioa_p2p.card.sketch import SignedSketch, sketch_rest, sketch_terms, term_hash
from ioa_p2p.dht.ranking import card_profile
from ioa_p2p.matching.calibration import HYBRID, LEXICAL, MINILM, WORDLLAMA
from ioa_p2p.matching.text import terms as content_terms

K1, B = 1.2, 0.75
#: Share of the best candidates whose sketch must carry a comparable rest for :func:`fetch_count` to halve.
RICH_SHARE = 0.8


def _unit(values: Sequence[float] | npt.NDArray[Any] | None) -> npt.NDArray[np.float64] | None:
    if values is None:
        return None
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    norm = float(np.linalg.norm(v))
    return v / norm if v.size and norm > 0 else None


def card_terms(card: AgentCard) -> list[str]:
    """The content terms of a card as the matcher's lexical index sees them (field by field, in order):
    what a version 2 sketch lists the hashes of."""
    return [t for text in card_profile(card).lexical_fields().values() for t in content_terms(text)]


def query_terms(text: str) -> frozenset[int]:
    """The term hashes of a query."""
    return frozenset(term_hash(t) for t in content_terms(text))


class SketchScorer:
    """The score of sketches for one query (see the module docstring).

    ``view``: the query in the family's space; ``scheme`` / ``rest``: the asking node's card scheme and the
    query's vector after the view (None: none); ``terms``: the query's term hashes
    (:func:`~ioa_p2p.card.sketch.term_hash` of its content terms).
    """

    def __init__(
        self,
        view: Sequence[float] | npt.NDArray[Any],
        *,
        scheme: str | None = None,
        rest: Sequence[float] | npt.NDArray[Any] | None = None,
        terms: Collection[int] = (),
    ) -> None:
        query = _unit(view)
        self.view = query if query is not None else np.zeros(np.asarray(view).size)
        self.scheme = scheme
        self.rest = _unit(rest)
        self.terms = frozenset(terms)
        cal = HYBRID
        self._wl = cal.standard[WORDLLAMA]
        self._ml = cal.standard[MINILM]
        self._lexical_weight = cal.weights.get(LEXICAL, 0.0)
        #: peer bytes -> (query terms its sketch lists, how many terms it lists)
        self._docs: dict[bytes, tuple[frozenset[int], int]] = {}
        self._df: dict[int, int] = {}
        self._lengths = 0

    def dense(self, sketch: SignedSketch) -> float:
        """The standardised cosines of ``sketch`` (family part, and the rest or the family part again)."""
        v = sketch.vector()
        if v.shape != self.view.shape:
            return -math.inf
        family = self._standard(float(v @ self.view) / (float(np.linalg.norm(v)) or 1.0), self._wl)
        rest = sketch_rest(sketch)
        if self.rest is None:  # a query of a scheme without a rest: the family part alone
            return family
        if rest is None or not self.comparable(sketch):
            return 2.0 * family
        values = rest[1]
        cosine = float(values @ self.rest) / (float(np.linalg.norm(values)) or 1.0)
        return family + self._standard(cosine, self._ml)

    def comparable(self, sketch: SignedSketch) -> bool:
        """True when ``sketch`` carries a rest of the query's own scheme (scored on both parts)."""
        rest = sketch_rest(sketch)
        return (
            rest is not None
            and self.rest is not None
            and rest[0] == self.scheme
            and rest[1].shape == self.rest.shape
        )

    def listed(self, sketch: SignedSketch, replaces: SignedSketch | None = None) -> None:
        """Count a candidate's terms (``replaces``: its previous sketch, whose terms no longer count)."""
        if replaces is not None:
            self._forget(replaces.peer_id.raw)
        hashes = sketch_terms(sketch)
        matched = hashes & self.terms
        self._docs[sketch.peer_id.raw] = (matched, len(hashes))
        self._lengths += len(hashes)
        for term in matched:
            self._df[term] = self._df.get(term, 0) + 1

    def dropped(self, sketch: SignedSketch) -> None:
        """A candidate left the search."""
        self._forget(sketch.peer_id.raw)

    def lexical(self, peers: Iterable[bytes]) -> dict[bytes, float]:
        """The weighted BM25 score of each of ``peers`` (peer ID bytes) over the candidates listed, divided
        by the best one's (0 for a peer whose sketch lists none of the query's terms)."""
        if not self.terms or not self._docs or not self._lexical_weight:
            return {}
        count = len(self._docs)
        average = self._lengths / count or 1.0
        idf = {t: math.log(1.0 + (count - df + 0.5) / (df + 0.5)) for t, df in self._df.items()}
        raw: dict[bytes, float] = {}
        for peer in peers:
            matched, length = self._docs.get(peer, (frozenset(), 0))
            if matched:
                norm = K1 * (1.0 - B + B * length / average)
                raw[peer] = sum(idf[t] * (K1 + 1.0) / (1.0 + norm) for t in matched)
        best = max(raw.values(), default=0.0)
        if best <= 0:
            return {}
        return {peer: self._lexical_weight * value / best for peer, value in raw.items()}

    def _forget(self, peer: bytes) -> None:
        old = self._docs.pop(peer, None)
        if old is None:
            return
        self._lengths -= old[1]
        for term in old[0]:
            self._df[term] -= 1
            if not self._df[term]:
                del self._df[term]

    @staticmethod
    def _standard(raw: float, constants: tuple[float, float]) -> float:
        mean, std = constants
        return (raw - mean) / std


def fetch_count(scorer: SketchScorer, best: Sequence[SignedSketch], page_fetch: int, k: int) -> int:
    """How many of the ``best`` candidates (best first, ``page_fetch`` of them or fewer) to fetch: all, or
    half of ``page_fetch`` (at least ``k``) when at least :data:`RICH_SHARE` of them carry a comparable
    rest (see the module docstring)."""
    if not best:
        return 0
    rich = sum(scorer.comparable(s) for s in best[:page_fetch])
    if rich >= RICH_SHARE * min(len(best), page_fetch):
        return max(k, page_fetch // 2)
    return page_fetch


def settle_count(count: int, k: int) -> int:
    """How many of the ``count`` best candidates must have answered for a card fetch to end early: all but
    a sixth (at least ``k``; the matcher's top 5 lay among the best 10 of 12 by score with a rest 1.00 of
    the time, among the best 20 of 24 without 0.96)."""
    return min(count, max(k, count - count // 6))


__all__ = ["RICH_SHARE", "SketchScorer", "card_terms", "fetch_count", "query_terms", "settle_count"]
