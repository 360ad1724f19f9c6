"""The item of an enumeration a question asks about (pure): "dogs EUR 14.50, cats EUR 11.00, rabbits EUR 8.00
per month" for a cat, "at least 18 for the Marathon, 16 for the Half Marathon" for the Half Marathon,
"Check-in from 15:00, check-out by 11:00" for check-out.

A sentence that lists several values, each with its own label, is cut into items: at commas, semicolons,
colons and "and" / "or", a cut with no value of its own continuing the item before it ("between Portcallan
Airport and Portcallan Central Station"). An item's label is its words around its value, without

- the sentence's lead: words before the first value beyond the length the other items' labels have before
  theirs ("Opposite tubes must not differ in mass by more than 0.1 g" is labelled "by more than", as the
  next item "by more than 0.5 g on the VC-48" is);
- a bracket that explains ("EUR 95.00 for a joint membership (two adults at one address)");
- words every item has.

A designator of the family the question names ("Route B") starts an item too, where lines of a list are
joined ("ROUTE A ... crossing time 55 minutes ROUTE B ... crossing time 25 minutes").

The item whose label the question's words name most (IDF-weighted; a word matches by its stem, "braking"
for "brake"; a band or designator the question states, ``over#10``, weighs three times) is the answer,
when it is the only best; None otherwise (the caller falls back to nearness).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import TypeVar

from ioa_p2p.adapters.retrieval.facts import Scorer, terms

T = TypeVar("T")
Span = tuple[int, int, object]

_CUT = re.compile(r"[,;:]\s+|\s+(?:and|or)\s+")
_BRACKET = re.compile(r"\([^()]*\)")
#: "for the Half Marathon": words after the value that name what it is for weigh as a label before it does
_FOR = re.compile(r"\s*(?:each\s+|a\s+head\s+)?for\s+(?!the\s+first\b|up\s+to\b|\d)", re.I)


def own_item(spans: Sequence[tuple[int, int, T]], text: str, scorer: Scorer) -> T | None:
    """Of ``spans`` (start, end, value) in ``text``, the one value whose item the question names; None when
    the text is no enumeration of them or no item is named more than the others."""
    if len(spans) < 2:
        return None
    families = {t.split("#")[0] for t in scorer.q_terms if re.fullmatch(r"[a-z]{3,}#[a-z0-9]{1,3}", t)}
    families -= {"over", "under", "from", "above", "below", "time"}
    items = _items(spans, text, families)
    if len(items) < 2:
        return None
    longest_other = max(len(before.split()) for before, _, _ in items[1:])
    first_before, first_after, first = items[0]
    kept = first_before.split()[max(0, len(first_before.split()) - longest_other) :] if longest_other else []
    items[0] = (" ".join(kept), first_after, first)
    labels = [(terms(before), terms(after), value, after) for before, after, value in items]
    shared = set.intersection(*(b | a for b, a, _, _ in labels))

    def weight(words: set[str]) -> float:
        return sum(_match(t, scorer) for t in sorted(words - shared))

    scored = []
    for before, after, value, raw_after in labels:
        lead = 1.0 if _FOR.match(raw_after) or not before else 0.5
        scored.append((weight(before) + lead * weight(after), value))
    scored.sort(key=lambda x: -x[0])
    if scored[0][0] > 0 and scored[0][0] > scored[1][0] + 1e-9:
        return scored[0][1]
    return None


def _items(spans: Sequence[tuple[int, int, T]], text: str, families: set[str]) -> list[tuple[str, str, T]]:
    """(label words before the value, words after it, value) per item; [] when an item holds two values.
    A bracket holding a value is an item of its own ("20 minutes (goods vehicles: 40 minutes)"); words
    after it are the sentence's, no item's."""
    held = [m.span() for m in _BRACKET.finditer(text) if _holds(m, spans)]
    bare = _BRACKET.sub(lambda m: m.group() if _holds(m, spans) else " " * len(m.group()), text)
    cuts = {m.end() for m in _CUT.finditer(bare) if not any(a < m.start() < b for a, b in held)}
    cuts |= {0, *(a for a, _ in held), *(b for _, b in held)}
    for family in families:  # "ROUTE A ... 55 minutes ROUTE B ... 25 minutes": an item per route named
        cuts |= {m.start() for m in re.finditer(rf"\b{re.escape(family)}\s+\w{{1,3}}\b", bare, re.I)}
    pieces = [(a, b) for a, b in zip(sorted(cuts), [*sorted(cuts)[1:], len(text)], strict=False) if b > a]
    merged: list[tuple[int, int]] = []
    labels_after = _labels_after(pieces, spans, bare)
    lead = None  # "Rehearsal room beyond your included hours: EUR 14 per hour": the next item's words
    for a, b in pieces:
        if any(a <= s[0] < b for s in spans):
            merged.append((a if lead is None else lead, b))
            lead = None
        elif not merged or not labels_after:  # "...; the Weir Room seats 12 and costs EUR 14.00 per hour"
            lead = a if lead is None else lead
        elif (merged[-1][0], merged[-1][1]) not in held:  # continues the item before ("between X and Y")
            merged[-1] = (merged[-1][0], b)
    out = []
    for a, b in merged:
        inside = [s for s in spans if a <= s[0] < b]
        if len(inside) > 1:
            return []
        start, end, value = inside[0]
        out.append((bare[a:start].strip(" (:"), bare[end:b].strip(" )"), value))
    return out


def _labels_after(
    pieces: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int, object]], bare: str
) -> bool:
    """Whether the list's items are labelled after their values ("EUR 90.00 for pets up to 10 kg"): the first
    item with a value has words after it other than its rate's "per hour"."""
    for a, b in pieces:
        inside = [s for s in spans if a <= s[0] < b]
        if inside:
            after = re.sub(r"^\W*(?:per|a|an|each)\s+\w+", "", bare[inside[0][1] : b])
            return bool(terms(after))
    return False


def _holds(m: re.Match[str], spans: Sequence[tuple[int, int, object]]) -> bool:
    return any(m.start() <= s[0] < m.end() for s in spans)


def _match(term: str, scorer: Scorer) -> float:
    """The question's weight of ``term``: its IDF when the question uses it or a word of its stem, three
    times that for a band or designator (``over#10``, ``zone#b``)."""
    if term in scorer.idf:
        return scorer.idf[term] * (3.0 if "#" in term else 1.0)
    for asked, idf in scorer.idf.items():
        n = len(os.path.commonprefix([asked, term]))
        if "#" not in asked and n >= 4 and n >= 0.75 * min(len(asked), len(term)):
            return idf
    return 0.0


__all__ = ["own_item"]
