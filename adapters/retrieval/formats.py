"""Structured document formats read as the text the retrieval's passages, facts and tables understand (pure).

The retrieval reads markdown, RST, plain text and CSV. Configuration files, data feeds and web pages are
rendered here into that text once, when a file is loaded, so every later stage (passages, headings, facts,
tables, the typed records) works on them unchanged:

- **YAML** (``.yaml``, ``.yml``), **INI** (``.ini``, ``.cfg``, ``.conf``) and **TOML** (``.toml``): line for
  line (citations keep the file's line numbers). A mapping key with no value or a ``[section]`` becomes a
  heading (its depth by indentation or by the dotted section name); ``key: value`` / ``key = value``
  becomes a list item ``- key words: value (key; comment)``, the key's words split on ``_``/``-``/``.`` so a
  question's words meet them, a trailing ``#``/``;`` comment (what the key means) kept beside it, a number
  glued to a duration or size suffix (``90s``, ``200ms``) spaced; a comment line is prose (the first one,
  the file's title, a heading).
- **JSON** (``.json``): a scalar is a list item ``- key words: value``, an object a heading over its members,
  an array of objects a pipe table (one row per object, a column per scalar key), an array of scalars a
  list item.
- **HTML** (``.html``, ``.htm``): the ``<title>`` first (the page's name: a user asks by it), then headings,
  paragraphs, list items and ``<table>`` rows (a pipe table, the first row its header); scripts, styles
  and tags dropped, entities decoded.
- **E-mail** (``.eml``, ``.mbox``): the subject as a heading, sender and date, the decoded body
  (mail.py).
- **SQL dumps** (``.sql``, or a ``.txt`` of ``INSERT``/``CREATE TABLE`` statements): each table's rows as a
  pipe table under its name, comments as prose (sql_dump.py).
- **Fixed-width reports** (plain text): a table whose columns a line of dash runs marks becomes a pipe
  table line for line (ruled_tables.py).
- **iCalendar** (``.ics``): each event under its summary, its date, time, duration, repetition and last
  date as ``key: value`` lines, its description as prose (calendar_ics.py).
- **LaTeX** (``.tex``, or a ``.txt`` whose content is LaTeX): sections as headings, ``tabular`` as pipe
  tables, ``\\item`` as list items, comments dropped, line for line (latex.py).
- **Call transcripts and chat exports** (plain text whose lines open with a time stamp or a chat date and
  a speaker): a list item per turn, money said in words signed (conversation.py).
- **Laid-out notices** (plain text, most lines indented, many with wide gaps: an OCR'd flyer): side-by-side
  columns as captioned lines, gaps as ``;`` (layout.py).
- **Numbered terms** (plain text, four or more lines opening with ``3.1``-style numbers): a list item per
  clause, ``3. Prices`` a heading (clauses.py).

JSON and HTML are rendered anew, so their citations count the rendered lines. A file that does not parse is
read as it is.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from ioa_p2p.adapters.retrieval.bbcode import render_bbcode
from ioa_p2p.adapters.retrieval.calendar_ics import ICS_FORMATS, render_ics
from ioa_p2p.adapters.retrieval.clauses import render_clauses
from ioa_p2p.adapters.retrieval.conversation import render_conversation
from ioa_p2p.adapters.retrieval.latex import LATEX_FORMATS, render_latex
from ioa_p2p.adapters.retrieval.layout import render_layout
from ioa_p2p.adapters.retrieval.mail import MAIL_FORMATS, render_mail
from ioa_p2p.adapters.retrieval.markup import MARKUP_FORMATS, render_markup
from ioa_p2p.adapters.retrieval.ruled_tables import render_ruled
from ioa_p2p.adapters.retrieval.sql_dump import SQL_FORMATS, render_sql
from ioa_p2p.adapters.retrieval.subtitles import render_subtitles

LINE_FORMATS = frozenset({".yaml", ".yml", ".ini", ".cfg", ".conf", ".toml"})
RENDERED_FORMATS = frozenset({".json", ".html", ".htm"})
#: every suffix this module renders (the retrieval's default ``extensions`` include them)
STRUCTURED = (
    LINE_FORMATS
    | RENDERED_FORMATS
    | MARKUP_FORMATS
    | MAIL_FORMATS
    | SQL_FORMATS
    | ICS_FORMATS
    | LATEX_FORMATS
    | {".tsv"}
)
MAX_DEPTH = 6  # headings: "#" to "######"

_KEY_VALUE = re.compile(
    r"^(?P<indent>\s*)(?P<dash>-\s+)?(?P<key>[A-Za-z_][\w.\- ]*?)\s*(?P<sep>:|=)\s*(?P<rest>.*)$"
)
_SECTION = re.compile(r"^\s*\[\[?(?P<name>[^\]]+)\]\]?\s*$")
_GLUED = re.compile(r"^(?P<num>-?\d+(?:\.\d+)?)(?P<unit>ms|us|s|m|h|d|w|y|KiB|MiB|GiB|TiB|KB|MB|GB|TB|k|K)$")
_UNIT_WORDS = {
    "s": "s",
    "ms": "ms",
    "us": "µs",
    "m": "min",
    "h": "h",
    "d": "days",
    "w": "weeks",
    "y": "years",
}
#: a key's last word that names its value's unit (``price_eur``, ``retention_hours``, ``weight_kg``)
KEY_UNITS = {
    **{c: c.upper() for c in ("eur", "usd", "gbp", "chf")},
    **{
        u: u
        for u in ("kg", "g", "km", "kwh", "ml", "min", "ms", "mm", "cm", "days", "weeks", "months", "years")
    },
    **{"pct": "%", "percent": "%", "hours": "h", "hrs": "h", "secs": "s", "seconds": "s", "minutes": "min"},
    **{"gib": "GiB", "mib": "MiB", "kib": "KiB", "tib": "TiB", "gb": "GB", "mb": "MB", "kb": "KB"},
}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def readable(path: str, text: str) -> str:
    """``text`` of the file at ``path`` as markdown-like text (unchanged for the formats read natively)."""
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix in (".yaml", ".yml"):
        return "\n".join(_yaml_lines(text.splitlines()))
    if suffix in (".ini", ".cfg", ".conf", ".toml"):
        return "\n".join(_ini_lines(text.splitlines()))
    if suffix == ".json":
        try:  # a feed nested past Python's recursion limit is read as it is, like one that does not parse
            return "\n".join(_json_lines(json.loads(text), _title(path), 1))
        except (ValueError, RecursionError):
            return text
    if suffix in (".html", ".htm"):
        return _html_text(text)
    mail = render_mail(suffix, text, _html_text)  # saved e-mail messages (mail.py)
    if mail is not None:
        return mail
    dump = render_sql(suffix, text)  # SQL dumps: INSERT rows as tables (sql_dump.py)
    if dump is not None:
        return dump
    calendar = render_ics(suffix, text)  # iCalendar: events with dates, times, repetitions (calendar_ics.py)
    if calendar is not None:
        return calendar
    latex = render_latex(suffix, text)  # LaTeX sources: sections, tabulars, lists (latex.py)
    if latex is not None:
        return latex
    cues = render_subtitles(suffix, text)  # SRT / WebVTT: what was said, a paragraph per cue (subtitles.py)
    if cues is not None:
        return cues
    forum = render_bbcode(suffix, text)  # forum threads in BBCode: list items, quotes as ">" (bbcode.py)
    if forum is not None:
        return forum
    talk = render_conversation(suffix, text)  # call transcripts, chat exports: a turn per item
    if talk is not None:
        return talk
    ruled = render_ruled(suffix, text)  # fixed-width reports: columns marked by dash runs (ruled_tables.py)
    if ruled is not None:
        return ruled
    notice = render_layout(suffix, text)  # flyers and posters laid out with spaces (layout.py)
    if notice is not None:
        return notice
    terms = render_clauses(suffix, text)  # numbered terms: a list item per clause (clauses.py)
    if terms is not None:
        return terms
    rendered = render_markup(suffix, text)  # AsciiDoc, Org, MediaWiki, recfile, XML (markup.py)
    return text if rendered is None else rendered


def words_of(key: str) -> str:
    """``price_per_kg`` -> ``price per kg``; ``maxQueues`` -> ``max queues``."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key)
    return " ".join(re.split(r"[_\-.\s]+", spaced)).strip().lower()


