"""One rate of a document's typed rules applied to a question's quantities (pure).

:func:`apply_rate` is the amount a rate comes to: each denominator from a stated quantity (converted),
rounded as the rules say, in started blocks, above a free amount, at least a minimum quantity of the same
record, a count of containers from a capacity, one per each of a stated count; a per-item minimum or cap
bounds it (:func:`bounded_amount` bounds the whole amount by a document-wide one); its band and season
must hold. :func:`tiered_amount` splits a quantity over a rate's tiers; :func:`with_terms` joins the
terms the retrieval read for a price (planning/tariffs.py) to the rules. planning/ruled.py chooses the
rates and adds the percentages and surcharges.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from ioa_p2p.planning.doc_facts import convert, singular, unit_word
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.records import CAP, CAPACITY, MINIMUM, RATE, DocRule
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, find_given, fit_of, rule_words, words_of
from ioa_p2p.planning.values import ALIASES, format_number


@dataclass(frozen=True, slots=True)
class Applied:
    expr: str  # the amount, as an expression
    score: float
    used: frozenset[int]  # the question's quantities it uses


def apply_rate(
    rate: DocRule,
    rules: list[DocRule],
    givens: list[Quantity],
    words: frozenset[str],
    weight: dict[str, float],
    used: frozenset[int],
    *,
    strict: bool = False,
    extra: bool = False,
) -> Applied | None:
    """The amount ``rate`` comes to for the question's quantities; None when a measure it is per is not
    stated or its band does not hold (``strict``: when anything it is per is not stated)."""
    score = fit_of((rule_words(rate) & words) - GENERIC, weight)
    parts: list[str] = []
    counts: list[str] = []
    for per in rate.per:
        g = find_given(givens, per, used)
        if g is None:
            g, bonus = _via_capacity(per, rules, givens, used), 1.0
        else:
            bonus = 2.0
        if g is None and per not in _MEASURES:  # "chairs for 130 guests": one chair each
            g, bonus = _each_for(per, givens, used), (1.5 if singular(per) in words else 0.5)
        if g is None:
            if strict or (per in _MEASURES and not _named(per, words)):
                return None
            score += 1.0 if per in _MEASURES else -0.5  # "each hour": one of it, as asked
            continue
        n, i = g
        used = used | {i}
        score += bonus
        operand = _operand(n, rate, per, rules)
        (parts if per in _MEASURES else counts).append(operand)
    if rate.band is not None and not rate.tier and not _in_band(rate, givens):
        return None
    if not _in_season(rate.when, words):
        return None
    amount = " * ".join([format_number(rate.number), *parts])
    amount = _per_item(amount, rate, rules, base=not strict and not extra)
    if not rate.per:  # a row's price per one: times a count of what its labels name ("12 adults")
        for i, q in enumerate(givens):
            if i not in used and not q.unit and q.what and singular(q.what) in rule_words(rate):
                counts.append(format_number(q.number))
                used = used | {i}
                score += 1.0
    expr = " * ".join([grouped(amount), *counts]) if counts else amount
    if strict and not parts and not counts:
        return None
    return Applied(expr, score, used)


_MEASURES = frozenset({"h", "min", "s", "days", "weeks", "months", "years", "m", "km", "m²", "m³", "kg", "g",
                       "t", "L", "ml", "kWh", "MWh", "mwh", "kW", "cm", "mm", "miles"})  # fmt: skip


def _named(unit: str, words: frozenset[str]) -> bool:
    """Whether the question names ``unit`` in any spelling ("each hour" for h)."""
    return unit in words or singular(unit) in words or any(ALIASES.get(w) == unit for w in words)


def _operand(n: float, rate: DocRule, per: str, rules: list[DocRule]) -> str:
    """The operand for ``per``: above a free amount, in started blocks, at least a minimum quantity."""
    first = per == next((p for p in rate.per if p in _MEASURES), rate.per[0])
    q = format_number(n)
    if first and rate.beyond:
        q = f"max({q} - {format_number(rate.beyond)}, 0)"
    if first and rate.started:
        q = f"ceil({q} / {format_number(rate.step)})" if rate.step != 1 else f"ceil({q})"
    elif first and rate.round_to:
        step = format_number(rate.round_to)
        q = f"ceil({q} / {step}) * {step}"
    least = next(
        (
            r
            for r in rules
            if r.kind == MINIMUM and r.record == rate.record and convert(r.unit, per) is not None
        ),
        None,
    )
    if least is not None and rate.record >= 0:
        q = f"max({q}, {format_number(least.number * (convert(least.unit, per) or 1))})"
    return q


def with_terms(rate: DocRule, rules: list[DocRule], terms: dict[str, str]) -> tuple[DocRule, list[DocRule]]:
    """The rate with the terms the retrieval read for it (in the unit of its first measure), and the
    bounds they add to the rules."""
    measure = next((p for p in rate.per if p in _MEASURES), "")
    free, step, least = (_term_in(terms.get(k, ""), measure) for k in ("free", "step", "minimum"))
    rate = replace(
        rate,
        beyond=rate.beyond or free or 0.0,
        round_to=0.0 if rate.started else (step or 0.0),
    )
    added = []
    if least and not any(r.kind == MINIMUM and r.record == rate.record for r in rules):
        added.append(DocRule(MINIMUM, least, measure, record=rate.record))
    for name, kind in (("cap", CAP), ("minimum_charge", MINIMUM)):
        n = term_number(terms.get(name, ""))
        if n:
            added.append(DocRule(kind, n, rate.unit, record=rate.record))
    rules = [rate if r is not None and r.record == rate.record and r.kind == RATE and r.number == rate.number
             else r for r in rules] + added  # fmt: skip
    return rate, rules


def term_number(raw: str) -> float:
    m = re.search(r"\d+(?:\.\d+)?", raw)
    return float(m.group()) if m else 0.0


def _term_in(raw: str, unit: str) -> float | None:
    """A term such as "15 min" in ``unit`` (None when it is not a measure of it)."""
    m = re.match(r"\s*(\d+(?:\.\d+)?)\s*(\S*)", raw)
    if not m or not unit:
        return None
    src = unit_word(m.group(2)) if m.group(2) else unit
    c = convert(src, unit)
    return float(m.group(1)) * c if c is not None else None


def _per_item(amount: str, rate: DocRule, rules: list[DocRule], *, base: bool) -> str:
    """The amount per item at least a money minimum and at most a cap of the same record, or (for the
    base charge) per what the rate is also per ("EUR 22 per night") when the bound is about this charge
    or about none of the document's others."""
    others = frozenset().union(*(rule_words(r) for r in rules if r.kind == RATE and r is not rate))
    for r in rules:
        if r.kind not in (MINIMUM, CAP) or r.unit != rate.unit:
            continue
        per_item = bool(r.per) and set(r.per) <= set(rate.per) and not set(r.per) & _THINGS
        topic = _topic(r)
        about = bool(topic & rule_words(rate)) or not topic & others
        if r.record == rate.record or (base and per_item and about):
            amount = f"{'max' if r.kind == MINIMUM else 'min'}({amount}, {format_number(r.number)})"
    return amount


