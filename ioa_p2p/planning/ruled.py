"""A charge or a count worked out from a document's typed rules (pure): the typed path of a derivation.

The retrieval result carries the typed records of the document its answer came from (planning/
records.py): rates with what they are per, bands and tiers, minimums, caps, percentages, surcharges,
capacities, rounding. :func:`ruled_expression` applies them to the quantities a question states:

1. the **base rate**: of the document's rates, the one whose own words fit the question best and whose
   denominators the question supplies ("EUR 3.20 per metre per night" for "an 11 m yacht ... one night";
   a row's price for the row the question names; a band's or tier's rate for the question's quantity);
2. its **operands**: each denominator from a stated quantity (converted: 7 weeks in months), rounded as
   the rules say (a length to the next half metre, an area to whole m²), in started blocks ("per started
   5 minutes": ``ceil((23 - 10) / 5)``), above a free amount ("each started kg above 5 kg"), at least a
   minimum quantity of the same record ("with a minimum of 4 hours"), a count of containers from a
   capacity ("tables seat 8 guests": ``ceil(90 / 8)``); a per-item minimum or cap of the same record or
   of the document ("the minimum berth charge is EUR 22 per night", "the fine for one tool never exceeds
   GBP 20") bounds the amount per item;
3. **other charges the question names** (its words that only that rate's record has: "with linen",
   "shore power included", "delivery included"), each with its own operands;
4. **percentages and surcharges whose condition the question meets**: the subject's own words
   ("students", "rush service", "catamaran": a multihull's record names catamarans) or the band it
   states holding for a stated quantity ("members under 18" for a 16-year-old, "groups of 10 or more"
   for 12 adults, "booked at least 6 months before" for 8 months ahead); VAT only when the question
   asks for it.

:func:`counted_expression` answers "how many X" from a capacity ("tables seat 8 guests each") or a pack
size the question names ("2.5 L tins", with "one litre covers 12 m² per coat"), rounded up. Each returns
the expression for the calculator and its unit, or None when no rate of the document fits (the caller
then derives by definitions, planning/derive.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from ioa_p2p.planning.answer_types import MONEY_UNITS, answer_type
from ioa_p2p.planning.doc_facts import content_words, convert, singular, unit_word
from ioa_p2p.planning.quantities import Quantity, stated_quantities
from ioa_p2p.planning.records import (
    CAP,
    CAPACITY,
    MINIMUM,
    PERCENT,
    RATE,
    ROUNDING,
    SURCHARGE,
    VAT,
    DocRecords,
    DocRule,
)
from ioa_p2p.planning.units import period_of
from ioa_p2p.planning.values import ALIASES, format_number

MONEY = frozenset({*MONEY_UNITS, "GBP", "CHF", "SEK", "NOK", "DKK", "JPY", "pence"})
#: words that say nothing about which rule applies (who pays, what a charge is)
_GENERIC_WORDS = (
    "member customer visitor people person anyone all charge fee price cost order booking pay paying get "
    "gets receive rate total amount one per each every day week month year hour our your their fine fare "
    "rent bill invoice"
)
GENERIC = frozenset(_GENERIC_WORDS.split())
_SUBJECT_END = re.compile(
    r"\b(?:get|gets|receive|receives|adds?|is added|are added|pay|pays|are halved|is halved|costs?"
    r"|qualify)\b",
    re.I,
)
_BAND_PHRASE = re.compile(
    r"(?:more than|fewer than|less than|over|under|above|below|at least|up to|of)?\s*\d+(?:\.\d+)?\s*"
    r"(?:or more\s*)?[A-Za-z]*",
    re.I,
)
_WITH_VAT = re.compile(
    r"\b(?:with|including|incl\.?|inclusive of|plus|and) (?:the )?vat\b|\bvat included\b", re.I
)
_NO_VAT = re.compile(r"\b(?:before|excluding|excl\.?|without|net of)\b[^.?]*\bvat\b", re.I)


@dataclass(frozen=True, slots=True)
class _Applied:
    expr: str  # the amount, as an expression
    score: float
    used: frozenset[int]  # the question's quantities it uses


def ruled_expression(
    question: str,
    records: DocRecords | None,
    terms: tuple[tuple[str, str], ...] = (),
    looked: float | None = None,
) -> tuple[str, str] | None:
    """(expression, unit) for a question about what something costs, from the document's rules. When
    the retrieval read the price's own ``terms`` (planning/tariffs.py), the base rate must be the price it
    ``looked`` up, and the terms join its rules (a step, a free allowance, a minimum, a cap, a
    discount)."""
    if records is None or not _asks_money(question):
        return None
    rules = records.rules
    givens = _givens(question, rules)
    words = words_of(question)
    weight = _weights(records)
    rates = [r for r in rules if r.kind == RATE and r.unit in MONEY]
    bases = [r for r in rates if not _EXTRA.search(r.when)]
    added = _added_words(question)
    asked = words - added  # the words of the charges added ("with linen") do not choose the base
    scored = [
        (a, r) for r in bases if (a := _apply(r, rules, givens, asked, weight, frozenset())) is not None
    ]
    if not scored:
        return None
    base, rate = max(scored, key=lambda x: x[0].score)
    if base.score < 1.0:
        return None
    termed = dict(terms)
    if terms:
        if looked is None or abs(rate.number - looked) > 1e-9:
            return None  # another price than the one looked up: the retrieval's reading stands
        rate, rules = _with_terms(rate, rules, termed)
        again = _apply(rate, rules, givens, asked, weight, frozenset())
        if again is None:
            return None
        base = again
    if rate.tier:
        tiered = _tiered(rate, rates, givens)
        if tiered is None:
            return None
        base = _Applied(tiered, base.score, base.used)
    expr = _bounded(base.expr, rate, rules, words, weight)
    banded = givens + ages_in(question)
    applied = _modifiers(rules, words, weight, banded, rate, PERCENT)
    offs = [p for p in applied if p.number < 0]
    if _SAVES.search(question) and offs:  # "how much does a 70-year-old save": the discount itself
        return f"{_group(expr)} * {format_number(-offs[0].number / 100)}", rate.unit
    for p in applied:
        expr = f"{_group(expr)} * {format_number(1 + p.number / 100)}"
    off = _term_number(termed.get("discount", ""))
    known = any(r.kind == PERCENT and abs(r.number + off) < 1e-9 for r in rules)  # its condition checked here
    if off and not known:
        expr = f"{_group(expr)} * {format_number(1 - off / 100)}"
    for other in rates:
        if other is rate or other.row or (other.band is not None):
            continue
        named = bool((_words(other) & added) - GENERIC - _words(rate))
        if not named and not _EXTRA.search(other.when):
            continue
        extra = _apply(other, rules, givens, words, weight, frozenset(), strict=not named, extra=True)
        if extra is not None:
            expr = f"{expr} + {extra.expr}"
    for s in _modifiers(rules, words, weight, banded, rate, SURCHARGE):
        expr = f"{expr} + {format_number(s.number)}"
    if _WITH_VAT.search(question) and not _NO_VAT.search(question):
        vat = next((r for r in rules if r.kind == VAT and r.number > 0), None)
        if vat is not None:
            expr = f"({expr}) * {format_number(1 + vat.number / 100)}"
    return expr, rate.unit


_MONEY_WORDS = re.compile(
    r"\b(?:fine|fee|charge|cost|price|fare|pay|rent|bill|invoice|hire|rental|save|saving)s?\b", re.I
)
_EXTRA = re.compile(r"\bextra\b|\bsurcharge\b|\bsupplement\b|\badditional\b|\bin addition\b", re.I)
_ADDED = re.compile(
    r"\b(?:with|plus|including|incl\.?|and|also)\s+(?:the\s+|a\s+)?([a-z]+(?:\s+[a-z]+)?)"
    r"|\b([a-z]+(?:\s+[a-z]+)?)\s+included\b",
    re.I,
)


_SAVES = re.compile(r"\bhow much (?:do|does|did|would|will|can) [\w\s'-]{1,40}?\bsave\b", re.I)
_NOT_ADDED = re.compile(r"\b(?:without|before|excluding|excl|not including|leaving out|no)\b", re.I)


_KEPT = frozenset({"full", "whole", "total", "all"})  # function words elsewhere, names of plans and rows here


def words_of(text: str) -> frozenset[str]:
    """The words that say what a text is about (doc_facts.content_words), "Full" and "Whole" kept: here
    they name a plan, a row or a column."""
    return content_words(text) | (_KEPT & set(re.findall(r"[a-z]+", text.lower())))


def _asks_money(question: str) -> bool:
    kind = answer_type(question).kind
    return kind == "amount" or (
        kind in ("number", "text", "quantity") and bool(_MONEY_WORDS.search(question))
    )


def _added_words(question: str) -> frozenset[str]:
    """The words of the charges a question adds ("with linen", "shore power included", "plus delivery")."""
    out: set[str] = set()
    for m in _ADDED.finditer(question):
        if not _NOT_ADDED.search(question[max(0, m.start() - 30) : m.start() + 1]):
            out |= words_of(m.group(1) or m.group(2))
    return frozenset(out)


def _weights(records: DocRecords) -> dict[str, float]:
    """How telling each word of the document is: 1 / the number of its records that use it."""
    df: dict[str, int] = {}
    for r in records.records:
        for w in words_of(r.text):
            df[w] = df.get(w, 0) + 1
    return {w: 1.0 / n for w, n in df.items()}


def _fit(found: frozenset[str], weight: dict[str, float]) -> float:
    return sum(weight.get(w, 1.0) for w in found)


def counted_expression(question: str, records: DocRecords | None) -> tuple[str, str] | None:
    """(expression, unit) for "how many X" from a capacity or a pack size, rounded up; or for an amount
    in the unit a capacity is per ("how many litres for 54 m²")."""
    if records is None:
        return None
    m = re.search(r"\bhow many\s+(?:(\d+(?:\.\d+)?)\s*([A-Za-z²³]+)\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})",
                  question, re.I)  # fmt: skip
    if not m:
        return None
    phrase = re.split(r"\s+(?:do|does|did|will|would|can|could|should|are|is|of|to|for|in)\b", m.group(3))[0]
    nouns = {singular(w) for w in phrase.split()}
    capacities = [r for r in records.rules if r.kind == CAPACITY and r.per]
    givens = _givens(question, records.rules)
    asked_unit = unit_word(phrase.split()[-1])
    for cap in capacities:
        container = cap.per[0]
        if singular(container) in nouns or asked_unit == container:
            g = _find(givens, cap.unit, frozenset())
            if g is None:
                continue
            n, i = g
            times = _times(question, cap, givens, frozenset({i}))
            total = f"{format_number(n)}{times} / {format_number(cap.number)}"
            if singular(container) in nouns:  # a count of containers: whole ones
                return f"ceil({total})", ""
            return total, asked_unit  # an amount in the unit the capacity is per (litres)
        if m.group(1) and unit_word(m.group(2)) == container:  # "2.5 L tins": packs of a size
            g = _find(givens, cap.unit, frozenset())
            if g is None:
                continue
            n, i = g
            times = _times(question, cap, givens, frozenset({i}))
            return f"ceil({format_number(n)}{times} / {format_number(cap.number)} / {m.group(1)})", ""
    return None


# --------------------------------------------------------------------------------------------- internals


def _givens(question: str, rules: list[DocRule]) -> list[Quantity]:
    """The question's quantities; "four banners of 2 m by 1 m" also as their area; measures rounded as
    the document's rounding rules say."""
    text = re.sub(r"\bsquare met(?:re|er)s?\b|\bm2\b|\bsq\.? ?m\b", "m²", question, flags=re.I)
    text = re.sub(r"\bcubic met(?:re|er)s?\b|\bm3\b", "m³", text, flags=re.I)
    text = _AGE_WORDS.sub(" ", text)  # an age is a band's quantity, never an operand (ages_in)
    found = stated_quantities(text)
    period = period_of(text, per=False) or period_of(text, per=True)  # "for a year", "each month"
    if period and not any(q.unit == period + "s" for q in found):  # "a year of ...", "yearly"
        found.append(Quantity(1.0, period + "s", "", f"a {period}"))
    out = list(found)
    m = re.search(r"(\d+(?:\.\d+)?)\s*m\s*(?:by|x|×)\s*(\d+(?:\.\d+)?)\s*m\b", question)
    if m:
        count = next(
            (q.number for q in found if q.unit == "" and q.text and question.find(q.text) < m.start()), 1
        )
        out.append(Quantity(count * float(m.group(1)) * float(m.group(2)), "m²", "area", m.group(0)))
        out = [q for q in out if q.unit != "m" and not (q.unit == "" and q.number == count)] if count else out
    rounded = []
    for q in out:
        step = next((r.step for r in rules if r.kind == ROUNDING and r.unit == q.unit), 0.0)
        rounded.append(
            Quantity(math.ceil(q.number / step - 1e-9) * step, q.unit, q.what, q.text) if step else q
        )
    return rounded


