"""How well a passage answers a query: cosine of the embeddings blended with the share of the query's
content words the passage (with its heading and file name) holds, so exact names still count (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ioa_p2p.adapters.retrieval.chunks import Passage
from ioa_p2p.embedding import Matrix

_STOP_WORDS = (
    "a an and are as at be by can do does for from how i in is it of on or the this to what when "
    "where which who why with you your about into me my please tell find show give explain"
)
_STOP = frozenset(_STOP_WORDS.split())


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9_]{2,}", text.lower()) if w not in _STOP}


def score_passages(
    query_vec: Matrix, matrix: Matrix, query: str, passages: Sequence[Passage], keyword_weight: float
) -> np.ndarray[Any, np.dtype[np.float64]]:
    cosine = (matrix @ query_vec.reshape(-1)).astype(np.float64)
    words = content_words(query)
    if not words or keyword_weight == 0:
        return cosine
    overlap = np.array(
        [len(words & content_words(p.heading + " " + p.path + " " + p.text)) / len(words) for p in passages]
    )
    return (1 - keyword_weight) * cosine + keyword_weight * overlap


__all__ = ["content_words", "score_passages"]
