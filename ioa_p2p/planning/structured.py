"""Values from structured results (pure): what a wrapped third-party agent returned as data.

Adapters keep a tool's structured answer beside its text: MCP's ``structured_content`` as
``data["structured"]``, an HTTP endpoint's ``data_path`` as ``data["data"]``, A2A data parts as
``data["data_parts"]``; some put only a JSON rendering in the text. :func:`structured_value` reads a step's
value from such data, never from the last line of a rendering (``}``):

- a scalar is its value (``{"result": 42}``, MCP's wrapping of a bare return, is 42);
- an object gives the field the request asks for (its name shares a word with the request: "the
  temperature" -> ``temperature_c``; "in kilometres" -> ``kilometers``), else its only number, else the
  whole object, shown compactly;
- a list of scalars is a list value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ioa_p2p.planning.values import Value, parse_value

STRUCTURED_KEYS = ("structured", "data", "data_parts")
_STOP = frozenset("the a an of in to for and is what which how much many value result".split())  # noqa: SIM905
MAX_SHOWN = 500


def structured_of(text: str, data: Mapping[str, Any] | None) -> Any:
    """The structured answer of a result: an adapter's data field, else its text when that is JSON."""
    for key in STRUCTURED_KEYS:
        if data and data.get(key) not in (None, "", [], {}):
            return data[key]
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            return json.loads(stripped)
        except ValueError:
            return None
    return None


def structured_value(raw: Any, request: str = "") -> Value | None:
    """The value of a structured answer for ``request`` (see the module docstring); None for nothing."""
    raw = _unwrapped(raw)
    if isinstance(raw, bool) or raw is None:
        return Value.of_text(str(raw).lower()) if isinstance(raw, bool) else None
    if isinstance(raw, int | float):
        return Value.of_number(float(raw))
    if isinstance(raw, str):
        return parse_value(raw) or (Value.of_text(raw[:MAX_SHOWN]) if raw.strip() else None)
    if isinstance(raw, list):
        items = [structured_value(x) for x in raw[:50]]
        if items and all(
            v is not None and isinstance(x, int | float | str) for v, x in zip(items, raw, strict=False)
        ):
            return Value.of_list(tuple(v for v in items if v is not None))
        return Value.of_text(_compact(raw))
    if isinstance(raw, Mapping):
        field = _asked_field(raw, request)
        if field is not None:
            return structured_value(raw[field], request)
        numbers = [k for k, v in raw.items() if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(numbers) == 1:
            return Value.of_number(float(raw[numbers[0]]))
        return Value.of_text(_compact(raw))
    return None


def _unwrapped(raw: Any) -> Any:
    while (
        isinstance(raw, Mapping)
        and len(raw) == 1
        and next(iter(raw)) in ("result", "value", "output", "data")
    ):
        raw = next(iter(raw.values()))
    return raw


def _words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    out = set()
    for w in re.findall(r"[a-z0-9]+", spaced.lower()):
        if w in _STOP or len(w) < 2:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
        out.add(w[:5])
    return out


def _asked_field(raw: Mapping[str, Any], request: str) -> str | None:
    asked = _words(request)
    scored = [(len(_words(str(k)) & asked), str(k)) for k in raw]
    best = max(scored, default=(0, ""))
    if best[0] == 0 or sum(1 for s, _ in scored if s == best[0]) > 1:
        return None
    return best[1]


def _compact(raw: Any) -> str:
    shown = json.dumps(raw, separators=(",", ":"), ensure_ascii=False, default=str)
    return shown if len(shown) <= MAX_SHOWN else shown[: MAX_SHOWN - 1] + "\u2026"


__all__ = ["STRUCTURED_KEYS", "structured_of", "structured_value"]