def _title(path: str) -> str:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return words_of(stem) or stem


def _value_text(raw: str) -> str:
    """A configuration value as prose: quotes dropped, a glued unit spaced (``90s`` -> ``90 s``)."""
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    glued = _GLUED.match(value)
    if glued:
        unit = glued["unit"]
        return f"{glued['num']} {_UNIT_WORDS.get(unit, unit)}"
    return value


def _split_comment(rest: str, marks: str) -> tuple[str, str]:
    """(value, comment) of a line's rest: a comment starts at a mark after whitespace, outside quotes."""
    quote = ""
    for i, ch in enumerate(rest):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in marks and (i == 0 or rest[i - 1].isspace()):
            return rest[:i].strip(), rest[i + 1 :].strip()
    return rest.strip(), ""


def unit_of_key(key: str) -> str:
    """The unit a key's last word names (``price_eur`` -> EUR), none after "per" (``price_per_kg``)."""
    words = words_of(key).split()
    if len(words) < 1 or (len(words) > 1 and words[-2] == "per"):
        return ""
    return KEY_UNITS.get(words[-1], "")


def with_unit(value: str, unit: str) -> str:
    """A bare number with the unit its key names: ``29`` + EUR -> ``29 EUR``."""
    return f"{value} {unit}" if unit and _NUMBER.fullmatch(value) else value