_AGE_WORDS = re.compile(r"\b\d+[- ]years?[- ]old\b|\baged \d+\b|\b\d+ years of age\b", re.I)


def ages_in(question: str) -> list[Quantity]:
    """The ages a question states ("a 16-year-old", "aged 70"), in years."""
    out = []
    for m in _AGE_WORDS.finditer(question):
        n = re.search(r"\d+", m.group())
        if n:
            out.append(Quantity(float(n.group()), "age", "age", m.group()))
    return out


def _find(givens: list[Quantity], unit: str, used: frozenset[int]) -> tuple[float, int] | None:
    """A stated quantity in ``unit`` (converted), or counting that thing; (number, index)."""
    for i, g in enumerate(givens):
        if i in used:
            continue
        if g.unit and (c := convert(g.unit, unit)) is not None:
            return g.number * c, i
        if (
            g.unit == "night"
            and unit == "night"
            or (not g.unit and g.what and singular(g.what) == singular(unit))
        ):
            return g.number, i
    return None


def _apply(
    rate: DocRule,
    rules: list[DocRule],
    givens: list[Quantity],
    words: frozenset[str],
    weight: dict[str, float],
    used: frozenset[int],
    *,
    strict: bool = False,
    extra: bool = False,
) -> _Applied | None:
    """The amount ``rate`` comes to for the question's quantities; None when a measure it is per is not
    stated or its band does not hold (``strict``: when anything it is per is not stated)."""
    score = _fit((_words(rate) & words) - GENERIC, weight)
    parts: list[str] = []
    counts: list[str] = []
    for per in rate.per:
        g = _find(givens, per, used)
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
            if i not in used and not q.unit and q.what and singular(q.what) in _words(rate):
                counts.append(format_number(q.number))
                used = used | {i}
                score += 1.0
    expr = " * ".join([_group(amount), *counts]) if counts else amount
    if strict and not parts and not counts:
        return None
    return _Applied(expr, score, used)


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


