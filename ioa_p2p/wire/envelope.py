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

An envelope encodes itself once: the full encoding is kept beside its fields (``to_cbor``), assembled from the
signed bytes when it is signed (``"sig"`` sorts last among the keys, so the full map is the signed map with
one more entry) and, for a received envelope, taken from the bytes it was decoded from once they are proven
to be exactly what its fields encode to (checked against the encoding the signature is verified over).

The body's schema and the registry of body types are :mod:`ioa_p2p.wire.schema`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from dataclasses import dataclass, field
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
#: The last entry of a full encoding: CBOR text "sig", then the header of a 64-byte byte string.
_SIG_ENTRY = b"csig\x58\x40"
_MAP7, _MAP8 = b"\xa7", b"\xa8"  # CBOR map headers of 7 and 8 entries


@dataclass(frozen=True, slots=True)
class Envelope:
    """A signed message. Build with :meth:`create`; parse with :meth:`from_cbor` (which verifies)."""

    author: PeerId
    seq: int
    ts: int
    body: Body
    sig: bytes = b""
    #: the full canonical encoding, once known (not a field of the message: see :meth:`to_cbor`)
    _cbor: bytes | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def create(cls, identity: Identity, body: Body, *, seq: int, ts: int | None = None) -> Envelope:
        body.validate()
        ts = int(time.time() * 1000) if ts is None else ts
        unsigned = cls(author=identity.peer_id, seq=seq, ts=ts, body=body)
        check_uint("seq", seq)
        check_uint("ts", ts)
        encoded = canonical.encode(unsigned.unsigned_value())
        signed = dataclasses.replace(unsigned, sig=identity.sign(SIGNING_CONTEXT + encoded))
        signed._keep(_full_encoding(encoded, signed.sig))
        return signed

    def _keep(self, cbor: bytes | None) -> None:
        if cbor is not None:
            object.__setattr__(self, "_cbor", cbor)  # a cache beside frozen fields

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
        """The full canonical encoding (encoded once, then kept)."""
        cbor = self._cbor
        if cbor is None:
            cbor = canonical.encode({**self.unsigned_value(), "sig": self.sig})
            self._keep(cbor)
        return cbor

    @property
    def hash(self) -> bytes:
        """SHA-256 of the full canonical encoding: the message's ID."""
        return hashlib.sha256(self.to_cbor()).digest()

    @property
    def type(self) -> str:
        return self.body.TYPE

    def verify(self) -> None:
        """Raise :class:`SignatureError` unless ``sig`` is the author's signature of this envelope."""
        self._verify(canonical.encode(self.unsigned_value()))

    def _verify(self, encoded: bytes) -> None:
        """:meth:`verify` given the canonical encoding of :meth:`unsigned_value`."""
        if not self.author.verify(self.sig, SIGNING_CONTEXT + encoded):
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
            encoded = canonical.encode(env.unsigned_value())  # what the signature covers, from the fields
            env._verify(encoded)
            # the received bytes are the envelope's encoding when its fields encode to exactly them (an
            # envelope whose fields encode otherwise keeps re-encoding them, as before: its hash and
            # stored form are those of its fields)
            full = _full_encoding(encoded, env.sig)
            if full is not None and full == data:
                env._keep(bytes(data))
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


def _full_encoding(encoded: bytes, sig: bytes) -> bytes | None:
    """The full canonical encoding, from the unsigned map's and the signature (None: not the usual form)."""
    if encoded[:1] != _MAP7 or len(sig) != 64:
        return None
    return _MAP8 + encoded[1:] + _SIG_ENTRY + sig


# --------------------------------------------------------------------------- schema machinery


def decode_envelope(data: bytes, *, verify: bool = True) -> Envelope:
    """Alias of :meth:`Envelope.from_cbor`."""
    return Envelope.from_cbor(data, verify=verify)


__all__ = ["ENVELOPE_VERSION", "MAX_MESSAGE_SIZE", "SIGNING_CONTEXT", "Envelope", "decode_envelope"]
