"""Card validation in the simulator: the real checks, each distinct record's signature verified once.

Every DHT node that stores a card record, and every node that fetches one, validates it with the node's
own code (:class:`~ioa_p2p.dht.validators.IoaNamespaceValidator`, :func:`~ioa_p2p.dht.validators.check_stamp`,
:meth:`~ioa_p2p.dht.directory.Directory.withdraw` ...). Verifying one Ed25519 signature and decoding the
CBOR costs ~0.2 ms, and 10,000 nodes validate the same record thousands of times, so
:meth:`RecordCache.parse` runs the real :func:`~ioa_p2p.card.parse_record` on the first sight of a record's
bytes and keeps the result; later calls with the same bytes re-check only what depends on the caller (the
peer the record must belong to, the caller's clock). Both are functions of the bytes alone apart from
these, so the outcome is the same as parsing every time. Card sketches (bucket pages) are decoded and
verified once per distinct sketch the same way. :attr:`RecordCache.verified` counts the real
verifications.
"""

from __future__ import annotations

from ioa_p2p.card import MAX_CLOCK_SKEW_MS, CardRecord, SignedCard, check_fresh, parse_record
from ioa_p2p.card.sketch import SignedSketch, decode_sketch, verify_sketch
from ioa_p2p.errors import ExpiredCard, InvalidCard
from ioa_p2p.identity import PeerId


class RecordCache:
    """Parsed and verified records by their exact bytes (see the module docstring)."""

    def __init__(self) -> None:
        self._parsed: dict[bytes, CardRecord] = {}
        self._sketches: dict[bytes, SignedSketch] = {}
        self._verified_sketches: set[bytes] = set()
        self.verified = 0
        self.reused = 0

    def decode_sketch(self, data: bytes) -> SignedSketch:
        """:func:`~ioa_p2p.card.sketch.decode_sketch` once per distinct sketch (bucket pages)."""
        sketch = self._sketches.get(data)
        if sketch is None:
            sketch = self._sketches[bytes(data)] = decode_sketch(data)
        return sketch

    def verify_sketch(self, sketch: SignedSketch) -> None:
        """:func:`~ioa_p2p.card.sketch.verify_sketch` once per distinct sketch."""
        if sketch.encoded not in self._verified_sketches:
            verify_sketch(sketch)
            self._verified_sketches.add(sketch.encoded)
            self.verified += 1

    def __len__(self) -> int:
        return len(self._parsed)

    def parse(self, data: bytes, *, now_ms: int, peer: PeerId | None = None) -> CardRecord:
        """:func:`~ioa_p2p.card.parse_record`, with the signature checked on the first sight only."""
        record = self._parsed.get(data)
        if record is None:
            record = parse_record(data, now_ms=now_ms, peer=peer)
            self._parsed[bytes(data)] = record
            self.verified += 1
            return record
        self.reused += 1
        if peer is not None and record.peer_id != peer:
            raise InvalidCard(f"expected a record of {peer}, got one of {record.peer_id}")
        if isinstance(record, SignedCard):
            check_fresh(record.card, now_ms)
            return record
        body = record.withdrawal
        if now_ms >= body.expires_at:
            raise ExpiredCard(f"withdrawal of {body.peer} (version {body.version}) has expired")
        if body.issued_at > now_ms + MAX_CLOCK_SKEW_MS:
            raise InvalidCard(f"withdrawal of {body.peer} was issued in the future; check the clocks")
        return record

    def forget(self, data: bytes) -> None:
        """Drop a record no node holds any more (keeps memory bounded over long runs)."""
        self._parsed.pop(data, None)


__all__ = ["RecordCache"]
