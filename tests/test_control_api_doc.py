"""docs/protocol.md §7 is checked against the control API's declarations (``ioa_p2p.api``).

- §7.2 has one row per route of ``ROUTES`` (and no other), naming its request and reply schemas;
- §7.4 has one row per event kind, naming every field of its JSON (and no kind that does not exist);
- §7.5, the table of every schema the routes and events use with their keys and types, is exactly what
  :func:`types_table` generates from the schemas: a route, a field or a type changed without the
  document fails here (``python -m tests.test_control_api_doc`` prints the table to paste).
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Literal, Union, get_args, get_origin

from ioa_p2p.api.codec import ApiObject, Empty, fields_of, is_json_value, walk_schemas
from ioa_p2p.api.events import EVENT_TYPES
from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.api.routes import ROUTES, RouteInfo

DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
#: Keys every message event has (§7.4 names them once, above its table).
COMMON = {"chat_id", "event", "round_id", "msg_id", "author", "author_name", "kind"}


def section(number: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"### {number} ")
    end = text.find("\n### ", start + 1)
    chapter_end = text.find("\n## ", start + 1)
    ends = [e for e in (end, chapter_end) if e != -1]
    return text[start : min(ends)]


def rows(text: str) -> dict[str, list[str]]:
    """Table rows by their first cell (backticks kept), the other cells as text."""
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2 and cells[0].startswith("`"):
            out[cells[0]] = cells[1:]
    return out


def type_name(hint: object) -> str:
    if is_json_value(hint):
        return "JSON"
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        rest = [a for a in get_args(hint) if a is not type(None)]
        return f"{type_name(rest[0])} or null"
    if origin is Literal:
        return " | ".join(f'"{a}"' for a in get_args(hint))
    if origin is tuple:
        return f"[{type_name(get_args(hint)[0])}]"
    if origin in (dict, Mapping):
        value = get_args(hint)[1]
        return "object" if is_json_value(value) else f"{{text: {type_name(value)}}}"
    if isinstance(hint, type) and issubclass(hint, ApiObject):
        return f"`{hint.__name__}`"
    return {str: "text", int: "int", float: "number", bool: "bool"}[hint]  # type: ignore[index]


def schemas() -> Iterator[type[ApiObject]]:
    """Every schema of the routes and the events, each once, in a stable order."""
    seen: set[type] = {Empty}
    roots: list[object] = []
    for route in ROUTES:
        roots += [route.request, route.reply_hint]
    roots += list(EVENT_TYPES)
    for root in roots:
        for schema in walk_schemas(root):
            if schema not in seen and schema not in EVENT_TYPES:
                seen.add(schema)
                yield schema


def types_table() -> str:
    lines = ["| type | fields |", "|---|---|"]
    for schema in schemas():
        if schema is LaunchRequest:  # IoA's shape, aliases included (§7.2 says what each takes)
            cells = [f"`{key}`?" if key != "goal" else "`goal` (text)" for key in LaunchRequest.JSON_KEYS]
        else:
            cells = []
            for spec in fields_of(schema):
                optional = spec.meta.omit is not None or (schema.STRICT and not spec.required)
                cells.append(f"`{spec.key}`{'?' if optional else ''} ({type_name(spec.hint)})")
        lines.append(f"| `{schema.__name__}` | {', '.join(cells)} |")
    return "\n".join(lines) + "\n"


def route_row(route: RouteInfo) -> tuple[str, str]:
    request = "none" if route.request is Empty else f"`{route.request.__name__}`"
    return request, type_name(route.reply_hint)


def test_every_route_has_its_row_with_its_schemas() -> None:
    table = rows(section("7.2"))
    documented = {key for key in table if re.fullmatch(r"`(GET|POST) /[a-z_/]*`", key)}
    routes = {f"`{r.method} {r.path}`": r for r in ROUTES}
    assert documented == set(routes), (
        f"routes without a row: {sorted(set(routes) - documented)}; rows of no route: "
        f"{sorted(documented - set(routes))}"
    )
    for key, route in routes.items():
        request, reply = route_row(route)
        cells = table[key]
        assert cells[0] == request, f"{key}: request documented as {cells[0]!r}, declared {request!r}"
        if route.streams == "always":
            assert "stream" in cells[1], f"{key} streams: its reply cell must say so"
        else:
            assert cells[1].startswith(reply), f"{key}: reply documented as {cells[1]!r}, declared {reply!r}"


def test_every_event_kind_has_its_row_naming_every_field() -> None:
    table = rows(section("7.4"))
    kinds: dict[str, set[str]] = {}
    for key, cells in table.items():
        for kind in re.findall(r"`([a-z_]+)`", key):
            kinds[kind] = set(re.findall(r"`([a-z_]+)`", cells[0]))
    declared = {cls.event for cls in EVENT_TYPES}
    assert set(kinds) == declared, (
        f"kinds without a row: {declared - set(kinds)}; unknown: {set(kinds) - declared}"
    )
    for cls in EVENT_TYPES:
        keys = {spec.key for spec in fields_of(cls)} - COMMON
        missing = keys - kinds[cls.event]
        assert not missing, f"§7.4 {cls.event}: {sorted(missing)} not documented"


def test_the_types_table_is_the_schemas() -> None:
    text = section("7.5")
    documented = text[text.index("| type | fields |") :].strip() + "\n"
    assert documented == types_table(), (
        "docs/protocol.md §7.5 differs from the schemas of ioa_p2p.api; the table they give is:\n\n"
        + types_table()
    )


def test_every_schema_of_the_table_is_used_and_none_is_left_out() -> None:
    names = set(re.findall(r"^\| `(\w+)` \|", section("7.5"), re.MULTILINE))
    assert names == {s.__name__ for s in schemas()}


if __name__ == "__main__":
    print(types_table(), end="")
