"""One rate of a document applied on its own terms to a question's quantities (pure): a part of a
composed charge (planning/composer.py).

:func:`part_of` is what one :class:`~ioa_p2p.planning.rulebook.Term` comes to: its band must hold for a
given measure; the measure it is per is given (converted, over the quantity it is stated over, at least its
record's minimum, started blocks in full: ``ceil(75 / 45)``); a first period takes the further periods
after it (``24 + ceil(max(75 - 30, 0) / 15) * 7``); each count it is per is the party's head count (those
exempt by age left out, a share by age counted as that share), a given count of that thing, or one.
:func:`bounded` bounds it by its record's money minimum and cap. :func:`question_givens` reads the
quantities a question gives for this: its measures and counts of things, without its people and ages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.doc_facts import convert, singular, unit_word
from ioa_p2p.planning.party import Member, counted, head_count
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.records import MINIMUM, DocRecords
from ioa_p2p.planning.rule_apply import tiered_amount
from ioa_p2p.planning.rule_fit import MONEY, rule_givens
from ioa_p2p.planning.rulebook import MEASURES, Rulebook, Term
from ioa_p2p.planning.values import format_number


@dataclass(frozen=True, slots=True)
class Part:
    term: Term
    expr: str
    used: frozenset[int]  # the question's quantities it uses
    score: float
    people: bool = False  # it counts the party
    composite: bool = False  # it needs more than one rule or a rule's own terms (a first period, an age)


_DURATIONS = (
    (re.compile(r"\ban hour and a quarter\b", re.I), 75.0),
    (re.compile(r"\ban hour and a half\b", re.I), 90.0),
    (re.compile(r"\ban hour and three quarters\b", re.I), 105.0),
    (re.compile(r"\bhalf an hour\b", re.I), 30.0),
    (re.compile(r"\ba quarter of an hour\b", re.I), 15.0),
)
_ONE_HOUR = re.compile(r"\b(?:for|over)\s+(?:an|one)\s+hour\b", re.I)


def unit_of(word: str) -> str:
    return "night" if word.lower() == "night" else unit_word(word.lower())


def question_givens(question: str, records: DocRecords, party: tuple[Member, ...] | None) -> list[Quantity]:
    """The quantities the question gives, without its people (the party) and its ages; a duration in
    words ("an hour and a quarter") as minutes."""
    text = _SEASON.sub(" ", question)  # "winter 2024/25", "in 2026": a period's name, not a quantity
    extra: list[Quantity] = []
    for pattern, minutes in _DURATIONS:
        m = pattern.search(text)
        if m:
            extra.append(Quantity(minutes, "min", "", m.group(0)))
            text = text[: m.start()] + " " + text[m.end() :]
    if not extra and _ONE_HOUR.search(text):
        extra.append(Quantity(60.0, "min", "", "an hour"))
    if _THAT_DAY.search(text):  # "their pay for that day": one day, if a rate is per day
        extra.append(Quantity(1.0, "", "day", "that day"))
    stay = _STAY.search(text)  # "from 5 to 8 October": three nights
    if (
        stay
        and not re.search(r"\bnights?\b", text, re.I)
        and 0 < int(stay.group(2)) - int(stay.group(1)) <= 60
    ):
        extra.append(Quantity(float(int(stay.group(2)) - int(stay.group(1))), "", "nights", stay.group(0)))
        text = text[: stay.start()] + " " + text[stay.end() :]
    people = counted(party) if party else frozenset()
    out = []
    for g in rule_givens(text, records.rules):
        if not g.unit and (g.what.lower() in people or singular(g.what) in _NOT_COUNTS):
            continue
        if not g.unit and g.what == "" and party and any(m.age == g.number for m in party):
            continue  # "kids aged 7 and 10": an age
        if g.unit in ("quarters", "years", "months", "weeks") and g.number == 1.0 and not g.what:
            continue  # "in one quarter", "for a year" as the period a bill is for: not an operand here
        out.append(g)
    return [*out, *extra]


_SEASON = re.compile(r"\b(?:19|20)\d{2}(?:/\d{2,4})?\b")
_THAT_DAY = re.compile(r"\b(?:for|on|over)\s+(?:that|the|a|one|this)\s+day\b", re.I)
_NOT_COUNTS = frozenset({"want", "way", "order", "us", "them"})
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
#: a stay between two days of one month: its nights ("from 5 to 8 October", "12-15 May")
_STAY = re.compile(
    rf"\b(?:from\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s*(?:to|until|till|-|\u2013)\s*(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}\b",
    re.I,
)


def part_of(t: Term, book: Rulebook, givens: list[Quantity], party: tuple[Member, ...] | None,
          words: frozenset[str], *, base: bool) -> Part | None:  # fmt: skip
    """What one rate comes to for the question's quantities, or None when a measure it needs is missing
    or its band does not hold."""
    used: set[int] = set()
    score = 2 * book.fit(t.lead & words) + book.fit((t.words - t.lead) & words)
    band = t.rule.band
    if band is not None and not t.rule.tier:
        held = [i for i, g in enumerate(givens) if g.unit and (c := convert(g.unit, band.unit or g.unit))
                is not None and band.holds(g.number * c)]  # fmt: skip
        if not held:
            return None
        used.add(held[0])
        score += 1.0
    factors: list[str] = []
    if t.measure:
        i = _given_in(givens, t.measure, used)
        if i is None:
            return None
        used.add(i)
        q = givens[i].number * (conv(givens[i].unit, t.measure) or 1.0)
        for b in book.bounds(t):  # "with a minimum booking of 2 hours"
            k = conv(b.unit, t.measure) if b.unit not in MONEY else None
            if k is not None and b.kind == MINIMUM:
                q = max(q, b.number * k)
        factors.append(_blocks(t, q, book) if not t.first else "")
        if t.first:
            later = _further(t, book)
            amount = format_number(t.number)
            if later is not None:
                beyond = later.beyond
                qq = q * (convert(t.measure, later.measure) or 1.0)
                n = f"max({format_number(qq)} - {format_number(beyond)}, 0) / {format_number(later.over)}"
                n = f"ceil({n})" if later.started else f"({n})"
                amount = f"({amount} + {n} * {format_number(later.number)})"
            elif q > t.over + 1e-9:
                return None  # longer than the first period and no rate for the rest
            factors = []
            expr = amount
            score += 1.0
            return _counted(t, expr, used, score, givens, party, words)
        score += 1.0
        if t.rule.tier:  # "first 8 MWh at 84, next 12 MWh at 79, above 20 MWh at 71.50": each tier's part
            tiers = [x.rule for x in book.rates if x.rule.tier and x.rule.per == t.rule.per]
            tiered = tiered_amount(t.rule, tiers, [Quantity(q, t.measure, "", "")])
            if tiered is None:
                return None
            return _counted(t, f"({tiered})", used, score, givens, party, words)
    expr = " * ".join([format_number(t.number), *[f for f in factors if f]])
    return _counted(t, expr, used, score, givens, party, words)


def bounded(part: Part, book: Rulebook) -> Part:
    """A part at least its money minimum and at most its cap ("capped at EUR 3.00 per booking")."""
    expr = part.expr
    for b in book.bounds(part.term):
        if b.unit in MONEY:
            expr = f"{'max' if b.kind == MINIMUM else 'min'}({expr}, {format_number(b.number)})"
    return Part(part.term, expr, part.used, part.score, part.people, part.composite or expr != part.expr)


def _counted(t: Term, expr: str, used: set[int], score: float, givens: list[Quantity],
             party: tuple[Member, ...] | None, words: frozenset[str]) -> Part | None:  # fmt: skip
    """The rate times the counts it is per: people (by age), nights, a given count of the thing, else one."""
    people = False
    for per in t.rule.per:
        if per in MEASURES and per != "night":
            continue
        if per == "person" or singular(per) in PERSON_WORDS:
            if party is None:
                return None
            expr = f"{group(expr)} * {_heads(t, party)}"
            people = True
            score += 1.0
            continue
        i = _count_of(givens, per, used)
        if i is not None:
            used.add(i)
            expr = f"{group(expr)} * {format_number(givens[i].number)}"
            score += 1.0
    composite = t.first or t.over != 1.0 or (people and (t.exempt is not None or bool(t.ages_share)))
    composite = composite or t.rule.band is not None or "ceil" in expr or _rounded_up(expr) or t.rule.tier
    return Part(t, expr, frozenset(used), score, people, composite)


PERSON_WORDS = frozenset(
    {"person", "adult", "guest", "head", "passenger", "visitor", "participant", "people"}
)


def _heads(t: Term, party: tuple[Member, ...]) -> str:
    """The people a per-person rate counts: those exempt by age left out, a half price by age halved."""
    if t.exempt is None and not t.ages_share:
        return format_number(head_count(party))
    total = 0.0
    for m in party:
        if m.age is not None and t.exempt is not None and t.exempt.holds(m.age):
            continue
        total += m.count * _share(t, m)
    return format_number(total)


def _share(t: Term, m: Member) -> float:
    return next((s for ages, s in t.ages_share if m.age is not None and ages.holds(m.age)), 1.0)


def _blocks(t: Term, q: float, book: Rulebook) -> str:
    """The number of ``over`` blocks in ``q``; started blocks in full, shown as ``ceil(q / over)``."""
    n = q / t.over
    if t.started and abs(n - round(n)) > 1e-9:
        return f"ceil({format_number(q)} / {format_number(t.over)})"
    return format_number(round(n) if abs(n - round(n)) < 1e-9 else n)


def _rounded_up(expr: str) -> bool:
    return "max(" in expr or "min(" in expr


def _further(t: Term, book: Rulebook) -> Term | None:
    """The rate for the periods after ``t``'s first one: the next term that is beyond it."""
    after = False
    for other in book.terms:
        if other is t:
            after = True
            continue
        if after and other.beyond and abs(other.rule.record - t.rule.record) <= 1:
            return other
        if after and other.first:
            return None
    return None


