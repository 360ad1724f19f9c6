"""SQL dumps (``.sql``, or a text file that is one) read as the text the retrieval understands (pure).

A fee table, a price list or a timetable is often exported from the system that keeps it as a dump of
``CREATE TABLE`` and ``INSERT INTO`` statements. Read raw, a row is one long line of quoted strings and
bare numbers whose meaning sits in a column list twenty lines above, so a question's words ("the cat
booster's price") meet neither the row's value nor its column. Rendered:

- the dump's first comment line as the document's heading (its name: "Oakridge fee table export"), every
  other ``--`` or ``/* */`` comment as prose where it stands (what NULL means, the VAT rate, a discount);
- a ``CREATE TABLE`` as a heading of the table's name, its columns remembered and a column's trailing
  comment kept as a line ``- column: comment``;
- consecutive ``INSERT`` rows of one table as one pipe table: a header of the column names (from the
  statement's own column list, else the ``CREATE TABLE``, else ``column 1..n``), a row per tuple of every
  ``VALUES`` list; ``NULL`` an empty cell, ``true``/``false`` ``yes``/``no``, strings unquoted.

Other statements (``SET``, ``BEGIN``, indexes, ``COPY``) are dropped. A dump with no ``INSERT`` or ``CREATE
TABLE`` is read as it is; the rendering is new text, so citations count its lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SQL_FORMATS = frozenset({".sql"})
MAX_ROWS = 20_000  # rows of all tables rendered
MAX_STATEMENT_CHARS = 1_000_000
_STATEMENT_START = re.compile(r"^\s*(INSERT\s+INTO|CREATE\s+TABLE)\b", re.I | re.M)
_INSERT = re.compile(
    r"^\s*INSERT\s+INTO\s+(?P<table>[\w.\"`\[\]]+)\s*(?:\((?P<cols>[^)]*)\))?\s*VALUES\s*(?P<rows>.*)$",
    re.I | re.S,
)
_CREATE = re.compile(
    r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<table>[\w.\"`\[\]]+)\s*\((?P<body>.*)\)[^)]*$",
    re.I | re.S,
)
_CONSTRAINT = re.compile(r"^(PRIMARY|FOREIGN|UNIQUE|CHECK|CONSTRAINT|KEY|INDEX|EXCLUDE)\b", re.I)
_BOOLEANS = {"true": "yes", "false": "no"}


@dataclass(slots=True)
class _Dump:
    """The rendering under way: lines out, the columns of each table, the table the last rows went to."""

    out: list[str] = field(default_factory=list)
    columns: dict[str, list[str]] = field(default_factory=dict)
    open_table: str = ""
    rows: int = 0
    titled: bool = False


def looks_like_sql(text: str) -> bool:
    """Whether ``text`` is a SQL dump: at least two ``INSERT INTO``/``CREATE TABLE`` statements that start
    a line, and most of its non-comment lines belong to statements."""
    starts = _STATEMENT_START.findall(text[:200_000])
    return len(starts) >= 2


def render_sql(suffix: str, text: str) -> str | None:
    """``text`` of a SQL dump as headed text with pipe tables; None when it is not one."""
    if suffix not in SQL_FORMATS and not (suffix in {".txt", ""} and looks_like_sql(text)):
        return None
    if not looks_like_sql(text):
        return None if suffix not in SQL_FORMATS else text
    dump = _Dump()
    for kind, piece in _pieces(text):
        if kind == "comment":
            _comment(dump, piece)
        else:
            _statement(dump, piece)
    _close_table(dump)
    return "\n".join(dump.out).strip() + "\n"


def _pieces(text: str) -> list[tuple[str, str]]:
    """The dump as comments and statements in order (``;`` ends a statement outside quotes)."""
    pieces: list[tuple[str, str]] = []
    buf: list[str] = []
    i, n, quote = 0, len(text), ""
    while i < n:
        ch = text[i]
        if quote:
            buf.append(ch)
            if ch == quote:
                if i + 1 < n and text[i + 1] == quote:  # '' inside a string
                    buf.append(text[i + 1])
                    i += 1
                else:
                    quote = ""
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            _flush_comment(pieces, buf, text[i + 2 : end])
            i = end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            for line in text[i + 2 : end].splitlines():
                _flush_comment(pieces, buf, line.strip(" *"))
            i = end + 2
            continue
        elif ch == ";":
            _flush_statement(pieces, buf)
        else:
            buf.append(ch)
        i += 1
    _flush_statement(pieces, buf)
    return pieces


def _flush_comment(pieces: list[tuple[str, str]], buf: list[str], comment: str) -> None:
    """A comment inside a statement (a column's note) stays with it; between statements it is prose."""
    text = "".join(buf)
    if text.strip():
        mark = f" /*{comment.strip()}*/ "
        body = text.rstrip()
        if body.endswith(","):  # "species varchar(10),  -- NULL = any species": the note is the column's
            buf[:] = [body[:-1], mark, ",", text[len(body) :]]
        else:
            buf.append(mark)
    elif comment.strip():
        pieces.append(("comment", comment.strip()))


def _flush_statement(pieces: list[tuple[str, str]], buf: list[str]) -> None:
    statement = "".join(buf).strip()
    buf.clear()
    if statement:
        pieces.append(("statement", statement[:MAX_STATEMENT_CHARS]))


def _comment(dump: _Dump, text: str) -> None:
    if set(text) <= set("-=*# "):  # a rule line
        return
    _close_table(dump)
    if not dump.titled:
        dump.out += [f"# {text}", ""]
        dump.titled = True
    else:
        dump.out += [text, ""]


def _statement(dump: _Dump, statement: str) -> None:
    create = _CREATE.match(statement)
    if create:
        _create(dump, _name(create["table"]), create["body"])
        return
    insert = _INSERT.match(statement)
    if insert:
        cols = [_name(c) for c in _split_top(insert["cols"])] if insert["cols"] else []
        _insert(dump, _name(insert["table"]), cols, insert["rows"])


def _create(dump: _Dump, table: str, body: str) -> None:
    _close_table(dump)
    columns: list[str] = []
    notes: list[str] = []
    for part in _split_top(body):
        note = " ".join(re.findall(r"/\*(.*?)\*/", part))
        definition = re.sub(r"/\*.*?\*/", " ", part).strip()
        if not definition or _CONSTRAINT.match(definition):
            continue
        column = _name(definition.split()[0])
        columns.append(column)
        if note:
            notes.append(f"- {words_of(column)}: {note.strip()}")
    dump.columns[table] = columns
    dump.out += [f"## {words_of(table)}", ""] + (notes + [""] if notes else [])


def _insert(dump: _Dump, table: str, cols: list[str], rows_text: str) -> None:
    rows = [_split_top(r) for r in _tuples(rows_text)]
    if not rows:
        return
    width = max(len(r) for r in rows)
    header = cols or dump.columns.get(table) or [f"column {i}" for i in range(1, width + 1)]
    header = (header + [f"column {i}" for i in range(len(header) + 1, width + 1)])[: max(width, len(header))]
    if dump.open_table != table:
        _close_table(dump)
        if table not in dump.columns:
            dump.out += [f"## {words_of(table)}", ""]
        dump.out += ["| " + " | ".join(words_of(h) for h in header) + " |", "|" + "---|" * len(header)]
        dump.open_table = table
    for row in rows:
        if dump.rows >= MAX_ROWS:
            return
        cells = [_cell(v) for v in row] + [""] * (len(header) - len(row))
        dump.out.append("| " + " | ".join(cells) + " |")
        dump.rows += 1


def _close_table(dump: _Dump) -> None:
    if dump.open_table:
        dump.out.append("")
        dump.open_table = ""


def _tuples(text: str) -> list[str]:
    """The parenthesised tuples of a ``VALUES`` list, each without its parentheses."""
    out: list[str] = []
    depth, quote, start = 0, "", -1
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote  # '' re-opens at once: the same string goes on
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
            if depth == 1:
                start = i + 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start >= 0:
                out.append(text[start:i])
                start = -1
    return out


def _split_top(text: str) -> list[str]:
    """``text`` split at commas outside quotes and parentheses."""
    parts: list[str] = []
    depth, quote = 0, ""
    buf: list[str] = []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    if "".join(buf).strip():
        parts.append("".join(buf).strip())
    return parts


def _cell(value: str) -> str:
    """A SQL literal as a cell: strings unquoted, NULL empty, booleans yes/no, casts dropped."""
    v = re.sub(r"::\w+(\(\d+(,\s*\d+)?\))?$", "", value.strip())  # '2026-01-01'::date
    v = re.sub(r"^(DATE|TIMESTAMP|TIME)\s+(?=')", "", v, flags=re.I)
    if len(v) >= 2 and v[0] == v[-1] == "'":
        v = v[1:-1].replace("''", "'")
    elif v.upper() == "NULL":
        v = ""
    else:
        v = _BOOLEANS.get(v.lower(), v)
    return " ".join(v.replace("|", "/").split())


def words_of(name: str) -> str:
    """``discount_pct`` -> ``discount pct``; ``validFrom`` -> ``valid from`` (as formats.words_of)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return " ".join(re.split(r"[_\-.\s]+", spaced)).strip().lower()


def _name(identifier: str) -> str:
    """An identifier without quotes or a schema (``public."fees"`` -> ``fees``)."""
    return identifier.strip().strip('"`[]').rsplit(".", 1)[-1].strip('"`[]')
