"""Chains of rates from the quantity a question asks for back to what is given (pure).

The search behind :mod:`~ioa_p2p.planning.derive`: every rate the documents state names the operand it
needs (what it is per); each operand is **given** by the request, **stated** by the documents, or
**derived** the same way; a rate per the unit asked for divides. Of the chains that close, the one whose
facts fit the question's words best and that uses the request's quantities wins (:class:`Chain`,
:func:`best_chain`); :func:`asked_units` says in which units the question asks, :func:`stated_amount`
whether the value looked up is already such an amount.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.answer_types import MONEY_UNITS, answer_type
from ioa_p2p.planning.doc_facts import Quantity, convert, unit_word
from ioa_p2p.planning.values import NUMBER, Value, exact, format_number, is_money

Used = frozenset[tuple[str, object]]  # the facts ("f", source) and request quantities ("g", i) a chain uses
MAX_DEPTH = 5
MAX_EXPANSIONS = 20_000  # facts tried in one derivation (bounds the search over any document)
GIVEN_WEIGHT = 3.0
ONE_WEIGHT = 1.0  # "a firing", "one season": one of what a rate is per
FACT_COST = 0.3
UNUSED_GIVEN = 1.5
FOUND_BONUS = 1.5
CONVERSION_COST = 0.01


@dataclass(frozen=True, slots=True)
class Chain:
    """A derivation: its expression, the facts' summed fit to the question, the request's quantities'
    weight. Its score is the facts' mean fit (a longer chain is no better for being longer) plus the
    weight of the request's quantities it uses, less a cost per fact."""

    rel: float
    given: float
    expr: str
    used: Used
    facts: int  # facts the chain uses

    @property
    def score(self) -> float:
        return self.rel / max(self.facts, 1) + self.given - FACT_COST * self.facts


def counts_given(chain: Chain, givens: list[Quantity]) -> bool:
    return any(("g", i) in chain.used and g.number != 1.0 for i, g in enumerate(givens))


def stated_amount(found: Value, facts: list[Quantity], wants: list[str]) -> bool:
    """The value looked up is an amount of what is asked for that the documents state (not a rate, not
    an operand in another unit: nothing to derive)."""
    if found.kind != NUMBER:
        return True
    if wants and not any(convert(found.unit, w) is not None for w in wants):
        return False
    same = [f for f in facts if f.number == found.number and f.unit == found.unit]
    return bool(same) and all(not f.per or f.per_item for f in same)


def asked_units(question: str, facts: list[Quantity], found: Value) -> list[str]:
    """The units (or things) the question asks for, in the units the documents use for them."""
    asked = answer_type(question)
    wanted: list[str] = []
    if asked.kind == "amount":  # and the currencies the documents state amounts in (CHF, GBP ...)
        wanted = list(dict.fromkeys([*MONEY_UNITS, *(f.unit for f in facts if is_money(f.unit))]))
    elif [u for u in asked.units if u]:
        wanted = [u for u in asked.units if u]
    else:
        m = re.search(r"\bhow (many|much) (?:\d+\s*\w+\s+)?([a-z][\w-]*)", question, re.I)
        if m:
            thing = unit_word(m.group(2))
            if m.group(1).lower() == "many":
                return [thing]
            units = [f.unit for f in facts if thing in f.words and f.unit and f.unit != thing]
            return list(dict.fromkeys([*units, thing]))[:4]
    if not wanted:  # "what payload can three K2 carry": in the unit of the value looked up
        return [found.unit] if found.kind == NUMBER and found.unit else []
    used = [u for f in facts for u in (f.unit, *f.per) if u]
    native = [u for u in dict.fromkeys(used) if any(convert(u, w) is not None for w in wanted)]
    return native or wanted


def _relevance(f: Quantity, words: frozenset[str]) -> float:
    return len(f.words & words) + 0.5 * len((f.context - f.words) & words)


def number_text(n: float) -> str:
    return format_number(float(f"{n:.10g}"))


def scaled(expr: str, c: float) -> str:
    if abs(c - 1.0) < 1e-12:
        return expr
    if c > 1 and abs(c - round(c)) < 1e-9:
        return f"{expr} * {round(c)}"
    if abs(1 / c - round(1 / c)) < 1e-9:
        return f"{expr} / {round(1 / c)}"
    return f"{expr} * {exact(c, 12)}"


