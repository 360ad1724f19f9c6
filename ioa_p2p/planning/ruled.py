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
then derives by definitions, planning/derive.py). The question's words and quantities are read in
planning/rule_fit.py; one rate is applied (operands, bounds, bands, tiers, terms) in planning/rule_apply.py.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.doc_facts import convert, singular, unit_word
from ioa_p2p.planning.missing import names_another
from ioa_p2p.planning.own_clause import own_clause
from ioa_p2p.planning.quantities import Quantity
from ioa_p2p.planning.records import CAPACITY, PERCENT, RATE, SURCHARGE, VAT, DocRecords, DocRule
from ioa_p2p.planning.rule_apply import (
    Applied,
    apply_rate,
    bounded_amount,
    grouped,
    term_number,
    tiered_amount,
    with_terms,
)
from ioa_p2p.planning.rule_fit import (
    GENERIC,
    MONEY,
    ages_in,
    find_given,
    fit_of,
    rule_givens,
    rule_words,
    word_weights,
    words_of,
)
from ioa_p2p.planning.table_terms import caption_minimums, frees
from ioa_p2p.planning.values import format_number

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
    if records is None or not asks_money(question):
        return None
    words = words_of(question)
    rules = caption_minimums(records, words)  # a table caption's minimum for each row (table_terms.py)
    givens = rule_givens(question, rules)
    weight = word_weights(records)
    rates = [r for r in rules if r.kind == RATE and r.unit in MONEY]
    # a rate of another item ("the K1 can be hired for EUR 45 per day" for the K2) is no base: a price
    # from the wrong passage would be a confident wrong answer (planning/missing.py)
    bases = [r for r in rates if not _EXTRA.search(r.when) and not names_another(r.when, question)]
    added = _added_words(question)
    asked = words - added  # the words of the charges added ("with linen") do not choose the base
    scored = [
        (a, r) for r in bases if (a := apply_rate(r, rules, givens, asked, weight, frozenset())) is not None
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
        rate, rules = with_terms(rate, rules, termed)
        again = apply_rate(rate, rules, givens, asked, weight, frozenset())
        if again is None:
            return None
        base = again
    if rate.tier:
        tiered = tiered_amount(rate, rates, givens)
        if tiered is None:
            return None
        base = Applied(tiered, base.score, base.used)
    expr = bounded_amount(base.expr, rate, rules, words, weight)
    banded = givens + ages_in(question)
    applied = modifiers(rules, words, weight, banded, rate, PERCENT)
    offs = [p for p in applied if p.number < 0]
    if _SAVES.search(question) and offs:  # "how much does a 70-year-old save": the discount itself
        return f"{grouped(expr)} * {format_number(-offs[0].number / 100)}", rate.unit
    for p in applied:
        expr = f"{grouped(expr)} * {format_number(1 + p.number / 100)}"
    off = term_number(termed.get("discount", ""))
    known = any(r.kind == PERCENT and abs(r.number + off) < 1e-9 for r in rules)  # its condition checked here
    if off and not known:
        expr = f"{grouped(expr)} * {format_number(1 - off / 100)}"
    for other in rates:
        if other is rate or other.row or (other.band is not None):
            continue
        named = bool((rule_words(other) & added) - GENERIC - rule_words(rate))
        if not named and not _EXTRA.search(other.when) or frees(other.when, words):
            continue  # named by no word of the question, or its own sentence frees what the question names
        extra = apply_rate(other, rules, givens, words, weight, frozenset(), strict=not named, extra=True)
        if extra is not None:
            expr = f"{expr} + {extra.expr}"
    for s in modifiers(rules, words, weight, banded, rate, SURCHARGE):
        if frees(s.when, words):
            continue
        expr = f"{expr} + {format_number(s.number)}"
    if _WITH_VAT.search(question) and not _NO_VAT.search(question):
        vat = next((r for r in rules if r.kind == VAT and r.number > 0), None)
        if vat is not None:
            expr = f"({expr}) * {format_number(1 + vat.number / 100)}"
    return expr, rate.unit


_MONEY_WORDS = re.compile(
    r"\b(?:fine|fee|charge|cost|price|fare|pay|rent|bill|invoice|hire|rental|save|saving|owe)s?\b|\bpaid\b",
    re.I,
)
_EXTRA = re.compile(r"\bextra\b|\bsurcharge\b|\bsupplement\b|\badditional\b|\bin addition\b", re.I)
_ADDED = re.compile(
    r"\b(?:with|plus|including|incl\.?|and|also)\s+(?:the\s+|a\s+)?([a-z]+(?:\s+[a-z]+)?)"
    r"|\b([a-z]+(?:\s+[a-z]+)?)\s+included\b",
    re.I,
)


_SAVES = re.compile(r"\bhow much (?:do|does|did|would|will|can) [\w\s'-]{1,40}?\bsave\b", re.I)
_NOT_ADDED = re.compile(r"\b(?:without|before|excluding|excl|not including|leaving out|no)\b", re.I)


def asks_money(question: str) -> bool:
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
    return frozenset(out - _NO_NAMES)


#: words after "and", "with" or "also" that name no charge ("and only need the hall", "and just want")
_NO_NAMES = frozenset(
    {"only", "just", "also", "still", "even", "need", "want", "like", "please", "both", "too"}
)


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
    givens = rule_givens(question, records.rules)
    asked_unit = unit_word(phrase.split()[-1])
    for cap in capacities:
        container = cap.per[0]
        if singular(container) in nouns or asked_unit == container:
            g = find_given(givens, cap.unit, frozenset())
            if g is None:
                continue
            n, i = g
            times = _times(question, cap, givens, frozenset({i}))
            total = f"{format_number(n)}{times} / {format_number(cap.number)}"
            if singular(container) in nouns:  # a count of containers: whole ones
                return f"ceil({total})", ""
            return total, asked_unit  # an amount in the unit the capacity is per (litres)
        if m.group(1) and unit_word(m.group(2)) == container:  # "2.5 L tins": packs of a size
            g = find_given(givens, cap.unit, frozenset())
            if g is None:
                continue
            n, i = g
            times = _times(question, cap, givens, frozenset({i}))
            return f"ceil({format_number(n)}{times} / {format_number(cap.number)} / {m.group(1)})", ""
    return None


# --------------------------------------------------------------------------------------------- internals


def modifiers(rules: list[DocRule], words: frozenset[str], weight: dict[str, float], givens: list[Quantity],
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
        subject = _subject(own_clause(r.when, r.number) if kind == PERCENT else r.when)  # its own row's words
        if fit_of(subject & words - rule_words(rate) - GENERIC, weight) >= 0.5:
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


def _times(question: str, cap: DocRule, givens: list[Quantity], used: frozenset[int]) -> str:
    """ " * 2" when the question counts something the capacity is per ("two coats", "per coat")."""
    for i, g in enumerate(givens):
        if i not in used and not g.unit and g.what and singular(g.what) in words_of(cap.when):
            return f" * {format_number(g.number)}"
    return ""


__all__ = ["asks_money", "counted_expression", "modifiers", "ruled_expression"]
