"""The signed envelope every application message travels in (pure: no I/O).

Wire form: one canonical CBOR map (see :mod:`ioa_p2p.canonical`) with exactly these keys::

    "v"   uint   envelope format version (this implementation: 1)
    "t"   text   message type, e.g. "text"
    "tv"  uint   version of that message type's body schema
    "a"   bytes  author: the 38-byte Ed25519 libp2p peer ID (the key is inside it)
    "ts"  uint   author's clock, milliseconds since the Unix epoch
    "seq" uint   the author's sequence number (meaning scoped by the message type; e.g. per chat)
    "b"   map    the body, whose fields are fixed by ("t", "tv")
    "sig" bytes  64-byte Ed25519 signature

The signature covers ``SIGNING_CONTEXT || canonical_cbor(map without "sig")``. The message hash (its ID) is
SHA-256 of the full canonical encoding including the signature.

Bodies are frozen, slotted dataclasses registered with :func:`message_type`; the field annotations are
the schema (``int``, ``str``, ``bytes``, ``bool``, ``float``, :class:`PeerId`, ``tuple[X, ...]``,
``X | None``, ``dict[str, Any]`` for an opaque CBOR map, or a nested :class:`Body`). Every field is always
present on the wire (``None`` as CBOR null); missing, extra or wrongly typed fields are rejected.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from . import canonical
from .errors import (
    AuthorMismatch,
    InvalidMessage,
    InvalidPeerId,
    SchemaError,
    SignatureError,
    UnknownMessageType,
    UnsupportedVersion,
)
from .identity import Identity, PeerId

ENVELOPE_VERSION = 1
#: Largest encoded envelope accepted anywhere (frames, files, stores): 1 MiB.
MAX_MESSAGE_SIZE = 1 << 20
SIGNING_CONTEXT = b"ioa-p2p/envelope/v1\x00"
_ENVELOPE_KEYS = frozenset({"v", "t", "tv", "a", "ts", "seq", "b", "sig"})
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


@dataclass(frozen=True, slots=True)
class Envelope:
    """A signed message. Build with :meth:`create`; parse with :meth:`from_cbor` (which verifies)."""

    author: PeerId
    seq: int
    ts: int
    body: Body
    sig: bytes = b""

    @classmethod
    def create(cls, identity: Identity, body: Body, *, seq: int, ts: int | None = None) -> Envelope:
        body.validate()
        ts = int(time.time() * 1000) if ts is None else ts
        unsigned = cls(author=identity.peer_id, seq=seq, ts=ts, body=body)
        _check_uint("seq", seq)
        _check_uint("ts", ts)
        return dataclasses.replace(unsigned, sig=identity.sign(unsigned.signing_bytes()))

    def unsigned_value(self) -> dict[str, Any]:
        return {
            "v": ENVELOPE_VERSION,
            "t": self.body.TYPE,
            "tv": self.body.VERSION,
            "a": self.author.raw,
            "ts": self.ts,
            "seq": self.seq,
            "b": self.body.to_value(),
        }

    def signing_bytes(self) -> bytes:
        return SIGNING_CONTEXT + canonical.encode(self.unsigned_value())

    def to_cbor(self) -> bytes:
        return canonical.encode({**self.unsigned_value(), "sig": self.sig})

    @property
    def hash(self) -> bytes:
        """SHA-256 of the full canonical encoding: the message's ID."""
        return hashlib.sha256(self.to_cbor()).digest()

    @property
    def type(self) -> str:
        return self.body.TYPE

    def verify(self) -> None:
        """Raise :class:`SignatureError` unless ``sig`` is the author's signature of this envelope."""
        if not self.author.verify(self.sig, self.signing_bytes()):
            raise SignatureError(
                f"signature of a {self.body.TYPE!r} message from {self.author} does not verify"
            )

    @classmethod
    def from_cbor(cls, data: bytes, *, verify: bool = True) -> Envelope:
        """Decode strictly and (by default) verify. Raises only :class:`InvalidMessage` subclasses."""
        value = canonical.decode(data, max_size=MAX_MESSAGE_SIZE)
        env = cls.from_value(value)
        if verify:
            env.verify()
        return env

    @classmethod
    def from_value(cls, value: Any) -> Envelope:
        if not isinstance(value, dict):
            raise SchemaError(f"an envelope is a CBOR map, got {type(value).__name__}")
        version = value.get("v")
        if version != ENVELOPE_VERSION or isinstance(version, bool):
            raise UnsupportedVersion(
                f"envelope version {version!r} is not supported (this node speaks {ENVELOPE_VERSION})"
            )
        keys = set(value)
        if keys != _ENVELOPE_KEYS:
            raise SchemaError(
                f"envelope: missing fields {sorted(_ENVELOPE_KEYS - keys)}, "
                f"unexpected fields {sorted(keys - _ENVELOPE_KEYS)}"
            )
        type_name = _typed(value["t"], str, "envelope.t")
        type_version = _typed(value["tv"], int, "envelope.tv")
        body_cls = body_class(type_name, type_version)
        try:
            author = PeerId.from_bytes(_typed(value["a"], bytes, "envelope.a"))
        except InvalidPeerId as exc:
            raise AuthorMismatch(f"envelope author is not an Ed25519 peer ID: {exc}") from None
        sig = _typed(value["sig"], bytes, "envelope.sig")
        if len(sig) != 64:
            raise SignatureError(f"an Ed25519 signature has 64 bytes, got {len(sig)}")
        return cls(
            author=author,
            seq=_uint(value["seq"], "envelope.seq"),
            ts=_uint(value["ts"], "envelope.ts"),
            body=body_cls.from_value(value["b"]),
            sig=sig,
        )


