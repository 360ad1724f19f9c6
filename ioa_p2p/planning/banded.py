"""A percentage chosen by the band a question's quantity falls in, applied to the amount it is of (pure).

Documents price many things as a table of percentages by a band of some quantity:

    Monthly uptime                               Service credit
    below 99.0 %, but at least 95.0 %            25 %
    Cancelled                                    Cancellation fee
    3 to 13 days before arrival                  50 % of the booked room charges
    30 days or more before arrival               none

The rows are typed here, not by their wording: one cell of each row is a **band** of a quantity in one unit
(bounds from "A to B", "A-B", "at least A", "A or more", "below A", "less than A", "over A", "up to A",
joined by "but" / "and" as an intersection; a bound named by words only, "under the target", is the
value of that column in the row the question names, and a band whose bound no row states never holds),
another a **percentage** ("none", "free", "no charge": 0 %). A question that names the
percentage's column ("how much service credit", "the cancellation fee") and states the band's quantity
(98.7 %, 9 days, 240 parcels; a number of days also as the days between a date and the start of a stay
it states: "for 10 to 15 July ... cancel on 1 July" is 9 days) selects the row whose band holds it.

The percentage applies to the amount it is **of**: the charge the other derivations work out for the
question (nights at their season's price) when it does not use the band's quantity as an operand, else
the money of the row the question names ("our Business plan": its monthly fee), the cell whose header
fits what the percentage is of ("credit on the monthly fee"); an amount of money the question states
("our invoice of EUR 2,400") comes first. :func:`banded_expression` returns
(expression, unit) or None when no such table, band or base is found.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import date

from ioa_p2p.planning.doc_facts import singular
from ioa_p2p.planning.records import RATE, Band, DocRecord, DocRecords
from ioa_p2p.planning.rule_fit import GENERIC, MONEY, rule_givens, words_of
from ioa_p2p.planning.values import ALIASES, MONTHS, Value, format_number, numbers_in

_NUM = r"(?<![\d:.])(\d+(?:[.,]\d+)?)(?![\d:])"  # never a clock time's part
_UNIT = r"\s*(%|(?!(?:up|to|and|or|but)\b)[A-Za-z²³]+)?"  # "over 2 up to 5": "up" is no unit
_PERCENT = re.compile(rf"^\s*{_NUM}\s*(?:%|per ?cent)(?P<of>.*)$", re.I)
_NONE = re.compile(r"^\s*(?:none|nil|free|no (?:charge|fee|credit)|-|–|0)\s*$", re.I)
_BOUND_WORDS = re.compile(r"\b(?:but|and)\b|,|;", re.I)
#: (pattern, which bounds it sets): low, high; open or closed
_BOUNDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            rf"\b(?:from )?{_NUM}(?:\s*(?!up\b|to\b)(%|[A-Za-z²³]+))?\s*(?:to|-|–|until)\s*{_NUM}{_UNIT}",
            re.I,
        ),
        "range",
    ),  # fmt: skip
    (re.compile(rf"\b(?:at least|from|minimum(?: of)?|not less than) {_NUM}{_UNIT}", re.I), "low"),
    (re.compile(rf"\b{_NUM}{_UNIT}\s*(?:or more|and more|or over|and over|or above|\+)", re.I), "low"),
    (re.compile(rf"\b(?:below|less than|under|fewer than) {_NUM}{_UNIT}", re.I), "high_open"),
    (re.compile(rf"\b(?:more than|over|above|exceeding) {_NUM}{_UNIT}", re.I), "low_open"),
    (re.compile(rf"\b(?:up to|at most|not more than|maximum(?: of)?) {_NUM}{_UNIT}", re.I), "high"),
    (re.compile(rf"\b{_NUM}{_UNIT}\s*(?:or less|or fewer|and less|or under)", re.I), "high"),
)


@dataclass(frozen=True, slots=True)
class BandRow:
    record: DocRecord
    band: Band
    percent: float
    of: frozenset[str]  # what the percentage is of ("of the booked room charges"), as words
    header: frozenset[str]  # the percentage column's words
    below: frozenset[str] = frozenset()  # an upper bound named by words ("under the target"), open


def band_in(text: str) -> Band | None:
    """The band a table cell states, or None when it bounds no quantity by a number."""
    low, high, low_open, high_open, unit = -math.inf, math.inf, False, False, ""
    found = False
    for part in _BOUND_WORDS.split(text):
        taken: list[tuple[int, int]] = []  # "over 2 kg up to 5 kg": both bounds, each read once
        for kind, m in ((k, m) for p, k in _BOUNDS for m in p.finditer(part)):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append(m.span())
            groups = [g for g in m.groups()]
            u = _unit(groups[-1] or (groups[1] if kind == "range" else None) or "")
            unit = unit or u
            if kind == "range":
                lo, hi = _number(groups[0]), _number(groups[2])
                if lo > low or (lo == low and low_open):
                    low, low_open = lo, False
                if hi < high:
                    high, high_open = hi, False
            elif kind in ("low", "low_open"):
                n = _number(groups[0])
                if n > low or (n == low and kind == "low_open"):
                    low, low_open = n, kind == "low_open"
            else:
                n = _number(groups[0])
                if n < high or (n == high and kind == "high_open"):
                    high, high_open = n, kind == "high_open"
            found = True
    if not found or low > high:
        return None
    return Band(low, high, low_open, high_open, unit)


def banded_expression(
    question: str, found: Value | None, other: tuple[str, str] | None = None
) -> tuple[str, str] | None:
    """(expression, unit): the percentage of the band the question's quantity selects, of the amount it
    applies to (``other``, the charge derived otherwise, or the money of the row the question names)."""
    if found is None or found.records is None:
        return None
    records = found.records
    words = words_of(question)
    for table in _tables(records):
        named = table[0].header - GENERIC
        if not named & words or _applied(question, named):  # asks for what the percentages are
            continue
        unit = table[0].band.unit
        quantity = _quantity(question, unit)
        if quantity is None:
            continue
        rows = [r for r in table if r.band.holds(quantity) and _under_named(r, quantity, records, words)]
        if len(rows) != 1:
            continue
        row = rows[0]
        base = _base(question, records, row, table, words, other, quantity)
        if base is None:
            continue
        money = found.unit if found.unit in MONEY else records.currency
        return f"({base[0]}) * {format_number(row.percent / 100)}", base[1] or money
    return None


def _applied(question: str, named: frozenset[str]) -> bool:
    """Whether the question asks for an amount with the percentage applied ("the price after the
    rebate", "with the discount"), not for the percentage's amount itself."""
    names = "|".join(re.escape(w) for w in sorted(named))
    return re.search(rf"\b(?:with|after|including|less|minus|net of)\s+(?:the |my |our |a |any )?(?:{names})",
                     question, re.I) is not None  # fmt: skip


def _tables(records: DocRecords) -> list[list[BandRow]]:
    """Rows of percentages by bands, grouped by their columns (at least two rows, one band unit)."""
    groups: dict[tuple[str, ...], list[BandRow]] = {}
    for rec in records.records:
        if len(rec.cells) < 2:
            continue
        parsed = _band_row(rec)
        if parsed is not None:
            groups.setdefault(tuple(h for h, _ in rec.cells), []).append(parsed)
    out = []
    for rows in groups.values():
        units = {r.band.unit for r in rows if r.band.unit}
        if len(rows) >= 2 and len(units) <= 1:
            unit = next(iter(units), "")
            out.append([replace(r, band=replace(r.band, unit=unit)) for r in rows])
    return out


def _band_row(rec: DocRecord) -> BandRow | None:
    read = [(i, band_in(v)) for i, (_, v) in enumerate(rec.cells)]
    bands = [(i, b) for i, b in read if b is not None]
    percents = []
    for i, (header, v) in enumerate(rec.cells):
        m = _PERCENT.match(v)
        if m is not None and "%" in header + v:
            percents.append((i, _number(m.group(1)), m.group("of")))
        elif _NONE.match(v):
            percents.append((i, 0.0, ""))
    percents = [p for p in percents if all(p[0] != i for i, _ in bands)]
    if len(bands) != 1 or len(percents) != 1:
        return None
    i, percent, of = percents[0]
    named = _NAMED_BOUND.search(rec.cells[bands[0][0]][1])
    below = words_of(named.group(1)) - GENERIC if named else frozenset()
    return BandRow(rec, bands[0][1], percent, words_of(of) - GENERIC, words_of(rec.cells[i][0]), below)


_NAMED_BOUND = re.compile(
    r"\b(?:below|under|less than|short of|missing) the ([a-z ]+?)(?:,|;|$|\bbut\b)", re.I
)


def _under_named(row: BandRow, quantity: float, records: DocRecords, words: frozenset[str]) -> bool:
    """Whether ``quantity`` is below the bound a row names by words ("under the target"): the value of
    the column of that name in the row the question names (a plan's "Uptime target"); False when no row
    or column states it (a band that cannot be checked never holds)."""
    if not row.below:
        return True
    for rec in records.records:
        key = words_of(rec.cells[0][1]) - GENERIC if rec.cells else frozenset()
        if not key or not key <= words:
            continue
        for header, cell in rec.cells[1:]:
            m = re.search(_NUM, cell)
            if m is not None and words_of(header) & row.below:
                return quantity < _number(m.group(1))
    return False


def _quantity(question: str, unit: str) -> float | None:
    """The question's quantity in ``unit``: a percentage, a measure or count it states, or days between
    a date and the start of a stay it states."""
    if unit == "%":
        stated = [_number(m.group(1)) for m in re.finditer(rf"{_NUM}\s*(?:%|per ?cent)", question, re.I)]
        return stated[0] if len(stated) == 1 else None
    givens = [g for g in rule_givens(question, []) if g.unit == unit or (g.what and singular(g.what) == unit)]
    if len(givens) == 1:
        return givens[0].number
    if unit == "days" and not givens:
        return _days_before(question)
    return None


_MONTH = r"([A-Za-z]{3,9})\.?"
_TH = r"(?:st|nd|rd|th)?"
_RANGE = re.compile(
    rf"\b(\d{{1,2}}){_TH}\s*(?:to|-|–|until)\s*(\d{{1,2}}){_TH}\s+{_MONTH}(?:,?\s+(\d{{4}}))?", re.I
)
_DAY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+(\d{{4}}))?", re.I)


