"""Clock times as a planner value (pure): minutes since midnight, shown ``HH:MM``.

The calculator returns numbers only, so a time is a number in the unit :data:`CLOCK` (minutes since
the midnight of the day the request starts on): "leave at 08:40, the drive takes 2 hours 35 minutes"
becomes the step ``Calculate 520 + 155`` whose result, 675 clock, is shown ``11:15``; a result past
midnight is shown with the roll-over stated (``00:25 (next day)``), one before it ``(previous day)``.

:func:`clock_expression` writes that arithmetic for a question that asks for a time: the clock times
the request states, the durations it states (a stay, a stop, a journey), and when the request states
none, the duration the documents state (the value looked up). "Be there by 14:10 ... the latest time I
can set off" subtracts; everything else adds. A question whose answer needs more than that (no clock
time at all, or two of them) is left to the other derivations.
"""

from __future__ import annotations

import math
import re

CLOCK = "clock"
DAY = 24 * 60

# "08:40", "7.15 pm", "11 am" (a dotted time only with am/pm: "12.50 EUR" is an amount)
_CLOCK = re.compile(
    r"(?<![\d.:,])(?P<h>[01]?\d|2[0-3])(?::(?P<m>[0-5]\d)|\.(?P<d>[0-5]\d)(?=\s*[ap]\.?m\b)|(?=\s*[ap]\.?m\b))"
    r"(?![\d:])(?:\s*(?P<ap>[ap])\.?m\b\.?)?",
    re.I,
)
_NOON = re.compile(r"\b(?P<w>noon|midday|midnight)\b", re.I)
_DURATION = re.compile(
    r"(?<![\d.:])(?P<n>\d+(?:\.\d+)?|an?|one|two|three|four|five|six|half an?)(?:[\s-]*)"
    r"(?P<u>hours?|hrs?|h|minutes?|mins?)\b"
    r"(?:(?:\s*and)?\s+(?P<m>\d+)[\s-]*(?:minutes?|mins?)\b)?",
    re.I,
)
_WORDS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0}
_BACK = re.compile(
    r"\b(?:latest|by when must|at the latest|leave by|start by|before)\b|"
    r"\b(?:arrive|be (?:there|at \w+(?: \w+)?)|reach \w+(?: \w+)?) by\b",
    re.I,
)
#: "the first return sailing I can catch", "the next bus": an item of a schedule, not a computed time
_SCHEDULED = re.compile(r"\b(?:first|next|earliest|last)\b(?!\s+(?:time|moment)\b)", re.I)
_ASKS = re.compile(
    r"\b(?:what time|at what time|which time|what is the (?:latest|earliest) time)\b"
    # "when" asks a time where it opens a question, not in a clause of condition ("... when it has to")
    r"|(?:^\W*|[.?!;:,]\s*|\b(?:and|so|then|but|by|until|till) )when\b",
    re.I,
)


def clock_times(text: str) -> list[int]:
    """The clock times a text states, in minutes since midnight ("08:40", "8.40 pm", "7 am", "noon")."""
    found: list[tuple[int, int]] = []
    for m in _CLOCK.finditer(text):
        hours, minutes = int(m.group("h")), int(m.group("m") or m.group("d") or 0)
        ap = (m.group("ap") or "").lower()
        if ap and hours > 12:
            continue
        if ap == "p" and hours < 12:
            hours += 12
        elif ap == "a" and hours == 12:
            hours = 0
        found.append((m.start(), hours * 60 + minutes))
    for m in _NOON.finditer(text):
        found.append((m.start(), 0 if m.group("w").lower() == "midnight" else 12 * 60))
    return [minutes for _, minutes in sorted(found)]


def durations(text: str) -> list[float]:
    """The durations a text states, in minutes ("2 hours 35 minutes", "95 min", "a 20-minute stop")."""
    out: list[float] = []
    for m in _DURATION.finditer(text):
        raw = m.group("n").lower()
        n = 0.5 if raw.startswith("half") else _WORDS.get(raw)
        number = n if n is not None else float(raw)
        minutes = number * 60 if m.group("u").lower().startswith("h") else number
        out.append(minutes + float(m.group("m") or 0))
    return out


