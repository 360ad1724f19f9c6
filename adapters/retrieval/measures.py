"""A size, a rating or a strength the question states against the row or sentence that answers it (pure).

"the deposit for a 150 sq ft unit", "a 16 A hook-up", "a 15 mm notched trowel", "a 3.55 m roll", "a 40 %
mix": a quantity of a physical unit that selects *which* row or item of a document is asked about. A
document that prices or rates variants of a thing states them by that quantity ("25 sq ft Unit: EUR 46",
"Electric hook-up (10 A) | 6", "Notch trowel 6 mm ..... 2.2"). Two checks follow, each a pure function:

- :func:`conflicts`: the answering fact states quantities of the asked unit, none of them the one asked
  and no range of them holding it ("10 A" for "16 A"; "up to 12 mm" holds "10 mm"): the fact is about
  another variant. The fact scorer weighs such a row down (facts.py), so an agreeing row wins;
- :func:`unlisted_measures`: the question's quantity is stated by no line of the answering document while
  the document lists variants of that unit (the answering fact itself, or two or more lines that each
  state one quantity of the unit beside a word the question uses about it: "Notch trowel 6 mm" / "8 mm"
  for "a 15 mm notched trowel"). The answer is a near miss: the retrieval abstains and the planner names
  the value missing (agreement.py).

Units of time and money are not checked here (a duration or an amount a question gives is usually an
operand, and rowkeys.py / agreement.py check a table's lengths and bands); nor a quantity after "per" or a
slash, on either side (a rate's base: "per 10 litres"), nor one a question gives in a situation it
computes with ("27.5 kg dog": no document lists dogs by weight points; a band row is read by its range).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.qualifiers import Qualifier
from ioa_p2p.adapters.retrieval.terms import stem

#: surface forms (lower case; "A" and "V" only as capitals, see _CAPITAL) -> the unit they mean
_UNITS = {
    "sq ft": "ft²", "sq. ft": "ft²", "sqft": "ft²", "square feet": "ft²", "square foot": "ft²", "ft²": "ft²",
    "sq m": "m²", "sq. m": "m²", "sqm": "m²", "m²": "m²", "m2": "m²", "square metres": "m²",
    "square meters": "m²", "a": "A", "amp": "A", "amps": "A", "ampere": "A", "amperes": "A", "v": "V",
    "volt": "V", "volts": "V", "w": "W", "watt": "W", "watts": "W", "kw": "kW", "kva": "kVA", "mm": "mm",
    "cm": "cm", "m": "m", "metre": "m", "metres": "m", "meter": "m", "meters": "m", "km": "km", "%": "%",
    "per cent": "%", "percent": "%", "l": "L", "litre": "L", "litres": "L", "liter": "L", "liters": "L",
    "ml": "ml", "kg": "kg", "g": "g", "t": "t", "tonne": "t", "tonnes": "t", "ft": "ft", "feet": "ft",
    "foot": "ft", "inch": "in", "inches": "in", "gb": "GB", "tb": "TB", "mb": "MB", "bar": "bar",
    "psi": "psi", "kwh": "kWh", "mah": "mAh", "seater": "seats", "seats": "seats",
}  # fmt: skip
#: single letters that are units only as capitals ("16 A", "230 V"; "a", "v" are words)
_CAPITAL = frozenset({"a", "v"})
_UNIT_RE = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_MEASURE = re.compile(
    rf"(?<![\w.,/£€$])(\d+(?:[.,]\d+)?)(?:\s*|-)({_UNIT_RE})(?![\w²³])(?!\s*/)",
    re.IGNORECASE,
)
#: a range of one unit: "6-12 mm", "6 to 12 mm", "10 - 16 A"
_RANGE = re.compile(
    rf"(?<![\w.,/])(\d+(?:[.,]\d+)?)\s*(?:{_UNIT_RE})?\s*(?:-|–|to)\s*(\d+(?:[.,]\d+)?)\s*({_UNIT_RE})(?![\w²³])",
    re.IGNORECASE,
)
#: a bound before a quantity ("up to 12 mm", "over 5 m", "min. 10 A") or after it ("12 mm or less")
_UPPER = re.compile(
    r"(?:up\s+to|under|below|(?:less|shorter|smaller|lighter|narrower|lower)\s+than|max(?:imum)?\.?|at\s+most|not\s+over|<=?|≤)\s*$",
    re.I,
)
_LOWER = re.compile(
    r"(?:over|above|(?:more|longer|larger|heavier|wider|taller)\s+than|from|min(?:imum)?\.?|at\s+least|>=?|≥)\s*$",
    re.I,
)
_AFTER_UPPER = re.compile(r"^\s*(?:or\s+(?:less|under|smaller|below)|max(?:imum)?\b)", re.I)
_AFTER_LOWER = re.compile(r"^\s*(?:\+|or\s+(?:more|over|above|larger|bigger)\b)", re.I)
#: a rate's base ("per 10 litres", "for every 5 kg", "each 100 m") or what an amount covers ("treats 200
#: m²", "covers 12 m²"): no variant of a size, the question's own size is an operand of it
_PER = re.compile(
    r"(?:\bper|\bevery|\beach|/|\btreats?|\btreating|\bcovers?|\bcovering|\bserves?|\benough\s+for"
    r"|\bsufficient\s+for)\s*$",
    re.I,
)
#: words that say what the question's quantity measures: the words beside it ("a 15 mm notched trowel")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_STOP_WORDS = "a an the of for with and or to in on at by is are what how much many does do"
_STOP = frozenset(_STOP_WORDS.split())  # noqa: SIM905
NEAR_WORDS = 3


@dataclass(frozen=True, slots=True)
class Measure:
    """A quantity of a unit, as stated: a point (``low == high``) or a range (either end may be open)."""

    low: float
    high: float
    unit: str
    start: int
    end: int

    def holds(self, number: float) -> bool:
        return self.low - 1e-9 <= number <= self.high + 1e-9

    @property
    def shown(self) -> str:
        return f"{self.low:g} {self.unit}"


def _number(text: str) -> float:
    return float(text.replace(",", "."))


def _unit(surface: str) -> str | None:
    low = surface.lower()
    if low in _CAPITAL and surface != surface.upper():
        return None
    return _UNITS.get(low)


def measures(text: str) -> list[Measure]:
    """The quantities of physical units ``text`` states: ranges, bounded ones and points, no rate bases."""
    out: list[Measure] = []
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(text):
        unit = _unit(m.group(3))
        if unit is None or _PER.search(text[: m.start()]):
            continue
        a, b = _number(m.group(1)), _number(m.group(2))
        out.append(Measure(min(a, b), max(a, b), unit, m.start(), m.end()))
        taken.append((m.start(), m.end()))
    for m in _MEASURE.finditer(text):
        unit = _unit(m.group(2))
        if unit is None or any(a <= m.start() < b for a, b in taken):
            continue
        before, after = text[max(0, m.start() - 16) : m.start()], text[m.end() : m.end() + 16]
        if _PER.search(before):
            continue
        n = _number(m.group(1))
        low, high = n, n
        if _UPPER.search(before) or _AFTER_UPPER.match(after):
            low = 0.0
        elif _LOWER.search(before) or _AFTER_LOWER.match(after):
            high = float("inf")
        out.append(Measure(low, high, unit, m.start(), m.end()))
    return sorted(out, key=lambda x: x.start)


_TIME_OR_MONEY = frozenset({"h", "min", "s", "days", "weeks", "months", "years"})


#: a quantity that names which thing ("a 16 A hook-up", "the 3.55 m roll", "a unit of 150 sq ft"), not one
#: the asker did or has ("I drove 180 km", "weighs 27.5 kg": an operand of the situation)
_ATTRIBUTIVE = re.compile(r"\b(?:a|an|the|one|each|my|our|your|their|this|that|of)\s+$", re.I)


def asked_measures(question: str) -> list[Measure]:
    """The sizes, ratings and strengths ``question`` names a thing by ("a 16 A hook-up"): points of a
    physical unit after an article, a possessive or "of"; no range, no duration."""
    return [
        m
        for m in measures(question)
        if m.low == m.high
        and m.unit not in _TIME_OR_MONEY
        and _ATTRIBUTIVE.search(question[max(0, m.start - 8) : m.start])
    ]


def conflicts(asked: list[Measure], fact: str) -> list[Measure]:
    """The asked quantities the ``fact`` states another value of (and no range holding them)."""
    if not asked:
        return []
    stated = measures(fact.split("\0")[0])
    out = []
    for q in asked:
        same = [m for m in stated if m.unit == q.unit]
        points = all(m.low == m.high for m in same)  # a band row is the band checks' (facts.py, agreement.py)
        if same and points and not any(m.holds(q.low) for m in same):
            out.append(q)
    return out


def _near_words(question: str, q: Measure) -> set[str]:
    """The stems of the words right beside the quantity ("notched trowel" for "a 15 mm notched trowel")."""
    before = [w for w in _WORD.findall(question[: q.start]) if w.lower() not in _STOP][-NEAR_WORDS:]
    after = [w for w in _WORD.findall(question[q.end :]) if w.lower() not in _STOP][:NEAR_WORDS]
    return {stem(w.lower()) for w in before + after}


def _variant_lines(document: str, q: Measure, near: set[str]) -> list[tuple[Measure, int]]:
    """Lines that each state one quantity of ``q``'s unit beside a word the question uses about it, with
    how many of those words they share."""
    out = []
    for line in document.splitlines():
        same = [m for m in measures(line) if m.unit == q.unit]
        if len(same) != 1:
            continue
        shared = len({stem(w.lower()) for w in _WORD.findall(line)} & near)
        keyed = "|" in line and same[0].start < len(line.lstrip(" |").split("|")[0]) + (
            len(line) - len(line.lstrip(" |"))
        )
        if shared or keyed:  # (a table row keyed by the quantity: "| 5 to 7.9 kg | 2.5 mL |")
            out.append((same[0], shared))
    return out


def unlisted_measures(question: str, document: str, fact: str) -> list[Qualifier]:
    """The question's quantities the answering document lists variants of and never states (module doc):
    the answering fact states another, or two lines do beside a word the question uses about it, or one
    line does beside two ("Electric hook-up (10 A)" for "a 16 A electric hook-up")."""
    out = []
    for q in asked_measures(question):
        if any(m.unit == q.unit and m.holds(q.low) for m in measures(document)):
            continue  # stated somewhere: a wrong row is the scorer's (conflicts), not a missing value
        in_fact = [m for m in measures(fact.split("\0")[0]) if m.unit == q.unit]
        near = _near_words(question, q)
        lines = _variant_lines(document, q, near)
        listed = {(m.low, m.high) for m, _ in lines}
        close = any(shared >= min(2, len(near)) for _, shared in lines)
        if in_fact or len(listed) >= 2 or close:
            out.append(Qualifier(question[q.start : q.end], "quantity", ()))
    return out


__all__ = ["Measure", "asked_measures", "conflicts", "measures", "unlisted_measures"]