def _with_terms(rate: DocRule, rules: list[DocRule], terms: dict[str, str]) -> tuple[DocRule, list[DocRule]]:
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
        n = _term_number(terms.get(name, ""))
        if n:
            added.append(DocRule(kind, n, rate.unit, record=rate.record))
    rules = [rate if r is not None and r.record == rate.record and r.kind == RATE and r.number == rate.number
             else r for r in rules] + added  # fmt: skip
    return rate, rules


def _term_number(raw: str) -> float:
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
    others = frozenset().union(*(_words(r) for r in rules if r.kind == RATE and r is not rate))
    for r in rules:
        if r.kind not in (MINIMUM, CAP) or r.unit != rate.unit:
            continue
        per_item = bool(r.per) and set(r.per) <= set(rate.per) and not set(r.per) & _THINGS
        topic = _topic(r)
        about = bool(topic & _words(rate)) or not topic & others
        if r.record == rate.record or (base and per_item and about):
            amount = f"{'max' if r.kind == MINIMUM else 'min'}({amount}, {format_number(r.number)})"
    return amount


def _bounded(amount: str, rate: DocRule, rules: list[DocRule], words: frozenset[str],
             weight: dict[str, float]) -> str:  # fmt: skip
    """The whole amount at least a document-wide money minimum ("the minimum charge for an order is GBP
    25") and at most a cap, when its topic is the question's or it names none."""
    for r in rules:
        if r.kind not in (MINIMUM, CAP) or r.unit != rate.unit or r.record == rate.record:
            continue
        if r.per and set(r.per) <= set(rate.per) and not set(r.per) & _THINGS:
            continue  # bounded per item
        topic = _topic(r)
        if not topic or _fit(topic & (words | _words(rate)), weight) >= 0.5:
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
            g = _find(givens, r.unit, used)
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


