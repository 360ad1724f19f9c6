"""Markup people keep their documents in, read as the markdown-like text the retrieval understands (pure).

:mod:`.formats` renders configuration files, feeds and web pages; this module renders the lightweight
markups and record files of notes, wikis and exports, so passages, headings, facts and tables work on them
unchanged. Each is recognised by its file's suffix and rendered line for line where it can be:

- **AsciiDoc** (``.adoc``, ``.asciidoc``): ``= Title`` / ``== Section`` headings, ``|===`` tables (one
  cell per ``|``, a row over several lines; the first row the header), ``key:: value`` definitions and
  ``:attr: value`` attributes as list items, ``*`` / ``**`` lists, ``*bold*`` marks dropped, block
  attributes (``[cols=...]``) and delimiters dropped.
- **Org** (``.org``): ``#+TITLE:`` the title, ``*`` headings (one level below it), tables as they are
  with their ``|---+---|`` rules made markdown's, ``:PROPERTIES:`` drawers as list items.
- **MediaWiki** (``.wiki``, ``.mediawiki``): ``== Section ==`` headings, ``{| ... |}`` tables (``!`` header
  cells, ``|-`` rows, ``||`` / ``!!`` cells on one line), ``*`` / ``#`` lists, ``''`` emphasis and
  ``[[link|label]]`` reduced to their text.
- **recfile** (``.rec``): ``%rec: Type`` a heading, consecutive records with the same fields a table
  (a column per field), a record of its own fields as list items, ``+`` continuation lines joined, ``#``
  comments as prose.
- **XML** (``.xml``): the first comment as the title; an element's attributes and text as list items under a
  heading named by its tag; repeated sibling elements of one tag a table (a column per attribute, the
  element's text last). A file that does not parse is read as it is.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence

MARKUP_FORMATS = frozenset({".adoc", ".asciidoc", ".org", ".wiki", ".mediawiki", ".rec", ".xml"})
MAX_DEPTH = 6


def render_markup(suffix: str, text: str) -> str | None:
    """``text`` of a file ending in ``suffix`` rendered as markdown-like text; None for another suffix."""
    lines = text.splitlines()
    if suffix in (".adoc", ".asciidoc"):
        return "\n".join(_adoc(lines))
    if suffix == ".org":
        return "\n".join(_org(lines))
    if suffix in (".wiki", ".mediawiki"):
        return "\n".join(_wiki(lines))
    if suffix == ".rec":
        return "\n".join(_rec(lines))
    if suffix == ".xml":
        return _xml(text)
    return None


#: a cell longer than this is prose (a rule, a note): its rows are read as list items, not table cells
PROSE_CELL = 60


def pipe_table(rows: Sequence[Sequence[str]]) -> list[str]:
    """``rows`` (the first the header) as a markdown pipe table, short rows padded; rows whose cells hold
    prose as list items ``- first cell: the other cells``."""
    if not rows:
        return []
    if any(len(c) > PROSE_CELL for r in rows[1:] for c in r):
        items = [
            f"- {r[0]}: " + "; ".join(c for c in r[1:] if c) if len(r) > 1 else f"- {r[0]}" for r in rows[1:]
        ]
        return [*items, ""]
    width = max(len(r) for r in rows)
    padded = [[*(c.replace("|", "/") for c in r), *([""] * (width - len(r)))] for r in rows]
    out = ["| " + " | ".join(padded[0]) + " |", "|" + "---|" * width]
    out += ["| " + " | ".join(r) + " |" for r in padded[1:]]
    return [*out, ""]


# --------------------------------------------------------------------------- AsciiDoc

_ADOC_HEADING = re.compile(r"^(=+)\s+(.+?)\s*$")
_ADOC_ATTR = re.compile(r"^:([\w-]+):\s*(.*)$")
_ADOC_DEF = re.compile(r"^(.+?)::\s+(.*)$")
_ADOC_LIST = re.compile(r"^(\*+|\.+|-)\s+(.*)$")
_BOLD = re.compile(r"(?<![\w*])\*{1,2}([^*\n]+?)\*{1,2}(?![\w*])")


def _adoc(lines: list[str]) -> Iterable[str]:
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if line.startswith("|==="):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("|===")), len(lines))
            yield from pipe_table(_adoc_rows(lines[i + 1 : end]))
            i = end + 1
            continue
        i += 1
        if re.match(r"^\[.*\]$", line) or line in ("----", "....", "====", "****", "--", "+"):
            continue
        if line.startswith("//"):
            continue
        if m := _ADOC_HEADING.match(line):
            yield "#" * min(len(m[1]), MAX_DEPTH) + " " + _plain(m[2])
        elif m := _ADOC_ATTR.match(line):
            if m[2]:
                yield f"- {m[1].replace('-', ' ')}: {m[2]}"
        elif m := _ADOC_LIST.match(line):
            yield "- " + _plain(m[2])
        elif m := _ADOC_DEF.match(line):
            yield f"- {_plain(m[1])}: {_plain(m[2])}"
        else:
            yield _plain(line)


def _adoc_rows(body: list[str]) -> list[list[str]]:
    """Table lines between ``|===`` markers as rows; the first line's cell count is the width."""
    cells: list[str] = []
    width = 0
    for raw in body:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("|"):
            parts = [_plain(c.strip()) for c in line.split("|")[1:]]
            width = width or len(parts)
            cells.extend(parts)
        elif cells:
            cells[-1] = f"{cells[-1]} {_plain(line)}".strip()
    width = width or 1
    return [cells[k : k + width] for k in range(0, len(cells), width)]


