"""Date arithmetic for the calculator (pure): days between two dates, a date plus or minus days/weeks.

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
    value: str  # a whole number of days, or an ISO date
    unit: str  # "days" or "date"

    def to_dict(self) -> dict[str, Any]:
        if self.unit == "days":
            return {"kind": "number", "value": int(self.value), "unit": "days", "text": f"{self.value} days"}
        return {"kind": "date", "date": self.value, "text": self.value}


def date_calculation(text: str) -> DateResult | None:
    """The date arithmetic ``text`` asks for, or None when it is not a date calculation."""
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