def _item(key: str, value: str, comment: str, unit: str = "") -> str:
    words = words_of(key)
    notes = "; ".join(n for n in (key if words != key.lower() else "", comment) if n)
    shown = with_unit(value, unit_of_key(key) or unit)
    return f"- {words}: {shown}" + (f" ({notes})" if notes else "")


def _prose(comment: str, titled: bool) -> str:
    body = comment.lstrip("#;").strip()
    return body if titled or not body else "# " + body


def _yaml_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    indents: list[int] = []  # indentation of the open mapping headings
    titled = False
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped in ("---", "..."):
            out.append("")
            continue
        if stripped.startswith("#"):
            out.append(_prose(stripped, titled))
            titled = titled or bool(stripped.lstrip("#").strip())
            continue
        m = _KEY_VALUE.match(line)
        if m is None or m["sep"] != ":":
            out.append(stripped)
            continue
        indent = len(m["indent"])
        while indents and indents[-1] >= indent:
            indents.pop()
        value, comment = _split_comment(m["rest"], "#")
        if not value:  # a mapping: a heading one level below the open ones
            indents.append(indent)
            depth = min(len(indents) + 1, MAX_DEPTH)
            out.append("#" * depth + " " + words_of(m["key"]) + (f" ({comment})" if comment else ""))
            titled = True
            continue
        out.append(_item(m["key"], _value_text(value), comment))
    return out


def _ini_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    titled = False
    for line in lines:
        stripped = line.strip()
        if not stripped:
            out.append("")
            continue
        if stripped[0] in "#;":
            out.append(_prose(stripped, titled))
            titled = titled or bool(stripped.lstrip("#;").strip())
            continue
        section = _SECTION.match(line)
        if section:
            parts = section["name"].strip().split(".")
            out.append("#" * min(len(parts) + 1, MAX_DEPTH) + " " + " ".join(words_of(p) for p in parts))
            titled = True
            continue
        m = _KEY_VALUE.match(line)
        if m is None:
            out.append(stripped)
            continue
        value, comment = _split_comment(m["rest"], "#;")
        out.append(_item(m["key"], _value_text(value), comment))
    return out


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    return str(value)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _json_lines(data: Any, title: str, depth: int, unit: str = "") -> list[str]:
    heading = "#" * min(depth, MAX_DEPTH) + " " + title
    if _is_scalar(data):
        return [heading, "", _scalar(data), ""]
    out = [heading, ""]
    if isinstance(data, list):
        return out + _json_list(title, data, depth)
    scalars = [(k, v) for k, v in data.items() if _is_scalar(v) or _scalar_list(v)]
    for key, value in scalars:
        named = unit_of_key(key) or unit
        if isinstance(value, list):
            shown = ", ".join(with_unit(_scalar(v), named) for v in value)
        else:
            shown = with_unit(_scalar(value), named)
        out.append(f"- {words_of(key)}: {shown}")
    if scalars:
        out.append("")
    for key, value in data.items():
        if not (_is_scalar(value) or _scalar_list(value)):
            out += _json_lines(value, words_of(key), depth + 1, unit_of_key(key))
    return out


