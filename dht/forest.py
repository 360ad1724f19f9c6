"""LSH version 2: bucket keys at several resolutions (an LSH forest over the DHT; pure).

Version 1 (:mod:`~ioa_p2p.dht.lsh`) hashes a card into one bucket of 32 in each of 8 tables. That stops
working past a few hundred agents: a storing peer keeps at most 20 providers per key, and a bucket of
version 1 holds ``N / 32`` cards. Version 2 gives every table ``BITS`` = 12 hyperplanes and provides a
card under the *prefixes* of its code at several lengths, :data:`LEVELS` = (4, 8, 12): a level-4 bucket
is one of 16 in its table, a level-12 bucket one of 4096. A querier picks the level that fits the
network's size (:mod:`~ioa_p2p.dht.probing`): up to a couple of hundred agents it lists every level-4
bucket of the first :data:`LISTED_TABLES` tables (the whole network), beyond it probes the level-8 or
level-12 buckets nearest the query. So a card is provided under :data:`PROVIDED` = 18 keys: level 4 in
tables 0 and 1, levels 8 and 12 in every table.

Everything here is fixed by the protocol (``docs/protocol.md`` section 9.3): hyperplane entries are +1/-1
from a SHAKE-256 stream (as in version 1, with the seed context ``ioa-p2p/lsh/v2``); bit ``i`` of table
``t`` is 1 when ``dot(plane[t][i], v) > 0`` (float64); the level-``l`` prefix is the code's ``l`` lowest
bits (hyperplanes ``0 .. l-1``); the DHT key of a bucket is the sha2-256 multihash of its name
``/ioa/lsh/2/<model id>/<dim>/<TABLES>x<BITS>/<table>/<level>/<prefix>``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ioa_p2p.dht.lsh import bucket_key
from ioa_p2p.errors import UsageError

if TYPE_CHECKING:  # numpy is imported where a float vector is hashed; a sketch's integers need none
    import numpy as np
    import numpy.typing as npt

FOREST_VERSION = 2
TABLES = 8
BITS = 12
LEVELS = (4, 8, 12)
#: Tables whose level-4 buckets exist (listing a small network); levels 8 and 12 exist in every table.
LISTED_TABLES = 2
PROVIDED = LISTED_TABLES + (len(LEVELS) - 1) * TABLES
SEED_CONTEXT = b"ioa-p2p/lsh/v2\x00"


@dataclass(frozen=True, slots=True)
class Cell:
    """One bucket of the forest: table, level (prefix length) and prefix, with its DHT key."""

    table: int
    level: int
    prefix: int
    key: bytes
    name: str


class Forest:
    """The hyperplanes of one embedding model under LSH version 2 (build with :func:`forest_for`)."""

    def __init__(self, model_id: str, dim: int, tables: int = TABLES, bits: int = BITS) -> None:
        if not 1 <= dim <= 65536:
            raise UsageError(f"LSH needs a dimension in 1..65536, got {dim}")
        if not (1 <= tables <= 64 and max(LEVELS) <= bits <= 32):
            raise UsageError(f"LSH v2 tables must be 1..64 and bits {max(LEVELS)}..32, got {tables}x{bits}")
        self.model_id, self.dim, self.tables, self.bits = model_id, dim, tables, bits

    @functools.cached_property
    def planes(self) -> npt.NDArray[np.float64]:
        """``(tables * bits, dim)`` float64 of +/-1 (numpy, built on first use)."""
        return _planes(self._stream, self.tables * self.bits, self.dim)

    @functools.cached_property
    def _stream(self) -> bytes:
        count = self.tables * self.bits * self.dim
        return hashlib.shake_256(seed_bytes(self.model_id, self.dim, self.tables, self.bits)).digest(
            (count + 7) // 8
        )

    @functools.cached_property
    def _positive(self) -> list[tuple[int, int]]:
        """Per hyperplane (row ``table * bits + i``): the integer whose byte ``j`` is 1 where entry ``j``
        is +1 (0 where it is -1), and how many entries are +1."""
        bits = b"".join(_BYTE_BITS[b] for b in self._stream)
        rows = [bits[r * self.dim : (r + 1) * self.dim] for r in range(self.tables * self.bits)]
        return [(int.from_bytes(row, "little"), row.count(1)) for row in rows]

    def prefix(self, sketch: bytes, table: int, level: int) -> int:
        """The level-``level`` prefix of the code in ``table`` of a sketch (``dim`` signed bytes), in exact
        integer arithmetic without numpy: the same bits as :meth:`codes` of its values (a float64 dot
        product of integers with +/-1 entries is exact), from only the ``level`` hyperplanes it needs.

        ``dot(plane, v) = 2 * (sum of v over the +1 entries) - sum(v)``; with ``u = v + 128`` (the byte
        with its top bit flipped, 0..255) split into its 8 bits, one byte per value, the sum over the
        +1 entries is ``sum_k 2**k * popcount(bits_k & plus) - 128 * |plus|``: 8 AND-and-count steps
        over ``dim``-byte integers per hyperplane."""
        if len(sketch) != self.dim:
            raise UsageError(
                f"vector has {len(sketch)} dimensions, the model {self.model_id!r} has {self.dim}"
            )
        if not 0 <= table < self.tables or not 0 <= level <= self.bits:
            raise UsageError(f"no table {table} / level {level} in a {self.tables}x{self.bits} forest")
        u = bytes(sketch).translate(_FLIP_TOP)
        planes = [int.from_bytes(u.translate(_BIT_OF[k]), "little") for k in range(8)]
        total = sum(u) - 128 * self.dim
        code = 0
        for i in range(level):
            plus, count = self._positive[table * self.bits + i]
            positive = sum((p & plus).bit_count() << k for k, p in enumerate(planes)) - 128 * count
            if 2 * positive > total:
                code |= 1 << i
        return code

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
        """The full ``bits``-bit code of the vector in each table."""
        import numpy as np

        bits = (self.projections(vector) > 0).astype(np.int64)
        weights = 1 << np.arange(self.bits, dtype=np.int64)
        return tuple(int(c) for c in (bits * weights).sum(axis=1))

    def cells(self, vector: Sequence[float] | npt.NDArray[Any], levels: Sequence[int] = LEVELS) -> list[Cell]:
        """The buckets a card is provided under: its level-4 prefix in the first :data:`LISTED_TABLES`
        tables, its level-8 and level-12 prefixes in every table (of the ``levels`` given)."""
        return [
            self.cell(t, level, code & ((1 << level) - 1))
            for t, code in enumerate(self.codes(vector))
            for level in LEVELS
            if level in levels and (level != LEVELS[0] or t < LISTED_TABLES)
        ]

    def cell(self, table: int, level: int, prefix: int) -> Cell:
        name = cell_name(self.model_id, self.dim, table, level, prefix, self.tables, self.bits)
        return Cell(table, level, prefix, bucket_key(name), name)


def cell_name(
    model_id: str, dim: int, table: int, level: int, prefix: int, tables: int = TABLES, bits: int = BITS
) -> str:
    return f"/ioa/lsh/{FOREST_VERSION}/{model_id}/{dim}/{tables}x{bits}/{table}/{level}/{prefix}"


def seed_bytes(model_id: str, dim: int, tables: int = TABLES, bits: int = BITS) -> bytes:
    """The SHAKE-256 input that fixes the version 2 hyperplanes of a model."""
    return SEED_CONTEXT + model_id.encode("utf-8") + b"\x00" + dim.to_bytes(4, "big") + bytes([tables, bits])


@functools.lru_cache(maxsize=16)
def forest_for(model_id: str, dim: int, tables: int = TABLES, bits: int = BITS) -> Forest:
    """Cached :class:`Forest` (building it costs a SHAKE-256 stream of tables*bits*dim bits)."""
    return Forest(model_id, dim, tables, bits)


#: Each byte value's 8 bits, least significant first, one byte (0 or 1) per bit (the planes' bit order).
_BYTE_BITS = [bytes((b >> k) & 1 for k in range(8)) for b in range(256)]
#: ``bytes.translate`` tables: a signed byte ``v`` to ``v + 128`` (top bit flipped); a byte to its bit ``k``.
_FLIP_TOP = bytes(b ^ 0x80 for b in range(256))
_BIT_OF = [bytes((b >> k) & 1 for b in range(256)) for k in range(8)]


def _planes(stream: bytes, rows: int, dim: int) -> npt.NDArray[np.float64]:
    import numpy as np

    count = rows * dim
    unpacked = np.unpackbits(np.frombuffer(stream, dtype=np.uint8), bitorder="little")[:count]
    planes: npt.NDArray[np.float64] = (unpacked.astype(np.float64) * 2.0 - 1.0).reshape(rows, dim)
    planes.setflags(write=False)
    return planes


__all__ = [
    "BITS",
    "FOREST_VERSION",
    "LEVELS",
    "SEED_CONTEXT",
    "TABLES",
    "Cell",
    "Forest",
    "cell_name",
    "forest_for",
]
