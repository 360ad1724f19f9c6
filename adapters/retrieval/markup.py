"""Markup a user keeps, read by its FORM (not its file name) as the markdown-like text the retrieval's
passages, headings, facts and tables understand (pure).

:func:`markup_text` looks at the lines and renders the first form it recognises:

- **XML** (the text opens with ``<?xml`` or an element and parses): an element's text is a list item
  ``- path words (attributes): text``; elements that repeat under one parent with attributes are a pipe
  table (a column per attribute, one row per element); an element holding others is a heading.
- **AsciiDoc** (``= Title`` / ``== Section`` lines, ``|===`` tables, ``key:: value``): ``#`` headings, pipe
  tables, ``- key: value`` items; ``:attr: value`` header lines and ``[...]`` block attributes dropped.
- **org-mode** (``#+TITLE:``, ``* headings``, ``|---+---|`` rules, ``:PROPERTIES:`` drawers): ``#``
  headings, pipe tables with markdown rules, a drawer's ``:KEY: value`` an item.
- **MediaWiki** (``== Section ==``, ``{| ... |}`` tables): ``#`` headings, ``!``/``|`` cells split on
  ``!!``/``||`` into pipe tables, ``''emphasis''`` dropped, ``# item`` numbered items.
- **recfile** (``%rec: Type`` and ``Key: value`` records separated by blank lines, ``+`` continuations):
  a ``%rec`` type is a heading; records of one type that share their keys a pipe table, others ``- key:
  value`` items under a heading named by the record's first field.
- Any other text line for line, with **dotted leaders** (``Item ........ 12.50`` -> ``- Item: 12.50``) and
  ``||`` rows (``|| a || b ||`` -> ``| a | b |``) made plain; tab- and semicolon-separated tables are left as
  they are (tables.py reads them, decimal commas included).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ioa_p2p.adapters.retrieval.formats import words_of

MAX_XML_CHARS = 1_048_576  # a larger feed is read as text
_ADOC_HEADING = re.compile(r"^(=+)\s+(\S.*?)\s*$")
_ADOC_ATTR = re.compile(r"^:[\w-]+:.*$")
_ADOC_DEFINITION = re.compile(r"^(?P<key>[^:\s][^:]*?)::\s+(?P<value>\S.*)$")
_ORG_HEADING = re.compile(r"^(\*+)\s+(\S.*)$")
_ORG_KEYWORD = re.compile(r"^#\+(?P<key>\w+):\s*(?P<value>.*)$")
_ORG_PROPERTY = re.compile(r"^\s*:(?P<key>[\w-]+):\s+(?P<value>\S.*)$")
_ORG_RULE = re.compile(r"^\s*\|[-+]+\|?\s*$")
_WIKI_HEADING = re.compile(r"^(=+)\s*(\S.*?)\s*\1\s*$")
_REC_FIELD = re.compile(r"^(?P<key>[A-Za-z%][\w -]{0,60}?):\s*(?P<value>.*)$")
_LEADER = re.compile(r"^(?P<item>\s*\S.*?\S)\s*(?:\.\s?){4,}\.?\s*(?P<value>\S.*)$")
_DOUBLE_BAR_ROW = re.compile(r"^\s*\|\|.*\|\|\s*$")


def markup_text(text: str) -> str:
    """``text`` rendered by its form (see the module docstring); unchanged when no form is recognised."""
    lines = text.splitlines()
    if _looks_xml(text):
        rendered = _xml_text(text)
        if rendered is not None:
            return rendered
    if _is_recfile(lines):
        return "\n".join(_rec_lines(lines))
    if _is_wiki(lines):
        return "\n".join(_wiki_lines(lines))
    if _is_adoc(lines):
        return "\n".join(_adoc_lines(lines))
    if _is_org(lines):
        return "\n".join(_org_lines(lines))
    return "\n".join(_plain_lines(lines))


# --------------------------------------------------------------------------- which form


def _looks_xml(text: str) -> bool:
    head = text.lstrip("\ufeff \t\r\n")[:200]
    return head.startswith("<?xml") or bool(re.match(r"<[A-Za-z_][\w.-]*[\s>/]", head))


def _is_recfile(lines: list[str]) -> bool:
    return any(line.startswith("%rec:") for line in lines)


def _is_wiki(lines: list[str]) -> bool:
    return any(line.startswith("{|") for line in lines) or (
        sum(bool(_WIKI_HEADING.match(line)) and line.startswith("==") for line in lines) >= 2
    )


def _is_adoc(lines: list[str]) -> bool:
    tables = sum(line.strip() == "|===" for line in lines)
    headings = sum(bool(_ADOC_HEADING.match(line)) and not line.rstrip().endswith("=") for line in lines)
    return tables >= 2 or headings >= 2


def _is_org(lines: list[str]) -> bool:
    keywords = sum(bool(_ORG_KEYWORD.match(line)) for line in lines)
    rules = sum(bool(_ORG_RULE.match(line)) and "+" in line for line in lines)
    drawers = sum(line.strip() == ":PROPERTIES:" for line in lines)
    return keywords + rules + drawers >= 1 and any(_ORG_HEADING.match(line) for line in lines)


# --------------------------------------------------------------------------- shared pieces


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.strip().replace("|", "/") for c in cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    width = len(header)
    out = [_row(header), "|" + "---|" * width]
    for cells in rows:
        out.append(_row((cells + [""] * width)[:width]))
    return out


def _plain_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if _DOUBLE_BAR_ROW.match(line):
            out.append(_row([c for c in line.strip().strip("|").split("||")]))
            continue
        leader = _LEADER.match(line)
        if leader and re.search(r"\d", leader["value"]):
            out.append(f"- {leader['item'].strip()}: {leader['value'].strip()}")
            continue
        out.append(line)
    return out


# --------------------------------------------------------------------------- AsciiDoc


def _adoc_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    table: list[list[str]] | None = None
    for line in lines:
        stripped = line.strip()
        if stripped == "|===":
            if table is None:
                table = []
            else:
                out += _table(table[0], table[1:]) if table else []
                table = None
            continue
        if table is not None:
            if stripped.startswith("|"):
                table.append([c.strip() for c in stripped[1:].split("|")])
            elif stripped and table:
                table[-1][-1] += " " + stripped
            continue
        heading = _ADOC_HEADING.match(line)
        definition = _ADOC_DEFINITION.match(stripped)
        if heading:
            out.append("#" * min(len(heading[1]), 6) + " " + heading[2])
        elif _ADOC_ATTR.match(stripped) or (stripped.startswith("[") and stripped.endswith("]")):
            out.append("")
        elif definition:
            out.append(f"- {definition['key'].strip()}: {definition['value'].strip()}")
        else:
            out.append(re.sub(r"\*(\S[^*]*?)\*", r"\1", line))
    return out


# --------------------------------------------------------------------------- org-mode


def _org_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    drawer = False
    for line in lines:
        stripped = line.strip()
        keyword = _ORG_KEYWORD.match(stripped)
        heading = _ORG_HEADING.match(line)
        if stripped in (":PROPERTIES:", ":END:"):
            drawer = stripped == ":PROPERTIES:"
            out.append("")
        elif drawer and (prop := _ORG_PROPERTY.match(line)):
            out.append(f"- {words_of(prop['key'])}: {prop['value'].strip()}")
        elif keyword:
            key = keyword["key"].lower()
            out.append("# " + keyword["value"] if key == "title" else f"- {key}: {keyword['value']}")
        elif heading:
            out.append("#" * min(len(heading[1]) + 1, 6) + " " + heading[2])
        elif _ORG_RULE.match(line):
            cells = stripped.strip("|").split("+")
            out.append("|" + "---|" * len(cells))
        else:
            out.append(re.sub(r"(?<!\w)[*/=~](\S[^*/=~]*?)[*/=~](?!\w)", r"\1", line))
    return out


# --------------------------------------------------------------------------- MediaWiki


def _wiki_cells(body: str, mark: str) -> list[str]:
    cells = body.split(mark + mark) if mark + mark in body else [body]
    # a cell's "attributes | text": keep the text
    return [c.split("|", 1)[1] if "|" in c and "=" in c.split("|", 1)[0] else c for c in cells]


def _wiki_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    header: list[str] = []
    rows: list[list[str]] = []
    in_table = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("{|"):
            in_table, header, rows = True, [], [[]]
            out.append("")
            continue
        if in_table:
            if stripped.startswith("|}"):
                body = [r for r in rows if r]
                out += _table(header or body[0], body if header else body[1:]) if header or body else []
                out.append("")
                in_table = False
            elif stripped.startswith("|-"):
                rows.append([])
            elif stripped.startswith("!"):
                header += [_wiki_text(c) for c in _wiki_cells(stripped[1:], "!")]
            elif stripped.startswith("|+"):
                out.append(_wiki_text(stripped[2:]))
            elif stripped.startswith("|"):
                rows[-1] += [_wiki_text(c) for c in _wiki_cells(stripped[1:], "|")]
            continue
        heading = _WIKI_HEADING.match(line)
        if heading:
            out.append("#" * min(len(heading[1]), 6) + " " + _wiki_text(heading[2]))
        elif re.match(r"^#+\s", line):
            out.append("1. " + _wiki_text(line.lstrip("#").strip()))
        else:
            out.append(_wiki_text(line))
    return out


def _wiki_text(text: str) -> str:
    text = re.sub(r"'{2,}", "", text)
    text = re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]", r"\1", text)
    return re.sub(r"\[\S+\s+([^\]]*)\]", r"\1", text).strip() if text.strip() else ""


# --------------------------------------------------------------------------- recfile


def _rec_records(lines: list[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(type, [(key, value)]) per record; ``+`` lines continue the last value."""
    records: list[tuple[str, list[tuple[str, str]]]] = []
    kind, fields = "", list[tuple[str, str]]()
    for line in [*lines, ""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if fields:
                records.append((kind, fields))
            fields = []
            continue
        if line.startswith("+") and fields:
            key, value = fields[-1]
            fields[-1] = (key, f"{value} {line[1:].strip()}".strip())
            continue
        m = _REC_FIELD.match(line)
        if m is None:
            continue
        if m["key"] == "%rec":
            kind = m["value"].strip()
        elif not m["key"].startswith("%"):
            fields.append((m["key"].strip(), m["value"].strip()))
    return records


def _rec_lines(lines: list[str]) -> list[str]:
    comments = [line.lstrip("#").strip() for line in lines if line.startswith("#")]
    out = ["# " + comments[0], *comments[1:], ""] if comments else []
    records = _rec_records(lines)
    kinds = list(dict.fromkeys(kind for kind, _ in records))
    for kind in kinds:
        group = [fields for k, fields in records if k == kind]
        out += [f"## {kind}" if kind else "## Records", ""]
        keys = [key for key, _ in group[0]]
        same = all([key for key, _ in fields] == keys for fields in group)
        if same and len(group) >= 2 and all(len(value) <= 80 for f in group for _, value in f):
            out += [*_table(keys, [[value for _, value in fields] for fields in group]), ""]
            continue
        for fields in group:
            (key0, value0), rest = fields[0], fields[1:]
            out += [f"### {value0}" if rest else f"- {key0}: {value0}"]
            out += [f"- {key}: {value}" for key, value in rest] + [""]
    return out


# --------------------------------------------------------------------------- XML


def _xml_text(text: str) -> str | None:
    if len(text) > MAX_XML_CHARS or "<!DOCTYPE" in text or "<!ENTITY" in text:
        return None  # (no entity expansion: a DTD is read as text)
    try:
        root = ET.fromstring(text.lstrip("\ufeff"))
    except ET.ParseError:
        return None
    comments = re.findall(r"<!--(.*?)-->", text[: text.find("<" + root.tag)], re.S)
    title = " ".join(comments[0].split()) if comments else words_of(_local(root.tag))
    out = ["# " + title, *_attribute_items(root), ""]
    _xml_children(root, 2, [], out)
    return "\n".join(out)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _attribute_items(element: ET.Element) -> list[str]:
    return [f"- {words_of(_local(k))}: {v}" for k, v in element.attrib.items()]


def _xml_children(element: ET.Element, depth: int, path: list[str], out: list[str]) -> None:
    children = list(element)
    by_tag: dict[str, list[ET.Element]] = {}
    for child in children:
        by_tag.setdefault(child.tag, []).append(child)
    done: set[str] = set()
    for child in children:
        tag = child.tag
        name = words_of(_local(tag))
        same = by_tag[tag]
        if tag in done:
            continue
        if len(same) >= 2 and all(not list(c) for c in same) and any(c.attrib for c in same):
            done.add(tag)
            keys = list(dict.fromkeys(k for c in same for k in c.attrib))
            texts = any((c.text or "").strip() for c in same)
            header = [words_of(_local(k)) for k in keys] + ([name] if texts else [])
            rows = [[c.attrib.get(k, "") for k in keys] + ([_text(c)] if texts else []) for c in same]
            out += ["", *_table(header, rows), ""]
        elif list(child):
            out += ["", "#" * min(depth, 6) + " " + " ".join([*path, name][-2:]), *_attribute_items(child)]
            if (child.text or "").strip():
                out.append(" ".join((child.text or "").split()))
            _xml_children(child, depth + 1, [*path, name], out)
        else:
            label = child.attrib.get("name") or name
            notes = "; ".join(f"{words_of(_local(k))} {v}" for k, v in child.attrib.items() if k != "name")
            body = _text(child)
            value = "; ".join(v for v in (body, notes) if v)
            out.append(f"- {label}: {value}" if value else f"- {label}")


def _text(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


__all__ = ["markup_text"]
