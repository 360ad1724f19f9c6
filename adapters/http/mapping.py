"""Request templates and response extraction for the ``http`` adapter: dotted paths into JSON.

A path is a dot-separated list of object keys and list indexes: ``"input.prompt"``, ``"choices.0.text"``,
``""`` (the whole document). :func:`put_path` builds missing objects on the way (a copy of the template is
filled, never the template itself); :func:`get_path` raises :class:`KeyError` naming the missing step.
"""

from __future__ import annotations

import copy
from typing import Any


def split_path(path: str) -> list[str]:
    return [part for part in path.split(".") if part] if path else []


def get_path(document: Any, path: str) -> Any:
    """The value at ``path`` in ``document``; :class:`KeyError` naming the first missing step."""
    value = document
    walked: list[str] = []
    for part in split_path(path):
        walked.append(part)
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        else:
            raise KeyError(".".join(walked))
    return value


def put_path(document: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``document`` with ``value`` at ``path`` (objects created as needed)."""
    out = copy.deepcopy(document)
    parts = split_path(path)
    if not parts:
        raise ValueError("the path of a request field cannot be empty")
    target: Any = out
    for part in parts[:-1]:
        if isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
            continue
        if not isinstance(target, dict):
            raise ValueError(f"cannot put a field under {part!r}: it is not an object in the body template")
        target = target.setdefault(part, {})
    last = parts[-1]
    if isinstance(target, list) and last.isdigit() and int(last) < len(target):
        target[int(last)] = value
    elif isinstance(target, dict):
        target[last] = value
    else:
        raise ValueError(f"cannot put field {last!r}: its parent is not an object in the body template")
    return out


__all__ = ["get_path", "put_path", "split_path"]
