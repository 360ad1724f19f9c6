"""The signed envelope every application message travels in (pure: no I/O).

Wire form: one canonical CBOR map (see :mod:`ioa_p2p.wire.canonical`) with exactly these keys::

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

The body's schema and the registry of body types are :mod:`ioa_p2p.wire.schema`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import dataclass
from typing import Any

from ioa_p2p.errors import (
    AuthorMismatch,
    InvalidPeerId,
    SchemaError,
    SignatureError,
    UnsupportedVersion,
)
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire import canonical
from ioa_p2p.wire.schema import Body, body_class, check_uint, key_names, typed_value, uint_value

ENVELOPE_VERSION = 1
#: Largest encoded envelope accepted anywhere (frames, files, stores): 1 MiB.
MAX_MESSAGE_SIZE = 1 << 20
SIGNING_CONTEXT = b"ioa-p2p/envelope/v1\x00"
_ENVELOPE_KEYS = frozenset({"v", "t", "tv", "a", "ts", "seq", "b", "sig"})


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
        check_uint("seq", seq)
        check_uint("ts", ts)
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
        # Every item is checked by the schema below (canonical.check_item on the opaque fields only).
        value = canonical.decode(data, max_size=MAX_MESSAGE_SIZE, check_items=False)
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
                f"unexpected fields {key_names(keys - _ENVELOPE_KEYS)}"
            )
        type_name = value["t"]
        type_version = value["tv"]
        if type(type_name) is not str:  # exact types: what the CBOR decoder makes (fast path)
            type_name = typed_value(type_name, str, "envelope.t")
        if type(type_version) is not int:
            type_version = typed_value(type_version, int, "envelope.tv")
        body_cls = body_class(type_name, type_version)
        try:
            author = PeerId.from_bytes(typed_value(value["a"], bytes, "envelope.a"))
        except InvalidPeerId as exc:
            raise AuthorMismatch(f"envelope author is not an Ed25519 peer ID: {exc}") from None
        sig = typed_value(value["sig"], bytes, "envelope.sig")
        if len(sig) != 64:
            raise SignatureError(f"an Ed25519 signature has 64 bytes, got {len(sig)}")
        return cls(
            author=author,
            seq=uint_value(value["seq"], "envelope.seq"),
            ts=uint_value(value["ts"], "envelope.ts"),
            body=body_cls.from_value(value["b"]),
            sig=sig,
        )


# --------------------------------------------------------------------------- schema machinery


def decode_envelope(data: bytes, *, verify: bool = True) -> Envelope:
    """Alias of :meth:`Envelope.from_cbor`."""
    return Envelope.from_cbor(data, verify=verify)


__all__ = ["ENVELOPE_VERSION", "MAX_MESSAGE_SIZE", "SIGNING_CONTEXT", "Envelope", "decode_envelope"]
