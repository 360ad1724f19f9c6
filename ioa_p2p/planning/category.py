"""The category a quantity falls in, read from a table of bands: its row and the price it states (pure).

Price lists and rules sort people and things into categories by a quantity: "Child (4-17)", "Senior
(65+)", "Child under 4"; "up to 10 kg", "over 20 kg"; "0-5 km". A question that states the quantity ("all
aged 10", "a 7-year-old", "a 12 kg parcel") selects the one row whose band holds it (bands are read by
planning/banded.py's :func:`band_in`; a band in years or without a unit takes an age, any other band a
quantity the question states in its unit). The row's amount (its first cell with a number, in the
currency its header or the document names) is then the price a charge starts from
(planning/salvage.py), as if the lookup had found it.

:func:`category_row` returns the row, its amount and unit, or None when no row or several hold the
quantity, or the question states none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ioa_p2p.planning.banded import band_in
from ioa_p2p.planning.records import DocRecord, DocRecords
from ioa_p2p.planning.rule_fit import ages_in as stated_ages
from ioa_p2p.planning.values import CURRENCIES, numbers_in

_FREE = re.compile(r"^\s*(?:free|none|no charge|-|0)\s*$", re.I)


@dataclass(frozen=True, slots=True)
class CategoryRow:
    record: DocRecord
    amount: float
    unit: str


def ages_in(question: str) -> list[float]:
    """The ages a question states, in years (planning/rule_fit.py reads them, for every rule alike)."""
    return [q.number for q in stated_ages(question)]


def category_row(question: str, records: DocRecords | None) -> CategoryRow | None:
    """The one row whose band holds the quantity ``question`` states, with its amount (see the module
    docstring); None otherwise."""
    if records is None:
        return None
    ages = ages_in(question)
    measures = [(f.number, f.unit) for f in numbers_in(question) if f.unit and f.unit not in CURRENCIES]
    held: list[DocRecord] = []
    for record in records.records:
        if len(record.cells) < 2:
            continue
        band = band_in(record.cells[0][1])
        if band is None:
            continue
        if band.unit in ("", "years"):
            hits = [a for a in ages if band.holds(a)]
        else:
            hits = [n for n, u in measures if u == band.unit and band.holds(n)]
        if hits:
            held.append(record)
    if len(held) != 1:
        return None
    return _amount(held[0], records.currency)


def _amount(record: DocRecord, currency: str) -> CategoryRow | None:
    for header, cell in record.cells[1:]:
        named = re.search(r"\b([A-Z]{3})\b", header)
        unit = named.group(1) if named and named.group(1) in CURRENCIES else currency
        if _FREE.match(cell):
            return CategoryRow(record, 0.0, unit)
        found = numbers_in(cell)
        if len(found) == 1:
            return CategoryRow(record, found[0].number, found[0].unit or unit)
    return None


__all__ = ["CategoryRow", "ages_in", "category_row"]
