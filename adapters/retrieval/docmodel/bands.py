"""Bands and tiers (pure): the range of amounts a table row or a list item applies to.

"less than 5 years", "5 to 9 years", "10 years or more", "up to 5 kg", "over 15 m³", "first 6 m³",
"from 6 to 15 m³", "above 15 m³", "5-9 years", "under 16": :func:`band_of` reads a row's key or a field's
key into a :class:`Band` (lower and upper bound, each open or closed, and the unit); :meth:`Band.holds`
says whether a stated amount falls in it (None when the units do not compare), so that a question that
states "twelve years" or "a 7 kg parcel" is answered from the band it falls in. Tiered charges ("each
further kg") are read by the caller from the band's rate.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ioa_p2p.adapters.retrieval.docmodel.quantity import convert, quantities_in

_NUM = r"(\d[\d,]*(?:\.\d+)?)"
_LOW_OPEN = re.compile(r"\b(?:over|above|more than|greater than|exceeding|beyond)\s+" + _NUM, re.I)
_LOW_CLOSED = re.compile(r"\b(?:from|at least|min(?:imum)?\.?)\s+" + _NUM + r"(?!\s*(?:to|-|–)\s*\d)", re.I)
_OR_MORE = re.compile(
    _NUM + r"[^\d]{0,20}?\b(?:or more|or over|and over|and above|or above|plus)\b|" + _NUM + r"\s*\+", re.I
)
_HIGH_OPEN = re.compile(r"\b(?:less than|under|below|fewer than|shorter than|within)\s+" + _NUM, re.I)
_HIGH_CLOSED = re.compile(r"\b(?:up to|first|at most|max(?:imum)?\.?|not more than|no more than)\s+" + _NUM,
                          re.I)  # fmt: skip
_BETWEEN = re.compile(
    r"(?:\bfrom\s+|\bbetween\s+)?" + _NUM + r"\s*[^\d\s]{0,6}\s*(?:to|-|–|and)\s*" + _NUM, re.I
)


@dataclass(frozen=True, slots=True)
class Band:
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    unit: str = ""

    def holds(self, number: float, unit: str = "") -> bool | None:
        """Whether ``number`` ``unit`` falls in the band; None when the units do not compare."""
        if unit and self.unit and unit != self.unit:
            converted = convert(number, unit, self.unit)
            if converted is None:
                return None
            number = converted
        above = number > self.low if self.low_open else number >= self.low
        below = number < self.high if self.high_open else number <= self.high
        return above and below


def band_of(key: str) -> Band | None:
    """The band a key states, or None when it states none (a plain name, a single amount)."""
    text = re.sub(
        r"\b(m|cm|km)([23])\b", lambda m: m.group(1) + ("²" if m.group(2) == "2" else "³"), key.strip()
    )
    if not text or not re.search(r"\d", text):
        return None
    unit = next((q.unit for q in quantities_in(text) if q.unit), "")
    m = _BETWEEN.search(text)
    if m and not re.search(r"\d[:/.]\d{2}\b", text):
        low, high = _n(m.group(1)), _n(m.group(2))
        if low <= high:
            return Band(low, high, False, False, unit)
    above = _LOW_OPEN.search(text) or _LOW_CLOSED.search(text)
    below = _HIGH_OPEN.search(text) or _HIGH_CLOSED.search(text)
    if above and below and above.start() < below.start():  # "over 5 m² up to 20 m²"
        lo, hi = _n(above.group(1)), _n(below.group(1))
        if lo <= hi:
            return Band(lo, hi, above.re is _LOW_OPEN, below.re is _HIGH_OPEN, unit)
    m = _OR_MORE.search(text)
    if m:
        return Band(_n(m.group(1) or m.group(2)), unit=unit)
    m = _LOW_OPEN.search(text)
    if m:
        return Band(_n(m.group(1)), low_open=True, unit=unit)
    m = _LOW_CLOSED.search(text)
    if m:
        return Band(_n(m.group(1)), unit=unit)
    m = _HIGH_OPEN.search(text)
    if m:
        return Band(high=_n(m.group(1)), high_open=True, unit=unit)
    m = _HIGH_CLOSED.search(text)
    if m:
        return Band(high=_n(m.group(1)), unit=unit)
    return None


def _n(text: str) -> float:
    return float(text.replace(",", ""))