def _tiered(rate: DocRule, rates: list[DocRule], givens: list[Quantity]) -> str | None:
    """Each tier's part of the quantity at the tier's rate: "first 8 MWh at 84, next 12 at 79, ..."."""
    unit = rate.per[0] if rate.per else ""
    g = _find(givens, unit, frozenset())
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


def _modifiers(rules: list[DocRule], words: frozenset[str], weight: dict[str, float], givens: list[Quantity],
               rate: DocRule, kind: str) -> list[DocRule]:  # fmt: skip
    """The percentages (or surcharges) whose condition the question meets: the band they state holds for
    a stated quantity, or (with no band) the subject's own words are the question's."""
    out = []
    for r in rules:
        if r.kind != kind:
            continue
        banded = r.band is not None and (r.band.unit or any(not g.unit for g in givens))
        if banded and any(_holds(r, g) for g in givens):
            out.append(r)
            continue
        subject = _subject(r.when)
        if _fit(subject & words - _words(rate) - GENERIC, weight) >= 0.5:
            out.append(r)
    return out


def _holds(r: DocRule, g: Quantity) -> bool:
    band = r.band
    assert band is not None
    if band.unit:
        c = convert(g.unit, band.unit) if g.unit else None
        return c is not None and band.holds(g.number * c)
    counted = singular(g.what) in _PEOPLE or singular(g.what) in words_of(r.when)
    return not g.unit and counted and band.holds(g.number)


