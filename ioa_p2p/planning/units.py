"""Units as values (pure): how many of one unit make another, rates included.

Every known unit belongs to a dimension with a factor to the dimension's base (mass in grams, volume in
millilitres, time in seconds, length in millimetres, energy in watt-hours, power in watts). A rate is
``A/B`` ("EUR/km", "L/min", "m³/h"): its factor is A's over B's. :func:`factor` says how many ``dst`` one
``src`` is (None when the two measure different things), so a value read in tonnes is used in kilograms,
a flow read in litres per minute is shown in cubic metres per hour.
"""

from __future__ import annotations

import re

from ioa_p2p.planning.values import exact

DIMENSIONS: dict[str, dict[str, float]] = {
    "mass": {"g": 1.0, "kg": 1000.0, "t": 1e6, "lb": 453.59237},
    "volume": {"ml": 1.0, "L": 1000.0, "m³": 1e6},
    "time": {"s": 1.0, "min": 60.0, "h": 3600.0, "days": 86400.0, "weeks": 604800.0},
    "length": {"mm": 1.0, "cm": 10.0, "m": 1000.0, "km": 1e6, "miles": 1609344.0},
    "energy": {"Wh": 1.0, "kWh": 1000.0, "MWh": 1e6, "J": 1 / 3600, "kJ": 1000 / 3600, "MJ": 1e6 / 3600},
    "power": {"W": 1.0, "kW": 1000.0},
    "money": {"cent": 1.0, "EUR": 100.0},
}
#: how many of each period make the next ones (a monthly amount for a year: x 12)
PERIODS = {"day": 1.0, "week": 7.0, "month": 365 / 12, "quarter": 365 / 4, "year": 365.0}
_PERIOD_WORDS = {
    "daily": "day", "day": "day", "days": "day", "weekly": "week", "week": "week", "weeks": "week",
    "monthly": "month", "month": "month", "months": "month", "quarterly": "quarter", "quarter": "quarter",
    "yearly": "year", "annual": "year", "annually": "year", "year": "year", "years": "year",
}  # fmt: skip


def period_of(text: str, *, per: bool) -> str:
    """The period an amount is given per ("EUR 65 per month", "monthly") when ``per``, else the period a
    request asks for ("a full year of it", "for a year"); "" when none."""
    low = text.lower()
    if per:
        m = re.search(r"\b(?:per|a|each|every) (day|week|month|quarter|year)\b"
                      r"|\b(daily|weekly|monthly|quarterly|yearly|annual)\b", low)  # fmt: skip
    else:
        m = re.search(r"\b(?:a|one|the|full|whole|per|for a|an?) ?(?:full |whole )?"
                      r"(day|week|month|quarter|year)\b|\b(annual|yearly|annually)\b", low)  # fmt: skip
    return _PERIOD_WORDS.get((m.group(1) or m.group(2)) if m else "", "")


def periods(src: str, dst: str) -> float | None:
    """How many ``src`` periods make one ``dst`` period (month -> year: 12); None when either is unknown."""
    if src not in PERIODS or dst not in PERIODS or src == dst:
        return None
    if {src, dst} <= {"month", "quarter", "year"}:
        return {"month": 1, "quarter": 3, "year": 12}[dst] / {"month": 1, "quarter": 3, "year": 12}[src]
    if {src, dst} == {"week", "year"}:
        return 52.0 if dst == "year" else 1 / 52
    return PERIODS[dst] / PERIODS[src]


_BASE = {unit: (dim, f) for dim, units in DIMENSIONS.items() for unit, f in units.items()}


def _split(unit: str) -> tuple[str, str]:
    top, _, bottom = unit.partition("/")
    return top.strip(), bottom.strip()


def factor(src: str, dst: str) -> float | None:
    """How many ``dst`` make one ``src`` (1 kg -> 1000 g: 1000.0); None when they measure different things."""
    if src == dst:
        return 1.0
    (a, b), (c, d) = _split(src), _split(dst)
    top = _simple(a, c)
    bottom = _simple(b, d) if (b or d) else 1.0
    if top is None or bottom is None or bottom == 0:
        return None
    return top / bottom


def _simple(src: str, dst: str) -> float | None:
    if src == dst:
        return 1.0
    if src not in _BASE or dst not in _BASE or _BASE[src][0] != _BASE[dst][0]:
        return None
    return _BASE[src][1] / _BASE[dst][1]


#: temperatures convert by an offset too: value_in_dst = (value_in_src + a) * b - c
_TEMPERATURE = {("°F", "°C"): "(({n} - 32) * 5 / 9)", ("°C", "°F"): "({n} * 9 / 5 + 32)"}


def conversion_expression(number: str, src: str, dst: str) -> str | None:
    """An expression for ``number`` (in ``src``) in ``dst``: a factor, or the temperature formula; None
    when the two measure different things."""
    if (src, dst) in _TEMPERATURE:
        return _TEMPERATURE[(src, dst)].format(n=number)
    scale = factor(src, dst)
    return None if scale is None else f"{number} * {exact(scale, 12)}"


def unit_in_header(header: str, aliases: dict[str, str]) -> str:
    """The unit a table header names in parentheses ("Green coffee roasted (tonnes)" -> ``t``, "(EUR/kg)"
    -> ``EUR/kg``), "" when none."""
    m = re.search(r"\(([^()]{1,20})\)\s*$", header.strip())
    if not m:
        return ""
    parts = [p.strip().lower() for p in m.group(1).split("/")]
    known = [aliases.get(p, "") for p in parts]
    if all(known) and len(known) <= 2:
        return "/".join(known)
    return ""


def unit_phrase(words: str, aliases: dict[str, str]) -> str:
    """The unit a phrase names: "kilograms" -> ``kg``, "cubic metres per hour" -> ``m³/h``, "litres an
    hour" -> ``L/h``; "" when it names none."""
    low = " ".join(words.lower().replace("-", " ").split())
    parts = re.split(r"\s+(?:per|an?|each|every)\s+|\s*/\s*", low, maxsplit=1)
    top = _named_unit(parts[0], aliases)
    if not top:
        return ""
    if len(parts) == 2:
        bottom = _named_unit(parts[1], aliases)
        return f"{top}/{bottom}" if bottom else top
    return top


def _named_unit(words: str, aliases: dict[str, str]) -> str:
    tokens = words.split()
    for n in (2, 1):  # "cubic metres" before "metres"
        if len(tokens) >= n and " ".join(tokens[:n]) in aliases:
            return aliases[" ".join(tokens[:n])]
    return ""


__all__ = [
    "DIMENSIONS",
    "PERIODS",
    "conversion_expression",
    "factor",
    "period_of",
    "periods",
    "unit_in_header",
    "unit_phrase",
]
