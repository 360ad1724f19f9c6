"""Random-hyperplane locality-sensitive hashing of card embeddings into DHT bucket keys (pure).

Every peer must compute the same buckets for the same vector, so everything here is fixed by the
protocol (``docs/protocol.md §9`` has the byte-level spec):

- :data:`TABLES` = 8 hash tables of :data:`BITS` = 5 hyperplanes each (32 buckets per table).
- Hyperplane entries are +1/-1, read from a SHAKE-256 stream seeded by the model id and dimension, so
  vectors of different models never share buckets and any implementation can rebuild the planes
  without a particular random number generator. (Sign random projections with +/-1 entries behave
  like Gaussian ones in high dimension: two vectors at angle t agree on one bit with probability
  ~ 1 - t/pi.)
- Bit ``i`` of table ``t`` is 1 when ``dot(plane[t][i], v) > 0`` (computed in float64), and the
  bucket code is ``sum(bit_i << i)``.
- The DHT key of a bucket is the sha2-256 multihash of the text
  ``/ioa/lsh/1/<model id>/<dim>/<TABLES>x<BITS>/<table>/<code>``.

A card is provided under its exact bucket in each table. A query probes its own buckets plus "near"
buckets (multi-probe LSH): codes with the bits flipped whose projections were closest to zero, most
likely first. Probing is a local choice; it does not change what others compute.

:func:`card_buckets` says which hyperplanes a card scheme uses: its own, except for a scheme whose vectors
contain another scheme's (:data:`SHARED_FAMILIES`: the matcher's 640-d vectors start with the default
wordllama vector), which is bucketed in that scheme's family, so nodes of both schemes find each other
through the DHT with one set of probes.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ioa_p2p.card.schemes import HYBRID_MODEL_ID, LITE_MODEL_ID
from ioa_p2p.errors import UsageError

if TYPE_CHECKING:  # numpy is imported where a vector is hashed: bucket names and keys need none
    import numpy as np
    import numpy.typing as npt

LSH_VERSION = 1
TABLES = 8
BITS = 5
SEED_CONTEXT = b"ioa-p2p/lsh/v1\x00"
_MULTIHASH_SHA256 = b"\x12\x20"


@dataclass(frozen=True, slots=True)
class Bucket:
    """One LSH bucket: table index and code, with its DHT key."""

    table: int
    code: int
    key: bytes
    name: str


class Hyperplanes:
    """The fixed hyperplanes of one embedding model (build with :func:`hyperplanes_for`)."""

    def __init__(self, model_id: str, dim: int, tables: int = TABLES, bits: int = BITS) -> None:
        if not 1 <= dim <= 65536:
            raise UsageError(f"LSH needs a dimension in 1..65536, got {dim}")
        if not (1 <= tables <= 64 and 1 <= bits <= 32):
            raise UsageError(f"LSH tables must be 1..64 and bits 1..32, got {tables}x{bits}")
        self.model_id = model_id
        self.dim = dim
        self.tables = tables
        self.bits = bits
        self.planes = _planes(model_id, dim, tables, bits)  # (tables * bits, dim) float64 of +/-1

    def projections(self, vector: Sequence[float] | npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """``(tables, bits)`` dot products of the vector with every hyperplane."""
        import numpy as np

        v = np.asarray(vector, dtype=np.float64).reshape(-1)
        if v.shape[0] != self.dim:
            raise UsageError(
                f"vector has {v.shape[0]} dimensions, the model {self.model_id!r} has {self.dim}"
            )
        if not np.isfinite(v).all():
            raise UsageError("cannot hash a vector with NaN or infinite values")
        return (self.planes @ v).reshape(self.tables, self.bits)

    def codes(self, vector: Sequence[float] | npt.NDArray[Any]) -> tuple[int, ...]:
        """The bucket code of the vector in each table."""
        import numpy as np

        bits = self.projections(vector) > 0
        weights = 1 << np.arange(self.bits, dtype=np.int64)
        return tuple(int(c) for c in (bits.astype(np.int64) * weights).sum(axis=1))

    def buckets(self, vector: Sequence[float] | npt.NDArray[Any]) -> list[Bucket]:
        """The exact bucket of the vector in every table (what a card is provided under)."""
        return [self.bucket(t, code) for t, code in enumerate(self.codes(vector))]

    def probes(self, vector: Sequence[float] | npt.NDArray[Any], extra: int) -> list[Bucket]:
        """Exact buckets first, then the ``extra`` most likely near buckets over all tables.

        A near bucket flips one or two bits of a table's code; its cost is the sum of the absolute
        projections of the flipped bits (small = the vector lies close to those hyperplanes).
        """
        import numpy as np

        proj = self.projections(vector)
        codes = self.codes(vector)
        out = [self.bucket(t, c) for t, c in enumerate(codes)]
        if extra <= 0:
            return out
        candidates: list[tuple[float, int, int]] = []
        for t in range(self.tables):
            margins = np.abs(proj[t])
            order = np.argsort(margins, kind="stable")
            for i_pos, i in enumerate(order):
                candidates.append((float(margins[i]), t, codes[t] ^ (1 << int(i))))
                for j in order[i_pos + 1 : i_pos + 3]:
                    cost = float(margins[i] + margins[j])
                    candidates.append((cost, t, codes[t] ^ (1 << int(i)) ^ (1 << int(j))))
        for _cost, t, code in heapq.nsmallest(extra, candidates, key=lambda c: (c[0], c[1], c[2])):
            out.append(self.bucket(t, code))
        return out

    def bucket(self, table: int, code: int) -> Bucket:
        name = bucket_name(self.model_id, self.dim, table, code, self.tables, self.bits)
        return Bucket(table, code, bucket_key(name), name)


#: Card schemes bucketed in another scheme's family: (model, dim) -> (family model, family dim). The
#: family reads the first ``family dim`` values of a vector: a 640-d matcher vector starts with the
#: wordllama vector of the same text (times 1/sqrt 2, :mod:`ioa_p2p.matching.hybrid`).
SHARED_FAMILIES: dict[tuple[str, int], tuple[str, int]] = {(HYBRID_MODEL_ID, 640): (LITE_MODEL_ID, 256)}


@dataclass(frozen=True, slots=True)
class CardBuckets:
    """The buckets of one card scheme: the hyperplanes of its family and the part of a vector they read."""

    model_id: str
    dim: int
    planes: Hyperplanes
    part: int | None = None  #: read the first ``part`` values (made unit length again); None: all

    def view(self, vector: Sequence[float] | npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """The vector as its family sees it."""
        import numpy as np

        v = np.asarray(vector, dtype=np.float64).reshape(-1)
        if v.shape[0] != self.dim:
            raise UsageError(
                f"vector has {v.shape[0]} dimensions, the model {self.model_id!r} has {self.dim}"
            )
        if self.part is None:
            return v
        head = v[: self.part]
        norm = float(np.linalg.norm(head))
        return head / norm if norm > 0 else head

    def buckets(self, vector: Sequence[float] | npt.NDArray[Any]) -> list[Bucket]:
        """What a card of this scheme is provided under."""
        return self.planes.buckets(self.view(vector))

    def probes(self, vector: Sequence[float] | npt.NDArray[Any], extra: int) -> list[Bucket]:
        """What a query of this scheme probes (:meth:`Hyperplanes.probes`)."""
        return self.planes.probes(self.view(vector), extra)


def card_buckets(model_id: str, dim: int) -> CardBuckets:
    """The buckets cards and queries of the scheme ``model_id`` / ``dim`` use (see the module docstring)."""
    family = SHARED_FAMILIES.get((model_id, dim))
    if family is None:
        return CardBuckets(model_id, dim, hyperplanes_for(model_id, dim))
    return CardBuckets(model_id, dim, hyperplanes_for(*family), part=family[1])


def bucket_name(
    model_id: str, dim: int, table: int, code: int, tables: int = TABLES, bits: int = BITS
) -> str:
    return f"/ioa/lsh/{LSH_VERSION}/{model_id}/{dim}/{tables}x{bits}/{table}/{code}"


def bucket_key(name: str) -> bytes:
    """The DHT key of a bucket: sha2-256 multihash (34 bytes) of its name."""
    return _MULTIHASH_SHA256 + hashlib.sha256(name.encode("utf-8")).digest()


def seed_bytes(model_id: str, dim: int, tables: int = TABLES, bits: int = BITS) -> bytes:
    """The SHAKE-256 input that fixes the hyperplanes of a model."""
    return SEED_CONTEXT + model_id.encode("utf-8") + b"\x00" + dim.to_bytes(4, "big") + bytes([tables, bits])


@functools.lru_cache(maxsize=16)
def hyperplanes_for(model_id: str, dim: int, tables: int = TABLES, bits: int = BITS) -> Hyperplanes:
    """Cached :class:`Hyperplanes` (building them costs a SHAKE-256 stream of tables*bits*dim bits)."""
    return Hyperplanes(model_id, dim, tables, bits)


def _planes(model_id: str, dim: int, tables: int, bits: int) -> npt.NDArray[np.float64]:
    import numpy as np

    count = tables * bits * dim
    stream = hashlib.shake_256(seed_bytes(model_id, dim, tables, bits)).digest((count + 7) // 8)
    unpacked = np.unpackbits(np.frombuffer(stream, dtype=np.uint8), bitorder="little")[:count]
    signs = unpacked.astype(np.float64) * 2.0 - 1.0
    planes: npt.NDArray[np.float64] = signs.reshape(tables * bits, dim)
    planes.setflags(write=False)
    return planes


__all__ = [
    "BITS",
    "LSH_VERSION",
    "SEED_CONTEXT",
    "SHARED_FAMILIES",
    "TABLES",
    "Bucket",
    "CardBuckets",
    "Hyperplanes",
    "bucket_key",
    "bucket_name",
    "card_buckets",
    "hyperplanes_for",
    "seed_bytes",
]
