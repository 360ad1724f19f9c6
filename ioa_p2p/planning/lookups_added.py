"""Lookups a calculation implies (pure): "add the A and the B" with nothing found yet, facts a calculation
names ("add the X7 module's weight to it"), and a lookup whose value a later step converts to a unit of
time asking for a period (moved out of lookups.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ioa_p2p.planning.answer_types import ARITH_WORD, LOOKUP_VERB, QUESTION_START, TIME_UNITS
from ioa_p2p.planning.expr import normalise
from ioa_p2p.planning.lookups import split_lookup
from ioa_p2p.planning.operands import NEST_MARK
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep

_ADD_TWO = re.compile(
    r"^(?:then\s+|now\s+|first\s+)?(?:add(?: up)?|sum|total)\s+(?=(?:the|its|their)\b)(.+)$", re.I
)
_ONTO = re.compile(r"\b(?:to|onto|on to)\s+(?:it|that|this|them|the (?:result|total|answer))\b", re.I)


def added_lookups(clause: str, index: int) -> list[PlanStep] | None:
    """ "Add the Green and the Labour votes in Ward 3", "add up the adult and the child permit prices": two
    values the request names but no earlier step gives, a lookup each (as :func:`split_lookup` splits "find
    the A and the B"), then their sum. None when the clause adds to an earlier value ("add it to ...")."""
    m = _ADD_TWO.match(clause.strip().rstrip(" .?"))
    if m is None or _ONTO.search(clause) or re.search(r"\b(?:to|from)\s+the\b", m.group(1), re.I):
        return None
    pair = split_lookup(f"Find {m.group(1)}")
    if pair is None or len(pair) != 2:
        return None
    a, b = index, index + 1
    return [
        PlanStep(a, LOOKUP, pair[0].rstrip("?"), pair[0]),
        PlanStep(b, LOOKUP, pair[1].rstrip("?"), pair[1]),
        PlanStep(b + 1, CALC, clause.strip(), f"v{a} + v{b}", (a, b)),
    ]


def time_asked(steps: Sequence[PlanStep]) -> list[PlanStep]:
    """A lookup whose value a later step converts to a unit of time ("look up the half-way cut-off, convert
    it to minutes") asks for a duration: its question says so ("... (in minutes)"), so the retrieval reads
    the period, not another figure of the same sentence."""
    out = list(steps)
    for step in steps:
        m = re.fullmatch(r"v(\d+)", step.template.strip()) if step.kind == CALC else None
        source = out[int(m.group(1)) - 1] if m and 0 < int(m.group(1)) <= len(out) else None
        if source is None or source.kind != LOOKUP or source.unit or step.unit not in TIME_UNITS:
            continue
        if re.search(r"\b(?:how long|how many|when|what time|time|duration|date)\b", source.template, re.I):
            continue  # it asks for a period or a time already
        word = _TIME_WORDS.get(step.unit, step.unit)
        out[source.index - 1] = replace(source, template=f"{source.template.rstrip(' ?.')} (in {word})")
    return out


_TIME_WORDS = {"s": "seconds", "min": "minutes", "h": "hours"}


_ENTITY = r"(?:[A-Z][\w-]*\d[\w-]*|[A-Z][a-z]+ [A-Z][\w-]*)(?: [a-z]+){0,2}"
_END = r"(?= to\b| from\b| by\b| and\b| with\b| plus\b| minus\b| times\b|[.,;?!]|$)"
_NESTED = (
    re.compile(rf"\bthe ({_ENTITY})'s ([a-z]+(?: [a-z]+){{0,2}}?){_END}"),  # "the X7 module's weight"
    re.compile(
        rf"\bthe ([a-z]+(?: [a-z]+){{0,2}}) of (?:the |an? )?({_ENTITY}){_END}"
    ),  # "the weight of the X7"
)


def nested_lookups(clause: str, index: int) -> tuple[list[PlanStep], str]:
    """A calculation that names a fact it needs ("add the X7 module's weight to it", "multiply it by the
    price of the H3"): a lookup step for each such fact, and the clause with a mark where its value goes."""
    if LOOKUP_VERB.match(clause) or QUESTION_START.match(clause) or not ARITH_WORD.search(normalise(clause)):
        return [], clause
    found: list[PlanStep] = []
    for form, pattern in enumerate(_NESTED):
        for m in list(pattern.finditer(clause))[:3]:
            entity, attribute = (m.group(1), m.group(2)) if form == 0 else (m.group(2), m.group(1))
            if re.search(r"\b(result|value|number|answer|sum|product|total|difference)\b", attribute):
                continue
            question = f"What is the {attribute} of the {entity}?"
            found.append(PlanStep(index + len(found), LOOKUP, question.rstrip("?"), question))
            clause = clause.replace(m.group(0), NEST_MARK.format(found[-1].index), 1)
    return found, clause


__all__ = ["added_lookups", "nested_lookups", "time_asked"]
