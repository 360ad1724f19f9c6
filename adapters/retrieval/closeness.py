"""How near in meaning a question's words are to a fact's (word vectors): the paraphrase a question uses.

A question asks in its own words: "what does it cost" over a price list, "who teaches" over "Instructor:",
"when does it begin" over "starts on". The fact scorer (:mod:`.facts`) counts the question's terms a fact
holds; a term the fact does not hold but says in a near word ("price" for "cost", 0.67 apart in cosine)
earns part of its weight here. Nearness is the cosine of the two words' vectors in the wordllama
``l2_supercat`` token embeddings the project ships (:mod:`ioa_p2p.matching.static_model`: a word's
vector is the mean of its sub-word tokens), memory-mapped once per process, a word's vector computed
once and kept (bounded).

Only ordinary words count: names, codes, figures, units and designators ("Zone B") must be met as they
are written (a sibling product or another zone is no paraphrase), and a pair under :data:`FLOOR` is no
match at all ("dog" and "cat" are 0.14 apart; "begin" and "start" 0.82, "teacher" and "instructor" 0.44).
:func:`near_credit` is pure over the vectors it is given; :class:`WordVectors` is the default source.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ioa_p2p.errors import ConfigError
from ioa_p2p.matching.static_model import StaticModel

#: the cosine under which two words are no paraphrase of each other
FLOOR = 0.4
#: the share of a term's weight a near word earns at a cosine of 1 (a word of the fact itself earns 1)
SHARE = 0.6
#: words whose vectors one process keeps
MAX_WORDS = 50_000
_PLAIN = re.compile(r"[a-z]{3,}")

Vectors = npt.NDArray[np.float32]


class WordSource(Protocol):
    """Unit vectors of words (one row per word, rows of norm 1 or 0)."""

    def vectors(self, words: Sequence[str]) -> Vectors: ...


def plain(term: str) -> bool:
    """An ordinary word (letters only, 3 or more): no figure, code, unit (``u_kg``) or designator."""
    return bool(_PLAIN.fullmatch(term))


def near_credit(
    asked: Iterable[str], own: Iterable[str], source: WordSource, floor: float = FLOOR
) -> dict[str, float]:
    """For each plain word of ``asked`` that ``own`` lacks, the share of its weight the nearest plain word
    of ``own`` earns (``SHARE * cosine`` when the cosine reaches ``floor``); words with no near word are
    left out."""
    own_words = sorted({t for t in own if plain(t)})
    missing = sorted({t for t in asked if plain(t)} - set(own_words))
    if not missing or not own_words:
        return {}
    a, b = source.vectors(missing), source.vectors(own_words)
    best = (a @ b.T).max(axis=1)
    return {t: SHARE * float(c) for t, c in zip(missing, best, strict=True) if c >= floor}


class WordVectors:
    """The wordllama token embeddings, mapped on first use; each word's unit vector cached. Without the
    model (wordllama not installed) every vector is 0: no word is near another, the scorer counts only the
    words a fact holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: StaticModel | None = None
        self._missing = False
        self._cache: dict[str, Vectors] = {}

    def _embed(self, words: list[str]) -> Vectors:
        with self._lock:
            if self._model is None and not self._missing:
                try:
                    self._model = StaticModel.open()
                except ConfigError:
                    self._missing = True
            model = self._model
        if model is None:
            return np.zeros((len(words), 1), dtype=np.float32)
        rows = model.embed(words)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        out: Vectors = (rows / np.maximum(norms, 1e-9)).astype(np.float32)
        return out

    def vectors(self, words: Sequence[str]) -> Vectors:
        new = [w for w in dict.fromkeys(words) if w not in self._cache]
        if new:
            if len(self._cache) + len(new) > MAX_WORDS:
                self._cache.clear()
            for w, row in zip(new, self._embed(new), strict=True):
                self._cache[w] = row
        if not words:
            return np.zeros((0, 1), dtype=np.float32)
        out: Vectors = np.stack([self._cache[w] for w in words])
        return out


#: the process's word vectors (read-only weights, shared by every index)
WORDS = WordVectors()

__all__ = ["FLOOR", "SHARE", "WORDS", "WordSource", "WordVectors", "near_credit", "plain"]
