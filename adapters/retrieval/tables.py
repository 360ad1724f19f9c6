"""Tables in plain text (pure): markdown pipe tables, RST grid tables, space-aligned tables (RST simple
tables too) and comma-separated tables, each read as a header and rows of cells for
:mod:`~ioa_p2p.adapters.retrieval.facts`.

A space-aligned table's columns stand two or more spaces apart; its header may name bands with figures
("1-2 days", "14+ days", "up to 5 kg": every header cell with a figure also has words, while a row has cells
that are figures only) and may continue on a second line ("WEEKDAY" over "RATE/h"). An RST grid table's
rows may span several lines (joined cell by cell); its header is the row above ``+===+``, so a spec table
with models as columns reads like one with models as rows. A comma-separated table is a header of names
(words, perhaps with a figure: "trip 1405") and at least two rows with the same number of fields (quoted
fields as the csv module reads them); snake_case names read as words, a unit at the end as a header's
("unit_cost_eur" -> "unit cost (eur)").
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence

from ioa_p2p.planning.values import ALIASES, numbers_in

Table = tuple[list[str], list[tuple[int, list[str]]], int]  # header, [(line offset, cells)], lines used


def table_at(lines: Sequence[str], i: int) -> Table | None:
    """A markdown, space-aligned or comma-separated table starting at line i: (header, [(offset, cells)],
    lines used)."""
    grid = grid_table_at(lines, i)
    if grid is not None:
        return grid
    if lines[i].strip().startswith("|"):
        rows: list[tuple[int, list[str]]] = []
        j = i
        while j < len(lines) and lines[j].strip().startswith("|"):
            cells = [c.strip() for c in lines[j].strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                rows.append((j - i, cells))
            j += 1
        if len(rows) >= 2:
            return rows[0][1], rows[1:], j - i
        return None
    return bare_pipe_table_at(lines, i) or _aligned_table(lines, i) or csv_table_at(lines, i)


#: a markdown table's delimiter row without the outer pipes ("---- | :---: | ----")
_BARE_DELIMITER = re.compile(r"^\s*:?-{2,}:?(?:\s*\|\s*:?-{2,}:?)+\s*\|?\s*$")


def bare_pipe_table_at(lines: Sequence[str], i: int) -> Table | None:
    """A markdown pipe table written without its outer pipes ("Band | Ratio" over "---- | -----", as
    GitHub's markdown allows): the header at line i, its delimiter row right below, then the rows that
    hold as many cells (a row with fewer or more ends the table). Without a delimiter row (the action list
    of minutes, a text export: "#  | what | who | by"), a header of short wordy cells over at least two rows
    of as many cells, three columns or more."""
    if "|" not in lines[i] or i + 1 >= len(lines):
        return None
    header = _bare_cells(lines[i])
    ruled = _BARE_DELIMITER.match(lines[i + 1]) is not None
    if ruled and len(header) != len(_bare_cells(lines[i + 1])) or len(header) < 2:
        return None
    if not ruled and not _plain_header(header, lines[i + 1 : i + 3]):
        return None
    rows: list[tuple[int, list[str]]] = []
    j = i + 2 if ruled else i + 1
    while j < len(lines) and "|" in lines[j] and len(cells := _bare_cells(lines[j])) == len(header):
        rows.append((j - i, cells))
        j += 1
    return (header, rows, j - i) if rows else None


def _plain_header(header: list[str], below: Sequence[str]) -> bool:
    """A pipe-separated line that heads a table with no delimiter row: three or more short cells without
    digits (a cell may be "#"), and the two lines below hold as many cells each."""
    if len(header) < 3 or any(len(c) > 30 or re.search(r"\d", c) for c in header):
        return False
    return len(below) == 2 and all("|" in b and len(_bare_cells(b)) == len(header) for b in below)


def _bare_cells(line: str) -> list[str]:
    """The cells of a pipe table's line, outer pipes or not."""
    return [c.strip() for c in line.strip().removeprefix("|").removesuffix("|").split("|")]


_BORDER = re.compile(r"^\s*[=\-]{3,}(?:\s+(?:[=\-]{2,}|\|))*\s*$")


def _aligned_table(lines: Sequence[str], i: int) -> tuple[list[str], list[tuple[int, list[str]]], int] | None:
    """A space-aligned table (columns two or more spaces apart; RST simple tables' ``===  ===`` borders
    skipped): three columns or more, or two when every row holds numbers (a curve: head -> flow)."""
    kept: list[tuple[int, list[str]]] = []
    j = i
    while j < min(len(lines), i + 60) and lines[j].strip():
        if not _BORDER.match(lines[j]):
            kept.append((j - i, re.split(r"\s{2,}", lines[j].strip())))
        j += 1
    figures = [n for n in numbers_in(lines[i]) if not (n.unit == "" and 1900 <= n.number <= 2100)]
    if len(kept) < 2:
        return None
    stub = _stub_header(lines[i], lines[i + kept[1][0]])
    named = _band_header(kept[0][1]) or _labelled_header(kept[0][1]) or _designated_header(kept[0][1]) or stub
    if figures and not _BORDER.match(lines[i]) and not named:
        return None  # a header may name a year ("(2024)") or bands ("1-2 days"); a row of figures is none
    (_, header), rows = kept[0], kept[1:]
    if stub:  # "      CX 28   CX 35" over "  Weight   31 kg   34 kg": the rows' label column has no header
        header = ["", *header]
    rows = [(at, _joined_key(cells, len(header), lines[i], lines[i + at])) for at, cells in rows]
    second = lines[i + kept[1][0]]
    if len(rows) >= 2 and _continues_header(header, rows[0][1], second, lines, i + kept[1][0]):
        header = _merged_header(lines[i], second)  # "WEEKDAY" over "RATE/h": one header, "WEEKDAY RATE/h"
        rows = rows[1:]
    width = len(header)
    if width < 2 or numbers_in(" ".join(header)) and width < 3 or len(rows[0][1]) != width:
        return None
    body: list[tuple[int, list[str]]] = []
    starts = [at for at, _ in _cells_at(lines[i])]
    for offset, cells in rows:
        raw = lines[i + offset]
        indent = len(raw) - len(raw.lstrip())
        if len(cells) < width and body and raw[:1].isspace() and len(starts) == width and indent >= starts[0]:
            # a row's cell wrapped onto an indented line ("chainage" / "480-620 m"): joined to its column
            # (a line that starts left of the table's first column is prose after it, never a wrapped cell)
            merged = list(body[-1][1])
            for start, text in _cells_at(raw):
                column = min(range(width), key=lambda k: abs(starts[k] - start))
                merged[column] = f"{merged[column]} {text}"
            body[-1] = (body[-1][0], merged)
            continue
        if len(cells) != width:
            break
        body.append((offset, cells))
    if width == 2 and not all(all(numbers_in(c) for c in cells) for _, cells in body):
        return None
    used = (body[-1][0] + 1) if body else 1
    while i + used < len(lines) and _BORDER.match(lines[i + used]):
        used += 1
    return header, body, used


def _cells_at(line: str) -> list[tuple[int, str]]:
    """The cells of an aligned line with the column each starts at."""
    return [(m.start(), m.group(0)) for m in re.finditer(r"\S+(?: \S+)*", line)]


def _continues_header(header: list[str], cells: list[str], line: str, lines: Sequence[str], at: int) -> bool:
    """The line under a header is more header (units, second words), not a row: fewer cells than the
    header, no cell holding a plain number without a unit, and a border or a real row right after it."""
    if len(cells) >= len(header) or any(re.fullmatch(r"[\d.,]+", c.strip()) for c in cells):
        return False
    nxt = lines[at + 1] if at + 1 < len(lines) else ""
    return bool(_BORDER.match(nxt)) or len(re.split(r"\s{2,}", nxt.strip())) == len(header)


def _merged_header(top: str, below: str) -> list[str]:
    """Each header cell with the text below it (by column position)."""
    heads = _cells_at(top)
    merged = [text for _, text in heads]
    for start, text in _cells_at(below):
        best = min(range(len(heads)), key=lambda k: abs(heads[k][0] - start))
        merged[best] = f"{merged[best]} {text}"
    return merged


def _stub_header(header: str, row: str) -> bool:
    """A header line over a stub column ("            CX 28    CX 35" over "  Weight (empty)   31 kg   34
    kg"): it starts right of where the row's first cell (its label) ends, has one cell fewer than the row,
    every cell with letters (a model, a column's name)."""
    heads, cells = _cells_at(header), _cells_at(row)
    return (
        len(heads) >= 1
        and len(cells) == len(heads) + 1
        and heads[0][0] > cells[0][0] + len(cells[0][1])
        and all(re.search(r"[A-Za-z]", text) for _, text in heads)
    )


def _joined_key(cells: list[str], width: int, header: str, row: str) -> list[str]:
    """A row whose key spans two cells under the header's first column ("1 day    Low    46    37" under
    "PASS     ADULT  YOUTH"): the two joined ("1 day Low"), so the row has a cell per column."""
    heads, found = _cells_at(header), _cells_at(row)
    if len(cells) != width + 1 or len(found) != len(cells) or len(heads) != width or width < 2:
        return cells
    if found[1][0] >= heads[1][0]:  # its second cell stands under the second column: no two-part key
        return cells
    return [f"{cells[0]} {cells[1]}", *cells[2:]]


def _labelled_header(cells: list[str]) -> bool:
    """Header cells that are names, a figure only in brackets ("Day Pass (24 h)", "Max. load (kg)"):
    three cells or more, each with a word of three letters or more outside its brackets."""
    bare = [re.sub(r"\([^)]*\)", "", c) for c in cells]
    return len(cells) >= 3 and all(re.search(r"[A-Za-z]{3}", b) and not re.search(r"\d", b) for b in bare)


def _designated_header(cells: list[str]) -> bool:
    """Header cells that name columns by one word and a number each ("Year 7  Year 8  Year 9", "Zone 1  Zone
    2"): three cells or more, two or more of them designated by the same word, the others words."""
    figured = [
        re.fullmatch(r"([A-Za-z]{2,})\.?\s?(\d{1,4})", c.strip()) for c in cells if re.search(r"\d", c)
    ]
    words = {m.group(1).lower() for m in figured if m}
    plain = [c for c in cells if not re.search(r"\d", c)]
    return (
        len(cells) >= 3
        and len(figured) >= 2
        and all(figured)
        and len(words) == 1
        and all(re.search(r"[A-Za-z]{3}", c) for c in plain)
    )


def _band_header(cells: list[str]) -> bool:
    """Header cells that name bands or ranges with figures ("1-2 days", "14+ days", "up to 5 kg"): three
    cells or more, every cell with a figure names a band with words ("Standard (by 17:00)" is no band)."""
    figured = [c for c in cells if re.search(r"\d", c)]
    return len(cells) >= 3 and all(re.search(r"[A-Za-z]{2}", c) and _BAND.search(c) for c in figured)


_BAND = re.compile(r"\d\s*(?:-|–|to)\s*\d|\d\s*\+|\b(?:up to|over|under|from|above|below)\s+\d", re.I)


_GRID_BORDER = re.compile(r"^\s*\+(?:[-=]+\+)+\s*$")
MAX_GRID_LINES = 200


def grid_table_at(lines: Sequence[str], i: int) -> Table | None:
    """An RST grid table at line i (``+----+----+`` borders, ``|`` between cells, ``+====+`` under the
    header): each row's lines joined cell by cell ("Heat-up time" over "(to 350 °C)" is one cell). Its
    header is the row above ``+===+`` (else the first row); the offset of a row is its first line."""
    top = _GRID_BORDER.match(lines[i])
    if top is None:
        return None
    cuts = [m.start() for m in re.finditer(r"\+", lines[i])]
    rows: list[tuple[int, list[str]]] = []
    header_rows = 0
    pending: list[list[str]] = []
    first = 0
    j = i + 1
    while j < min(len(lines), i + MAX_GRID_LINES):
        line = lines[j]
        if _GRID_BORDER.match(line):
            if pending:
                rows.append((first, [" ".join(p for p in parts if p) for parts in pending]))
                pending = []
            if "=" in line and not header_rows:
                header_rows = len(rows)
            j += 1
            continue
        if not line.strip().startswith("|"):
            break
        cells = [line[a + 1 : b].strip(" |") for a, b in zip(cuts, cuts[1:], strict=False)]
        if not pending:
            pending, first = [[] for _ in cells], j - i
        for parts, cell in zip(pending, cells, strict=False):
            parts.append(cell)
        j += 1
    if len(rows) < 2 or len(cuts) < 3:
        return None
    head = max(1, header_rows)
    header = [" ".join(c for _, cells in rows[:head] for c in [cells[k]] if c) for k in range(len(cuts) - 1)]
    return header, rows[head:], j - i


MIN_CSV_FIELDS = 3
CSV_SEPARATORS = (",", "\t", ";")
MAX_CSV_ROWS = 500
MAX_CSV_NAME = 40


def csv_table_at(lines: Sequence[str], i: int) -> Table | None:
    """A comma-, tab- or semicolon-separated table at line i (the separator the header line uses most): a
    header of short names (no figures), then rows with as many fields; None when the lines are prose."""
    line = lines[i]
    sep = max(CSV_SEPARATORS, key=line.count)
    if line[:1].isspace() or line.count(sep) < MIN_CSV_FIELDS - 1:
        return None
    header = _fields(line, sep)
    if (
        header is None
        or len(header) < MIN_CSV_FIELDS
        or any(not h or len(h) > MAX_CSV_NAME or not _a_name(h) or h.endswith(".") for h in header)
    ):
        return None
    rows: list[tuple[int, list[str]]] = []
    j = i + 1
    while j < len(lines) and len(rows) < MAX_CSV_ROWS and lines[j].strip():
        cells = _fields(lines[j], sep)
        if cells is None or len(cells) != len(header):
            break
        rows.append((j - i, cells))
        j += 1
    if len(rows) < 2:
        return None
    return [_name(h) for h in header], rows, j - i


def _a_name(field: str) -> bool:
    """A header field names a column: words, perhaps with a figure ("trip 1405", "2024 revenue"), never a
    figure, date or clock time alone (a row of data)."""
    return bool(re.search(r"[A-Za-z]{2}", field)) and not (numbers_in(field) and len(field.split()) == 1)


def _name(field: str) -> str:
    """A snake_case column name as words, a unit at its end in parentheses ("unit_cost_eur" -> "unit cost
    (eur)", as a header names its unit)."""
    parts = field.split("_")
    if len(parts) >= 2 and ALIASES.get(parts[-1].lower()):
        return f"{' '.join(parts[:-1])} ({parts[-1]})"
    return " ".join(parts)


def _fields(line: str, sep: str = ",") -> list[str] | None:
    """The cells of one line; where ``;`` separates them, a decimal comma is a point ("12,50" -> "12.50")."""
    try:
        cells = next(csv.reader([line.strip(" \r\n" if sep == "\t" else None)], delimiter=sep))
    except (csv.Error, StopIteration):
        return None
    return [_DECIMAL_COMMA.sub(r"\1.\2", f.strip()) if sep == ";" else f.strip() for f in cells]


_DECIMAL_COMMA = re.compile(r"(?<![\d,.])(\d+),(\d{1,2})(?![\d,])")


__all__ = ["Table", "bare_pipe_table_at", "csv_table_at", "grid_table_at", "table_at"]
