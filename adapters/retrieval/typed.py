"""When the typed document model's answer replaces the fact scorer's (pure).

The fact scorer (answer.py) was built on the goal suites' documents; the typed document model (docmodel/)
reads any document into typed records. :func:`prefer_typed` gives the typed answer when the scorer found
nothing, or when the scorer's value has the wrong type for an unambiguous answer type (a bare number where
money or a duration is asked) and no typed reading of the same line corroborates it; :func:`reading_of`
is the typed reading of the scorer's own answer (it travels in the result's ``data["typed"]``).
``TYPED_POLICY`` switches the routing for measurements (``none`` = the scorer alone, as before).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ioa_p2p.adapters.retrieval.answer import Answer, named_row
from ioa_p2p.adapters.retrieval.docmodel import Span, TypedAnswer, fits
from ioa_p2p.adapters.retrieval.facts import Fact, Scorer, terms
from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.values import UNITS, Value

#: How the typed model's answer is weighed against the fact scorer's (see :func:`prefer_typed`).
TYPED_POLICY = "misfit"


def prefer_typed(
    question: str, found: Answer | None, typed: Sequence[TypedAnswer], fit: float | None = None
) -> bool:
    """Whether the typed document model's best answer replaces the fact scorer's: when the scorer found
    nothing, or its value does not have the type the question asks for (a bare number where an amount
    of money or a duration is asked), the typed one does, and no typed answer reads the scorer's number.
    ``fit`` is the fact scorer's own confidence in the typed answer's line (:func:`line_fit`): a line it
    finds clearly less about the question (the current price where the question names the superseded
    list, another surcharge than the one named) replaces nothing, whatever its type."""
    best = typed[0]
    if TYPED_POLICY == "none":
        return False
    if found is None or TYPED_POLICY == "always":
        return True
    if TYPED_POLICY == "confidence":
        return best.confidence > found.score
    if reading_of(found, typed) is not None:  # the typed model reads the same value from the same record
        return False
    if best.kind not in TYPED_KINDS:  # "what X" may ask for a name or a number: the scorer's stands
        return False
    asked = answer_type(question)
    if best.value.kind == "number" and asked.kind == "name" and found.fact.cells:
        return False  # "which pay grade ...": a table's name asked, whatever the typed reader makes of "pay"
    if found.value.unit and asked.units == (found.value.unit,) and best.value.unit != found.value.unit:
        return False  # "what share ...": the scorer's 75 % is of the one unit asked for
    sure = best.confidence >= TYPED_SURE * found.score
    if fit is not None and found.value.kind == "number" and fit < TYPED_LINE_SHARE * found.score:
        return False  # (a passage given for want of a figure is no figure the question's qualifiers picked)
    return sure and fits(question, best.value) and not _fits(question, found.value)


def _fits(question: str, value: Value) -> bool:
    """:func:`fits`, a period the document qualifies ("ten working days") fitting a duration asked too."""
    qualified = value.kind == "number" and value.unit.split(" ")[-1] in _PERIODS and " " in value.unit
    return fits(question, value) or (qualified and answer_type(question).kind == "duration")


_PERIODS = frozenset({"days", "weeks", "months", "years", "hours"})


#: The typed answer's line must score at least this share of the scorer's answer's confidence.
TYPED_LINE_SHARE = 0.8


def line_fit(question: str, facts: Sequence[Fact], span: Span, found: Answer | None = None) -> float | None:
    """The fact scorer's confidence in the line ``span`` cites (its best fact there), None when no fact
    found is on that line (the scorer has no opinion on it); 0 when the question's terms that line holds
    are fewer than, and all among, those the scorer's own answer ``found`` holds (it lacks a qualifier
    the question names: "the superseded list", "winter fares", "the fuel surcharge")."""
    here = [f for f in facts if f.path == span.path and f.line == span.line and f.kind != "heading"]
    if not here:
        return None
    scorer = Scorer(question, facts)
    if all(scorer.contradicts(f) for f in here):
        return 0.0  # it states the amount the question gives at another value ("13 m" for "at 8 m")
    if found is not None:
        asked = scorer.q_terms
        theirs = set().union(*(asked & (terms(f.text) | terms(f.context)) for f in here))
        ours = asked & (terms(found.fact.text) | terms(found.fact.context))
        if theirs < ours:
            return 0.0
    return max(max(scorer.score(f), named_row(f, scorer) if f.cells else 0.0) for f in here)


#: Answer types whose mismatch is unambiguous (a duration asked, a bare number or a price given).
TYPED_KINDS = frozenset({"duration", "amount", "quantity", "count", "time", "date", "when"})


TYPED_CANDIDATES = 5
#: The typed answer replaces a fact scorer's answer of the wrong type only when its confidence is at least
#: this share of the scorer's (the two scales differ; the scorer's runs higher).
TYPED_SURE = 0.25


def reading_of(found: Answer, typed: Sequence[TypedAnswer]) -> TypedAnswer | None:
    """The typed answer that reads the scorer's number from the same line of the same file, ranked near
    the typed model's best (at least half its confidence), if any."""
    for t in typed:
        near = t.confidence >= 0.5 * typed[0].confidence
        here = t.span.path == found.fact.path and _same_line(t.span.line, t.span.text, found.fact)
        if near and here and same_number(t.value, found.value):
            return t
    return None


def with_reading(value: Value, reading: Value, fact: Fact) -> Value:
    """The scorer's ``value`` with what the typed reading of the same figure adds: its terms (what an
    amount is charged per), its unit where the fact spells it out after the number and the scorer read a
    bare number ("125 square metres": m²; a unit only a table's header implies stays out)."""
    if not value.unit and reading.unit and value.number is not None and _spelled(value, reading.unit, fact):
        value = replace(value, unit=reading.unit)
    return value if value.terms else value.with_terms(reading.terms)


def _spelled(value: Value, unit: str, fact: Fact) -> bool:
    spellings = sorted(UNITS.get(unit, (unit.lower(),)), key=len, reverse=True)
    pattern = rf"{re.escape(value.text)}\s?(?:{'|'.join(re.escape(x) for x in spellings)})\b"
    return bool(value.text) and re.search(pattern, fact.text.split("\0")[0], re.I) is not None


def _same_line(line: int, text: str, fact: Fact) -> bool:
    """The typed span (a record from ``line``) is the scorer's fact's line, or a paragraph that holds the
    fact's sentence (a record of a wrapped paragraph starts where the paragraph does)."""
    own = fact.text.split("\0")[0].strip()
    return line == fact.line or (line < fact.line and len(own) >= 12 and own in " ".join(text.split()))


def same_number(a: Value, b: Value) -> bool:
    return a.number is not None and b.number is not None and abs(a.number - b.number) < 1e-9
