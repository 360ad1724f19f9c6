"""Unsigned control frames: canonical CBOR ``{"t": type, "tv": version, "b": body}`` (pure).

Control frames only travel inside Noise-authenticated streams and never enter a history, so they are not
signed (the stream authenticates the peer; histories carry their own signatures). Their bodies are
registered :class:`~ioa_p2p.wire.schema.Body` types like any other.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar  # noqa: F401  (Body's ClassVar hints)

from ioa_p2p.errors import SchemaError
from ioa_p2p.wire import canonical
from ioa_p2p.wire.schema import B, Body, body_class

#: Largest encoded control frame (docs/protocol.md §10.4); receivers refuse larger ones from the prefix.
MAX_CONTROL_SIZE = 64 * 1024


def encode_control(body: Body) -> bytes:
    """An unsigned control frame: canonical CBOR ``{"t": type, "tv": version, "b": body}``.

    Control frames only travel inside Noise-authenticated streams and never enter a history, so
    they are not signed (the stream authenticates the peer; histories carry their own signatures).
    """
    body.validate()
    return canonical.encode({"t": body.TYPE, "tv": body.VERSION, "b": body.to_value()})


def decode_control(data: bytes, expected: type[B]) -> B:
    """Decode a control frame of type ``expected``; raises InvalidMessage subclasses.

    As for an envelope, the item rules (text map keys, finite floats, no simple values) are checked by
    the frame's shape below and the body's schema (``canonical.check_item`` on its opaque fields only),
    not by a second walk of the whole value; the bytes are still proven canonical."""
    value = canonical.decode(data, max_size=MAX_CONTROL_SIZE, check_items=False)
    if not isinstance(value, dict) or set(value) != {"t", "tv", "b"}:
        raise SchemaError("a control frame is a map with exactly the keys t, tv, b")
    type_name, version = value["t"], value["tv"]
    if not isinstance(type_name, str) or not isinstance(version, int) or isinstance(version, bool):
        raise SchemaError("a control frame's t is a text string and its tv an unsigned integer")
    if (type_name, version) != (expected.TYPE, expected.VERSION):
        body_class(type_name, version)  # UnknownMessageType / UnsupportedVersion for unknown ones
        raise SchemaError(f"expected a {expected.TYPE!r} control frame, got {type_name[:64]!r}")
    return expected.from_value(value["b"])


__all__ = [
    "MAX_CONTROL_SIZE",
    "decode_control",
    "encode_control",
]
