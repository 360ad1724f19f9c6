"""Date arithmetic for the calculator (pure): days between two dates, a date plus or minus days/weeks, the
minutes (or hours) from one clock time to another.

Forms (any date format :func:`~ioa_p2p.planning.values.dates_in` reads): "days between D1 and D2",
"days from D1 to D2", "D2 - D1", "D + 90 days", "90 days after D", "D minus 2 weeks", "3 weeks before D".
The answer is the whole number of days (never negative for "between") or the ISO date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ioa_p2p.planning.values import dates_in

_SPAN = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<u>days?|weeks?)\b", re.I)
_FORWARD = re.compile(r"\b(after|later|from|plus|\+|add)\b|\+", re.I)
_BACKWARD = re.compile(r"\b(before|earlier|ago|minus|prior to|subtract)\b|(?<=\d)\s*-\s*(?=\d)", re.I)


@dataclass(frozen=True, slots=True)
class DateResult:
    expression: str
    value: str  # a whole number of days (or minutes, hours), or an ISO date
    unit: str  # "days", "min", "h" or "date"

    def to_dict(self) -> dict[str, Any]:
        if self.unit in ("days", "min", "h"):
            number = float(self.value)
            shown = int(number) if number == int(number) else number
            return {"kind": "number", "value": shown, "unit": self.unit, "text": f"{self.value} {self.unit}"}
        return {"kind": "date", "date": self.value, "text": self.value}


_CLOCK = re.compile(r"(?<![\d.:])([01]?\d|2[0-3])[:.]([0-5]\d)(?![\d:])")
_ELAPSED = re.compile(r"\b(minutes?|hours?|mins?|h)\b[^.]*\b(?:between|from|until|to|and)\b", re.I)


def clock_difference(text: str) -> DateResult | None:
    """ "minutes between 09:14 and 10:50" -> 96 minutes (a later time earlier in the day is the next day)."""
    times = [(int(m.group(1)), int(m.group(2))) for m in _CLOCK.finditer(text)]
    asked = _ELAPSED.search(text)
    if len(times) != 2 or asked is None or dates_in(text):
        return None
    (h1, m1), (h2, m2) = times
    minutes = (h2 * 60 + m2 - h1 * 60 - m1) % (24 * 60)
    a, b = f"{h1:02d}:{m1:02d}", f"{h2:02d}:{m2:02d}"
    if asked.group(1).lower().startswith("h"):
        hours = minutes / 60
        return DateResult(f"hours from {a} to {b}", f"{hours:g}", "h")
    return DateResult(f"minutes from {a} to {b}", str(minutes), "min")


def date_calculation(text: str) -> DateResult | None:
    """The date arithmetic ``text`` asks for, or None when it is not a date calculation."""
    elapsed = clock_difference(text)
    if elapsed is not None:
        return elapsed
    found = dates_in(text)
    if len(found) == 2:
        (_, _, a), (_, _, b) = found
        days = abs((b - a).days)
        return DateResult(f"days between {a.isoformat()} and {b.isoformat()}", str(days), "days")
    if len(found) != 1:
        return None
    start, end, day = found[0]
    rest = text[:start] + " " + text[end:]
    span = _SPAN.search(rest)
    if span is None:
        return None
    amount = float(span.group("n")) * (7 if span.group("u").lower().startswith("week") else 1)
    backward = bool(_BACKWARD.search(rest)) and not _FORWARD.search(rest)
    moved = day - timedelta(days=amount) if backward else day + timedelta(days=amount)
    sign = "-" if backward else "+"
    return DateResult(f"{day.isoformat()} {sign} {amount:g} days", moved.isoformat(), "date")


__all__ = ["DateResult", "date_calculation"]
