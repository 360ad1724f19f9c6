"""A natural question's answer composed from the rules of the document its value was looked up in (pure;
issue 23, p-chain).

A situated question ("We receive council tax support and would like two brown garden bins. What is our
bill?") names no rule; its situation selects them. Starting from the value the lookup found and the
sentences of that value's document (each read by planning/rule_reader.py into a typed rule):

1. **the base**: the value found, on the terms its own sentence states when the question gives the one
   quantity it is charged over (two tiers, an allowance, a minimum, started units, a cap:
   :func:`stated_terms`), or a first item's price plus each further item's for the count the question
   gives ("First brown bin: EUR 52.00 a year" + "Each additional brown bin: EUR 38.00 a year"; "Up to 3
   items: EUR 27.50" + "Each further item: EUR 8.00");
2. **other charges the question adds** by name ("plus an old chest freezer": "Fridges and freezers: EUR
   21.00 each"), times the count it gives;
3. **modifiers its situation selects**: a factor, a discount or a fixed surcharge whose sentence shares at
   least two of its own words with the question ("Households receiving council tax support pay half
   price"), or whose threshold a quantity of the question meets ("Below +10 °C every time given above is
   doubled" for "8 °C"); a threshold the quantity fails keeps the rule out;
4. **refusal by silence**: a composition counts only when it combines at least two rules, each read in
   one way (two sentences that give one part different amounts: none); otherwise None and the planner's
   other readings answer or refuse.

Rule inversion (:func:`quantity_for`) solves a monotone charge for the quantity that reaches an amount
("after how many days does the fine reach its cap").
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from ioa_p2p.planning.covered import covered_rule
from ioa_p2p.planning.doc_facts import givens_in, singular
from ioa_p2p.planning.rounded import rounded_as_stated
from ioa_p2p.planning.rule_bands import condition_of
from ioa_p2p.planning.rule_reader import (
    CHARGE,
    DISCOUNT,
    FACTOR,
    SHARE_PER_UNIT,
    SURCHARGE,
    Rule,
    apply_to_expression,
    apply_to_quantity,
    read_rule,
    unit_of,
)
from ioa_p2p.planning.rule_step import sentences_of
from ioa_p2p.planning.situation_words import FORM_WORDS, STOP, selects, telling_stems, word_overlap, words_in
from ioa_p2p.planning.units import factor
from ioa_p2p.planning.values import NUMBER, Value, format_number, is_money, numbers_in

_FIRST = re.compile(r"^(?:the\s+)?(?:first|one|a\s+single|single)\s+(?P<what>[a-z][\w\s-]*?)\s*[:.]", re.I)
_UP_TO = re.compile(r"^(?:up\s+to|at\s+most)\s+(?P<n>\d+)\s+(?P<what>[a-z][\w\s-]*?)\s*[:.]", re.I)
_FURTHER = re.compile(
    r"^(?:(?:each|every|any|per)\s+(?:additional|further|extra|other|subsequent)|additional|further|extra|"
    r"subsequent)\s+(?P<what>[a-z][\w\s-]*?)\s*[:.]",
    re.I,
)
_ADDS = re.compile(
    r"\b(?:plus|also|as\s+well\s+as|along\s+with|together\s+with|and\s+also)\s+(?P<phrase>[^.,;?]+)", re.I
)
_NOT_IN = re.compile(r"\b(?:without|excluding|not\s+including|leaving\s+out|leave\s+out|except)\b", re.I)


def stated_terms(question: str, found: Value | None) -> tuple[str, str] | None:
    """The value found charged on the terms its own sentence states (two tiers, an allowance, a minimum,
    started units, a base fee, a cap or floor) over the one quantity the question gives in its unit:
    "EUR 0.38 per km for the first 5,000 km, EUR 0.30 per km beyond that" for 6,200 km. None otherwise."""
    if not _amount_found(found):
        return None
    assert found is not None and found.number is not None
    exprs = set()
    for sentence in _own_sentences(found):
        rule = covered_rule(sentence) or read_rule(sentence)  # a fee covering N units first (covered.py)
        if rule is None or rule.kind != CHARGE or not _has_terms(rule):
            continue
        if found.number not in (rule.rate, rule.further, rule.add):
            continue
        quantity = _one_quantity(question, rule.per)
        expr = apply_to_quantity(rule, quantity) if quantity is not None else None
        if expr is not None:
            exprs.add(expr)
    return (exprs.pop(), found.unit) if len(exprs) == 1 else None


def situated_charge(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, currency) of the charge the question's situation composes from the rules of the found
    value's document (see the module docstring), or None."""
    if not _amount_found(found):
        return None
    assert found is not None and found.number is not None
    sentences = _doc_sentences(found)
    own = _own_sentences(found)
    if not own or _rate_without_quantity(question, own[0], found.number):
        return None  # "EUR 3.20 per zone" and no number of zones: no charge to compose (refused)
    firsts = {b for s in sentences if (b := _first_and_further(question, s, sentences)) is not None}
    if len(firsts) > 1:
        return None  # two first-and-further prices fit the question's counts: not for this reading
    base = firsts.pop() if firsts else None
    expr = base[0] if base is not None else format_number(found.number)
    used = {base[4]} if base is not None else set()
    taken = {base[1], base[2]} if base is not None else set(own)
    extras = _extras(question, base[1] if base is not None else own[0], sentences, taken)
    if extras is None:
        return None
    if base is not None and found.number not in {*base[3], *(p for p, _ in extras)}:
        return None  # the amount looked up is in no part of the charge: another reading of the question
    for price, count in extras:
        expr = f"{expr} + {format_number(price)}" + (f" * {format_number(count)}" if count != 1 else "")
        used.add(count)
    modified = _modifiers(question, own[0], sentences, taken, used)
    for rule in modified:
        applied = apply_to_expression(rule, expr)
        if applied is None:
            return None
        expr = rounded_as_stated(rule.text, applied)  # "rounded down to the nearest 5p" (rounded.py)
    if base is None and not extras and not modified:
        return None  # the value found on its own: not a composition (the other readings answer it)
    if any(g.number != 1.0 and not any(_same(g.number, u) for u in used) for g in givens_in(question)):
        return None  # a quantity the question gives is used by no part: the charge is not the whole answer
    return expr, found.unit


