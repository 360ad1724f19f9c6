"""Which questions are answered by a derivation, and the plan that asks for one (pure).

A question that asks for a quantity (an amount of money, a duration, a count, a number in a unit, a rate
"per minute", "the total" of what its statements buy) is planned as a lookup of the question and a
``calc`` step ``derive(v1)``, whose expression planning/derive.py writes from the passages the lookup read.
So is a question that moves a clock time by a duration the documents define, one that asks when something
arrives, and one that asks for a connection; a clock time moved by the request's own durations is one
``calc`` step. A date difference is no derivation.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.clock import CLOCK, asks_time, clock_expression, clock_times, durations
from ioa_p2p.planning.connections import asks_connection
from ioa_p2p.planning.ruled import asks_money
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

DERIVE = "derive(v1)"
_IN_UNIT_PER = re.compile(r"\bin\s+[a-z³² ]+\s+(?:per|an?)\s+\w+\s*\??$", re.I)
_NUMERIC_KINDS = ("amount", "duration", "count", "number")


def derived_plan(question: str) -> tuple[PlanStep, ...] | None:
    """A lookup of ``question`` and the derivation of its answer from the passages found; None for a
    question that does not ask for a quantity."""
    q = question.strip()
    timed = clock_expression(q)
    if timed is not None:  # "leave at 08:40, the drive takes 2 h 35 min: what time ...": a time
        return (PlanStep(1, CALC, q, timed[0], unit=CLOCK),)
    if _time_from_documents(q) or _arrival_asked(q) or asks_connection(q):  # a time plus the documents' ones
        return (PlanStep(1, LOOKUP, q, q), PlanStep(2, CALC, q, DERIVE, (1,)))
    last = re.split(r"(?<=[.!?])\s+(?=[A-Z])", q)[-1]  # statements, then the question
    # "... 5 days late - what's the fine?", "... of kinetic energy: how fast ...?": the question
    tail = re.split(r"\s[-\u2013\u2014:]\s|(?<=[a-z]):\s", last)[-1]
    last = tail if re.match(r"(?:what|how)\b", tail, re.I) else last
    # "If I set a 10-minute run, how many seconds pass ...?": the question after its condition
    # (only a condition that states a quantity: "Once the tenant of Unit 3C has moved out, how soon ...?"
    # gives nothing to derive from and stays a plain lookup)
    condition = re.match(r"(?:if|when|once|assuming|suppose)\b[^?]*?,\s+(?=(?:what|how)\b)", last, re.I)
    if condition and re.search(r"\b\d+(?:[.,]\d+)?(?:\s+|-)[a-z]", condition.group(0), re.I):
        last = last[condition.end() :]
    asked = answer_type(last)
    how = re.match(r"how (?:much|many|far|long|fast|heavy|high|deep|wide|tall)\b", last, re.I)
    quantity = asked.kind in _NUMERIC_KINDS[:2] or (asked.kind in _NUMERIC_KINDS and bool(asked.units or how))
    quantity = quantity or asks_money(last)  # "what's the fine?": an amount of money
    # "what is a paddleboard per minute?": a rate the documents may state over another quantity
    # ("the flow in cubic metres per hour" is a value converted after its lookup, not this)
    quantity = quantity or bool(
        asked.per and re.match(r"what(?:'s| is| does)\b", last, re.I) and not _IN_UNIT_PER.search(last)
    )
    # "... paid upfront. What's the total?": the total of what the statements buy
    total = re.match(r"what(?:'s| is) the total\b", last, re.I)
    quantity = quantity or bool(total and (asks_money(q) or last != q))
    if not re.match(r"(?:(?:by|to|in) )?(?:what|how|which)\b", last, re.I) or not quantity:
        return None
    if re.match(r"how many (?:days|weeks|months|years)\b.*\b(?:between|from|until|since)\b", last, re.I):
        return None  # a date difference, not a quantity the documents define
    return (
        PlanStep(1, LOOKUP, q, q),
        PlanStep(2, CALC, q, DERIVE, (1,)),
    )


def _time_from_documents(question: str) -> bool:
    """A question asking for a time that states one clock time, no duration, and asks how a duration
    ("the crossing time", "how long ... takes") the documents define moves it on."""
    return (
        asks_time(question)
        and len(clock_times(question)) == 1
        and not durations(question)
        and bool(
            re.search(
                r"\b(?:takes?|taking|crossing time|journey time|travel time|duration)\b", question, re.I
            )
        )
    )


def _arrival_asked(question: str) -> bool:
    """A question asking when something gets to a place that states no clock time ("What time does the
    first shuttle get to the venue?"): the time looked up may be a departure the journey moves on."""
    return asks_time(question) and not clock_times(question) and bool(_ARRIVAL_ASKED.search(question))


_ARRIVAL_ASKED = re.compile(r"\b(?:gets?|getting) (?:to|in|into|back to)\b|\barriv\w*\b|\breach\w*\b", re.I)

__all__ = ["DERIVE", "derived_plan"]
