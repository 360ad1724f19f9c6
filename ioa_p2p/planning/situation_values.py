"""The quantities a question's situation states, each typed by what it counts or measures (pure).

A rate the documents state is per something ("EUR 95 per night", "EUR 1.80 per square metre per month",
"EUR 12 per child"); what multiplies it must be a quantity of that something. The situation a question
describes states such quantities in several forms, and :func:`situation_values` reads them all into one
list of :class:`SituationValue` (number, what it is of, as written):

- measures and durations with their units ("a 10 m boat", "for 3 hours", "12 m²": the unit is the kind);
- counts of things ("4 visits", "two suitcases", "7 nights": the thing counted, singular);
- a stay between two dates ("from 5 to 8 October", "5 October to 2 November", "arriving 28 June and
  leaving 2 July"): its **nights** (the days between), never minutes of a clock range;
- the party ("two adults and three children aged 4, 9 and 12"): its **persons** in all and each kind of
  member by its own count (adult, child, senior, ...).

Ages, years, days of a date and labels ("Year 6", "zone 3") are no quantities (planning/accounted.py
reads them the same way). Used by planning/rate_operand.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ioa_p2p.planning.accounted import stated_quantities
from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.party import head_count, party_of
from ioa_p2p.planning.values import MONTHS

#: what a party's member kinds are, as the rate's unit names them
_KINDS = {
    "adult": "adult",
    "kid": "child",
    "children": "child",
    "child": "child",
    "teen": "teenager",
    "teenager": "teenager",
    "senior": "senior",
    "student": "student",
    "pupil": "pupil",
}
#: the kinds of people a rate may be per (a party's other words, "us", "friends", count as persons)
_PEOPLE = frozenset({*_KINDS.values(), "guest", "passenger", "member", "visitor", "traveller", "rider"})
#: words after a count that are no thing it counts ("two of us stay", "12 pay")
_NOT_THINGS = frozenset({"stay", "pay", "cost", "get", "need", "want", "come", "go", "are", "is", "have"})
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
#: "from 5 to 8 October", "12-15 May", "5 October to 2 November", "28 June until 2 July"
_SPAN = re.compile(
    rf"\b{_DAY}(?:\s+(?:of\s+)?({_MONTH})\.?)?\s*(?:-|\u2013|to|until|till)\s*{_DAY}\s+(?:of\s+)?({_MONTH})\b",
    re.I,
)
#: "arriving on 28 June ... leaving on 2 July", "check in 3 March, check out 7 March"
_ARRIVE_LEAVE = re.compile(
    rf"\b(?:arriv\w*|check(?:ing)?[- ]in|coming)\s+(?:on\s+)?{_DAY}\s+({_MONTH})\b.*?"
    rf"\b(?:leav\w*|depart\w*|check(?:ing)?[- ]out|going)\s+(?:on\s+)?{_DAY}\s+({_MONTH})\b",
    re.I | re.S,
)


@dataclass(frozen=True, slots=True)
class SituationValue:
    """``number`` of ``what`` (a unit such as ``h`` or ``m²``, or a thing counted, singular: ``night``,
    ``visit``, ``person``, ``adult``) as ``text`` states it."""

    number: float
    what: str
    text: str


def _nights(d1: str, m1: str | None, d2: str, m2: str) -> float | None:
    """The nights between two days of the year (the later day may be in the next year); None when a day
    does not exist or the span is over 90 nights (no stay a rate would price by the night)."""
    try:
        start = date(2026, MONTHS[(m1 or m2).lower()], int(d1))
        end = date(2026, MONTHS[m2.lower()], int(d2))
    except (KeyError, ValueError):
        return None
    if end < start:  # "28 December to 3 January"
        end = end.replace(year=2027)
    nights = (end - start).days
    return float(nights) if 0 < nights <= 90 else None


def stay_nights(question: str) -> SituationValue | None:
    """The nights of the one stay between two dates ``question`` states; None when it states none."""
    for m in (_SPAN.search(question), _ARRIVE_LEAVE.search(question)):
        if m is None:
            continue
        d1, m1, d2, m2 = m.groups()
        nights = _nights(d1, m1, d2, m2)
        if nights is not None:
            return SituationValue(nights, "night", m.group(0))
    return None


def _kind(word: str) -> str:
    w = singular(word.lower())
    return _KINDS.get(w, _KINDS.get(word.lower(), w))


def situation_values(question: str) -> list[SituationValue]:
    """The typed quantities of ``question``'s situation (see the module docstring), in order: measures and
    counts, then a stay's nights, then the party's persons and each kind of member."""
    stay = stay_nights(question)
    out: list[SituationValue] = []
    party = party_of(question)
    people = {_kind(m.kind) for m in party or ()}
    ages = {m.age for m in party or () if m.age is not None}
    for q in stated_quantities(question):
        if not q.unit and (q.number in ages or singular(q.what.lower()) in _NOT_THINGS):
            continue  # "aged 4, 9 and 12", "two of us stay": an age, a verb
        if stay is not None and q.unit == "min" and q.text and q.text in stay.text:
            continue  # "from 5 to 8": days of a date, not a clock range
        if not q.unit and q.what and _kind(q.what) in people:
            continue  # a party's members: counted below, by kind
        what = q.unit or (singular(q.what.lower()) if q.what else "")
        if what:
            out.append(SituationValue(q.number, what, q.text or f"{q.number:g} {what}"))
    if stay is not None and not any(v.what == "night" for v in out):
        out.append(stay)
    if party:
        total = head_count(party)
        out.append(SituationValue(total, "person", f"{total:g} person" + ("s" if total != 1 else "")))
        kinds: dict[str, float] = {}
        for member in party:
            if _kind(member.kind) in _PEOPLE:
                kinds[_kind(member.kind)] = kinds.get(_kind(member.kind), 0.0) + member.count
        out += [SituationValue(n, k, f"{n:g} {k}") for k, n in kinds.items()]
    return out


__all__ = ["SituationValue", "situation_values", "stay_nights"]