def _given_in(givens: list[Quantity], unit: str, used: set[int]) -> int | None:
    """The given quantity a rate per ``unit`` applies to: one in that unit or counting it first, then one
    convertible to it (never hours into a rate per day: 3 hours are not 0.125 of a day's allowance)."""
    free = [(i, g) for i, g in enumerate(givens) if i not in used]
    for i, g in free:
        if g.unit == unit or (not g.unit and singular(g.what) == _COUNTED.get(unit, "")):
            return i
    for i, g in free:
        if g.unit and conv(g.unit, unit) is not None and not (g.unit in _SUB_DAY and unit in _CALENDAR):
            return i
    return None


_COUNTED = {"night": "night", "days": "day", "weeks": "week", "months": "month"}
_SUB_DAY = frozenset({"s", "min", "h"})
_CALENDAR = frozenset({"days", "weeks", "months", "years", "night"})


def conv(src: str, dst: str) -> float | None:
    if src == dst:
        return 1.0
    return convert(src, dst)


def _count_of(givens: list[Quantity], per: str, used: set[int]) -> int | None:
    for i, g in enumerate(givens):
        if i not in used and not g.unit and g.what and singular(g.what) == singular(per):
            return i
    return None


def group(expr: str) -> str:
    return f"({expr})" if re.search(r" [-+] ", expr) else expr


__all__ = ["PERSON_WORDS", "Part", "bounded", "conv", "group", "part_of", "question_givens", "unit_of"]