def scaled_to_given(question: str, found: Value | None) -> tuple[str, str] | None:
    """An amount its own sentence states for a quantity ("70 mL of product in 10 L of water treats 200
    m²") scaled to the one quantity the question gives in that quantity's unit ("to treat a 340 m² drive":
    ``70 * 340 / 200``), in the found value's unit; None unless exactly one such pair exists."""
    if (
        found is None
        or found.kind != NUMBER
        or found.number is None
        or not found.unit
        or found.records is None
    ):
        return None
    given = [g for g in givens_in(question) if g.unit and g.unit != found.unit]
    if len(given) != 1:
        return None
    exprs = set()
    for sentence in _own_sentences(found, money=False):
        for m in _FOR_STATED.finditer(sentence):
            stated = numbers_in(m.group("q"))
            if len(stated) != 1 or stated[0].number is None or stated[0].unit != given[0].unit:
                continue
            exprs.add(
                f"{format_number(found.number)} * {format_number(given[0].number)} / "
                f"{format_number(stated[0].number)}"
            )
    return (exprs.pop(), found.unit) if len(exprs) == 1 else None


_FOR_STATED = re.compile(
    r"\b(?:treats?|covers?|serves?|is\s+enough\s+for|are\s+enough\s+for|makes?|yields?)\s+(?:up\s+to\s+|about\s+)?"
    r"(?P<q>\d[\d,.]*\s?[^\s,.;()]+)",
    re.I,
)


def inverted_rule(question: str, found: Value | None) -> tuple[str, str] | None:
    """Rule inversion asked in words: "after how many days does the fine reach its cap / EUR 4?", "how many
    months until the refund reaches its floor?": the one rule of the found value's document charged per
    that unit (its own sentence first), solved for the quantity (:func:`quantity_for`,
    :func:`floor_reached`); (expression, the unit asked). None when the question asks no such thing, no
    rule or several fit, or the amount is never reached."""
    m = _INVERSE.search(question)
    if m is None or found is None or found.records is None:
        return None
    unit = unit_of(m.group("u") or m.group("v"))
    amounts = [n.number for n in numbers_in(question) if is_money(n.unit) and n.number is not None]
    floor = bool(re.search(r"\b(?:floor|minimum|lowest)\b", m.group(0), re.I))
    own = set(_own_sentences(found, money=found.kind == NUMBER and is_money(found.unit)))
    exprs: dict[bool, set[str]] = {True: set(), False: set()}
    for sentence in _doc_sentences(found):
        rule = read_rule(sentence)
        if rule is None or rule.per != unit:
            continue
        if floor:
            expr = floor_reached(rule)
        elif len(amounts) == 1:
            expr = quantity_for(rule, amounts[0])
        elif (
            len(amounts) == 0 and rule.cap is not None and re.search(r"\b(?:cap|maximum|limit)\b", m.group(0))
        ):
            expr = quantity_for(rule, rule.cap)
        else:
            expr = None
        if expr is not None:
            exprs[sentence in own].add(expr)
    chosen = exprs[True] or exprs[False]
    return (chosen.pop(), unit) if len(chosen) == 1 else None


