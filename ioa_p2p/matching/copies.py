"""Cards that copy an earlier card (pure): a thousand copies of a good card are one candidate, not a thousand.

:class:`CopyIndex` keeps each card's terms (the stemmed content words of its description, skills, task
types and tools: :func:`~ioa_p2p.matching.text.terms`) in arrival order. A card is a *copy* when it holds
at least :data:`CONTAINED` (70 %) of the terms of a card that arrived before it (all of them for a card
of fewer than :data:`MIN_TERMS` terms): an exact duplicate, an honest card's text with more added (a card
that targets another's queries while claiming more), or such a text with words left out or reordered.
Honest cards are far apart in this sense: among the 172 agents of the teaming dev data sets no card holds
more than 25 % of another's terms. An attacker who rewrites the copied text in other words escapes the
check; the breadth discount and local reputation remain (``docs/matching.md``).

:meth:`CopyIndex.copies` looks, for every card, only at the cards that hold one of its rarest terms (a
copy must hold at least one of them), so the work per card is small; a card all of whose terms more than
:data:`COMMON` cards share says nothing specific enough to be copied and is not looked for.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from .text import terms

#: Share of an earlier card's terms a card must hold to be its copy.
CONTAINED = 0.7
#: Cards with fewer terms than this are copied only when all their terms are held.
MIN_TERMS = 3
#: A term shared by more cards than this is too common to find copies by.
COMMON = 256


def card_terms(texts: Iterable[str]) -> frozenset[str]:
    """The distinct stemmed content words of a card's texts."""
    return frozenset(t for text in texts for t in terms(text))


class CopyIndex:
    """Terms per card, in arrival order, and which cards copy an earlier one."""

    def __init__(self) -> None:
        self._terms: dict[str, frozenset[str]] = {}
        self._order: dict[str, int] = {}
        self._by_term: dict[str, set[str]] = {}
        self._arrivals = 0
        self._cached: set[str] | None = None

    def add(self, key: str, texts: Iterable[str]) -> None:
        """Index ``key``'s texts (a new version with the same terms keeps its place in the order)."""
        found = card_terms(texts)
        if self._terms.get(key) == found:
            return
        self.remove(key)
        self._cached = None
        self._terms[key] = found
        self._order[key] = self._arrivals
        self._arrivals += 1
        for term in found:
            self._by_term.setdefault(term, set()).add(key)

    def remove(self, key: str) -> None:
        if key in self._terms:
            self._cached = None
        for term in self._terms.pop(key, frozenset()):
            holders = self._by_term.get(term)
            if holders is not None:
                holders.discard(key)
                if not holders:
                    del self._by_term[term]
        self._order.pop(key, None)

    def copies(self) -> set[str]:
        """The cards that copy a card that arrived before them (cached until a card is added or removed)."""
        if self._cached is not None:
            return self._cached
        out: set[str] = set()
        for original, found in self._terms.items():
            if not found:
                continue
            need = len(found) if len(found) < MIN_TERMS else math.ceil(CONTAINED * len(found))
            rarest = sorted(found, key=lambda t: len(self._by_term.get(t, ())))[: len(found) - need + 1]
            if len(self._by_term.get(rarest[0], ())) > COMMON:
                continue
            first = self._order[original]
            candidates: Counter[str] = Counter()
            for term in rarest:
                candidates.update(k for k in self._by_term.get(term, ()) if self._order[k] > first)
            for key in candidates:
                if len(found & self._terms[key]) >= need:
                    out.add(key)
        self._cached = out
        return out


__all__ = ["COMMON", "CONTAINED", "MIN_TERMS", "CopyIndex", "card_terms"]
