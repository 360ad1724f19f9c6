"""Bands and conditions of a rule (pure; issue 23, p-rule): the range a table row or list item holds
("11 to 15.9 kg", "1-3 days", "over 20", "up to 5 kg", "under 18", "65+") with the value it gives
(:func:`read_bands`, :func:`band_for`), and the one threshold a rule's sentence states for where it
applies ("Upland gardens (above 200 m)": :func:`condition_of`).
"""

from __future__ import annotations

import re

from ioa_p2p.planning.records import Band
from ioa_p2p.planning.rule_reader import NUM as _NUM
from ioa_p2p.planning.rule_reader import num, unit_of
from ioa_p2p.planning.values import ALIASES

_BAND_CELL = re.compile(
    rf"^(?:(?P<lo>{_NUM})\s*(?:to|-|–|—)\s*(?P<hi>{_NUM})|(?:up\s+to|under|below|less\s+than|<=?)\s*(?P<under>{_NUM})"
    rf"|(?:over|above|more\s+than|from|>=?)\s*(?P<over>{_NUM})|(?P<plus>{_NUM})\s*(?P<punit>[a-z%°]+)?\s*(?:\+|or\s+more|and\s+over|or\s+over))"
    r"\s*(?P<unit>[a-z%°]+)?",
    re.I,
)


def read_band(cell: str) -> Band | None:
    """The range a band cell states ("11 to 15.9 kg", "1-3 days", "over 20", "under 18", "65+")."""
    m = _BAND_CELL.match(" ".join(cell.split()))
    if m is None:
        return None
    unit = unit_of(m.group("unit") or m.group("punit") or "")
    if m.group("lo") is not None:
        return Band(num(m.group("lo")), num(m.group("hi")), unit=unit)
    if m.group("under") is not None:
        strict = not re.match(r"\s*(?:up\s+to|<=)", cell, re.I)
        return Band(high=num(m.group("under")), high_open=strict, unit=unit)
    if m.group("over") is not None:
        strict = not re.match(r"\s*(?:from|>=)", cell, re.I)
        return Band(low=num(m.group("over")), low_open=strict, unit=unit)
    return Band(low=num(m.group("plus")), unit=unit)


def read_bands(rows: list[list[str]]) -> list[tuple[Band, list[str]]]:
    """The rows of a table (cells) or a list (``"1-3 days: 10 %"`` split at the colon) whose first cell is
    a range, each with its other cells."""
    out = []
    for cells in rows:
        band = read_band(cells[0]) if cells else None
        if band is not None:
            out.append((band, cells[1:]))
    return out


def band_for(bands: list[tuple[Band, list[str]]], x: float) -> list[str] | None:
    """The cells of the one band that holds ``x`` (None when none or several do)."""
    held = [cells for band, cells in bands if band.holds(x)]
    return held[0] if len(held) == 1 else None


_CONDITION = re.compile(
    rf"\b(?P<op>above|over|more\s+than|exceeding|higher\s+than|below|under|less\s+than|lower\s+than)\s+"
    rf"\+?(?P<n>{_NUM})\s?(?P<u>[a-z%°]+)\b",
    re.I,
)


_KNOWN_UNITS = frozenset(ALIASES.values())


_LATER = re.compile(
    rf"\bwithin\s+(?P<n>{_NUM})\s?(?P<u>[a-z]+)\b[^.]*?[;,:]\s*[^.;]*?\b(?:later|afterwards|after\s+that|"
    r"any\s+later|late)\b",
    re.I,
)


def condition_of(text: str) -> Band | None:
    """The one threshold a rule's sentence states for where it applies ("Upland gardens (above 200 m)",
    "parcels over 20 kg", "for stays of less than 3 nights"), as a band of the measure; None for none or
    several."""
    later = _LATER.search(text)  # "register within 28 days ...; registering later adds EUR 20"
    if later is not None and unit_of(later.group("u")) in _KNOWN_UNITS:
        return Band(low=num(later.group("n")), low_open=True, unit=unit_of(later.group("u")))
    found = list(_CONDITION.finditer(text))
    if len(found) != 1:
        return None
    m = found[0]
    unit, number = unit_of(m.group("u")), num(m.group("n"))
    if unit not in _KNOWN_UNITS:
        return None  # "members over 70 get ...": no measure the question could state
    if re.match(r"above|over|more|exceeding|higher", m.group("op"), re.I):
        return Band(low=number, low_open=True, unit=unit)
    return Band(high=number, high_open=True, unit=unit)
