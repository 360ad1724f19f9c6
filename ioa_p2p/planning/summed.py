"""Durations summed: the phases of one item the documents list, plus those the question states (pure).

"How many seconds pass from pressing start until the rotor has stopped, with a 10-minute run on the X-48?"
is the X-48's own phases ("X-48: to maximum speed in 30 seconds; braking in 35 seconds") around the run
the question states: 30 s + 10 min + 35 s. "How long does the whole trip take": every leg of it.

A question qualifies when it asks for a duration (planning/answer_types.py) **as a whole**: a span
("from ... until / to ..."), "in total", "altogether", "overall", "the whole / entire ...", "end to end",
"pass". The durations summed are those of the one record (sentence, list item, table row) that names the
item the question names (a code or a proper name) and states at least two durations outside brackets
(a bracket is an alternative: "(soft brake: 90 seconds)"), else of the one record that states two or
more and shares most words with the question; and the durations the question states ("a 10-minute
run", "2 h"). :func:`summed_expression` returns (expression in the unit asked, unit) or None.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.doc_facts import content_words
from ioa_p2p.planning.records import DocRecords
from ioa_p2p.planning.units import factor
from ioa_p2p.planning.values import format_number, numbers_in

_TIME_UNITS = frozenset({"s", "min", "h", "days"})
_HYPHENED = re.compile(r"\b(\d+(?:\.\d+)?)-(second|minute|hour|day)s?\b", re.I)
_HYPHEN_UNITS = {"second": "s", "minute": "min", "hour": "h", "day": "days"}
_WHOLE = re.compile(
    r"\bfrom\b.{2,80}\b(?:until|till|to|through)\b|\bin total\b|\baltogether\b|\boverall\b|\btotal\b|"
    r"\b(?:the )?(?:whole|entire)\b|\bend to end\b|\b(?:pass|elapse)\b",
    re.I,
)
_NAMED = re.compile(r"\b(?:in|how many)\s+(second|minute|hour|day)s\b", re.I)
_ITEM = re.compile(r"\b[A-Z][A-Za-z]*-?\d+[A-Za-z0-9]*\b|\b\d+[A-Z][A-Za-z0-9]*\b")
MAX_TEXTS = 400


def summed_expression(
    question: str, evidence: tuple[str, ...], records: DocRecords | None
) -> tuple[str, str] | None:
    """(expression, unit) of the whole duration the question asks for; None when it asks for no whole
    duration or no record lists the item's phases (see the module docstring)."""
    asked = answer_type(question)
    units = [u for u in asked.units if u in _TIME_UNITS]
    if asked.kind != "duration" or not units or not _WHOLE.search(question):
        return None
    phases = _phases(question, _texts(evidence, records))
    if phases is None:
        return None
    named = _NAMED.search(question)  # "in hours", "how many minutes": that unit, else the one asked
    unit = _HYPHEN_UNITS[named.group(1).lower()] if named else (units[0] if len(units) == 1 else phases[0][1])
    stated = durations_stated(question)
    parts = [_in_unit(n, u, unit) for n, u in [*phases[:1], *stated, *phases[1:]]]
    if any(p is None for p in parts):
        return None
    return " + ".join(p for p in parts if p is not None), unit


def durations_stated(text: str) -> list[tuple[float, str]]:
    """The durations ``text`` states ("30 seconds", "2 h", "a 10-minute run"), outside brackets."""
    plain = re.sub(r"\([^()]*\)", " ", text)
    out = [(f.number, f.unit) for f in numbers_in(plain) if f.unit in _TIME_UNITS]
    out += [(float(m.group(1)), _HYPHEN_UNITS[m.group(2).lower()]) for m in _HYPHENED.finditer(plain)]
    return out


def _texts(evidence: tuple[str, ...], records: DocRecords | None) -> list[str]:
    if records is not None and records.records:
        return [r.text for r in records.records][:MAX_TEXTS]
    return [line for text in evidence for line in re.split(r"(?<=[.!?])\s+|\n", text) if line.strip()][
        :MAX_TEXTS
    ]


def _phases(question: str, texts: list[str]) -> list[tuple[float, str]] | None:
    listed = [(t, d) for t in texts if len(d := durations_stated(t)) >= 2]
    items = {m.group(0) for m in _ITEM.finditer(question)}
    if items:
        named = [
            (t, d)
            for t, d in listed
            if any(re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", t) for i in items)
        ]
        return named[0][1] if len(named) == 1 else None
    words = content_words(question)
    fits = sorted(((len(content_words(t) & words), d) for t, d in listed), key=lambda x: -x[0])
    if fits and fits[0][0] >= 2 and (len(fits) == 1 or fits[1][0] < fits[0][0]):
        return fits[0][1]
    return None


def _in_unit(number: float, unit: str, asked: str) -> str | None:
    scale = factor(unit, asked)
    if scale is None:
        return None
    if scale == 1:
        return format_number(number)
    return (
        f"{format_number(number)} * {format_number(scale)}"
        if scale > 1
        else f"{format_number(number)} / {format_number(1 / scale)}"
    )


__all__ = ["durations_stated", "summed_expression"]
