"""What a step's result is worth (pure).

- :class:`StepOutcome`: what became of one step (who did it, its value, its status, a missing value);
- :func:`value_of` reads a result's value: its ``data["value"]`` when the adapter gave one (with the
  evidence and typed records the retrieval sent), else its structured answer, else the value its text states;
- :func:`answers` says whether a completed result answers its step (a calculation that returns no number,
  a lookup without a value or of the wrong answer type, code that printed nothing do not; nor a lookup
  "answered" by arithmetic over the numbers its own question states, :func:`restated`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.planning.answer_types import answer_type, area_or_volume, hour_or_day
from ioa_p2p.planning.compose import shifts_a_date
from ioa_p2p.planning.dimensions import mismatch
from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.records import records_from_data
from ioa_p2p.planning.relative import relative_base
from ioa_p2p.planning.structured import structured_of, structured_value
from ioa_p2p.planning.types import CALC, DATE, LOOKUP, TASK, PlanStep
from ioa_p2p.planning.values import ALIASES, LIST, NUMBER, TEXT, UNITS, Value, numbers_in, parse_value
from ioa_p2p.planning.values import DATE as DATE_VALUE


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What became of one step: who did it, its value (None when it failed or never ran)."""

    step: PlanStep
    who: str = ""
    value: Value | None = None
    status: str = "not started"  # "completed" | "failed" | "missing" | "running" | "not started"
    citation: Mapping[str, Any] | None = None
    note: str = ""  # why it failed
    missing: Missing | None = None  # status "missing": the value the step needs (planning/refusal.py)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.step.index,
            "kind": self.step.kind,
            "what": self.step.text,
            "who": self.who,
            "status": self.status,
            "value": self.value.to_dict() if self.value else None,
        }
        if self.note:
            out["note"] = self.note
        if self.missing is not None:
            out["missing"] = self.missing.to_dict()
        return out


def value_of(text: str, data: Mapping[str, Any] | None, request: str = "") -> Value | None:
    """The value a result carries: ``data["value"]`` if valid, else its structured answer (the field
    ``request`` asks for; planning/structured.py), else what its text states."""
    if data and "sub_chat" in data:  # a sub-team's conclusion: its first line states its answer
        lines = [line for line in text.splitlines()[1:] if line.strip()]
        m = re.match(r"The answer is (.+?)\.?$", lines[0].strip()) if lines else None
        return parse_value(m.group(1)) if m else None
    if data:
        value = Value.from_dict(data.get("value"))
        if value is not None:
            return value.with_evidence(_evidence(data)).with_records(records_from_data(data.get("records")))
        stdout = data.get("stdout")
        if isinstance(stdout, str) and stdout.strip():
            return parse_value(stdout)
    raw = structured_of(text, data)
    if raw is not None:
        return structured_value(raw, request)
    return parse_value(text)


MAX_EVIDENCE = 8
MAX_EVIDENCE_CHARS = 16_000


