"""Message body schemas: the :class:`Body` base class and the registry of ``(type, version)`` bodies (pure).

Bodies are frozen, slotted dataclasses registered with :func:`message_type`; the field annotations are
the schema (``int``, ``str``, ``bytes``, ``bool``, ``float``, :class:`~ioa_p2p.identity.PeerId`,
``tuple[X, ...]``, ``X | None``, ``dict[str, Any]`` for an opaque CBOR map, or a nested :class:`Body`).
Every field is always present on the wire (``None`` as CBOR null); missing, extra or wrongly typed fields
are rejected, except the fields a body lists in ``OPTIONAL``: added to a type after its version was
fixed, they are left out of the encoding while ``None`` (so a body without them encodes to the very
bytes it did before they existed) and read as ``None`` when absent. A field's limits are part of its
annotation: ``Annotated[str, Limit(max_len=200)]`` (:mod:`ioa_p2p.wire.limits`: text
length, item counts, number ranges, unique items, allowed values, plain data only); a body's
:meth:`Body.validate` adds checks that span fields. A body class may name the error its decoding raises
(``ERROR``, a :class:`SchemaError` subclass) and how its messages name it (``LABEL``). The same bodies
travel in signed envelopes (:mod:`ioa_p2p.wire.envelope`), in unsigned control frames
(:mod:`ioa_p2p.wire.control`) and, as the ``conv.*`` contents, inside chat messages.

Decoding is compiled once per class (:func:`_decoder_of`): a plan of per-field functions with their error
locations fixed in advance, so decoding a record costs a few calls per field. Opaque (``Any``) fields are
checked with :func:`ioa_p2p.wire.canonical.check_item`; every other field is typed, which is why an
envelope is decoded with ``canonical.decode(..., check_items=False)``.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from ioa_p2p.errors import (
    InvalidPeerId,
    MalformedEncoding,
    SchemaError,
    UnknownMessageType,
    UnsupportedVersion,
)
from ioa_p2p.identity import PeerId
from ioa_p2p.wire import canonical
from ioa_p2p.wire.limits import (
    MAX_PLAIN_DEPTH,
    Limit,
    check_plain,
    check_uint,
    key_names,
    typed_value,
    uint_value,
)


class Body:
    """Base class of message bodies: frozen slotted dataclasses made with :func:`message_type`."""

    __slots__ = ()
    TYPE: ClassVar[str]
    VERSION: ClassVar[int]
    #: The error decoding raises (a SchemaError subclass, e.g. InvalidContent for ``conv.*`` contents).
    ERROR: ClassVar[type[SchemaError]] = SchemaError
    #: How error messages name this body (default: the class name).
    LABEL: ClassVar[str | None] = None
    #: Fields that may be absent (``X | None``, default ``None``): left out while ``None``.
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    def validate(self) -> None:
        """Semantic checks beyond the field types; raise :class:`SchemaError`. Default: none."""

    def to_value(self) -> dict[str, Any]:
        optional = self.OPTIONAL
        return {
            f.name: _to_value(getattr(self, f.name))
            for f in _fields(type(self))
            if not (f.name in optional and getattr(self, f.name) is None)
        }

    @classmethod
    def from_value(cls: type[B], value: Any) -> B:
        """Decode and check a CBOR value; raises ``cls.ERROR`` (a :class:`SchemaError`) naming the field."""
        try:
            return cls._decode(value)
        except SchemaError as exc:
            if isinstance(exc, cls.ERROR):
                raise
            raise cls.ERROR(str(exc)) from None

    @classmethod
    def _decode(cls: type[B], value: Any) -> B:
        return _decoder_of(cls)(value)  # type: ignore[no-any-return]


B = TypeVar("B", bound=Body)


_REGISTRY: dict[tuple[str, int], type[Body]] = {}


@typing.dataclass_transform(frozen_default=True)
def message_type(
    type_name: str, version: int, *, registry: dict[tuple[str, int], type[Body]] | None = None
) -> Callable[[type[B]], type[B]]:
    """Class decorator: make ``cls`` a frozen slotted dataclass and register it as (type, version), in the
    registry of envelope bodies unless another ``registry`` is given (e.g. the ``conv.*`` contents, which
    travel inside chat messages and must never decode as an envelope body)."""
    table = _REGISTRY if registry is None else registry

    def wrap(cls: type[B]) -> type[B]:
        key = (type_name, version)
        if key in table:
            raise ValueError(f"message type {type_name!r} version {version} is registered twice")
        cls.TYPE = type_name
        cls.VERSION = version
        made = dataclass(frozen=True, slots=True)(cls)
        _hints(made)  # fail at import time on an unsupported annotation
        table[key] = made
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
_NAME_CACHE: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cls)


def _names(cls: type) -> tuple[str, ...]:
    names = _NAME_CACHE.get(cls)
    if names is None:
        names = _NAME_CACHE[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINT_CACHE.get(cls)
    if hints is None:
        # Each class of the MRO resolves its annotations in its own module (globalns=None).
        hints = typing.get_type_hints(cls, localns={"Any": Any, "ClassVar": ClassVar}, include_extras=True)
        hints = {f.name: hints[f.name] for f in dataclasses.fields(cls)}
        for name, hint in hints.items():
            _check_hint(hint, f"{cls.__name__}.{name}")
        _HINT_CACHE[cls] = hints
    return hints


def _check_hint(hint: Any, where: str) -> None:
    if hint in (int, str, bytes, bool, float, PeerId) or hint is Any:
        return
    if typing.get_origin(hint) is typing.Annotated:
        if not any(isinstance(m, Limit) for m in hint.__metadata__):
            raise TypeError(f"{where}: Annotated fields take a Limit")
        return _check_hint(hint.__origin__, where)
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


Decoder = Callable[[Any], Any]
_DECODERS: dict[type, Decoder] = {}


def _decoder_of(cls: type[Body]) -> Decoder:
    """The decoding function of a body class, built once from its annotations (a plan per field, each
    with its error location fixed in advance): decoding a record costs a few calls per field."""
    found = _DECODERS.get(cls)
    if found is None:
        found = _DECODERS[cls] = _body_decoder(cls)
    return found


def _body_decoder(cls: type[Body]) -> Decoder:
    hints = _hints(cls)
    label = cls.LABEL or cls.__name__
    names = _names(cls)
    plan = tuple((n, _compile(hints[n], f"{label}.{n}")) for n in names)
    expected = frozenset(names)
    optional = cls.OPTIONAL & expected
    required = expected - optional

    def decode(value: Any) -> Any:
        if not isinstance(value, dict):
            raise SchemaError(f"{label} must be a map, got {type(value).__name__}")
        keys = value.keys()
        if keys != expected and not (optional and required <= keys <= expected):
            missing = [n for n in names if n not in value and n not in optional]
            extra = key_names(set(value) - set(names))
            raise SchemaError(f"{label}: missing fields {missing}, unexpected fields {extra}")
        if optional and any(value.get(n, 0) is None for n in optional):
            raise SchemaError(f"{label}: an optional field is left out, never null")
        body = cls(**{n: dec(value[n]) for n, dec in plan if n in value})
        body.validate()
        return body

    return decode


def _compile(hint: Any, where: str) -> Decoder:
    """A function decoding one value of type ``hint`` (raising SchemaError naming ``where``)."""
    if hint is Any:
        return _any_decoder(where)
    if hint in (int, str, bytes, bool, float):
        return _scalar_decoder(hint, where)
    if hint is PeerId:

        def peer(value: Any) -> PeerId:
            try:
                return PeerId.from_bytes(typed_value(value, bytes, where))
            except InvalidPeerId as exc:
                raise SchemaError(f"{where}: {exc}") from None

        return peer
    if isinstance(hint, type) and issubclass(hint, Body):
        body_cls = hint
        return lambda value: _decoder_of(body_cls)(value)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return _limited_decoder(_compile(args[0], where), hint.__metadata__, where)
    if origin is tuple:
        return _tuple_decoder(args[0], where)
    if origin is dict:
        return _dict_decoder(args[1], where)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(args, where)
    raise TypeError(f"{where}: unsupported schema {hint!r}")  # pragma: no cover - _check_hint ran


def _any_decoder(where: str) -> Decoder:
    def any_value(value: Any) -> Any:
        try:
            canonical.check_item(value)  # an opaque value: only what canonical CBOR may carry
        except MalformedEncoding as exc:
            raise SchemaError(f"{where}: {exc}") from None
        return value

    return any_value


def _scalar_decoder(kind: type, where: str) -> Decoder:
    numeric = kind in (int, float)

    def scalar(value: Any) -> Any:
        if isinstance(value, kind) and not (numeric and isinstance(value, bool)):
            if isinstance(value, float) and not math.isfinite(value):
                raise SchemaError(f"{where} must be a finite number")
            return value
        raise SchemaError(f"{where} must be {kind.__name__}, got {type(value).__name__}")

    return scalar


def _limited_decoder(inner: Decoder, metadata: tuple[Any, ...], where: str) -> Decoder:
    limits = tuple(m for m in metadata if isinstance(m, Limit))

    def limited(value: Any) -> Any:
        decoded = inner(value)
        for limit in limits:
            limit.check(decoded, where)
        return decoded

    return limited


def _tuple_decoder(item_hint: Any, where: str) -> Decoder:
    item = _compile(item_hint, f"{where}[]")

    def items(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise SchemaError(f"{where} must be list, got {type(value).__name__}")
        try:
            return tuple(item(v) for v in value)
        except SchemaError as exc:  # name the item: the plan's "<where>[]" becomes "<where>[i]"
            index = next(i for i, v in enumerate(value) if not _decodes(item, v))
            raise type(exc)(str(exc).replace(f"{where}[]", f"{where}[{index}]", 1)) from None

    return items


def _dict_decoder(value_hint: Any, where: str) -> Decoder:
    item = _compile(value_hint, f"{where}{{}}")

    def mapping(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise SchemaError(f"{where} must be dict, got {type(value).__name__}")
        for key in value:
            if not isinstance(key, str):
                raise SchemaError(f"{where} key must be str, got {type(key).__name__}")
        try:
            return {k: item(v) for k, v in value.items()}
        except SchemaError as exc:  # name the entry: "<where>{}" becomes "<where>.<key>"
            key = next(k for k, v in value.items() if not _decodes(item, v))
            raise type(exc)(str(exc).replace(f"{where}{{}}", f"{where}.{key}", 1)) from None

    return mapping


def _decodes(decoder: Decoder, value: Any) -> bool:
    try:
        decoder(value)
    except SchemaError:
        return False
    return True


def _union_decoder(args: tuple[Any, ...], where: str) -> Decoder:
    optional = type(None) in args
    options = tuple(_compile(a, where) for a in args if a is not type(None))

    def union(value: Any) -> Any:
        if value is None and optional:
            return None
        errors = []
        for option in options:
            try:
                return option(value)
            except SchemaError as exc:
                errors.append(str(exc))
        raise SchemaError("; ".join(errors))

    return union


def build(cls: type[B], **fields: Any) -> B:
    """Construct a body (typed helper: mypy does not see the dataclass made by ``message_type``)."""
    return cls(**fields)


__all__ = [
    "MAX_PLAIN_DEPTH",
    "Body",
    "Limit",
    "body_class",
    "build",
    "check_plain",
    "check_uint",
    "key_names",
    "message_type",
    "registered_types",
    "typed_value",
    "uint_value",
]