def _plain(text: str) -> str:
    return _BOLD.sub(r"\1", text).replace("`", "")


# --------------------------------------------------------------------------- Org

_ORG_HEADING = re.compile(r"^(\*+)\s+(.+?)\s*$")
_ORG_KEYWORD = re.compile(r"^#\+(\w+):\s*(.*)$")
_ORG_PROPERTY = re.compile(r"^\s*:([\w-]+):\s*(.*)$")


def _org(lines: list[str]) -> Iterable[str]:
    for raw in lines:
        line = raw.rstrip()
        if m := _ORG_KEYWORD.match(line):
            key, value = m[1].lower(), m[2]
            if key == "title":
                yield "# " + value
            elif value and key not in ("options", "startup", "begin_src", "end_src"):
                yield f"- {key}: {value}"
        elif m := _ORG_HEADING.match(line):
            yield "#" * min(len(m[1]) + 1, MAX_DEPTH) + " " + _plain(m[2])
        elif re.match(r"^\s*\|[-+]+\|?\s*$", line):
            yield "|" + "---|" * line.count("+") + "---|"
        elif m := _ORG_PROPERTY.match(line):
            if m[1].upper() not in ("PROPERTIES", "END") and m[2]:
                yield f"- {m[1].lower().replace('_', ' ')}: {m[2]}"
        elif line.lstrip().startswith("# "):
            yield line.lstrip()[2:]
        else:
            yield line


# --------------------------------------------------------------------------- MediaWiki

_WIKI_HEADING = re.compile(r"^(=+)\s*(.+?)\s*\1\s*$")
_WIKI_LINK = re.compile(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]")
_WIKI_EXTERNAL = re.compile(r"\[(?:https?|ftp)://\S+\s+([^\]]*)\]")


def _wiki(lines: list[str]) -> Iterable[str]:
    rows: list[list[str]] | None = None
    for raw in lines:
        line = raw.rstrip()
        if rows is not None:
            if line.startswith("|}"):
                yield from pipe_table([r for r in rows if r])
                rows = None
            elif line.startswith("|-"):
                rows.append([])
            elif line.startswith("|+"):
                continue
            elif line.startswith(("!", "|")):
                sep = "!!" if line.startswith("!") else "||"
                cells = [_wiki_cell(c) for c in line[1:].split(sep)]
                if not rows:
                    rows.append([])
                rows[-1].extend(cells)
            elif line.strip() and rows and rows[-1]:
                rows[-1][-1] = f"{rows[-1][-1]} {_wiki_text(line.strip())}"
            continue
        if line.startswith("{|"):
            rows = [[]]
        elif m := _WIKI_HEADING.match(line):
            yield "#" * min(len(m[1]), MAX_DEPTH) + " " + _wiki_text(m[2])
        elif m := re.match(r"^([*#]+)\s*(.*)$", line):
            yield "- " + _wiki_text(m[2])
        elif m := re.match(r"^;\s*(.+?)\s*:\s*(.*)$", line):
            yield f"- {_wiki_text(m[1])}: {_wiki_text(m[2])}"
        else:
            yield _wiki_text(line)
    if rows is not None:
        yield from pipe_table([r for r in rows if r])


def _wiki_cell(cell: str) -> str:
    """A table cell without its attributes (``style="..." | text``)."""
    if "|" in cell and "[[" not in cell and "=" in cell.split("|", 1)[0]:
        cell = cell.split("|", 1)[1]
    return _wiki_text(cell.strip())


def _wiki_text(text: str) -> str:
    text = _WIKI_LINK.sub(r"\1", _WIKI_EXTERNAL.sub(r"\1", text))
    return re.sub(r"'{2,}", "", text).replace("<br>", " ").replace("<br />", " ")


# --------------------------------------------------------------------------- recfile

