"""The one JSON mechanism of the control API (pure): frozen, slotted dataclasses <-> JSON, both ways.

A schema is a frozen, slotted dataclass that subclasses :class:`ApiObject`. Its fields, in declaration
order, are the keys of its JSON object (``json.dumps`` keeps that order, so the bytes on the wire are
fixed by the class). The field's type hint says what the key holds:

- ``str``, ``int`` (never a bool), ``float`` (an int is accepted and kept as it is, so a value read and
  written again gives the same bytes), ``bool``, ``Literal[...]``;
- ``X | None``; ``tuple[X, ...]`` (a JSON array); ``Mapping[str, X]`` / ``dict[str, X]`` (an object);
- another :class:`ApiObject` (a nested object); :data:`JsonValue` / :data:`JsonObject` (free JSON, kept
  as it is: message contents, task data).

A :class:`Json` in ``Annotated[...]`` adds what a hint cannot say: ``key`` (the JSON name when it is not
a Python name: ``"from"``, ``"self"``), ``omit`` (leave the key out when the value is ``None`` / empty),
``digits`` (round floats when writing): ``score: Annotated[float, Json(digits=4)] = 0.0``.

``to_json`` writes; ``from_json`` reads and checks every value, then calls the class, whose
``__post_init__`` checks the rules across fields. Every failure is one
:class:`~ioa_p2p.errors.InvalidField` naming the field's path (``tasks[2].status``) and what it takes.
A schema with ``STRICT = True`` (every request) refuses keys it does not know; replies ignore them (a
newer node may add keys). :func:`from_query` reads a request from a URL query string instead.
"""

from __future__ import annotations

import base64
import dataclasses
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import MISSING, dataclass
from typing import Annotated, ClassVar, Literal, Self, TypeAlias, TypeVar, Union, get_args, get_origin

from ioa_p2p.errors import InvalidField

#: Any JSON value (what ``json.loads`` returns).
JsonValue: TypeAlias = None | bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"]
#: A JSON object.
JsonObject: TypeAlias = dict[str, JsonValue]

Omit = Literal["none", "empty"]
_O = TypeVar("_O", bound="ApiObject")


@dataclass(frozen=True, slots=True)
class Json:
    """How a field goes to JSON beyond its type (see the module docstring)."""

    key: str | None = None
    omit: Omit | None = None
    digits: int | None = None


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """A field of a schema as the codec uses it."""

    name: str
    key: str
    hint: object
    required: bool
    meta: Json


class ApiObject:
    """Base of every control API schema (see the module docstring)."""

    __slots__ = ()
    #: Refuse unknown keys (requests); replies ignore them.
    STRICT: ClassVar[bool] = False

    def to_json(self) -> JsonObject:
        return encode_object(self)

    @classmethod
    def from_json(cls, data: JsonValue) -> Self:
        return decode_object(cls, data, "")


@dataclass(frozen=True, slots=True)
class Empty(ApiObject):
    """The request of a route that takes no fields (any field is refused)."""

    STRICT: ClassVar[bool] = True


# --------------------------------------------------------------------------- the fields of a schema


_SPECS: dict[type, tuple[FieldSpec, ...]] = {}


def fields_of(cls: type) -> tuple[FieldSpec, ...]:
    """The fields of a schema class, in order (computed once per class)."""
    found = _SPECS.get(cls)
    if found is None:
        # JsonValue's own forward references resolve here, whatever the schema's module imported
        names = {"JsonValue": JsonValue, "JsonObject": JsonObject}
        hints = typing.get_type_hints(cls, localns=names, include_extras=True)
        specs = []
        for f in dataclasses.fields(cls):
            hint, meta = hints[f.name], Json()
            if get_origin(hint) is Annotated:
                hint, *extras = get_args(hint)
                meta = next((x for x in extras if isinstance(x, Json)), meta)
            required = f.default is MISSING and f.default_factory is MISSING
            specs.append(FieldSpec(f.name, meta.key or f.name, hint, required, meta))
        found = _SPECS[cls] = tuple(specs)
    return found


