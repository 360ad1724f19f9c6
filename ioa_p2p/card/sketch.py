"""The card sketch: a signed, compact copy of a card's vector that travels in DHT bucket pages (pure).

A DHT search ranks candidates from the sketches it lists (``ioa_p2p.dht.pages``) and fetches only the
few best cards, instead of fetching every provider's card to rank it. A sketch is an
:class:`~ioa_p2p.wire.Envelope` whose body is a :class:`CardSketch` (message type ``"card_sketch"``,
version 1):

- ``peer``, ``version``: the card it summarises (the envelope ``seq`` equals ``version``, ``ts`` equals
  ``issued_at``; the signer must be ``peer``, so nobody, a storing peer included, forges another's);
- ``model``, ``dim``: the LSH *family* of the card's scheme (``ioa_p2p.dht.lsh.card_buckets``: a 640-d
  matcher card is sketched by its first 256 values, in the ``wordllama/l2_supercat/256`` family);
- ``sketch``: ``dim`` signed bytes (int8, two's complement), :func:`quantise` of the family's view of the
  card vector: ``round(127 * v_i / max |v|)``. Sign projections of these integers on the ±1 LSH
  hyperplanes are exact integers, so every peer computes the same buckets for a sketch
  (:func:`sketch_vector`), and a storing peer can check that an entry belongs in the page it is put in;
- ``issued_at``, ``expires_at``: the sketch lives at most :data:`~ioa_p2p.card.record.MAX_TTL_MS`.

Version 2 (:class:`CardSketchV2`, the same fields and three more) also carries what the node's hybrid
matcher ranks by, so that the few cards a search fetches are the ones the matcher will rank best:

- ``scheme``: the card scheme's model id (``card.model``), which says what ``rest`` is;
- ``rest``: the rest of the card vector after the family's view, quantised on its own scale (the MiniLM
  half of a 640-d matcher card, 384 bytes; empty for a scheme whose vector is the family's view);
- ``terms``: the card's content terms as up to :data:`MAX_SKETCH_TERMS` distinct 32-bit hashes
  (:func:`term_hash`), sorted, 4 bytes each, big-endian: a reader scores them like BM25 against the
  query's terms.

A node publishes version 2 when it has a ``rest`` or terms to say; version 1 otherwise. A reader scores
either (``ioa_p2p.dht.sketchscore``).

Version 3 (:class:`CardSketchV3`: version 2 and ``stamp``) carries a proof of work of its own, so that a
page entry costs what a card costs and a storing peer can check it alone (it holds no card):
``stamp`` is a nonce (1..32 bytes) such that ``SHA-256(SKETCH_STAMP_CONTEXT || digest || nonce)`` has
``bits`` leading zero bits, where ``digest`` is :func:`sketch_digest`: SHA-256 of the canonical CBOR
map of the peer and what the sketch claims (``model``, ``dim``, ``sketch``, ``scheme``, ``rest``,
``terms``), never of what changes between versions (``version``, ``issued_at``, ``expires_at``): an
owner re-issues its sketch with the same nonce; a new identity or a new content costs a new one. A
storing peer refuses entries of fewer than its ``[discovery] min_stamp_bits`` (:func:`sketch_stamp_bits`;
versions 1 and 2 count 0).

A sketch claims nothing a card does not: a reader that fetches the card checks that the sketch is the
quantised card vector (:func:`matches_card`) and drops a candidate whose sketch lied. Wire layout:
``docs/protocol.md`` section 9.3.2.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar  # noqa: F401  (wire.message_type resolves ClassVar here)

from ioa_p2p.card.record import MAX_CLOCK_SKEW_MS, MAX_MODEL_ID, MAX_TTL_MS
from ioa_p2p.card.stamp import MAX_NONCE, mint
from ioa_p2p.card.stamp import stamp_bits as _bits_of
from ioa_p2p.errors import AuthorMismatch, ExpiredCard, InvalidCard, MessageTooLarge
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.wire import canonical
from ioa_p2p.wire.envelope import Envelope
from ioa_p2p.wire.schema import Body, message_type

if TYPE_CHECKING:  # numpy is imported where a vector is made: checking a sketch (a storing peer) needs none
    import numpy as np
    import numpy.typing as npt

#: Largest sketch (values = bytes); families of larger vectors publish no sketch (readers fall back to
#: provider records and card fetches).
MAX_SKETCH_DIM = 1024
#: Largest encoded sketch envelope (a version 2 sketch of a 640-d matcher card is ~1,000 bytes).
MAX_SKETCH_SIZE = 2048
#: Term hashes a version 2 sketch carries at most.
MAX_SKETCH_TERMS = 64
#: What a sketch stamp's hash starts with (a card stamp's is ``ioa-p2p/card-stamp/v1``).
SKETCH_STAMP_CONTEXT = b"ioa-p2p/sketch-stamp/v1\x00"


@message_type("card_sketch", 1)
class CardSketch(Body):
    """The body of a sketch. Build with :func:`issue_sketch`; parse with :func:`parse_sketch`."""

    peer: PeerId
    version: int
    model: str
    dim: int
    sketch: bytes
    issued_at: int
    expires_at: int

    def validate(self) -> None:
        for name in ("version", "issued_at", "expires_at", "dim"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
                raise InvalidCard(f"sketch {name} must be a non-negative 63-bit integer")
        if (
            not isinstance(self.model, str)
            or not 0 < len(self.model.encode("utf-8", "surrogatepass")) <= MAX_MODEL_ID
        ):
            raise InvalidCard(f"sketch model must be text of 1..{MAX_MODEL_ID} bytes")
        if not 1 <= self.dim <= MAX_SKETCH_DIM:
            raise InvalidCard(f"sketch dim must be 1..{MAX_SKETCH_DIM}, not {self.dim}")
        if not isinstance(self.sketch, bytes) or len(self.sketch) != self.dim:
            raise InvalidCard(f"a sketch of dim {self.dim} holds {self.dim} bytes")
        if not any(self.sketch):
            raise InvalidCard("a sketch must not be all zeros")
        if b"\x80" in self.sketch:  # -128 as a signed byte
            raise InvalidCard("sketch values are -127..127")
        if not 0 < self.expires_at - self.issued_at <= MAX_TTL_MS:
            raise InvalidCard(f"a sketch lives 1..{MAX_TTL_MS} ms")


@message_type("card_sketch", 2)
class CardSketchV2(CardSketch):
    """Version 2: a version 1 sketch plus the rest of the card vector and the card's term hashes (see the
    module docstring). A subclass, so everything that reads a version 1 sketch reads this one."""

    scheme: str
    rest: bytes
    terms: bytes

    def validate(self) -> None:
        CardSketch.validate(self)
        if (
            not isinstance(self.scheme, str)
            or not 0 < len(self.scheme.encode("utf-8", "surrogatepass")) <= MAX_MODEL_ID
        ):
            raise InvalidCard(f"sketch scheme must be text of 1..{MAX_MODEL_ID} bytes")
        if not isinstance(self.rest, bytes) or self.dim + len(self.rest) > MAX_SKETCH_DIM:
            raise InvalidCard(f"a sketch holds at most {MAX_SKETCH_DIM} values in all")
        if self.rest and (not any(self.rest) or b"\x80" in self.rest):
            raise InvalidCard("sketch rest values are -127..127, not all zero")
        if not isinstance(self.terms, bytes) or len(self.terms) % 4 or len(self.terms) > 4 * MAX_SKETCH_TERMS:
            raise InvalidCard(f"sketch terms are at most {MAX_SKETCH_TERMS} hashes of 4 bytes")
        hashes = _term_hashes(self.terms)
        if any(b <= a for a, b in zip(hashes, hashes[1:], strict=False)):
            raise InvalidCard("sketch term hashes must be sorted and distinct")


@message_type("card_sketch", 3)
class CardSketchV3(CardSketchV2):
    """Version 3: a version 2 sketch with a proof of work (``stamp``, see the module docstring)."""

    stamp: bytes

    def validate(self) -> None:
        CardSketchV2.validate(self)
        if not isinstance(self.stamp, bytes) or not 1 <= len(self.stamp) <= MAX_NONCE:
            raise InvalidCard(f"a sketch stamp is a nonce of 1..{MAX_NONCE} bytes")


def sketch_digest(body: CardSketch) -> bytes:
    """SHA-256 of the canonical CBOR map of what a sketch stamp covers (module docstring; a version 1
    sketch's ``scheme`` is its ``model`` and its ``rest`` and ``terms`` are empty)."""
    scheme, rest, terms = (
        (body.scheme, body.rest, body.terms) if isinstance(body, CardSketchV2) else (body.model, b"", b"")
    )
    content = {
        "peer": body.peer.raw,
        "model": body.model,
        "dim": body.dim,
        "sketch": body.sketch,
        "scheme": scheme,
        "rest": rest,
        "terms": terms,
    }
    return hashlib.sha256(canonical.encode(content)).digest()


def sketch_stamp_bits(sketch: SignedSketch) -> int:
    """The proof of work of a sketch (0 for versions 1 and 2): one SHA-256 of its digest and nonce."""
    body = sketch.body
    if not isinstance(body, CardSketchV3):
        return 0
    return _bits_of(sketch_digest(body), body.stamp, SKETCH_STAMP_CONTEXT)


def _term_hashes(terms: bytes) -> tuple[int, ...]:
    return struct.unpack(f">{len(terms) // 4}I", terms)


def term_hash(term: str) -> int:
    """The 32-bit hash of one term: the first 4 bytes (big-endian) of SHA-256 of its UTF-8 text."""
    return int.from_bytes(hashlib.sha256(term.encode("utf-8", "surrogatepass")).digest()[:4], "big")


def pack_terms(terms: Sequence[str]) -> bytes:
    """The ``terms`` field for these terms: the hashes of the first :data:`MAX_SKETCH_TERMS` distinct
    terms (in order), sorted."""
    hashes: list[int] = []
    for term in terms:
        h = term_hash(term)
        if h not in hashes:
            hashes.append(h)
            if len(hashes) == MAX_SKETCH_TERMS:
                break
    return b"".join(h.to_bytes(4, "big") for h in sorted(hashes))


def sketch_terms(sketch: SignedSketch) -> frozenset[int]:
    """The term hashes of a sketch (none for version 1)."""
    body = sketch.body
    if not isinstance(body, CardSketchV2):
        return frozenset()
    return frozenset(_term_hashes(body.terms))


def sketch_rest(sketch: SignedSketch) -> tuple[str, npt.NDArray[np.float64]] | None:
    """The scheme and the rest values of a version 2 sketch that has a rest (None otherwise)."""
    body = sketch.body
    if not isinstance(body, CardSketchV2) or not body.rest:
        return None
    return body.scheme, sketch_vector(body.rest)


@dataclass(frozen=True, slots=True)
class SignedSketch:
    """A verified sketch with its exact encoding (what a bucket page holds)."""

    envelope: Envelope
    encoded: bytes

    @property
    def body(self) -> CardSketch:
        body = self.envelope.body
        assert isinstance(body, CardSketch)
        return body

    @property
    def peer_id(self) -> PeerId:
        return self.body.peer

    @property
    def version(self) -> int:
        return self.body.version

    @property
    def expires_at(self) -> int:
        return self.body.expires_at

    def vector(self) -> npt.NDArray[np.float64]:
        """The sketch values as float64 (exact integers: see the module docstring)."""
        return sketch_vector(self.body.sketch)


def quantise(vector: Sequence[float] | npt.NDArray[Any]) -> bytes:
    """``round(127 * v_i / max |v|)`` as signed bytes (raises :class:`InvalidCard` for a zero or
    non-finite vector)."""
    import numpy as np

    v = np.asarray(vector, dtype=np.float64).reshape(-1)
    if not np.isfinite(v).all():
        raise InvalidCard("cannot sketch a vector with NaN or infinite values")
    top = float(np.max(np.abs(v))) if v.size else 0.0
    if top == 0.0:
        raise InvalidCard("cannot sketch a zero vector")
    q = np.clip(np.rint(v * (127.0 / top)), -127, 127).astype(np.int8)
    return q.tobytes()


def sketch_vector(sketch: bytes) -> npt.NDArray[np.float64]:
    """The values of ``sketch`` (signed bytes) as float64."""
    import numpy as np

    return np.frombuffer(sketch, dtype=np.int8).astype(np.float64)


def issue_sketch(
    identity: Identity,
    *,
    version: int,
    model: str,
    vector: Sequence[float] | npt.NDArray[Any],
    now_ms: int,
    expires_at: int,
    scheme: str | None = None,
    rest: Sequence[float] | npt.NDArray[Any] | None = None,
    terms: Sequence[str] = (),
    stamp_bits: int = 0,
    stamp: bytes = b"",
    pause: Callable[[], None] | None = None,
) -> SignedSketch:
    """Sign the sketch of this node's card ``version``; ``vector`` is the family's view of the card vector
    (``CardBuckets.view``), ``model`` the family's model id. With a ``scheme`` (the card's model id) the
    sketch is version 2: ``rest`` (the card vector after the view; None or empty: none) and ``terms`` (the
    card's content terms) are added. With ``stamp_bits`` it is version 3, stamped (``stamp``: a nonce
    found before for the same content, reused when it still has enough bits; otherwise one is minted,
    about ``2**stamp_bits`` hashes: blocking; ``pause`` as :func:`.stamp.mint`'s)."""
    raw = quantise(vector)
    fields: dict[str, Any] = {
        "peer": identity.peer_id,
        "version": version,
        "model": model,
        "dim": len(raw),
        "sketch": raw,
        "issued_at": now_ms,
        "expires_at": min(expires_at, now_ms + MAX_TTL_MS),
    }
    body: CardSketch
    if scheme is None and stamp_bits <= 0:
        body = CardSketch(**fields)
    else:
        import numpy as np

        extra = b"" if rest is None or np.asarray(rest).size == 0 else quantise(rest)
        v2 = {**fields, "scheme": scheme or model, "rest": extra, "terms": pack_terms(terms)}
        body = CardSketchV2(**v2)
        if stamp_bits > 0:
            digest = sketch_digest(body)
            fits = stamp and _bits_of(digest, stamp, SKETCH_STAMP_CONTEXT) >= stamp_bits
            nonce = stamp if fits else mint(digest, stamp_bits, context=SKETCH_STAMP_CONTEXT, pause=pause)
            body = CardSketchV3(**v2, stamp=nonce)
    envelope = Envelope.create(identity, body, seq=version, ts=now_ms)
    return SignedSketch(envelope, envelope.to_cbor())


def decode_sketch(data: bytes) -> SignedSketch:
    """The sketch in ``data``, its fields checked but its signature NOT verified (a reader verifies the
    few it acts on: :func:`verify_sketch`). Raises an :class:`~ioa_p2p.errors.InvalidMessage` subclass."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InvalidCard(f"a sketch is bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_SKETCH_SIZE:
        raise MessageTooLarge(f"a sketch of {len(data)} bytes is over the limit of {MAX_SKETCH_SIZE}")
    envelope = Envelope.from_cbor(data, verify=False)
    body = envelope.body
    if not isinstance(body, CardSketch):
        raise InvalidCard(f"expected a card_sketch, got a {body.TYPE!r}")
    if envelope.author != body.peer:
        raise AuthorMismatch(f"sketch of {body.peer} is signed by {envelope.author}")
    if envelope.seq != body.version or envelope.ts != body.issued_at:
        raise InvalidCard("sketch envelope seq/ts must equal its version/issued_at")
    return SignedSketch(envelope, data)


def check_live(sketch: SignedSketch, now_ms: int) -> None:
    """Raise unless ``sketch`` is live at ``now_ms`` (not expired, not issued in the future)."""
    body = sketch.body
    if now_ms >= body.expires_at:
        raise ExpiredCard(f"sketch of {body.peer} (version {body.version}) has expired")
    if body.issued_at > now_ms + MAX_CLOCK_SKEW_MS:
        raise InvalidCard(f"sketch of {body.peer} was issued in the future; check the clocks")


def verify_sketch(sketch: SignedSketch) -> None:
    """Raise :class:`~ioa_p2p.errors.SignatureError` unless the owner signed ``sketch``."""
    sketch.envelope.verify()


def parse_sketch(data: bytes, *, now_ms: int) -> SignedSketch:
    """:func:`decode_sketch`, live at ``now_ms`` and its signature verified."""
    sketch = decode_sketch(data)
    check_live(sketch, now_ms)
    verify_sketch(sketch)
    return sketch


def matches_card(
    sketch: SignedSketch,
    version: int,
    view: Sequence[float] | npt.NDArray[Any],
    rest: Sequence[float] | npt.NDArray[Any] | None = None,
) -> bool:
    """True when ``sketch`` is the quantised ``view`` (the family's view of the card vector) of card
    ``version``, each value within 1 (rounding may differ between implementations), and, for a version 2
    sketch with a rest, its rest is the quantised ``rest`` (the card vector after the view) the same way:
    what a reader checks once it fetched the card the sketch made it fetch. (Term hashes are the owner's
    hint and are not checked here.)"""
    if sketch.version != version or not _close(sketch.vector(), view):
        return False
    theirs = sketch_rest(sketch)
    if theirs is None:
        return True
    return rest is not None and _close(theirs[1], rest)


def _close(theirs: npt.NDArray[np.float64], values: Sequence[float] | npt.NDArray[Any]) -> bool:
    try:
        mine = sketch_vector(quantise(values))
    except InvalidCard:
        return False
    import numpy as np

    return mine.shape == theirs.shape and float(np.max(np.abs(mine - theirs))) <= 1.0


__all__ = [
    "MAX_SKETCH_DIM",
    "MAX_SKETCH_SIZE",
    "MAX_SKETCH_TERMS",
    "SKETCH_STAMP_CONTEXT",
    "CardSketch",
    "CardSketchV2",
    "CardSketchV3",
    "SignedSketch",
    "check_live",
    "decode_sketch",
    "issue_sketch",
    "matches_card",
    "pack_terms",
    "parse_sketch",
    "quantise",
    "sketch_digest",
    "sketch_rest",
    "sketch_stamp_bits",
    "sketch_terms",
    "sketch_vector",
    "term_hash",
    "verify_sketch",
]
