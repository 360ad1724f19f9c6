"""Counts of kinds, each priced by an earlier lookup (pure).

"Get the adult fare and the one for a child. Work out the cost for 2 adults plus 3 children": each count
names a kind that exactly one earlier lookup is about (its own word, no other lookup's), so the cost is
``2 * v1 + 3 * v2``. :func:`counted_kinds` returns that calculation, or ``None`` when a count names no
lookup, names one ambiguously, or fewer than two kinds are counted (one count is the ordinary "N at that
price", planned elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.planning.answer_types import request_act
from ioa_p2p.planning.code import MARK_RE
from ioa_p2p.planning.literal import digits
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_COUNT = re.compile(r"(?<![\w.,-])(\d+)\s+([a-z][a-z-]{2,})\b", re.I)
#: A count joined to the next by words that add (never "per", "of", "at": those are rates and sizes).
_JOINED = re.compile(r"^\s*(?:,\s*)?(?:plus|and|\+|,|with)\s*$", re.I)


def counted_kinds(clause: str, before: Sequence[PlanStep], index: int) -> PlanStep | None:
    """The calculation ``N1 * vA + N2 * vB ...`` for a clause counting kinds the earlier lookups price."""
    if MARK_RE.search(clause) or request_act(clause) != "compute":
        return None
    lookups = [s for s in before if s.kind == LOOKUP]
    if len(lookups) < 2:
        return None
    labels = {s.index: words_of(s.text) for s in lookups}
    text = digits(clause)
    counts = list(_COUNT.finditer(text))
    if len(counts) < 2:
        return None
    if any(not _JOINED.match(text[a.end() : b.start()]) for a, b in zip(counts, counts[1:], strict=False)):
        counts = []  # "4 weeks of full livery plus 1 full clip": each count's words name its kind
    terms = _named_terms(counts, labels) or _described_terms(text, labels)
    if terms is None:
        return None
    expression = " + ".join(f"{count} * v{n}" for count, n in terms)
    needs = tuple(n for _, n in terms)
    return PlanStep(index, CALC, clause, f"({expression})", needs)


def _named_terms(counts: list[re.Match[str]], labels: dict[int, set[str]]) -> list[tuple[str, int]] | None:
    """Each count's kind named by its first word, that exactly one lookup is about."""
    terms: list[tuple[str, int]] = []
    for m in counts:
        key = next(iter(words_of(m.group(2))), "")
        hits = [n for n, words in labels.items() if key and _names(key, words)]
        if len(hits) != 1 or hits[0] in {n for _, n in terms}:
            return None
        terms.append((m.group(1), hits[0]))
    return terms or None


#: "4 weeks of full livery", "2 litres of tea": a count and the words up to what joins the next count
_TERM = re.compile(
    r"(?<![\w.,-])(\d+)\s+((?:[a-z][\w'-]*\s*){1,5}?)(?=\s*(?:,|\+|\bplus\b|\band\b|\bwith\b|[.?!;]|$))",
    re.I,
)


def _described_terms(text: str, labels: dict[int, set[str]]) -> list[tuple[str, int]] | None:
    """Each count's kind told by its words: the one lookup sharing most of them (hyphenated words by their
    parts too: "full livery" and "the full-livery weekly price"); None unless every count, joined to the
    next by adding words, names its own lookup."""
    found = list(_TERM.finditer(text))
    if len(found) < 2 or any(
        not _JOINED.match(text[a.end() : b.start()]) for a, b in zip(found, found[1:], strict=False)
    ):
        return None
    parts = {n: _parts(words) for n, words in labels.items()}
    terms: list[tuple[str, int]] = []
    for m in found:
        own = _parts(words_of(m.group(2)))
        fits = sorted(((len(own & p), n) for n, p in parts.items()), reverse=True)
        if fits[0][0] == 0 or (len(fits) > 1 and fits[1][0] == fits[0][0]):
            return None
        if fits[0][1] in {n for _, n in terms}:
            return None
        terms.append((m.group(1), fits[0][1]))
    return terms


def _parts(words: set[str] | frozenset[str]) -> set[str]:
    return {w for word in words for w in (word, *word.split("-")) if len(w) > 2}


def _names(key: str, words: set[str] | frozenset[str]) -> bool:
    """Whether a lookup's words name the counted kind: the word itself, or a compound that ends in it
    ("11 nights" and "the overnight allowance"; never a mere prefix: "freezer" is no "free")."""
    return key in words or (len(key) >= 4 and any(w.endswith(key) and len(w) > len(key) for w in words))


__all__ = ["counted_kinds"]
