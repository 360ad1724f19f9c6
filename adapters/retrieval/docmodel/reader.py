"""Documents read into typed records (pure): :func:`read_document` turns a text into a :class:`Document`.

Structure first: markdown headings (``#``), setext and reStructuredText headings (a line underlined with
``=``/``-``/``~``), bold lines that stand alone (a FAQ question ``**Is there a trial?**``), markdown tables
(``|`` rows, the separator skipped), space-aligned tables (a header line of several columns separated by two
or more spaces, rows cut at the header's column starts), ``key: value`` lines, definition lists (a term
line followed by indented lines), list items and numbered steps, paragraphs cut into sentences. Each record
gets its section trail, quantities and conditions once, at load; questions are answered against the
records (:mod:`.answerer`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioa_p2p.adapters.retrieval.docmodel.conditions import conditions_in
from ioa_p2p.adapters.retrieval.docmodel.quantity import quantities_in
from ioa_p2p.adapters.retrieval.docmodel.records import (
    ANSWER,
    FIELD,
    ITEM,
    ROW,
    SENTENCE,
    TERM,
    Document,
    Record,
)
from ioa_p2p.adapters.retrieval.facts import terms
from ioa_p2p.adapters.retrieval.tables import csv_table_at, grid_table_at

MAX_RECORDS = 5_000
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`*+#])\1{2,}\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)(.+?)(?:\*\*|__)\s*$")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|[a-z][.)])\s+(.*)$")
_FIELD = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?([A-Za-z][^:|*]{0,60}?)(?:\*\*)?\s*:(?:\*\*)?\s+(\S.*)$")
_MD_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"'])")
_GAP = re.compile(r"\S+(?:\s\S+)*")


def read_document(path: str, text: str) -> Document:
    """The typed records of one document (bounded by :data:`MAX_RECORDS`)."""
    lines = text.splitlines()
    title = next((_clean(line) for line in lines if line.strip() and not _UNDERLINE.match(line)), "")[:200]
    reader = _Reader(path, lines, f"{title} {re.sub(r'[_./-]+', ' ', path)}")
    reader.read()
    return Document(path, title, tuple(reader.records[:MAX_RECORDS]), currency_of(text[:20_000]))


class _Reader:
    def __init__(self, path: str, lines: Sequence[str], about: str) -> None:
        self.path, self.lines = path, lines
        self.about = about  # the document's title and path words (every record's context)
        self.records: list[Record] = []
        self.trail: list[tuple[int, str]] = []  # (level, heading)
        self.tables = 0
        self.levels: dict[str, int] = {}  # underline character -> level, in order of first use

    def read(self) -> None:
        i, lines = 0, self.lines
        paragraph: list[tuple[int, str]] = []
        while i < len(lines) and len(self.records) < MAX_RECORDS:
            line = lines[i]
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if not line.strip():
                self._paragraph(paragraph)
                paragraph = []
                i += 1
                continue
            heading = self._heading(line, nxt)
            if heading is not None:
                self._paragraph(paragraph)
                paragraph = []
                i += 2 if _UNDERLINE.match(nxt) and not _ATX.match(line) else 1
                continue
            table_end = self._table(i)
            if table_end > i:
                self._paragraph(paragraph)
                paragraph = []
                i = table_end
                continue
            bold = _BOLD_LINE.match(line)
            if bold and not paragraph:  # a FAQ question (or a bold lead) keys the paragraph after it
                end, answer = _paragraph_after(lines, i + 1)
                if answer:
                    self._faq(i + 1, _clean(bold.group(1)), answer)
                    i = end
                    continue
            if (
                nxt.startswith((" ", "\t"))
                and nxt.strip()
                and not line.startswith((" ", "\t"))
                and not paragraph
            ):
                end, definition = _indented_after(lines, i + 1)
                if _LEADER.match(nxt) and len(line.strip()) <= 60:  # "FARES" over dotted lines: a heading
                    self._push(_LEADER_HEADING, _clean(line))
                    i += 1
                    continue
                if definition and not _ITEM.match(line) and len(line.strip()) <= 60:
                    self._add(
                        TERM, i + 1, f"{line.strip()}: {definition}", key=_clean(line), value=definition
                    )
                    i = end
                    continue
            leader = _LEADER.match(line)
            if leader and not paragraph:  # "Porridge with berries ........ 5.20"
                key = _clean(leader.group("key"))
                end, more = _leader_continued(lines, i + 1, leader.start("value"))
                value = " ".join([leader.group("value").strip(), *more])  # "then EUR 7 for every ..."
                self._add(FIELD, i + 1, f"{key}: {value}", key=key, value=value)
                i = end
                continue
            item = _ITEM.match(line)
            field = _FIELD.match(line)
            continued = bool(nxt.strip()) and not (_FIELD.match(nxt) or _ITEM.match(nxt) or _ATX.match(nxt))
            if field and not paragraph and not continued:
                key, value = _clean(field.group(1)), field.group(2).strip()
                if len(key.split()) <= 8 and not key.lower().startswith(("http", "note")):
                    for piece in _fields_of(line):  # "Staging: 8:00 · Judging: 11:00": a field each
                        self._add(FIELD, i + 1, _clean(piece[0]), key=piece[1], value=piece[2])
                    i += 1
                    continue
            if item:
                self._paragraph(paragraph)
                paragraph = []
                end, more = _continued_item(lines, i + 1)  # an item's indented continuation lines
                self._add(ITEM, i + 1, _clean(" ".join([item.group(1), *more])))
                i = end
                continue
            paragraph.append((i + 1, line.strip()))
            i += 1
        self._paragraph(paragraph)

    # ----------------------------------------------------------------- structure

    def _heading(self, line: str, nxt: str) -> str | None:
        atx = _ATX.match(line)
        if atx:
            self._push(len(atx.group(1)), _clean(atx.group(2)))
            return atx.group(2)
        under = _UNDERLINE.match(nxt)
        if (
            under
            and line.strip()
            and not _UNDERLINE.match(line)
            and len(line.strip()) <= 100
            and "|" not in line
        ):
            if nxt.strip()[0] == "-" and not line.strip()[0].isalnum():
                return None
            level = self.levels.setdefault(under.group(1), len(self.levels) + 1)
            self._push(level, _clean(line))
            return line
        return None

    def _push(self, level: int, title: str) -> None:
        while self.trail and self.trail[-1][0] >= level:
            self.trail.pop()
        self.trail.append((level, title))

    def _table(self, i: int) -> int:
        """Reads the table starting at line ``i`` (0-based); returns the line after it, or ``i``."""
        lines = self.lines
        if "|" in lines[i] and i + 1 < len(lines) and _MD_SEP.match(lines[i + 1]):
            header = _md_cells(lines[i])
            j = i + 2
            self.tables += 1
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                self._row(j + 1, header, _md_cells(lines[j]))
                j += 1
            return j
        csv_table = grid_table_at(lines, i) or csv_table_at(lines, i)  # a CSV or an RST grid table: rows
        if csv_table is not None:
            header, rows, used = csv_table
            self.tables += 1
            for offset, cells in rows:
                self._row(i + offset + 1, header, cells)
            return i + used
        starts = _columns(lines[i])
        if i + 1 < len(lines) and (stub := _stub_column(lines[i], lines[i + 1], starts)) is not None:
            starts = [stub, *starts]  # "      Plan A   Plan B" over "  Fee   5   7": the label column
        if len(starts) < 2 or i + 1 >= len(lines):
            return i
        border = _RULE.match(lines[i]) is not None  # an RST simple table: its top border, then its header
        if border and (i + 2 >= len(lines) or not lines[i + 1].strip() or _RULE.match(lines[i + 1])):
            return i
        if not border and len(starts) == 2 and not _two_columns(lines, i, starts):
            return i
        header = [c for _, c in _cells_at(lines[i + 1 if border else i], starts)]
        j = i + 2 if border else i + 1
        while j < len(lines) and (_RULE.match(lines[j]) or _header_more(lines[j], starts, not header[0])):
            if not _RULE.match(lines[j]):  # a header's second line ("(m2)", "RATE/h") joins its column
                more = _cells_at(lines[j], starts)
                header = [f"{h} {m}".strip() for h, (_, m) in zip(header, more, strict=False)]
            j += 1
        if j >= len(lines) or len(_columns(lines[j])) < 2:
            return i
        rows = []
        while j < len(lines) and lines[j].strip() and (len(_columns(lines[j])) >= 2 or _RULE.match(lines[j])):
            if not _RULE.match(lines[j]):
                rows.append((j + 1, [c for _, c in _cells_at(lines[j], starts)]))
            j += 1
        if len(rows) < 1:
            return i
        self.tables += 1
        for line_no, cells in rows:
            self._row(line_no, header, cells)
        return j

    def _row(self, line: int, header: list[str], cells: list[str]) -> None:
        named = tuple(
            (h or f"column {n + 1}", c) for n, (h, c) in enumerate(zip(header, cells, strict=False))
        )
        if not any(c for _, c in named):
            return
        text = " | ".join(c for _, c in named)
        self._add(ROW, line, text, key=named[0][1], cells=named, table=self.tables)

    def _faq(self, line: int, question: str, answer: list[tuple[int, str]]) -> None:
        text = " ".join(t for _, t in answer)
        for n, sentence in enumerate(_SENTENCE_END.split(text)):
            self._add(ANSWER, answer[0][0] if n == 0 else line + 1, sentence, key=question, value=text)

    def _paragraph(self, paragraph: list[tuple[int, str]]) -> None:
        if not paragraph:
            return
        text = " ".join(t for _, t in paragraph)
        offsets, at = [], 0
        for line, t in paragraph:
            offsets.append((at, line))
            at += len(t) + 1
        pos = 0
        for sentence in _SENTENCE_END.split(text):
            where = text.find(sentence, pos)
            pos = max(pos, where)
            line = max((ln for off, ln in offsets if off <= where), default=paragraph[0][0])
            if sentence.strip():
                self._add(SENTENCE, line, _clean(sentence))

    def _add(self, kind: str, line: int, text: str, **kw: object) -> None:
        quantities = (
            quantities_in(str(kw.get("value") or text)) if kind in (FIELD, TERM) else quantities_in(text)
        )
        section = tuple(t for _, t in self.trail)
        headers = " ".join(h for h, _ in kw.get("cells", ()))  # type: ignore[attr-defined]
        words = frozenset(terms(f"{text} {kw.get('key', '')} {headers}"))  # a row is its cells and headers
        context = frozenset(terms(" ".join((*section, headers, self.about))))
        record = Record(kind, self.path, line, text, section, quantities=tuple(quantities),
                        conditions=conditions_in(text), words=words, context=context,
                        **kw)  # type: ignore[arg-type]  # fmt: skip
        self.records.append(record)


#: the level of a short line over indented dotted lines ("FARES"): below every underlined or # heading
_LEADER_HEADING = 99
_RULE = re.compile(r"^\s*[-=_~+*]{3,}[-=_~+* ]*$")
_LEADER = re.compile(r"^\s*(?P<key>[^.\s][^.]*?[^.\s])\s*\.{3,}\s*(?P<value>\S.*)$")
_CURRENCY = re.compile(
    r"\b(?:all |every )?(?:prices?|rates?|fees?|amounts?|charges?|fares?|figures?|costs?)\b[^.]{0,40}?\bin "
    r"(?P<cur>EUR|euros?|GBP|pounds(?: sterling)?|sterling|USD|(?:US )?dollars?|CHF|Swiss francs?)\b",
    re.I,
)
_CURRENCY_HEADING = re.compile(  # "FARES (EUR)", "Price (GBP)"
    r"\b(?:prices?|rates?|fees?|charges?|fares?|costs?)\s*\((?P<cur>EUR|GBP|USD|CHF)\)", re.I
)
_CURRENCY_NAMES = {"euro": "EUR", "euros": "EUR", "pound": "GBP", "pounds": "GBP", "pounds sterling": "GBP",
                   "sterling": "GBP", "dollar": "USD", "dollars": "USD", "us dollars": "USD",
                   "swiss franc": "CHF", "swiss francs": "CHF"}  # fmt: skip


def currency_of(text: str) -> str:
    """The currency a document says its prices are in ("All rates in EUR per hour"); "" when none."""
    m = _CURRENCY.search(text) or _CURRENCY_HEADING.search(text)
    if not m:
        return ""
    cur = m.group("cur")
    return _CURRENCY_NAMES.get(cur.lower(), cur.upper())


def _header_more(line: str, starts: list[int], stub: bool = False) -> bool:
    """A header's continuation line: cells under the header's columns, none of them a plain number (and
    none under a ``stub`` column the header leaves empty: that is a row's label)."""
    found = _cells_at(line, starts)
    cells = [c for _, c in found if c]
    if not cells or not line.strip() or not re.match(r"^\s", line) or stub and found[0][1]:
        return False
    return not any(re.fullmatch(r"[-\d.,:]+", c) for c in cells)  # a number or a clock time is data


_FIELD_SEPARATOR = re.compile(r"\s+[·•|]\s+")


def _fields_of(line: str) -> list[tuple[str, str, str]]:
    """The fields of a line, (text, key, value) each: one, or several a middle dot or bar separates when
    every piece is a ``key: value`` field of its own ("**Staging:** 8:00-10:30 · **Judging:** 11:00")."""
    pieces = _FIELD_SEPARATOR.split(line.strip())
    matched = [_FIELD.match(p) for p in pieces]
    if len(pieces) > 1 and all(matched):
        return [
            (p, _clean(m.group(1)), m.group(2).strip()) for p, m in zip(pieces, matched, strict=True) if m
        ]
    whole = _FIELD.match(line)
    return [(line, _clean(whole.group(1)), whole.group(2).strip())] if whole else []


def _clean(text: str) -> str:
    return re.sub(r"\*\*|__|`", "", text).strip().strip("#").strip()


def _md_cells(line: str) -> list[str]:
    return [_clean(c) for c in line.strip().strip("|").split("|")]


def _columns(line: str) -> list[int]:
    """Start offsets of the cells of a line whose cells are separated by two or more spaces."""
    if "|" in line or "  " not in line.strip():
        return []
    return [m.start() for m in re.finditer(r"(?:(?<=\s\s)|^)\S", line)]


def _stub_column(header: str, row: str, starts: list[int]) -> int | None:
    """Where a stub column starts: a header line (indented, cells two or more spaces apart, or one cell)
    over rows that hold one cell more, a label that ends before the header's first cell, the other cells
    under the header's ("                Plan A     Plan B" over "  Session fee    0.35       none")."""
    heads = starts or ([len(header) - len(header.lstrip())] if header.strip() else [])
    cells = _columns(row) or ([len(row) - len(row.lstrip())] if row.strip() else [])
    if not heads or len(cells) != len(heads) + 1 or "|" in header or _RULE.match(header):
        return None
    label_end = cells[0] + len(re.split(r"\s{2,}", row.strip())[0])
    if heads[0] <= label_end or not all(
        re.search(r"[A-Za-z]", c) for c in re.split(r"\s{2,}", header.strip())
    ):
        return None
    if any(abs(a - b) > 3 for a, b in zip(cells[1:], heads, strict=True)):
        return None
    return cells[0]


def _cells_at(line: str, starts: list[int]) -> list[tuple[int, str]]:
    """The cells of ``line`` cut at the header's column starts (a cell that spills past a start keeps the
    words that begin before it)."""
    out = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(line)
        while start > 0 and start < len(line) and line[start - 1] != " ":
            start -= 1
        while 0 < end < len(line) and line[end - 1] != " " and line[end] != " ":
            end += 1 if n + 1 < len(starts) else 0
            if n + 1 >= len(starts):
                break
        out.append((start, line[start:end].strip()))
    return out


def _leader_continued(lines: Sequence[str], i: int, column: int) -> tuple[int, list[str]]:
    """The lines that go on a leader line's value: indented under it (to its value's column, give or
    take two), none of them a leader line, a list item or a table row of their own."""
    out = []
    while i < len(lines) and lines[i].strip() and not _LEADER.match(lines[i]):
        indent = len(lines[i]) - len(lines[i].lstrip())
        if indent < max(column - 2, 4) or _ITEM.match(lines[i]) or "|" in lines[i]:
            break
        out.append(lines[i].strip())
        i += 1
    return i, out


def _continued_item(lines: Sequence[str], i: int) -> tuple[int, list[str]]:
    """The indented lines that go on a list item (not a new item, a table or a field)."""
    out = []
    while i < len(lines) and lines[i].startswith(("  ", "\t")) and lines[i].strip():
        if _ITEM.match(lines[i]) or "|" in lines[i] or len(_columns(lines[i])) >= 2:
            break
        out.append(lines[i].strip())
        i += 1
    return i, out


def _two_columns(lines: Sequence[str], i: int, starts: list[int]) -> bool:
    """A table of two space-aligned columns: the header and at least two lines after it have their
    second cell at the same offset (a lone "key   value" line is no table)."""
    rows = 0
    for line in lines[i + 1 : i + 40]:
        if not line.strip():
            break
        second = _columns(line)[1:2]
        if len(second) != 1 or abs(second[0] - starts[1]) > 3:  # a right-aligned number may start later
            return False
        rows += 1
    return rows >= 2


def _paragraph_after(lines: Sequence[str], i: int) -> tuple[int, list[tuple[int, str]]]:
    out = []
    while i < len(lines) and lines[i].strip() and not _BOLD_LINE.match(lines[i]) and not _ATX.match(lines[i]):
        out.append((i + 1, lines[i].strip()))
        i += 1
    return i, out


def _indented_after(lines: Sequence[str], i: int) -> tuple[int, str]:
    out = []
    while i < len(lines) and lines[i].startswith((" ", "\t")) and lines[i].strip():
        out.append(lines[i].strip())
        i += 1
    return i, " ".join(out)