def walk_schemas(hint: object) -> Iterator[type[ApiObject]]:
    """Every schema class a hint uses, itself first, each once (for documentation checks)."""
    seen: set[type] = set()
    stack = [hint]
    while stack:
        item = stack.pop()
        if isinstance(item, type) and issubclass(item, ApiObject):
            if item in seen:
                continue
            seen.add(item)
            yield item
            stack.extend(s.hint for s in reversed(fields_of(item)))
        else:
            stack.extend(a for a in reversed(get_args(item)) if not isinstance(a, str))


# --------------------------------------------------------------------------- writing


def encode_object(obj: ApiObject) -> JsonObject:
    out: JsonObject = {}
    for spec in fields_of(type(obj)):
        value = getattr(obj, spec.name)
        if _omitted(spec.meta.omit, value):
            continue
        out[spec.key] = encode(spec.hint, value, spec.meta.digits)
    return out


def encode(hint: object, value: object, digits: int | None = None) -> JsonValue:
    """``value`` (of type ``hint``) as JSON."""
    if is_json_value(hint):
        return typing.cast(JsonValue, value)
    if isinstance(value, ApiObject):
        return value.to_json()
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return round(value, digits) if digits is not None else value
    if isinstance(value, tuple | list):
        item = _non_none(hint)
        item_hint = get_args(item)[0] if get_args(item) else object
        return [encode(item_hint, v, digits) for v in value]
    if isinstance(value, Mapping):
        item = _non_none(hint)
        value_hint = get_args(item)[1] if len(get_args(item)) == 2 else object
        return {str(k): encode(value_hint, v, digits) for k, v in value.items()}
    raise TypeError(f"cannot write {type(value).__name__} as JSON (hint {hint!r})")


def _omitted(rule: Omit | None, value: object) -> bool:
    if rule == "none":
        return value is None
    if rule == "empty":
        return value is None or value == "" or (isinstance(value, tuple | list | Mapping) and not value)
    return False


# --------------------------------------------------------------------------- reading


def decode_object(cls: type[_O], data: JsonValue, path: str) -> _O:
    """An instance of schema ``cls`` from JSON ``data``; InvalidField naming the first wrong field."""
    if not isinstance(data, dict):
        raise InvalidField(path or "body", f"must be a JSON object, not {_kind(data)}")
    specs = fields_of(cls)
    if cls.STRICT:
        known = {s.key for s in specs}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidField(path or "body", f"unknown fields {unknown}; known: {sorted(known)}")
    kwargs: dict[str, object] = {}
    for spec in specs:
        where = f"{path}.{spec.key}" if path else spec.key
        if spec.key in data:
            kwargs[spec.name] = decode(spec.hint, data[spec.key], where)
        elif spec.required:
            raise InvalidField(where, "is missing")
    return cls(**kwargs)