def _evidence(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The texts of the passages a retrieval result was read from (bounded)."""
    raw = data.get("passages")
    raw = raw[:MAX_EVIDENCE] if isinstance(raw, list) else []
    document = data.get("document")  # the whole document the value was read from, when sent
    if isinstance(document, Mapping) and isinstance(document.get("text"), str):
        raw = [document]
    texts = [p.get("text") for p in raw if isinstance(p, Mapping)]
    return tuple(t[:MAX_EVIDENCE_CHARS] for t in texts if isinstance(t, str) and t.strip())


def answers(step: PlanStep, value: Value | None, data: Mapping[str, Any] | None) -> bool:
    """Whether a completed result answers its step (the planner never accepts one that does not)."""
    if value is None:
        return False
    if restated(step, data):
        return False  # "the 2025-2 edition" worked out as 2025 - 2: nothing was looked up
    if data and "sub_chat" in data and step.kind in (CALC, DATE, LOOKUP):
        return value.kind in (NUMBER, DATE_VALUE, LIST)
    if step.kind == LOOKUP and _counts(step.template) and value.unit in _AMOUNT_UNITS:
        return False  # "how many customers ...?" answered by "EUR 85"
    if step.kind == LOOKUP and step.unit and value.kind != NUMBER:
        return False  # "how many weeks ...?" answered by a text or a date
    if step.kind == LOOKUP and step.unit and value.unit and value.unit != step.unit:
        return False  # "how many weeks ...?" answered by "10 %": the passage answers another question
    if step.kind in (CALC,):  # a date shifted by a period ("add 90 days to that date") gives a date
        return value.kind in (NUMBER, LIST) or (value.kind == DATE_VALUE and shifts_a_date(step))
    if step.kind in (LOOKUP, TASK) and not typed_fit(step, value):
        return False  # "how long ...?" answered by a name, "convert 12 miles to km" by a text
    if step.kind in (LOOKUP, TASK) and mismatch(step.template, value):
        return False  # "how much water ...?" answered by "300 mm": another dimension (planning/dimensions.py)
    if step.kind in (LOOKUP, TASK) and relative_base(step.template, value):
        return False  # "20 °C lower than the conventional temperature": an offset, not the level asked
    if step.kind == DATE:
        return value.kind in (NUMBER, DATE_VALUE)
    return True


_AMOUNT_UNITS = frozenset(UNITS) - {"cycles"}
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def restated(step: PlanStep, data: Mapping[str, Any] | None) -> bool:
    """Whether a lookup's result is arithmetic over numbers its own question states only (the result data's
    ``results``: the calculations a calculator made): "2025 - 2" for "the 2025-2 edition", "60 * 50 * 40"
    for "a box measuring 60 x 50 x 40 cm". A lookup asks for a value in the documents; such a result looked
    nothing up, so it answers another question, whatever the member's confidence."""
    calcs = data.get("results") if step.kind == LOOKUP and data else None
    if not isinstance(calcs, list) or not calcs:
        return False
    asked = {float(n) for n in _DIGITS.findall(step.template)}
    for calc in calcs:
        expression = calc.get("expression") if isinstance(calc, Mapping) else None
        used = {float(n) for n in _DIGITS.findall(expression)} if isinstance(expression, str) else set()
        if not used or not used <= asked:
            return False
    return True


def typed_fit(step: PlanStep, value: Value) -> bool:
    """Whether ``value`` is of the type the step's question asks for (planning/answer_types.py): a number
    (or a list of them) for a count, an amount or a duration, a date for "when", a text for a name."""
    asked = answer_type(step.template)
    numeric = value.kind in (NUMBER, LIST) or (value.kind == TEXT and bool(numbers_in(value.text)))
    if asked.kind in ("duration", "amount", "count"):
        return numeric
    if asked.kind in ("date", "dates"):
        return value.kind in (DATE_VALUE, LIST)
    if asked.kind == "time":
        clock = value.kind == TEXT and bool(re.search(r"\d{1,2}[:.]\d{2}", value.text))
        return clock or (value.kind == DATE_VALUE and hour_or_day(step.template))  # "when ... close?"
    if step.kind == TASK and re.search(r"\b(?:convert|express)\b.*\b(?:to|into|in)\b", step.template, re.I):
        return value.kind == NUMBER  # a conversion gives a number, never the request's own words back
    return True


def _counts(question: str) -> bool:
    m = re.search(r"\bhow many ((?:square |cubic |sq\.? )?[\w-]+)|\bnumber of ([\w-]+)", question, re.I)
    if m is None:
        return False
    word = (m.group(1) or m.group(2)).lower()
    return word not in ALIASES and not area_or_volume(word)  # "how many square metres": no count


__all__ = [
    "MAX_EVIDENCE",
    "MAX_EVIDENCE_CHARS",
    "StepOutcome",
    "answers",
    "restated",
    "typed_fit",
    "value_of",
]