_INVERSE = re.compile(
    r"\b(?:after|within|in)\s+how\s+many\s+(?:full\s+|whole\s+)?(?P<u>[a-z]+)\b[^?]*?\b(?:reach(?:es|ed)?|hits?)\b[^?]*"
    r"|\bhow\s+many\s+(?:full\s+|whole\s+)?(?P<v>[a-z]+)\b[^?]*?\b(?:until|before|till)\b[^?]*?\b(?:reach(?:es|ed)?|hits?)\b[^?]*",
    re.I,
)


def floor_reached(rule: Rule) -> str | None:
    """Rule inversion for a share per unit with a floor ("the purchase price less 1.5 % for each full month,
    but never less than 40 %"): the units after which the floor is reached, ``ceil((1 - 0.4) / 0.015)``;
    None for another form or no floor."""
    if rule.kind != SHARE_PER_UNIT or rule.share <= 0 or rule.floor is None or not 0 <= rule.floor < 1:
        return None
    return f"ceil((1 - {format_number(rule.floor)}) / {format_number(rule.share)} - 1e-9)"


def quantity_for(rule: Rule, amount: float) -> str | None:
    """Rule inversion: the expression of the least quantity at which the charge ``rule`` reaches
    ``amount`` ("after how many days does the fine reach EUR 20": EUR 2 a day after a 3-day grace period ->
    ``3 + ceil((20 - 0) / 2)``); None when the rule is no charge, or the amount is below its base or above its
    cap (never reached)."""
    if rule.kind != CHARGE or rule.rate <= 0 or amount < rule.add:
        return None
    if rule.cap is not None and amount > rule.cap + 1e-9:
        return None
    if rule.further is not None and rule.further > 0:
        first_part = rule.rate * rule.first
        if amount - rule.add <= first_part:
            units = f"({format_number(amount)} - {format_number(rule.add)}) / {format_number(rule.rate)}"
        else:
            units = (
                f"{format_number(rule.first)} + ({format_number(amount)} - {format_number(rule.add)} - "
                f"{format_number(first_part)}) / {format_number(rule.further)}"
            )
    else:
        units = f"({format_number(amount)} - {format_number(rule.add)}) / {format_number(rule.rate)}"
    units = f"ceil({units} - 1e-9)"
    if rule.allowance:
        units = f"{format_number(rule.allowance)} + {units}"
    return units


# --------------------------------------------------------------------------------------------- internals


def _amount_found(found: Value | None) -> bool:
    return (
        found is not None
        and found.kind == NUMBER
        and found.number is not None
        and math.isfinite(found.number)
        and is_money(found.unit)
        and found.records is not None
    )


def _doc_sentences(found: Value) -> list[str]:
    """The sentences of the found value's document (its records: a dotted leader's line is one)."""
    return sentences_of(replace(found, evidence=()))


def _own_sentences(found: Value, money: bool = True) -> list[str]:
    """The sentences of the found value's document that state its amount (of money, or in its unit)."""
    return [s for s in _doc_sentences(found) if any(
        _same(n.number, found.number) and (is_money(n.unit) if money else n.unit == found.unit)
        for n in numbers_in(s))]  # fmt: skip


