"""A BM25 index over card fields, updated card by card (pure, in memory).

Each card is one document: the stemmed content terms (:func:`~ioa_p2p.matching.text.terms`) of its
fields, each field counted with its weight (:data:`FIELD_WEIGHTS`). Scores are Okapi BM25 (``k1`` 1.2,
``b`` 0.75, idf ``log(1 + (N - df + 0.5) / (df + 0.5))``) over the distinct terms of the query, computed
from an inverted index, so a query touches only the postings of its own terms (well under a millisecond at
10k cards). :meth:`BM25Index.normalised` divides by the best score of the query, giving the relative
lexical evidence in [0, 1] that the hybrid matcher fuses with the dense scores.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .text import terms

#: Weight of one occurrence of a term, per field. Untuned: every field counts like description text.
FIELD_WEIGHTS: Mapping[str, float] = {
    "name": 1.0,
    "description": 1.0,
    "skills": 1.0,
    "languages": 1.0,
    "media": 1.0,
    "tools": 1.0,
}


@dataclass(frozen=True, slots=True)
class _Doc:
    id: int
    tf: Mapping[str, float]
    length: float


class BM25Index:
    """Okapi BM25 over weighted fields, with :meth:`add` / :meth:`remove` of single documents.

    Every document gets a small integer id (returned by :meth:`add`); :meth:`score_ids` returns the scores
    of all ids as one array, computed per query term from cached numpy posting arrays.
    """

    def __init__(
        self, *, k1: float = 1.2, b: float = 0.75, field_weights: Mapping[str, float] = FIELD_WEIGHTS
    ) -> None:
        self.k1 = k1
        self.b = b
        self.field_weights = dict(field_weights)
        self._docs: dict[str, _Doc] = {}
        self._keys: list[str | None] = []
        self._free: list[int] = []
        self._lengths = np.zeros(16, dtype=np.float32)
        self._postings: dict[str, dict[int, float]] = {}
        self._arrays: dict[str, tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]] = {}
        self._total_length = 0.0

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, key: object) -> bool:
        return key in self._docs

    @property
    def capacity(self) -> int:
        """One more than the largest id in use (the length of :meth:`score_ids`)."""
        return len(self._keys)

    def add(self, key: str, fields: Mapping[str, str]) -> int:
        """Index (or re-index) document ``key`` from its fields; return its id."""
        self.remove(key)
        tf: dict[str, float] = {}
        for name, text in fields.items():
            weight = self.field_weights.get(name, 1.0)
            for term in terms(text):
                tf[term] = tf.get(term, 0.0) + weight
        doc_id = self._free.pop() if self._free else len(self._keys)
        if doc_id == len(self._keys):
            self._keys.append(key)
        else:
            self._keys[doc_id] = key
        if doc_id >= self._lengths.shape[0]:
            self._lengths = np.concatenate([self._lengths, np.zeros_like(self._lengths)])
        doc = _Doc(doc_id, tf, float(sum(tf.values())))
        self._docs[key] = doc
        self._lengths[doc_id] = doc.length
        self._total_length += doc.length
        for term, count in tf.items():
            self._postings.setdefault(term, {})[doc_id] = count
            self._arrays.pop(term, None)
        return doc_id

    def remove(self, key: str) -> bool:
        doc = self._docs.pop(key, None)
        if doc is None:
            return False
        self._total_length -= doc.length
        self._keys[doc.id] = None
        self._lengths[doc.id] = 0.0
        self._free.append(doc.id)
        for term in doc.tf:
            posting = self._postings.get(term)
            self._arrays.pop(term, None)
            if posting is not None:
                posting.pop(doc.id, None)
                if not posting:
                    del self._postings[term]
        return True

    def idf(self, term: str) -> float:
        df = len(self._postings.get(term, ()))
        n = len(self._docs)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _posting_arrays(self, term: str) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
        arrays = self._arrays.get(term)
        if arrays is None:
            posting = self._postings[term]
            arrays = (np.fromiter(posting.keys(), dtype=np.intp, count=len(posting)),
                      np.fromiter(posting.values(), dtype=np.float32, count=len(posting)))  # fmt: skip
            self._arrays[term] = arrays
        return arrays

    def score_ids(self, query: str) -> npt.NDArray[np.float32]:
        """BM25 score of every document id (0 where no query term occurs), shape ``(capacity,)``."""
        out = np.zeros(len(self._keys), dtype=np.float32)
        if not self._docs:
            return out
        average = max(self._total_length / len(self._docs), 1e-9)
        k1, b = self.k1, self.b
        for term in dict.fromkeys(terms(query)):
            if term not in self._postings:
                continue
            ids, tf = self._posting_arrays(term)
            norm = k1 * (1.0 - b + b * self._lengths[ids] / average)
            out[ids] += self.idf(term) * tf * (k1 + 1.0) / (tf + norm)
        return out

    def scores(self, query: str, among: Collection[str] | None = None) -> dict[str, float]:
        """BM25 score of every document sharing a term with ``query`` (others score 0, left out)."""
        values = self.score_ids(query)
        out = {}
        for doc_id in np.flatnonzero(values > 0):
            key = self._keys[int(doc_id)]
            if key is not None and (among is None or key in among):
                out[key] = float(values[doc_id])
        return out


__all__ = ["FIELD_WEIGHTS", "BM25Index"]