def asks_time(question: str) -> bool:
    """Whether a question asks for a clock time ("what time", "when", "the latest time")."""
    return bool(_ASKS.search(question))


def clock_expression(question: str, found_minutes: float | None = None) -> tuple[str, str] | None:
    """(expression, CLOCK) for a question asking for a time: the one clock time it states plus (or, for
    "by 14:10 ... the latest time", minus) the durations it states, or else ``found_minutes`` (a
    duration the documents state); None when the question does not close that way."""
    if not asks_time(question) or _SCHEDULED.search(question):
        return None
    times = clock_times(question)
    if len(times) != 1:
        return None
    spans = durations(_without_clocks(question))
    if not spans and found_minutes is not None and math.isfinite(found_minutes) and found_minutes > 0:
        spans = [found_minutes]
    if not spans:
        return None
    sign = " - " if _BACK.search(question) else " + "
    return str(times[0]) + "".join(sign + _number(s) for s in spans), CLOCK


_ARRIVES = re.compile(r"\b(?:gets?|getting) (?:to|in|into|back to)\b|\barriv\w*\b|\breach\w*\b", re.I)
#: a sentence that states a departure ("runs from the hotel ... from 07:40", "leaves at", "departs")
_DEPARTS = re.compile(r"\b(?:runs?|leaves?|departs?|departures?|sails?|from)\b", re.I)
_ARRIVAL_WORD = re.compile(r"\b(?:arr|arrives?|arrivals?|reach\w*)\b", re.I)
#: a sentence that states how long the journey takes ("The ride takes 18 minutes", "a 25-minute crossing")
_JOURNEY = re.compile(
    r"\b(?:ride|journey|crossing|trip|drive|walk|transfer|transit|flight|travel(?:ling)? time)\b", re.I
)


def journey_arrival(question: str, found_text: str, evidence: tuple[str, ...]) -> str | None:
    """ "What time does the first shuttle get to the venue?" answered by a departure time: that time plus
    the one journey duration the same passage states ("The ride takes 18 minutes"), as an expression in
    minutes since midnight; None when the question asks no arrival, states a clock time itself, the time
    found is no departure, or the passage states no single journey duration."""
    stated = clock_times(found_text)
    if not _ARRIVES.search(question) or clock_times(question) or len(stated) != 1:
        return None
    shown = re.search(r"\d{1,2}[:.]\d{2}", found_text)
    for passage in evidence:
        sentences = re.split(r"(?<=[.!?])\s+|\n", passage)
        source = [t for t in sentences if shown is not None and shown.group(0) in t]
        if not source:
            continue
        if not _DEPARTS.search(source[0]) or _ARRIVAL_WORD.search(source[0]):
            return None  # an arrival time already, or no departure
        spans = [d for t in sentences if _JOURNEY.search(t) and not clock_times(t) for d in durations(t)]
        return f"{stated[0]} + {_number(spans[0])}" if len(spans) == 1 else None
    return None


def render_clock(minutes: float) -> str:
    """``HH:MM`` for minutes since midnight, the day roll-over stated ("00:25 (next day)")."""
    if not math.isfinite(minutes):
        return str(minutes)
    whole = round(minutes)
    days, within = divmod(whole, DAY)
    shown = f"{within // 60:02d}:{within % 60:02d}"
    if days == 0:
        return shown
    if days == 1:
        return f"{shown} (next day)"
    if days == -1:
        return f"{shown} (previous day)"
    return f"{shown} ({days:+d} days)"


def _without_clocks(text: str) -> str:
    return _NOON.sub(" ", _CLOCK.sub(" ", text))


def _number(n: float) -> str:
    return str(int(n)) if n == int(n) else f"{n:.6g}"


__all__ = [
    "CLOCK",
    "asks_time",
    "clock_expression",
    "clock_times",
    "durations",
    "journey_arrival",
    "render_clock",
]