def decode(hint: object, value: JsonValue, path: str) -> object:
    """``value`` read as ``hint`` (see the module docstring); InvalidField when it is not one."""
    if is_json_value(hint):
        return value
    origin = get_origin(hint)
    if origin is Literal:
        if value not in get_args(hint) or isinstance(value, bool) != isinstance(get_args(hint)[0], bool):
            choices = ", ".join(repr(a) for a in get_args(hint))
            raise InvalidField(path, f"must be one of {choices}, not {value!r}")
        return value
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(hint):
            return None
        return decode(_non_none(hint), value, path)
    if isinstance(hint, type) and issubclass(hint, ApiObject):
        return decode_object(hint, value, path)
    if origin is tuple:
        if not isinstance(value, list):
            raise InvalidField(path, f"must be a JSON array, not {_kind(value)}")
        item = get_args(hint)[0]
        return tuple(decode(item, v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin in (dict, Mapping):
        if not isinstance(value, dict):
            raise InvalidField(path, f"must be a JSON object, not {_kind(value)}")
        item = get_args(hint)[1]
        return {k: decode(item, v, f"{path}.{k}") for k, v in value.items()}
    return _scalar(hint, value, path)


def _scalar(hint: object, value: JsonValue, path: str) -> object:
    if hint is bool:
        if not isinstance(value, bool):
            raise InvalidField(path, f"must be true or false, not {_kind(value)}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidField(path, f"must be an integer, not {_kind(value)}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidField(path, f"must be a number, not {_kind(value)}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise InvalidField(path, f"must be a text, not {_kind(value)}")
        return value
    raise TypeError(f"the codec cannot read type {hint!r} (field {path})")


def _non_none(hint: object) -> object:
    """``X`` of ``X | None`` (``hint`` itself otherwise)."""
    if get_origin(hint) in (Union, types.UnionType):
        rest = [a for a in get_args(hint) if a is not type(None)]
        if len(rest) != 1:
            raise TypeError(f"the codec reads only X | None unions, not {hint!r}")
        return rest[0]
    return hint


def is_json_value(hint: object) -> bool:
    """Whether ``hint`` is :data:`JsonValue` (any JSON)."""
    args = set(get_args(hint))
    return get_origin(hint) in (Union, types.UnionType) and {type(None), bool, int, float, str} <= args


def _kind(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    names = {int: "an integer", float: "a number", str: "a text", list: "an array", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def json_value(value: object) -> JsonValue:
    """Python data (signed message contents, task data: CBOR values) as JSON: tuples become arrays, bytes
    ``{"$bytes": base64}``; TypeError for anything else that is not JSON."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode()}
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    raise TypeError(f"not JSON: {type(value).__name__}")


def json_object(value: Mapping[str, object] | None) -> JsonObject:
    """:func:`json_value` of a mapping (None: an empty object)."""
    return {str(k): json_value(v) for k, v in (value or {}).items()}


# --------------------------------------------------------------------------- URL query strings


def from_query(cls: type[_O], query: Mapping[str, str], body: JsonValue = None) -> _O:
    """A request from a URL query string (text values read as the field types say) and a JSON body;
    a key of the body wins over the same key of the query string."""
    if body is not None and not isinstance(body, dict):
        raise InvalidField("body", f"must be a JSON object, not {_kind(body)}")
    merged: JsonObject = dict(body or {})
    hints = {s.key: s.hint for s in fields_of(cls)}
    for key, text in query.items():
        if key not in merged:
            merged[key] = _query_value(hints.get(key, str), text, key)
    return decode_object(cls, merged, "")


def _query_value(hint: object, text: str, key: str) -> JsonValue:
    hint = _non_none(hint)
    if hint is int:
        try:
            return int(text)
        except ValueError:
            raise InvalidField(key, f"must be an integer, not {text!r}") from None
    if hint is float:
        try:
            return float(text)
        except ValueError:
            raise InvalidField(key, f"must be a number, not {text!r}") from None
    if hint is bool:
        if text.lower() not in ("true", "false", "1", "0"):
            raise InvalidField(key, f"must be true or false, not {text!r}")
        return text.lower() in ("true", "1")
    return text


def to_query(obj: ApiObject) -> dict[str, str]:
    """The query string parameters of a request (``None`` fields left out)."""
    out: dict[str, str] = {}
    for key, value in encode_object(obj).items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, int | float | str):
            out[key] = str(value)
        else:
            raise TypeError(f"{type(obj).__name__}.{key} cannot go in a query string")
    return out


__all__ = [
    "ApiObject",
    "Empty",
    "FieldSpec",
    "Json",
    "JsonObject",
    "JsonValue",
    "decode",
    "decode_object",
    "encode",
    "encode_object",
    "fields_of",
    "from_query",
    "is_json_value",
    "json_object",
    "json_value",
    "to_query",
    "walk_schemas",
]