def best_chain(
    want: str,
    facts: list[Quantity],
    givens: list[Quantity],
    words: frozenset[str],
    found: Value,
    depth: int,
    used: Used,
    budget: list[int],
) -> Chain | None:
    # an operand the request states is taken as stated (a count it names before a one it implies);
    # the answer itself is never one of the request's own quantities
    for counted in (True, False):
        taken = [c for c in _given(want, givens, used, counted)] if depth > 0 else []
        if taken:
            return taken[0]
    options: list[Chain] = []
    if depth <= MAX_DEPTH:
        for i, f in enumerate(facts):
            if ("f", f.source()) in used:
                continue
            rel = _relevance(f, words)
            if depth > 0 and rel <= 0:  # an operand the question's words do not touch: none (the top
                continue  # may be reached by its unit alone: "electricity costs EUR 0.30 per kWh")
            if found.kind == NUMBER and found.number == f.number and found.unit == f.unit:
                rel += FOUND_BONUS
            chain = _through(want, f, i, rel, facts, givens, words, found, depth, used, budget)
            if chain is not None:
                options.append(chain)
    return max(options, key=lambda c: (c.score, -c.facts), default=None)


def _given(want: str, givens: list[Quantity], used: Used, counted: bool) -> list[Chain]:
    out = []
    for i, g in enumerate(givens):
        if ("g", i) in used or (g.number != 1.0) != counted:
            continue
        c = next((c for u in (g.alts or (g.unit,)) if u and not _clock_of_calendar(u, want)
                  and (c := convert(u, want)) is not None), None)  # fmt: skip
        if c is not None:
            weight = GIVEN_WEIGHT if counted else ONE_WEIGHT
            out.append(Chain(0.0, weight, scaled(number_text(g.number), c), used | {("g", i)}, 0))
    return out


_SUB_DAY = frozenset({"s", "min", "h"})
_CALENDAR = frozenset({"days", "weeks", "months", "years", "night"})


def _clock_of_calendar(given: str, want: str) -> bool:
    """A span of the calendar ("for 7 weeks") is never counted in hours or minutes of a rate per hour:
    a charge per hour is for the hours something is used, which no calendar span states."""
    return given in _CALENDAR and want in _SUB_DAY


def _through(
    want: str,
    f: Quantity,
    i: int,
    rel: float,
    facts: list[Quantity],
    givens: list[Quantity],
    words: frozenset[str],
    found: Value,
    depth: int,
    used: Used,
    budget: list[int],
) -> Chain | None:
    """The chain that reaches ``want`` through fact ``f``: f itself, f times its operands, or an amount
    divided by f (a rate per the unit asked for)."""
    budget[0] -= 1
    if budget[0] <= 0:  # a bound on the work whatever the documents hold
        return None
    used = used | {("f", f.source())}
    c = convert(f.unit, want) if f.unit else None
    rel -= 0.0 if c == 1.0 else CONVERSION_COST
    if c is not None and not f.per:
        return Chain(rel, 0.0, scaled(number_text(f.number), c), used, 1)
    if c is not None and depth < MAX_DEPTH:
        parts, given, n = [scaled(number_text(f.number), c)], 0.0, 1
        for per in f.per:
            pool = [] if f.per_item else facts  # per item of a row or a batch: the request counts them
            sub = best_chain(per, pool, givens, words, found, depth + 1, used, budget)
            if sub is None:
                return None
            parts.append(sub.expr if " " not in sub.expr else f"({sub.expr})")
            rel, given, used, n = rel + sub.rel, given + sub.given, sub.used, n + sub.facts
        return Chain(rel, given, " * ".join(parts), used, n)
    if len(f.per) == 1 and f.unit and depth < MAX_DEPTH and not f.per_item:
        back = convert(f.per[0], want)
        if back is None:
            return None
        # an amount over a rate per the unit asked for; for the unit asked for itself, an amount per item
        # of a batch counts too, times the items the request states ("7.5 g of butter per biscuit" x 60
        # biscuits, over 250 g a block)
        amounts = [a for a in facts if not a.per or (a.per_item and depth == 0)]
        sub = best_chain(f.unit, amounts, givens, words, found, depth + 1, used, budget)
        if sub is None or sub.facts + sum(1 for k, _ in sub.used if k == "g") == 0:
            return None
        top = sub.expr if " " not in sub.expr else f"({sub.expr})"
        expr = scaled(f"{top} / {number_text(f.number)}", back)
        rel -= 0.0 if back == 1.0 else CONVERSION_COST  # "1700 mAh per hour": in hours, as stated
        return Chain(rel + sub.rel, sub.given, expr, sub.used, sub.facts + 1)
    return None


__all__ = [
    "MAX_EXPANSIONS",
    "UNUSED_GIVEN",
    "Chain",
    "Used",
    "best_chain",
    "counts_given",
    "number_text",
    "scaled",
    "stated_amount",
    "asked_units",
]
