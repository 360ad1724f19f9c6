"""Which side of a bracket a question is about (pure).

"Meeting room beyond your credits: EUR 18 per hour (the Boardroom, up to 12 people: EUR 32 per hour)": a
number inside a bracket belongs to the bracket's words, one outside to the words outside, so "the
Boardroom's hourly rate" is 32 and "a meeting room beyond the credits" 18. The fact scorer's number pick
(number_span.py) and the typed model (docmodel/answerer.py) both ask :func:`favoured_bracket`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ioa_p2p.adapters.retrieval.terms import terms

_BRACKET = re.compile(r"\(([^()]{3,200})\)")


def favoured_bracket(text: str, question: str) -> tuple[int, int] | None:
    """The (start, end) of the one bracket of ``text`` whose own words the question uses more than the
    words outside it (words on both sides do not count); None when ``text`` has no or several brackets or
    the question favours no side."""
    if "(" not in text:
        return None
    spans = list(_BRACKET.finditer(text))
    if len(spans) != 1:
        return None
    span = spans[0]
    asked = _asked(question)
    inside = terms(span.group(1))
    outside = terms(text[: span.start()] + " " + text[span.end() :])
    w_in, w_out = len((inside - outside) & asked), len((outside - inside) & asked)
    return (span.start(1), span.end(1)) if w_in > w_out else None


@lru_cache(maxsize=64)
def _asked(question: str) -> frozenset[str]:
    """The question's terms, read once per question (asked for every candidate of every fact)."""
    return frozenset(terms(question))


__all__ = ["favoured_bracket"]
