"""Whether a document names a question's thing by another word: "yacht" / "boat", "bike" / "bicycles" (pure).

:mod:`.subject` refuses a price when a noun-phrase word of the question is used in no form by the answering
document. Documents often name the same thing otherwise; :func:`nearest_word` finds the document's word
closest to the question's in wordllama's static token space (the process's one model,
:class:`~ioa_p2p.matching.encoders.WordLlamaEncoder`: memory-mapped, no download), and a word whose cosine
reaches :data:`SYNONYM_COSINE` counts as used.

Words sharing their first :data:`SAME_START` letters with the question's word are not candidates: they
were judged as forms already, and a word split into sub-word tokens is close to its own first piece
("termite" / "term", "ticket" / "tick") without meaning it.

The threshold was chosen on the readable goal sets (every subject-check refusal of probe2-7, nat, nat2,
chain, suites 2-4 train/dev: 57 firings, 2026-11-28): the answerable goals' words reach 0.48 ("yacht" /
"boat"), 0.54 ("weekday" / "day"), 0.70 ("bike" / "bicycles"); the closest word of a goal that must be
refused stays at or below 0.44 ("houseboat" / "home"). 0.46 sits between them (margin 0.02 each side:
narrow; a static model cannot tell co-hyponyms from synonyms much better).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ioa_p2p.errors import ConfigError

#: a document word at least this close (cosine, wordllama-256) to the question's word names the same thing
SYNONYM_COSINE = 0.46
#: words sharing this many first letters with the question's word are forms (or sub-word echoes) of it
SAME_START = 4
MAX_WORDS = 5_000
_WORD = re.compile(r"[a-z][a-z'-]+")


def document_words(text: str, stop: Iterable[str] = ()) -> list[str]:
    """The distinct lower-case words of ``text`` (3 letters or more, not in ``stop``), at most
    :data:`MAX_WORDS`."""
    skip = frozenset(stop)
    words = dict.fromkeys(w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in skip)
    return list(words)[:MAX_WORDS]


def nearest_word(word: str, words: list[str]) -> tuple[str, float]:
    """The word of ``words`` closest to ``word`` and its cosine (("", 0.0) when none is a candidate or
    the model is not installed)."""
    start = word[:SAME_START]
    candidates = [w for w in words if w[:SAME_START] != start]
    if not candidates:
        return "", 0.0
    try:
        from ioa_p2p.matching.encoders import WordLlamaEncoder

        vectors = WordLlamaEncoder().embed([word, *candidates])
    except ConfigError:  # wordllama missing: no synonym is known, the plain check stands
        return "", 0.0
    scores = vectors[1:] @ vectors[0]
    best = int(scores.argmax())
    return candidates[best], float(scores[best])


def named_otherwise(word: str, words: list[str]) -> bool:
    """Whether ``words`` holds a word close enough to ``word`` to name the same thing."""
    return nearest_word(word, words)[1] >= SYNONYM_COSINE


__all__ = ["SAME_START", "SYNONYM_COSINE", "document_words", "named_otherwise", "nearest_word"]