#: what a count of a group is a count of (a band "groups of 10 or more" counts them)
_PEOPLE = frozenset(
    [
        "adult",
        "child",
        "people",
        "person",
        "guest",
        "passenger",
        "member",
        "student",
        "visitor",
        "participant",
        "traveller",
        "pupil",
        "user",
        "employee",
        "staff",
        "senior",
        "delegate",
        "attendee",
    ]
)


def _subject(when: str) -> frozenset[str]:
    """Whom or what a percentage or surcharge applies to: its sentence's words before the verb, without
    the band it states (those are checked as a band)."""
    m = _SUBJECT_END.search(when)
    head = when[: m.start()] if m else when
    return words_of(_BAND_PHRASE.sub(" ", head)) - GENERIC


def _words(rate: DocRule) -> frozenset[str]:
    return words_of(rate.when)


def _distinctive(rate: DocRule, words: frozenset[str], weight: dict[str, float]) -> frozenset[str]:
    return frozenset(w for w in (_words(rate) & words) - GENERIC if weight.get(w, 1.0) >= 0.5)


def _times(question: str, cap: DocRule, givens: list[Quantity], used: frozenset[int]) -> str:
    """ " * 2" when the question counts something the capacity is per ("two coats", "per coat")."""
    for i, g in enumerate(givens):
        if i not in used and not g.unit and g.what and singular(g.what) in words_of(cap.when):
            return f" * {format_number(g.number)}"
    return ""


def _group(expr: str) -> str:
    return f"({expr})" if re.search(r"[-+]", expr.replace("max(", "").replace("min(", "")) else expr


__all__ = ["counted_expression", "ruled_expression"]