def _scalar_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_scalar(v) for v in value)


def _json_list(title: str, items: list[Any], depth: int) -> list[str]:
    if _scalar_list(items):
        return [f"- {title}: " + ", ".join(_scalar(v) for v in items), ""]
    rows = [i for i in items if isinstance(i, dict)]
    columns: list[str] = []
    for row in rows:
        columns += [k for k, v in row.items() if _is_scalar(v) and k not in columns]
    out = []
    if columns:
        out.append("| " + " | ".join(words_of(c) for c in columns) + " |")
        out.append("|" + "---|" * len(columns))
        for row in rows:
            cells = [_scalar(row.get(c, "")).replace("|", "/") for c in columns]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    for n, row in enumerate(rows, 1):  # members that are not scalars: under the row's first value
        nested = {k: v for k, v in row.items() if not _is_scalar(v)}
        if nested:
            name = _scalar(row[columns[0]]) if columns and columns[0] in row else f"{title} {n}"
            out += _json_lines(nested, name, depth + 1)
    return out


class _HtmlText(HTMLParser):
    """HTML -> markdown-like lines: headings, paragraphs, list items, pipe tables."""

    BLOCKS = frozenset(
        {"p", "div", "section", "article", "header", "footer", "main", "blockquote", "dd", "dt"}
    )
    SKIP = frozenset({"script", "style", "template", "noscript"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.buffer: list[str] = []
        self.prefix = ""
        self.skipping = 0
        self.title = ""
        self.in_title = False
        self.table: list[list[str]] | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        elif tag == "title":
            self.in_title = True
        elif tag == "table":
            self.flush()
            self.table = []
        elif tag == "tr" and self.table is not None:
            self.table.append([])
        elif tag in ("td", "th") and self.table is not None:
            self.cell = []
        elif tag == "br":
            self.flush() if self.cell is None else self.cell.append(" ")
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.prefix = "#" * int(tag[1]) + " "
        elif tag == "li":
            self.flush()
            self.prefix = "- "
        elif tag in self.BLOCKS:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag == "title":
            self.in_title = False
        elif tag in ("td", "th") and self.table is not None and self.cell is not None:
            if not self.table:
                self.table.append([])
            self.table[-1].append(" ".join("".join(self.cell).split()).replace("|", "/"))
            self.cell = None
        elif tag == "table" and self.table is not None:
            self.emit_table(self.table)
            self.table = None
        elif re.fullmatch(r"h[1-6]", tag) or tag == "li" or tag in self.BLOCKS:
            self.flush()

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.in_title:
            self.title += data
        elif self.cell is not None:
            self.cell.append(data)
        elif self.table is None:
            self.buffer.append(data)

    def flush(self) -> None:
        text = " ".join("".join(self.buffer).split())
        if text:
            self.lines += [self.prefix + text, ""]
        self.buffer, self.prefix = [], ""

    def emit_table(self, rows: list[list[str]]) -> None:
        rows = [r for r in rows if any(r)]
        if not rows:
            return
        width = max(len(r) for r in rows)
        padded = [r + [""] * (width - len(r)) for r in rows]
        self.lines.append("| " + " | ".join(padded[0]) + " |")
        self.lines.append("|" + "---|" * width)
        self.lines += ["| " + " | ".join(r) + " |" for r in padded[1:]]
        self.lines.append("")


def _html_text(text: str) -> str:
    parser = _HtmlText()
    parser.feed(text)
    parser.close()
    parser.flush()
    title = " ".join(parser.title.split())
    lines = parser.lines
    if title and not any(line == "# " + title for line in lines[:2]):  # the page's name: its first line
        lines = ["# " + title, "", *lines]
    return "\n".join(lines).strip() + "\n"
