"""A document's typed records as the planner reads them (pure): ``data["records"]`` version 1.

The retrieval adapter sends the records of the document its answer came from (adapters/retrieval/
docmodel/wire.py; docs/protocol.md): each record's text, kind, cells, quantities and the rules it states
(rates with what they are per, bands and tiers, minimums, caps, percentages, surcharges, capacities,
rounding). :func:`records_from_data` reads that form back into :class:`DocRecords` (bad entries are
skipped, never trusted: the data comes from a peer), so a derivation works on values with units, not on
the document's text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

VERSION = 1
MAX_RECORDS = 300
MAX_RULES = 12

RATE = "rate"
MINIMUM = "minimum"
CAP = "cap"
PERCENT = "percent"
VAT = "vat"
SURCHARGE = "surcharge"
CAPACITY = "capacity"
ROUNDING = "rounding"
RULE_KINDS = frozenset({RATE, MINIMUM, CAP, PERCENT, VAT, SURCHARGE, CAPACITY, ROUNDING})
#: The text of a value that states no answer and carries a document's records (planning/salvage.py)
NO_SINGLE_ANSWER = "(no single answer; the typed records of)"


@dataclass(frozen=True, slots=True)
class Band:
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    unit: str = ""

    def holds(self, number: float) -> bool:
        above = number > self.low if self.low_open else number >= self.low
        below = number < self.high if self.high_open else number <= self.high
        return above and below


@dataclass(frozen=True, slots=True)
class DocRule:
    """One rule a record states (see adapters/retrieval/docmodel/rules.py for the kinds)."""

    kind: str
    number: float
    unit: str = ""
    per: tuple[str, ...] = ()
    step: float = 1.0
    started: bool = False
    beyond: float = 0.0
    when: str = ""
    band: Band | None = None
    tier: bool = False
    line: int = 0  # the record's line
    record: int = -1  # the record's index in its document (rules of one record share it)
    row: bool = False  # read from a table row
    round_to: float = (
        0.0  # the first measure is rounded up to this (a price's own terms: "per started 15 min")
    )


@dataclass(frozen=True, slots=True)
class DocRecord:
    kind: str
    line: int
    text: str
    section: tuple[str, ...] = ()
    key: str = ""
    cells: tuple[tuple[str, str], ...] = ()
    rules: tuple[DocRule, ...] = ()


@dataclass(frozen=True, slots=True)
class DocRecords:
    path: str
    currency: str
    records: tuple[DocRecord, ...]

    @property
    def rules(self) -> list[DocRule]:
        return [rule for r in self.records for rule in r.rules]


def records_from_data(raw: Any) -> DocRecords | None:
    """The typed records of a result's ``data["records"]``; None when absent or of another version."""
    if not isinstance(raw, Mapping) or raw.get("version") != VERSION:
        return None
    if not isinstance(raw.get("records"), list):
        return None
    out: list[DocRecord] = []
    for item in raw["records"][:MAX_RECORDS]:
        record = _record(item, len(out))
        if record is not None:
            out.append(record)
    return DocRecords(_text(raw.get("path")), _text(raw.get("currency")), tuple(out))


def _record(item: Any, index: int) -> DocRecord | None:
    if not isinstance(item, Mapping) or not isinstance(item.get("text"), str):
        return None
    raw_line = item.get("line")
    line = raw_line if isinstance(raw_line, int) and not isinstance(raw_line, bool) else 0
    cells = tuple(
        (_text(c[0]), _text(c[1])) for c in _list(item.get("cells")) if isinstance(c, list) and len(c) == 2
    )
    row = item.get("kind") == "row"
    raw_rules = _list(item.get("rules"))[:MAX_RULES]
    rules = tuple(r for r in (_rule(x, line, index, row) for x in raw_rules) if r is not None)
    section = tuple(_text(s) for s in _list(item.get("section")))
    return DocRecord(_text(item.get("kind")), line, item["text"][:400], section, _text(item.get("key")),
                     cells, rules)  # fmt: skip


def _rule(x: Any, line: int, index: int, row: bool) -> DocRule | None:
    if not isinstance(x, list) or len(x) != 10 or x[0] not in RULE_KINDS:
        return None
    kind, number, unit, per, step, started, beyond, when, band, tier = x
    if not _finite(number) or not _finite(step) or not _finite(beyond) or step <= 0:
        return None
    pers = tuple(_text(p) for p in _list(per)[:4])
    if unit in _SUBUNITS:  # "50p": GBP 0.50
        unit, number = _SUBUNITS[unit], float(number) / 100
    return DocRule(kind, float(number), _text(unit), pers, float(step), started is True, float(beyond),
                   _text(when)[:300], _band(band), tier is True, line, index, row)  # fmt: skip


_SUBUNITS = {"pence": "GBP", "cent": "EUR"}


def _band(raw: Any) -> Band | None:
    if not isinstance(raw, list) or len(raw) != 5:
        return None
    low = float(raw[0]) if _finite(raw[0]) else -math.inf
    high = float(raw[1]) if _finite(raw[1]) else math.inf
    return Band(low, high, raw[2] is True, raw[3] is True, _text(raw[4]))


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _text(x: Any) -> str:
    return x[:300] if isinstance(x, str) else ""


def _list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


__all__ = ["NO_SINGLE_ANSWER", "Band", "DocRecord", "DocRecords", "DocRule", "records_from_data"]