# --------------------------------------------------------------------------- schema machinery

_HINT_CACHE: dict[type, dict[str, Any]] = {}


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cls)


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINT_CACHE.get(cls)
    if hints is None:
        module = __import__(cls.__module__, fromlist=["_"])
        hints = typing.get_type_hints(cls, globalns=vars(module), localns={"Any": Any})
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
            return PeerId.from_bytes(_typed(value, bytes, where))
        except InvalidPeerId as exc:
            raise SchemaError(f"{where}: {exc}") from None
    if hint in (int, str, bytes, bool, float):
        return _typed(value, hint, where)
    if isinstance(hint, type) and issubclass(hint, Body):
        return hint.from_value(value)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        items = _typed(value, list, where)
        return tuple(_from_value(args[0], v, f"{where}[{i}]") for i, v in enumerate(items))
    if origin is dict:
        mapping = _typed(value, dict, where)
        for key in mapping:
            _typed(key, str, f"{where} key")
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


def _typed(value: Any, kind: type[T], where: str) -> T:
    ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if not ok:
        raise SchemaError(f"{where} must be {kind.__name__}, got {type(value).__name__}")
    return typing.cast(T, value)


def _uint(value: Any, where: str) -> int:
    number = _typed(value, int, where)
    _check_uint(where, number)
    return number


def _check_uint(where: str, number: int) -> None:
    if not 0 <= number <= _UINT64_MAX:
        raise SchemaError(f"{where} must be an unsigned 64-bit integer, got {number}")


@message_type("text", 1)
class Text(Body):
    """A plain direct message between two peers (protocol ``/ioa/msg/1.0.0``)."""

    text: str
    data: dict[str, Any] | None = None


def decode_envelope(data: bytes, *, verify: bool = True) -> Envelope:
    """Alias of :meth:`Envelope.from_cbor`."""
    return Envelope.from_cbor(data, verify=verify)


__all__ = [
    "ENVELOPE_VERSION",
    "MAX_MESSAGE_SIZE",
    "SIGNING_CONTEXT",
    "Body",
    "Envelope",
    "InvalidMessage",
    "Text",
    "body_class",
    "decode_envelope",
    "message_type",
    "registered_types",
]
