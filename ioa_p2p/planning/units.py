"""Units as values (pure): how many of one unit make another, rates included.

Every known unit belongs to a dimension with a factor to the dimension's base (mass in grams, volume in
millilitres, time in seconds, length in millimetres, energy in watt-hours, power in watts). A rate is
``A/B`` ("EUR/km", "L/min", "m³/h"): its factor is A's over B's. :func:`factor` says how many ``dst`` one
``src`` is (None when the two measure different things), so a value read in tonnes is used in kilograms,
a flow read in litres per minute is shown in cubic metres per hour.
"""

from __future__ import annotations

import re

DIMENSIONS: dict[str, dict[str, float]] = {
    "mass": {"g": 1.0, "kg": 1000.0, "t": 1e6, "lb": 453.59237},
    "volume": {"ml": 1.0, "L": 1000.0, "m³": 1e6},
    "time": {"s": 1.0, "min": 60.0, "h": 3600.0, "days": 86400.0, "weeks": 604800.0},
    "length": {"mm": 1.0, "cm": 10.0, "m": 1000.0, "km": 1e6, "miles": 1609344.0},
    "energy": {"Wh": 1.0, "kWh": 1000.0},
    "power": {"W": 1.0, "kW": 1000.0},
}
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
    return None if scale is None else f"{number} * {scale:.12g}"


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


__all__ = ["DIMENSIONS", "conversion_expression", "factor", "unit_in_header", "unit_phrase"]
