"""Message body schemas: the :class:`Body` base class and the registry of ``(type, version)`` bodies (pure).

Bodies are frozen, slotted dataclasses registered with :func:`message_type`; the field annotations are
the schema (``int``, ``str``, ``bytes``, ``bool``, ``float``, :class:`~ioa_p2p.identity.PeerId`,
``tuple[X, ...]``, ``X | None``, ``dict[str, Any]`` for an opaque CBOR map, or a nested :class:`Body`).
Every field is always present on the wire (``None`` as CBOR null); missing, extra or wrongly typed fields
are rejected. The same bodies travel in signed envelopes (:mod:`ioa_p2p.wire.envelope`) and in unsigned
control frames (:mod:`ioa_p2p.wire.control`).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from ioa_p2p.errors import (
    InvalidPeerId,
    SchemaError,
    UnknownMessageType,
    UnsupportedVersion,
)
from ioa_p2p.identity import PeerId

_UINT64_MAX = 2**64 - 1


class Body:
    """Base class of message bodies: frozen slotted dataclasses made with :func:`message_type`."""

    __slots__ = ()
    TYPE: ClassVar[str]
    VERSION: ClassVar[int]

    def validate(self) -> None:
        """Semantic checks beyond the field types; raise :class:`SchemaError`. Default: none."""

    def to_value(self) -> dict[str, Any]:
        return {f.name: _to_value(getattr(self, f.name)) for f in _fields(type(self))}

    @classmethod
    def from_value(cls: type[B], value: Any) -> B:
        hints = _hints(cls)
        if not isinstance(value, dict):
            raise SchemaError(f"{cls.__name__} must be a map, got {type(value).__name__}")
        names = [f.name for f in _fields(cls)]
        missing = [n for n in names if n not in value]
        extra = sorted(k if isinstance(k, str) else repr(k)[:64] for k in set(value) - set(names))
        if missing or extra:
            raise SchemaError(f"{cls.__name__}: missing fields {missing}, unexpected fields {extra}")
        kwargs = {n: _from_value(hints[n], value[n], f"{cls.__name__}.{n}") for n in names}
        body = cls(**kwargs)
        body.validate()
        return body


B = TypeVar("B", bound=Body)


_REGISTRY: dict[tuple[str, int], type[Body]] = {}


@typing.dataclass_transform(frozen_default=True)
def message_type(type_name: str, version: int) -> Callable[[type[B]], type[B]]:
    """Class decorator: make ``cls`` a frozen slotted dataclass and register it as (type, version)."""

    def wrap(cls: type[B]) -> type[B]:
        key = (type_name, version)
        if key in _REGISTRY:
            raise ValueError(f"message type {type_name!r} version {version} is registered twice")
        cls.TYPE = type_name
        cls.VERSION = version
        made = dataclass(frozen=True, slots=True)(cls)
        _hints(made)  # fail at import time on an unsupported annotation
        _REGISTRY[key] = made
        return made

    return wrap


def registered_types() -> dict[tuple[str, int], type[Body]]:
    return dict(_REGISTRY)


def body_class(type_name: str, version: int) -> type[Body]:
    try:
        return _REGISTRY[(type_name, version)]
    except KeyError:
        known = sorted(v for t, v in _REGISTRY if t == type_name)
        if known:
            raise UnsupportedVersion(
                f"message type {type_name!r} version {version} is not supported (known: {known})"
            ) from None
        raise UnknownMessageType(f"unknown message type {type_name!r}") from None


_HINT_CACHE: dict[type, dict[str, Any]] = {}


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cls)


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINT_CACHE.get(cls)
    if hints is None:
        module = __import__(cls.__module__, fromlist=["_"])
        hints = typing.get_type_hints(cls, globalns=vars(module), localns={"Any": Any, "ClassVar": ClassVar})
        hints = {f.name: hints[f.name] for f in dataclasses.fields(cls)}
        for name, hint in hints.items():
            _check_hint(hint, f"{cls.__name__}.{name}")
        _HINT_CACHE[cls] = hints
    return hints


def _check_hint(hint: Any, where: str) -> None:
    if hint in (int, str, bytes, bool, float, PeerId) or hint is Any:
        return
    if isinstance(hint, type) and issubclass(hint, Body):
        return
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _check_hint(args[0], where)
    if origin is dict and args and args[0] is str:
        return _check_hint(args[1], where)
    if origin in (typing.Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                _check_hint(arg, where)
        return
    raise TypeError(f"{where}: unsupported field annotation {hint!r}")


def _to_value(value: Any) -> Any:
    if isinstance(value, Body):
        return value.to_value()
    if isinstance(value, PeerId):
        return value.raw
    if isinstance(value, tuple | list):
        return [_to_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_value(v) for k, v in value.items()}
    return value


def _from_value(hint: Any, value: Any, where: str) -> Any:
    if hint is Any:
        return value
    if hint is PeerId:
        try:
            return PeerId.from_bytes(typed_value(value, bytes, where))
        except InvalidPeerId as exc:
            raise SchemaError(f"{where}: {exc}") from None
    if hint in (int, str, bytes, bool, float):
        return typed_value(value, hint, where)
    if isinstance(hint, type) and issubclass(hint, Body):
        return hint.from_value(value)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        items = typed_value(value, list, where)
        return tuple(_from_value(args[0], v, f"{where}[{i}]") for i, v in enumerate(items))
    if origin is dict:
        mapping = typed_value(value, dict, where)
        for key in mapping:
            typed_value(key, str, f"{where} key")
        return {k: _from_value(args[1], v, f"{where}.{k}") for k, v in mapping.items()}
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        errors = []
        for option in options:
            try:
                return _from_value(option, value, where)
            except SchemaError as exc:
                errors.append(str(exc))
        raise SchemaError("; ".join(errors))
    raise SchemaError(f"{where}: unsupported schema {hint!r}")  # pragma: no cover


T = TypeVar("T")


def typed_value(value: Any, kind: type[T], where: str) -> T:
    ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if not ok:
        raise SchemaError(f"{where} must be {kind.__name__}, got {type(value).__name__}")
    return typing.cast(T, value)


def uint_value(value: Any, where: str) -> int:
    number = typed_value(value, int, where)
    check_uint(where, number)
    return number


def check_uint(where: str, number: int) -> None:
    if not 0 <= number <= _UINT64_MAX:
        raise SchemaError(f"{where} must be an unsigned 64-bit integer, got {number}")


def build(cls: type[B], **fields: Any) -> B:
    """Construct a body (typed helper: mypy does not see the dataclass made by ``message_type``)."""
    return cls(**fields)


__all__ = [
    "Body",
    "body_class",
    "build",
    "check_uint",
    "message_type",
    "registered_types",
    "typed_value",
    "uint_value",
]