def _same(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < 1e-9


def _rate_without_quantity(question: str, own: str, number: float) -> bool:
    """Whether the value found is a rate per a unit (its own sentence: "EUR 3.20 per zone travelled") the
    question gives no quantity of."""
    rule = read_rule(own)
    if rule is None or rule.kind != CHARGE or not rule.per or abs(rule.rate - number) > 1e-9:
        return False
    return _one_quantity(question, rule.per) is None and not any(
        not g.unit and g.number != 1.0 for g in givens_in(question)
    )


def _has_terms(rule: Rule) -> bool:
    return bool(
        rule.further is not None
        or rule.allowance
        or rule.min_quantity
        or rule.started
        or rule.add
        or rule.cap is not None
        or rule.floor is not None
    )


def _one_quantity(question: str, per: str) -> float | None:
    """The one quantity the question gives in the unit ``per`` (converted), or None for none or several."""
    found = []
    for g in givens_in(question):
        if not g.unit:
            continue
        k = 1.0 if unit_of(g.unit) == per else factor(g.unit, per)
        if k is not None:
            found.append(g.number * k)
    return found[0] if len(found) == 1 else None


def _money_of(sentence: str) -> list[float]:
    return [n.number for n in numbers_in(sentence) if is_money(n.unit) and n.number is not None]


def _count_of(question: str, what: str) -> float | None:
    """The count the question gives of ``what`` ("two brown garden bins" for "brown bin"), or None."""
    wanted = {singular(w) for w in words_in(what)} - STOP
    head = singular(words_in(what)[-1]) if words_in(what) else ""
    for g in givens_in(question):
        if g.unit and g.unit not in g.alts[1:2]:
            continue
        things = {singular(a.lower()) for a in g.alts if a}
        if head in things and word_overlap(wanted, things) >= min(len(wanted), 2):
            return g.number
    return None


def _first_and_further(
    question: str, first_sentence: str, sentences: list[str]
) -> tuple[str, str, str, tuple[float, float], float] | None:
    """A first item's (or the first N items') price plus each further item's, for the count the question
    gives: (expression, the two sentences, the two prices, the count), or None."""
    first, up_to = _FIRST.match(first_sentence), _UP_TO.match(first_sentence)
    m = first or up_to
    if m is None:
        return None
    included = float(up_to.group("n")) if up_to else 1.0
    what = m.group("what")
    price = _money_of(first_sentence)
    further: list[tuple[float, str]] = []
    for sentence in sentences:
        f = _FURTHER.match(sentence)
        if f is None or _head(f.group("what")) != _head(what):
            continue
        further += [(p, sentence) for p in _money_of(sentence)[:1]]
    count = _count_of(question, what)
    if len(price) != 1 or len({p for p, _ in further}) != 1 or count is None or count <= included:
        return None
    n = format_number(count - included)
    expr = f"{format_number(price[0])} + {format_number(further[0][0])} * {n}"
    return expr, first_sentence, further[0][1], (price[0], further[0][0]), count


def _head(what: str) -> str:
    words = words_in(what)
    return singular(words[-1]) if words else ""


def _extras(
    question: str, own: str, sentences: list[str], taken: set[str]
) -> list[tuple[float, float]] | None:
    """The other charges the question adds by name ("plus an old chest freezer"), each (price, the count
    it gives: one when it names one); None when an added thing has two prices."""
    out = []
    for m in _ADDS.finditer(question):
        if _NOT_IN.search(question[max(0, m.start() - 30) : m.start()]):
            continue
        phrase = m.group("phrase")
        wanted = {singular(w) for w in words_in(phrase)} - STOP - FORM_WORDS - set(words_in(own))
        if not wanted:
            continue
        prices = set()
        for sentence in sentences:
            head = re.split(r"[:]|\bEUR\b|\bGBP\b|\bUSD\b|[€£$]", sentence)[0]
            if sentence in taken or word_overlap(wanted, {singular(w) for w in words_in(head)}) < 1:
                continue
            money = _money_of(sentence)
            if len(money) == 1:
                prices.add(money[0])
        if len(prices) > 1:
            return None
        if prices:
            out.append((prices.pop(), _phrase_count(phrase)))
    return out


def _phrase_count(phrase: str) -> float:
    found = [g.number for g in givens_in(phrase) if g.number]
    return found[0] if found else 1.0


def _modifiers(
    question: str, own: str, sentences: list[str], taken: set[str], used: set[float]
) -> list[Rule]:
    """The factors, discounts and fixed surcharges the question's situation selects (see the module
    docstring), in the document's order; ``used`` gets the quantities whose threshold chose one."""
    base_words = set(words_in(own))
    stated = [g for g in givens_in(question) if g.unit]
    telling = telling_stems(sentences)
    out: list[Rule] = []
    for sentence in sentences:
        if sentence in taken:
            continue
        rule = read_rule(sentence)
        if rule is None or rule.kind not in (FACTOR, DISCOUNT, SURCHARGE) or rule.exempt:
            continue
        if rule.kind == SURCHARGE and not rule.share and _PER.search(sentence):
            continue  # charged per unit ("each started kg above 5 kg costs CHF 1.50 extra"): no fixed amount
        band = condition_of(sentence)
        if band is not None:
            measured = [g for g in stated if unit_of(g.unit) == band.unit]
            if len(measured) != 1 or not band.holds(measured[0].number):
                continue  # a threshold the question states no quantity for, or one it fails
            used.add(measured[0].number)
        elif not selects(question, sentence, telling, base_words):
            continue
        out.append(rule)
    return out


_PER = re.compile(r"\b(?:each|every|per)\b", re.I)


__all__ = [
    "floor_reached",
    "inverted_rule",
    "quantity_for",
    "scaled_to_given",
    "situated_charge",
    "stated_terms",
]
