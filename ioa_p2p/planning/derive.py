"""A question answered by how the documents define the quantity it asks for (pure).

"What does heating the office cost for a heating season?" asks for an amount of money. The documents
define it through rates: "gas costs EUR 0.11 per kWh", "heating uses 95 kWh of gas per square metre of floor
area", "the office floor area is 420 m²". Working backwards from what the question asks for (its unit, or
the thing it names: "how much butter", "how many cups"), every rate names the operand it needs (what it
is per); each operand is **given** by the request ("for 3 hours", "60 biscuits", "for a year"), **stated**
by the documents, or **derived** the same way; a rate per the unit asked for divides ("how long does the
charger take": the battery's mAh over the charger's mAh per hour). Of the chains that close, the one whose
facts fit the question's words best and that uses the request's quantities wins; it becomes one expression
for the calculator (``420 * 95 * 0.11``). The search over chains is :mod:`~ioa_p2p.planning.chains`.

The plan (:func:`~ioa_p2p.planning.derive_plan.derived_plan`, re-exported here): a lookup of the question
(its result carries the passages it was read from, ``Value.evidence``) and a ``calc`` step ``derive(v1)``
whose task text :func:`derive_expression` writes from those passages; when no chain closes, the looked-up
value itself is the answer. The typed rules' charge it tries first is planning/typed_charge.py.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.accounted import unaccounted
from ioa_p2p.planning.allowance import allowance_expression
from ioa_p2p.planning.anchored import anchored_expression
from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.banded import banded_expression
from ioa_p2p.planning.chains import (
    MAX_EXPANSIONS,
    UNUSED_GIVEN,
    Chain,
    asked_units,
    best_chain,
    counts_given,
    number_text,
    scaled,
    stated_amount,
)
from ioa_p2p.planning.clock import (
    CLOCK,
    asks_time,
    clock_expression,
    clock_times,
    durations,
    journey_arrival,
)
from ioa_p2p.planning.closed import closed_expression
from ioa_p2p.planning.compared import compared_expression, timetable_duration
from ioa_p2p.planning.composer import composed_charge, composed_rate
from ioa_p2p.planning.connections import asks_connection, connection_expression, timetable_of
from ioa_p2p.planning.derive_plan import DERIVE, derived_plan
from ioa_p2p.planning.dimensions import asked_dimensions, dimension_of
from ioa_p2p.planning.doc_facts import Quantity, content_words, convert, facts_in, givens_in, singular
from ioa_p2p.planning.fees import charge_unit, with_fees
from ioa_p2p.planning.missing import Missing, names_another, unapplied
from ioa_p2p.planning.operand_rules import class_price, operand_charge, share_of_given
from ioa_p2p.planning.prorata import prorated_expression
from ioa_p2p.planning.rate_operand import rate_operand
from ioa_p2p.planning.records import NO_SINGLE_ANSWER
from ioa_p2p.planning.rule_step import conditional_rule
from ioa_p2p.planning.ruled import counted_expression, ruled_expression
from ioa_p2p.planning.season import out_of_period
from ioa_p2p.planning.situated import inverted_rule, scaled_to_given, situated_charge, stated_terms
from ioa_p2p.planning.subject import unnamed_subject
from ioa_p2p.planning.typed_charge import computes, looked_amounts, preferred, typed_charge
from ioa_p2p.planning.units import factor, unit_phrase
from ioa_p2p.planning.valued import valued_expression
from ioa_p2p.planning.values import ALIASES, NUMBER, Value, format_number
from ioa_p2p.planning.whichever import whichever_charge
from ioa_p2p.planning.yearly import yearly_expression


def derive_expression(question: str, found: Value | None) -> tuple[str, str] | None:
    """(expression, unit) for ``question`` from the passages ``found`` was read from (its evidence); None
    when nothing is to be derived (the value looked up answers) or a needed value is missing."""
    derived = _derive(question, found)
    worked = derived if isinstance(derived, tuple) else None
    return prorated_expression(question, found, worked) or worked  # for the whole months left (prorata.py)


def derive_missing(question: str, found: Value | None) -> Missing | None:
    """The value the derivation of ``question`` needs and the documents read do not state (a rate to
    apply to a quantity the request states, when the value looked up applies to none of it); None when
    the derivation closes or the value looked up answers."""
    derived = _derive(question, found)
    return (
        derived
        if isinstance(derived, Missing) and prorated_expression(question, found, None) is None
        else None
    )


def _derive(question: str, found: Value | None) -> tuple[str, str] | Missing | None:
    derived = _derive_any(question, found)
    if (derived is None or isinstance(derived, Missing)) and found is not None:
        # a rule whose condition the question's quantity meets ("Below +10 °C every time is doubled"): the
        # quantity chose the rule, it is accounted for
        conditioned = conditional_rule(question, found)
        if conditioned is not None:
            return conditioned, found.unit
        scaled = scaled_to_given(question, found)  # "70 mL ... treats 200 m²" for 340 m² (situated.py)
        if scaled is not None:
            return scaled
    if found is not None and _bare(derived, found):  # a rate found: times the situation's quantity its
        derived = rate_operand(question, found) or derived  # unit takes, or refused, that quantity named
    if found is None or isinstance(derived, Missing):
        return derived
    # what the derivation gives must be of a dimension the question asks for: "EUR 11340" never answers
    # "what share of the fee", nor "EUR 6.40" "the earliest I can be there" (planning/dimensions.py)
    unit = derived[1] if derived is not None else found.unit if found.kind == NUMBER else ""
    have, wanted = dimension_of(unit), asked_dimensions(question)
    if not have or not wanted or have in wanted or (derived is None and "/" in unit):
        return _accounted(question, derived, found)
    shown = f"{derived[0]} {unit}" if derived is not None else found.shown()
    named = " or ".join(sorted(_DIMENSION_NAMES.get(w, w) for w in wanted))
    return Missing(f"the {named} asked for", "", f"{shown} is a {have} ({unit}): no rule gives it")


_DIMENSION_NAMES = {"clock": "clock time", "time": "duration"}


def _accounted(
    question: str, derived: tuple[str, str] | None, found: Value
) -> tuple[str, str] | Missing | None:
    """``derived`` when it (or the value looked up, when nothing is derived) accounts for every quantity
    the question gives; else the rule that would apply the first one it ignores (planning/accounted.py)."""
    if derived is None and (found.kind != NUMBER or found.number is None):
        return derived
    expression = derived[0] if derived is not None else format_number(found.number or 0.0)
    return unaccounted(question, expression, found) or derived


def _derive_any(question: str, found: Value | None) -> tuple[str, str] | Missing | None:
    if found is None:
        return None
    if (other := unnamed_subject(question, found)) is not None:  # another subject's document
        return other
    if (outside := out_of_period(question, found)) is not None:  # December, prices for April-October
        return outside
    connection = connection_expression(question, timetable_of(found.records)) if found.records else None
    if connection is not None:  # arrive by one service, change, the next departure (planning/connections.py)
        return connection
    if asks_connection(question):  # never the time looked up: a departure is no arrival at the place asked
        where = found.records.path if found.records is not None else "the documents read"
        return Missing("a connection the question asks for", CLOCK, f"{where} states no trip that makes it")
    closed = closed_expression(question, found)  # a formula, durations summed ... (planning/closed.py)
    if closed is None and found.text.startswith(NO_SINGLE_ANSWER):  # the document's rules composed
        closed = composed_charge(question, found.records) or composed_rate(question, found.records)
    if closed is not None or found.text.startswith(NO_SINGLE_ANSWER):
        return closed  # a lookup that found no single answer closes by such a form only (salvage.py)
    if asks_time(question):  # a time: the request's clock time and the duration looked up
        timed = clock_expression(question, _minutes_of(found) or _evidence_minutes(question, found))
        stated = clock_times(found.text) if found.kind != NUMBER else []
        arrival = journey_arrival(question, found.text, found.evidence) if timed is None else None
        if arrival is not None:  # a departure the documents state plus the journey they state
            return arrival, CLOCK
        if timed is None and len(stated) == 1:  # the time looked up answers
            return f"{stated[0]} * 1", CLOCK
        return timed
    situated = whichever_charge(question, found)  # "EUR 25 or twice the single, whichever is greater"
    situated = situated or inverted_rule(question, found) or stated_terms(question, found)
    situated = situated or situated_charge(question, found)
    situated = situated or operand_charge(question, found) or share_of_given(question, found)
    situated = situated or class_price(question, found)
    if situated is not None:  # the value found on its own terms, with what the situation adds (situated.py)
        return situated  # or the rule it selects on the fact that rule names (operand_rules.py)
    valued = valued_expression(question, found)  # cover on a declared value, VAT on a bill (valued.py)
    valued = valued or yearly_expression(question, found)  # a year of a monthly fee paid up front
    if valued is not None:
        return valued
    rate = composed_rate(question, found.records)  # "per minute" of a rate stated per 45 minutes
    if rate is not None:
        return rate
    if answer_type(question).per and not [g for g in givens_in(question) if g.number != 1.0]:
        # "the rate per km": a rate the documents state (in the unit asked for, if named), not a total worked
        # out with it; but "what does a Plus contract for the VC-24R cost per year": the price plus the
        # supplement the lookup found
        anchored = anchored_expression(question, found)
        if anchored is not None and re.search(r" [-+] ", anchored[0]):
            return anchored
        return _in_named_unit(question, found)
    typed = (
        composed_charge(question, found.records, looked=looked_amounts(found))  # several rules composed
        or compared_expression(question, found.records)
        or timetable_duration(question, found.records)
        or counted_expression(question, found.records)
        or allowance_expression(question, found)  # "250 km per day included; each further km costs ..."
        or preferred(anchored_expression(question, found), ruled_expression(question, found.records), found)
    )
    typed = banded_expression(question, found, typed) or typed  # a percentage by the band of a quantity
    if typed is not None and computes(typed[0]) and not _lookup_answers(question, typed, found):
        return with_fees(typed, found)  # the document's own typed rules (ruled.py, compared.py)
    facts: list[Quantity] = []
    for text in found.evidence:  # never a fact about another item than the question's (planning/missing.py)
        facts += [
            f
            for f in facts_in(text)
            if f.key() not in {g.key() for g in facts} and not names_another(f.text, question)
        ]
    givens, facts = item_labels(question, givens_in(question), facts)  # "how many 250 g blocks"
    words = content_words(question)
    counted = [g for g in givens if g.number != 1.0]
    wants = asked_units(question, facts, found)
    labelled = _LABELLED.search(question)  # "how many 1.5 kg bags": bags are asked for, not kg
    wants = [singular(labelled.group(3).lower())] if labelled else wants
    if not counted and stated_amount(found, facts, wants):
        return _in_named_unit(question, found)  # the documents state it; in the unit asked for, if named
    best: Chain | None = None
    best_unit = ""
    for want in wants:
        chain = best_chain(want, facts, givens, words, found, 0, frozenset(), [MAX_EXPANSIONS])
        if chain is None:
            continue
        unused = sum(1 for i, g in enumerate(givens) if ("g", i) not in chain.used and g.number != 1.0)
        chain = Chain(chain.rel, chain.given - UNUSED_GIVEN * unused, chain.expr, chain.used, chain.facts)
        if best is None or chain.score > best.score:
            best, best_unit = chain, want
    if best is None or best.facts == 0 or (best.facts == 1 and not counts_given(best, givens)):
        # nothing to compute: the value looked up answers, unless it applies to none of the request's
        # quantities (EUR 12 for "a 3-hour rental"): then the rate that would apply it is missing
        return _in_named_unit(question, found) or unapplied(counted, wants, found)
    if not counted and _ignores_found(best.expr, found):
        # nothing given, and the chain works from other facts than the value looked up ("the unit cost of
        # the X": the labour rate times a lead time in days): the value looked up answers
        return _in_named_unit(question, found)
    named = [u for u in answer_type(question).units if u]
    scale = convert(best_unit, named[0]) if len(named) == 1 and best_unit != named[0] else None
    if scale is not None:  # "how many litres": in the unit the question names, not the documents'
        return scaled(best.expr if " " not in best.expr else f"({best.expr})", scale), named[0]
    if not dimension_of(best_unit) and " / " in best.expr and _HOW_MANY_THINGS.search(question):
        return f"ceil({best.expr})", best_unit  # "how many blocks must I buy": whole ones, rounded up
    return with_fees((best.expr, best_unit), found)


_HOW_MANY_THINGS = re.compile(
    r"\bhow many\b[^?]*\b(?:buy|need|order|get|take|use|open|fill|book|hire)\b", re.I
)
_LABELLED = re.compile(
    r"\bhow many\s+(\d+(?:[.,]\d+)?)[\s-]*([a-zA-Z²³]+)\s+([a-z]+?)(?:es|s)?\b(?!\s+(?:of|per)\s+\d)", re.I
)


def item_labels(
    question: str, givens: list[Quantity], facts: list[Quantity]
) -> tuple[list[Quantity], list[Quantity]]:
    """A measure that labels the item a question asks to count ("how many 250 g blocks", "how many 2.5 L
    tins") is the size of that item, not an operand: taken out of the givens and stated as a fact per
    item (250 g per block), unless the documents state that size already."""
    m = _LABELLED.search(question)
    if m is None:
        return givens, facts
    number, unit = float(m.group(1).replace(",", ".")), ALIASES.get(m.group(2).lower(), "")
    item = singular(m.group(3).lower())
    if not unit:
        return givens, facts
    label = [g for g in givens if g.number == number and g.unit == unit]
    if not label:
        return givens, facts
    rest = [g for g in givens if g is not label[0]]
    if any(f.per == (item,) and f.unit == unit for f in facts):
        return rest, facts
    size = Quantity(number, unit, (item,), frozenset({item, unit}), frozenset({item}), m.group(0))
    return rest, [*facts, size]


_IN_UNIT = re.compile(r"\b(?:in|into|as) (?:a number of )?([a-z]+)\b", re.I)


def _in_named_unit(question: str, found: Value) -> tuple[str, str] | None:
    """ "In minutes, how long ...": the value looked up ("4 h") in the unit the question names (240 min);
    None when the question names none, or the value is in it already or cannot be converted to it."""
    if found.kind != NUMBER or found.number is None or not found.unit:
        return None
    named = [ALIASES.get(m.group(1).lower(), "") for m in _IN_UNIT.finditer(question)]
    rate = _HOW_MANY.search(question)  # "how many litres an hour does it deliver": L/h
    named += [unit_phrase(rate.group(1), ALIASES)] if rate else []
    for unit in named:
        c = (
            (factor if "/" in unit + found.unit else convert)(found.unit, unit)
            if unit != found.unit
            else None
        )
        if unit and c is not None:
            return scaled(number_text(found.number), c), unit
    return None


_HOW_MANY = re.compile(
    r"\bhow (?:many|much) ((?:[a-z²³]+ ){1,4}?)(?:does|do|did|is|are|was|were|will|would|can|could)\b", re.I
)


def _minutes_of(found: Value) -> float | None:
    """The duration a looked-up value states, in minutes (a number in h or min, or a text "1 hour 40
    minutes"); None for anything else (a clock time is not a duration)."""
    if found.kind == NUMBER and found.number is not None:
        scale = {"h": 60.0, "min": 1.0, "s": 1 / 60}.get(found.unit)
        return found.number * scale if scale is not None else None
    if clock_times(found.text):
        return None
    spans = durations(found.text)
    return spans[0] if len(spans) == 1 else None


def _evidence_minutes(question: str, found: Value) -> float | None:
    """The one duration stated by the evidence sentence that shares most words with the question."""
    words = content_words(question)
    best: tuple[int, float] | None = None
    for passage in found.evidence:
        for sentence in re.split(r"(?<=[.!?])\s+|\n", passage):
            spans = durations(sentence) if not clock_times(sentence) else []
            fit = len(content_words(sentence) & words)
            if len(spans) == 1 and fit > 0 and (best is None or fit > best[0]):
                best = (fit, spans[0])
    return best[1] if best else None


def _ignores_found(expression: str, found: Value) -> bool:
    """Whether a derivation leaves out the number the lookup found (a lookup that found one)."""
    if found.kind != NUMBER or found.number is None:
        return False
    shown = re.escape(format_number(found.number))
    return re.search(rf"(?<![\d.]){shown}(?![\d.])", expression) is None


_TRIVIAL = re.compile(r"\s*-?\d+(?:\.\d+)?\s*\*\s*1\s*")


def _bare(derived: tuple[str, str] | Missing | None, found: Value) -> bool:
    """Nothing derived, or only the value looked up times one (no rule applied to it)."""
    if derived is None:
        return True
    if isinstance(derived, Missing) or found.number is None or not _TRIVIAL.fullmatch(derived[0]):
        return False
    return derived[0].split("*")[0].strip() == format_number(found.number)


def _lookup_answers(question: str, typed: tuple[str, str], found: Value) -> bool:
    """The typed rules' expression does not answer what the looked-up value answers: it is money where the
    question names a unit of another kind ("how many kilometres": not a daily rate in EUR), or it applies
    nothing (one amount times one: a rule's base amount) to a request that states no quantity, while the
    lookup read another amount in that unit (the fee the question names, not the membership's price)."""
    named = re.search(r"\bhow (?:many|much) ([a-z²³]+)", question, re.I)  # "how many kilometres"
    unit = ALIASES.get(named.group(1).lower(), "") if named else ""
    if unit and typed[1] and charge_unit(typed[1]) != charge_unit(unit):
        return True
    if not _TRIVIAL.fullmatch(typed[0]) or found.kind != NUMBER or found.number is None:
        return False
    stated = [g for g in givens_in(question) if g.number != 1.0]
    return not stated and found.unit == typed[1]


__all__ = [
    "DERIVE",
    "derive_expression",
    "derive_missing",
    "derived_plan",
    "item_labels",
    "preferred",
    "typed_charge",
]
