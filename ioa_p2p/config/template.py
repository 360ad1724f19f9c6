"""A commented ``config.toml`` template made from the section dataclasses themselves (pure).

Every table of the configuration is a frozen dataclass read by :func:`~ioa_p2p.config.sections.parse_section`;
:func:`render_template` writes each one as a commented TOML table: its keys with their defaults, each with
the field's ``#:`` comment from the source (or, without one, what the key takes, from its type and
:func:`~ioa_p2p.config.sections.setting` rule). The template cannot drift from the code: it is made from the
code each time (``ioa init``), and ``tests/test_config_template.py`` checks that uncommenting it gives the
defaults. Which tables a node has is the node's to say (:mod:`ioa_p2p.node.config_check`).

Lines:

- ``# [table]``                       a table (uncomment it with the keys you set);
- ``# key = value  # what it is``     a key at its default;
- ``# key: unset by default (...)``   a key with no default value (TOML has no null).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field
from typing import Any

import tomli_w

from ioa_p2p.config.sections import describe, rule_of

_FIELD = re.compile(r"^\s+(\w+)\s*:")
_DOC = re.compile(r"^\s+#:\s?(.*)$")


@dataclass(frozen=True, slots=True)
class TableDoc:
    """One table of the template."""

    name: str  #: as in TOML: ``limits``, ``discovery.index``
    cls: type  #: the frozen dataclass :func:`~ioa_p2p.config.sections.parse_section` reads it into
    summary: str  #: one line said above the table
    skip: tuple[str, ...] = ()  #: fields that are not keys of this table (given by the caller, sub-tables)
    notes: tuple[str, ...] = ()  #: more comment lines (keys other readers of the table take)
    active: Mapping[str, Any] = field(default_factory=dict)  #: keys written uncommented, with these values


def field_docs(cls: type) -> dict[str, str]:
    """The ``#:`` comment lines above each field of ``cls`` in its source, joined, or the comment on the
    field's own line (empty without source)."""
    try:
        lines, _ = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return {}
    docs: dict[str, str] = {}
    pending: list[str] = []
    for line in lines[1:]:
        doc = _DOC.match(line)
        if doc:
            pending.append(doc.group(1).strip())
            continue
        name = _FIELD.match(line)
        if name and pending:
            docs[name.group(1)] = " ".join(pending)
        elif name and "  # " in line:  # a comment on the field's own line
            docs[name.group(1)] = line.split("  # ", 1)[1].strip()
        pending = []
    return docs


def table_keys(doc: TableDoc) -> list[dataclasses.Field[Any]]:
    """The fields of ``doc.cls`` that are keys of the table, in declaration order."""
    fields = dataclasses.fields(doc.cls)
    return [f for f in fields if f.init and f.name not in doc.skip]


def default_of(f: dataclasses.Field[Any]) -> Any:
    """The field's default value (``MISSING`` for a required key)."""
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


def render_table(doc: TableDoc) -> str:
    """``doc`` as commented TOML (see the module docstring)."""
    hints = typing.get_type_hints(doc.cls)
    docs = field_docs(doc.cls)
    active = dict(doc.active)
    out = [f"# {line}" for line in _wrap(doc.summary)]
    out += [f"# {line}" for line in doc.notes]
    out.append(f"[{doc.name}]" if active else f"# [{doc.name}]")
    for f in table_keys(doc):
        what = docs.get(f.name) or describe(hints[f.name], rule_of(f))
        if f.name in active:
            out.append(f"{_toml(f.name, active.pop(f.name))}  # {what}")
            continue
        value = default_of(f)
        if value is MISSING:
            out.append(f"# {f.name}: required ({what})")
        elif value is None:
            out.append(f"# {f.name}: unset by default ({what})")
        else:
            out.append(f"# {_toml(f.name, value)}  # {what}")
    out += [_toml(key, value) for key, value in active.items()]  # active keys no field names
    return "\n".join(out) + "\n"


def render_template(docs: Sequence[TableDoc], header: Sequence[str] = ()) -> str:
    """The whole template: ``header`` comment lines, then every table."""
    head = "".join(f"# {line}\n" for line in header)
    return head + "\n" + "\n".join(render_table(doc) for doc in docs)


def _toml(key: str, value: Any) -> str:
    """``key = value`` on one line (arrays and tables inline)."""
    return f"{tomli_w.dumps({key: 0}).split('=')[0].strip()} = {_value(value)}"


def _value(value: Any) -> str:
    if isinstance(value, Mapping):
        inner = ", ".join(_toml(str(k), v) for k, v in value.items())
        return f"{{ {inner} }}" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()


def _wrap(text: str, width: int = 100) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


__all__ = ["TableDoc", "default_of", "field_docs", "render_table", "render_template", "table_keys"]
