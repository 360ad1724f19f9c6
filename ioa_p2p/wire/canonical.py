"""Canonical CBOR: the one deterministic encoding every signed ioa-p2p object uses.

Encoding rules (RFC 8949 §4.2.1 "core deterministic encoding"):

- integers, lengths and tags in their shortest form; no indefinite-length items;
- map keys sorted by the bytewise order of their encodings; no duplicate keys;
- floats in the shortest of half/single/double precision that keeps the value exactly;
- only these data items: unsigned/negative integers (within 64 bits), byte strings, UTF-8 text strings,
  arrays, maps with text-string keys, ``true``, ``false``, ``null`` and floats (NaN and infinities are
  rejected); no tags, no ``undefined``, no simple values.

:func:`decode` is strict: it rejects anything that would not re-encode to the very same bytes, so one value
has exactly one encoding and a signature over it is unambiguous.
"""

from __future__ import annotations

import io
import math
from typing import Any

import cbor2

from ioa_p2p.errors import MalformedEncoding, MessageTooLarge, NonCanonicalEncoding

#: Maximum nesting depth accepted by :func:`decode`.
MAX_DEPTH = 32

_INT_MIN = -(2**64)
_INT_MAX = 2**64 - 1


def encode(value: Any) -> bytes:
    """Encode ``value`` canonically. Raises :class:`MalformedEncoding` for values CBOR cannot carry here."""
    _check_item(value, 0)
    try:
        return cbor2.dumps(value, canonical=True)
    except (
        cbor2.CBOREncodeError,
        TypeError,
        ValueError,
    ) as exc:  # pragma: no cover - guarded above
        raise MalformedEncoding(f"value cannot be encoded as CBOR: {exc}") from exc


def decode(data: bytes, *, max_size: int | None = None) -> Any:
    """Decode exactly one canonical CBOR item that fills ``data`` entirely.

    Raises :class:`MessageTooLarge`, :class:`MalformedEncoding` (not CBOR, trailing bytes, forbidden items)
    or :class:`NonCanonicalEncoding` (valid CBOR in a non-canonical form). Never anything else.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise MalformedEncoding(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if max_size is not None and len(data) > max_size:
        raise MessageTooLarge(f"{len(data)} bytes is over the limit of {max_size} bytes")
    if not data:
        raise MalformedEncoding("empty input: expected one CBOR item")
    stream = io.BytesIO(data)
    try:
        decoder = cbor2.CBORDecoder(
            stream, tag_hook=_reject_tag, allow_duplicate_keys=False, max_depth=MAX_DEPTH + 1
        )
        value = decoder.decode()
    except RecursionError as exc:
        raise MalformedEncoding("CBOR nesting is too deep") from exc
    except MalformedEncoding:
        raise
    except Exception as exc:  # cbor2 raises many types (CBORDecodeError, ValueError, OverflowError...)
        raise MalformedEncoding(f"not valid CBOR: {exc}") from exc
    if stream.tell() != len(data):
        raise MalformedEncoding(
            f"{len(data) - stream.tell()} trailing bytes after the CBOR item; expected exactly one item"
        )
    _check_item(value, 0)
    if cbor2.dumps(value, canonical=True) != data:
        raise NonCanonicalEncoding(
            "CBOR is valid but not canonically encoded (shortest integers, sorted keys, definite lengths)"
        )
    return value


def encode_uvarint(value: int) -> bytes:
    """Unsigned LEB128 varint (the length prefix of frames and history-file records)."""
    if value < 0:
        raise ValueError("varint must be non-negative")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _reject_tag(decoder: Any, tag: Any) -> Any:
    raise MalformedEncoding(f"CBOR tag {tag.tag} is not allowed in ioa-p2p messages")


def _check_item(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise MalformedEncoding(f"CBOR nesting deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, bool | str | bytes):
        return
    if isinstance(value, int):
        if not _INT_MIN <= value <= _INT_MAX:
            raise MalformedEncoding("integer outside the 64-bit CBOR range (bignum tags are not allowed)")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise MalformedEncoding("NaN and infinite floats are not allowed")
        return
    if isinstance(value, list | tuple):
        for item in value:
            _check_item(item, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise MalformedEncoding(f"map keys must be text strings, got {type(key).__name__}")
            _check_item(item, depth + 1)
        return
    raise MalformedEncoding(f"CBOR item of type {type(value).__name__} is not allowed")