def _days_before(question: str) -> float | None:
    """Days from the one date a question states to the start of the stay (a range of days) it states:
    "for 10 to 15 July 2026 ... cancel on 1 July" is 9; None unless there is one of each."""
    years = [int(y) for y in re.findall(r"\b(20\d\d|19\d\d)\b", question)]
    year = years[0] if years else 2001
    ranges = []
    for m in _RANGE.finditer(question):
        start = _date(m.group(1), m.group(3), m.group(4), year)
        if start is not None:
            ranges.append((m.span(), start))
    singles = []
    for m in _DAY.finditer(question):
        if any(a <= m.start() < b for (a, b), _ in ranges):
            continue
        day = _date(m.group(1), m.group(2), m.group(3), year)
        if day is not None:
            singles.append(day)
    if len(ranges) != 1 or len(singles) != 1 or singles[0] > ranges[0][1]:
        return None
    return float((ranges[0][1] - singles[0]).days)


def _date(d: str, month: str, y: str | None, year: int) -> date | None:
    m = MONTHS.get(month.lower())
    if not m:
        return None
    try:
        return date(int(y) if y else year, m, int(d))
    except ValueError:
        return None


def _base(question: str, records: DocRecords, row: BandRow, table: list[BandRow], words: frozenset[str],
          other: tuple[str, str] | None, quantity: float) -> tuple[str, str] | None:  # fmt: skip
    """The amount the percentage is of: the other derivation's charge unless it uses the band's quantity
    as an operand; else the money of the row the question names, by what the percentage is of."""
    stated = [n for n in numbers_in(question) if n.unit in MONEY]
    if len(stated) == 1:  # "our bill was EUR 5,200": the amount the question states
        return format_number(stated[0].number), stated[0].unit
    shown = re.escape(format_number(quantity))
    if other is not None and re.search(r"[-+*/]", other[0]) and not re.search(rf"(?<![\d.]){shown}(?![\d.])",
                                                                                other[0]):  # fmt: skip
        return other
    first = min(r.record.line for r in table)
    intro = [r for r in records.records if r.line < first and not r.cells]
    of = row.of | (words_of(intro[-1].text) - GENERIC if intro else frozenset())
    best: tuple[float, float] | None = None
    for rec in records.records:
        if not rec.cells or any(rec is r.record for r in table):
            continue
        key = words_of(rec.cells[0][1]) - GENERIC
        if not key or not key <= words:  # the row the question names ("Business")
            continue
        for rule in rec.rules:
            if rule.kind != RATE or rule.unit not in MONEY:
                continue
            fit = len(words_of(rule.when) & of) + (0.5 if rec.cells[0][1].lower() in question.lower() else 0)
            if best is None or fit > best[0]:
                best = (fit, rule.number)
    return (format_number(best[1]), "") if best is not None else None


def _unit(word: str) -> str:
    w = word.strip()
    if not w or w == "%":
        return w
    return ALIASES.get(w.lower(), "") or singular(w.lower())


def _number(text: str) -> float:
    return float(text.replace(",", "."))


__all__ = ["BandRow", "band_in", "banded_expression"]