_REC_FIELD = re.compile(r"^([A-Za-z%][\w-]*(?: [\w-]+)*):\s?(.*)$")


def _rec(lines: list[str]) -> Iterable[str]:
    records: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []

    def flush() -> Iterable[str]:
        if current:
            records.append(list(current))
            current.clear()
        yield from _rec_group(records)
        records.clear()

    for raw in lines:
        line = raw.rstrip()
        if line.startswith("%rec:"):
            yield from flush()
            yield "## " + line[5:].strip()
        elif line.startswith("%"):
            continue
        elif line.startswith("#"):
            yield from flush()
            yield line.lstrip("#").strip()
        elif not line.strip():
            if current:
                records.append(list(current))
                current.clear()
        elif line.startswith("+") and current:
            key, value = current[-1]
            current[-1] = (key, f"{value} {line[1:].strip()}".strip())
        elif m := _REC_FIELD.match(line):
            current.append((m[1], m[2].strip()))
        else:
            yield from flush()
            yield line
    yield from flush()


def _rec_group(records: list[list[tuple[str, str]]]) -> Iterable[str]:
    """Runs of records with the same fields as tables; a record unlike its neighbours as list items."""
    k = 0
    while k < len(records):
        keys = [f for f, _ in records[k]]
        end = k + 1
        while end < len(records) and [f for f, _ in records[end]] == keys:
            end += 1
        if end - k >= 2 and len(set(keys)) == len(keys):
            yield from pipe_table([keys, *([v for _, v in r] for r in records[k:end])])
        else:
            for record in records[k:end]:
                (_, first), *rest = record
                if len(rest) == 1:  # "Rule: Arrival / Text: ...": the one other field is what it says
                    yield f"- {first}: {rest[0][1]}"
                else:
                    yield f"- {first}: " + "; ".join(f"{f} {v}" for f, v in rest) if rest else f"- {first}"
            yield ""
        k = end


# --------------------------------------------------------------------------- XML

_LOCAL = re.compile(r"^\{[^}]*\}")


def _xml(text: str) -> str:
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):
        return text
    out: list[str] = []
    comment = re.search(r"<!--(.*?)-->", text, re.S)
    if comment and comment.start() < text.find("<" + root.tag.split("}")[-1]):
        out += ["# " + " ".join(comment[1].split()), ""]
    _xml_element(root, 1 if not out else 2, out)
    return "\n".join(out)


def _tag(element: ET.Element) -> str:
    return _LOCAL.sub("", str(element.tag)).replace("-", " ").replace("_", " ")


def _words(name: str) -> str:
    return _LOCAL.sub("", name).replace("-", " ").replace("_", " ")


def _xml_text(element: ET.Element) -> str:
    return " ".join((element.text or "").split())


def _xml_element(element: ET.Element, depth: int, out: list[str]) -> None:
    children = list(element)
    text = _xml_text(element)
    if not children:
        out.append(_xml_leaf(element, text))
        return
    out.append("#" * min(depth, MAX_DEPTH) + " " + _tag(element))
    out += [f"- {_words(k)}: {v}" for k, v in element.attrib.items()]
    if text:
        out.append(text)
    out.append("")
    k = 0
    while k < len(children):
        end = k + 1
        while end < len(children) and children[end].tag == children[k].tag:
            end += 1
        run = children[k:end]
        if len(run) >= 2 and all(not list(c) for c in run) and any(c.attrib for c in run):
            out += _xml_table(run)
        else:
            for child in run:
                _xml_element(child, depth + 1, out)
        k = end
    out.append("")


def _xml_leaf(element: ET.Element, text: str) -> str:
    attrs = "; ".join(f"{_words(k)} {v}" for k, v in element.attrib.items())
    name = element.attrib.get("name") or element.attrib.get("id")
    label = f"{_tag(element)} {name}" if name else _tag(element)
    rest = "; ".join(f"{_words(k)} {v}" for k, v in element.attrib.items() if k not in ("name", "id"))
    body = "; ".join(p for p in (text, rest if name else attrs) if p)
    return f"- {label}: {body}" if body else f"- {label}"


def _xml_table(run: list[ET.Element]) -> list[str]:
    columns: list[str] = []
    for element in run:
        columns += [k for k in element.attrib if k not in columns]
    texts = [_xml_text(e) for e in run]
    header = [_words(c) for c in columns] + (["text"] if any(texts) else [])
    tail = any(texts)
    rows = [
        [e.attrib.get(c, "") for c in columns] + [t][: int(tail)] for e, t in zip(run, texts, strict=True)
    ]
    return ["", f"{_tag(run[0])}:", *pipe_table([header, *rows])]


__all__ = ["MARKUP_FORMATS", "pipe_table", "render_markup"]
