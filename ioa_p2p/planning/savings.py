"""What one option saves over another, both looked up just before (pure).

After two lookups of prices ("the 10-visit card and the single peak visit", "the member and the non-member
price"), a request such as "how much does the card save compared with paying for ten peak visits one by
one", "what a member saves per night" or "how much more would six separate days cost than the 6-day pass"
asks for the difference of two costs: each option is one of the values found, the one the request counts
("ten peak visits") taken that many times. The count goes to the value whose lookup does not state it
already (the card is a 10-visit card: the ten visits are single ones), else to the value whose words it
counts. A saving is a size: the difference is taken as a positive amount. So is "subtract the smaller
from the larger" after two lookups.

A request that states more than one count, names something no earlier lookup names, or comes after
fewer than two unused lookups is no such step (None): the other rules plan it.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.followups import names_new_thing, unused
from ioa_p2p.planning.literal import digits
from ioa_p2p.planning.lookups import words_of
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_SAVING = re.compile(r"\b(?:saves?|saved|saving|savings)\b", re.I)
_MORE_THAN = re.compile(
    r"\bhow much (?:more|less|extra|cheaper|dearer)\b[^?]*\bthan\b|\b(?:more|less) (?:would|will|does|do)\b"
    r"[^?]*\bcost\b[^?]*\bthan\b",
    re.I,
)
#: "subtract the smaller from the larger": the two values' difference, whichever is which
_SMALLER_FROM_LARGER = re.compile(
    r"\b(?:subtract|take|deduct) the (?:smaller|lower|cheaper|lesser)(?: one| value| amount| price| rate)?"
    r" (?:from|off) the (?:larger|higher|bigger|dearer|greater)\b",
    re.I,
)
#: a count of things: "10 peak visits", "6 separate days" (not "EUR 10", "10 %", "the 6-day pass")
_COUNT = re.compile(r"(?<![\w.,-])(\d+)\s+((?:[a-z][a-z-]*\s+){0,2}[a-z][a-z-]*)", re.I)
_NOT_COUNTED = re.compile(r"(?:%|per ?cent|eur|gbp|usd|chf|nzd|aud|cad|pounds?|euros?|dollars?)\b", re.I)


def saving_step(index: int, clause: str, before: list[PlanStep]) -> PlanStep | None:
    """The difference of the two costs ``clause`` compares (see the module docstring), or None."""
    text = digits(clause)
    if not (_SAVING.search(text) or _MORE_THAN.search(text) or _SMALLER_FROM_LARGER.search(text)):
        return None
    pending = [n for n in unused(before) if before[n - 1].kind == LOOKUP]
    if len(pending) < 2 or names_new_thing(clause, before):
        return None
    a, b = pending[-2], pending[-1]
    counts = [  # "than one full day": the option itself, not a count of it
        m for m in _COUNT.finditer(text) if not _NOT_COUNTED.match(m.group(2)) and m.group(1) != "1"
    ]
    if len(counts) > 1 or re.search(r"\d\s*%", text):
        return None
    expression = f"abs(v{a} - v{b})"
    if counts:
        many = _counted(counts[0].group(1), counts[0].group(2), before[a - 1], before[b - 1])
        if many is None:
            return None
        other = b if many == a else a
        expression = f"abs({counts[0].group(1)} * v{many} - v{other})"
    units = {before[a - 1].unit, before[b - 1].unit}
    unit = units.pop() if len(units) == 1 else ""
    return PlanStep(index, CALC, clause, expression, (a, b), unit=unit)


def _counted(number: str, what: str, first: PlanStep, second: PlanStep) -> int | None:
    """Which of two lookups ``number`` of ``what`` counts: the one that does not state that number
    itself (a "10-visit card" is the bundle, not the visit); else the one sharing ``what``'s words."""
    stated = re.compile(rf"(?<![\d.]){re.escape(number)}(?![\d.])")
    own = [s.index for s in (first, second) if stated.search(s.text + " " + s.template)]
    if len(own) == 1:
        return second.index if own[0] == first.index else first.index
    words = {w for part in words_of(what) for w in part.split("-")}
    fits = [
        (len(words & {w for part in words_of(s.text) for w in part.split("-")}), s.index)
        for s in (first, second)
    ]
    fits.sort(reverse=True)
    return fits[0][1] if fits[0][0] > fits[1][0] else None


def _parts(text: str) -> set[str]:
    """The content words of ``text``, hyphenated ones also as their parts ("1-day": 1, day)."""
    return {w for part in words_of(text) for w in (part, *part.split("-"))}


__all__ = ["saving_step"]
