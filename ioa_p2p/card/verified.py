"""Card records already verified in this process, by their exact bytes (pure: no I/O, no clock).

A card announcement reaches every agent of a process, and each checked it two or three times (the
GossipSub topic validator, the delivery, the catch-up and DHT paths all call
:func:`~ioa_p2p.card.parse_record`): in a start of 2 x 25 agents the 61 distinct card records were
checked 10,176 times, each a CBOR decode and an Ed25519 verification (~0.2 ms; issue 26, l-cross2 and
l-idle8). Decoding and the signature are functions of the bytes alone, so :data:`VERIFIED` keeps the
parsed record of the last :data:`VERIFIED_MAX` distinct records that passed every check, keyed by their
bytes (which the record holds anyway), and :func:`~ioa_p2p.card.parse_record` re-checks only what depends
on the caller: the peer the record must belong to and the caller's clock (expiry, issue time ahead).
Bytes that failed are never kept: an invalid record is parsed, and refused, every time. The dht
simulator's ``RecordCache`` does the same without a bound.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

#: Distinct records kept (each a few KB, most also held by the directories of the process's agents).
VERIFIED_MAX = 1024

R = TypeVar("R")


class VerifiedRecords(Generic[R]):
    """A bounded map from a record's bytes to its parsed, verified form; least recently used out first.
    Safe to share between threads (records are parsed in worker threads too)."""

    __slots__ = ("_lock", "_records", "hits", "limit", "misses")

    def __init__(self, limit: int = VERIFIED_MAX) -> None:
        self.limit = limit
        self._records: OrderedDict[bytes, R] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, data: bytes) -> R | None:
        with self._lock:
            record = self._records.get(data)
            if record is None:
                self.misses += 1
                return None
            self._records.move_to_end(data)
            self.hits += 1
            return record

    def put(self, data: bytes, record: R) -> None:
        with self._lock:
            self._records[data] = record
            self._records.move_to_end(data)
            while len(self._records) > self.limit:
                self._records.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._records.clear()

    def __len__(self) -> int:
        return len(self._records)


__all__ = ["VERIFIED_MAX", "VerifiedRecords"]