def bounded_amount(amount: str, rate: DocRule, rules: list[DocRule], words: frozenset[str],
             weight: dict[str, float]) -> str:  # fmt: skip
    """The whole amount at least a document-wide money minimum ("the minimum charge for an order is GBP
    25") and at most a cap, when its topic is the question's or it names none."""
    for r in rules:
        if r.kind not in (MINIMUM, CAP) or r.unit != rate.unit or r.record == rate.record:
            continue
        if r.per and set(r.per) <= set(rate.per) and not set(r.per) & _THINGS:
            continue  # bounded per item
        topic = _topic(r)
        if not topic or fit_of(topic & (words | rule_words(rate)), weight) >= 0.5:
            amount = f"{'max' if r.kind == MINIMUM else 'min'}({amount}, {format_number(r.number)})"
    return amount


#: what a whole charge is per (a minimum "per order" bounds the whole, not each item)
_THINGS = frozenset({"order", "booking", "job", "invoice", "event", "visit", "delivery", "stay"})


def _topic(r: DocRule) -> frozenset[str]:
    """What a minimum or a cap is about: its words, without the words every bound has."""
    bound = {"minimum", "maximum", "never", "exceed", "whatever", *(u.lower() for u in MONEY)}
    return words_of(r.when) - GENERIC - bound - {singular(p) for p in r.per}


def _each_for(per: str, givens: list[Quantity], used: frozenset[int]) -> tuple[float, int] | None:
    """One of what a rate is per for each of a stated count: "chairs for 130 guests"."""
    for i, g in enumerate(givens):
        if i not in used and not g.unit and g.what and g.text and singular(per) != singular(g.what):
            return g.number, i
    return None


def _via_capacity(
    per: str, rules: list[DocRule], givens: list[Quantity], used: frozenset[int]
) -> tuple[float, int] | None:
    """A count of containers from a capacity: "tables seat 8 guests each" and 90 guests: 12 tables."""
    for r in rules:
        if r.kind == CAPACITY and r.per and singular(r.per[0]) == singular(per):
            g = find_given(givens, r.unit, used)
            if g is not None:
                return float(math.ceil(g[0] / r.number - 1e-9)), g[1]
    return None


_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]  # fmt: skip
_SEASON = re.compile(r"\bfrom (" + "|".join(_MONTHS) + r") to (" + "|".join(_MONTHS) + r")\b", re.I)


def _in_season(when: str, words: frozenset[str]) -> bool:
    """False when the rule holds "from April to October" and the question names a month outside it."""
    m = _SEASON.search(when)
    asked = [_MONTHS.index(w) for w in words if w in _MONTHS]
    if not m or not asked:
        return True
    a, b = _MONTHS.index(m.group(1).lower()), _MONTHS.index(m.group(2).lower())
    months = set(range(a, b + 1)) if a <= b else set(range(a, 12)) | set(range(0, b + 1))
    return any(x in months for x in asked)


def _in_band(rate: DocRule, givens: list[Quantity]) -> bool:
    band = rate.band
    assert band is not None
    unit = band.unit or (rate.per[0] if rate.per else "")
    for g in givens:
        c = convert(g.unit, unit) if g.unit and unit else (1.0 if not g.unit and not band.unit else None)
        if c is not None and band.holds(g.number * c):
            return True
    return False


def tiered_amount(rate: DocRule, rates: list[DocRule], givens: list[Quantity]) -> str | None:
    """Each tier's part of the quantity at the tier's rate: "first 8 MWh at 84, next 12 at 79, ..."."""
    unit = rate.per[0] if rate.per else ""
    g = find_given(givens, unit, frozenset())
    if g is None:
        return None
    n = g[0]
    parts = []
    for r in rates:
        if not r.tier or r.per != rate.per or r.band is None:
            continue
        low = max(r.band.low, 0.0)
        part = min(max(n - low, 0.0), r.band.high - low)
        if part > 0:
            parts.append(f"{format_number(part)} * {format_number(r.number)}")
    return " + ".join(parts) if parts else None


def grouped(expr: str) -> str:
    return f"({expr})" if re.search(r"[-+]", expr.replace("max(", "").replace("min(", "")) else expr


__all__ = [
    "Applied",
    "apply_rate",
    "bounded_amount",
    "grouped",
    "term_number",
    "tiered_amount",
    "with_terms",
]
