"""Bucket pages: DHT records that list the signed sketches of the cards in one LSH bucket (pure).

A provider record names a peer and nothing else, so a search that ranks must fetch every provider's
card. A *page* is a DHT value under a key of its own per LSH version 2 cell
(:class:`~ioa_p2p.dht.forest.Cell`)::

    /ioa/page/2/<model>/<dim>/<T>x<B>/<table>/<level>/<prefix>

whose value is the canonical CBOR map ``{"page": 1, "e": [sketch, ...]}``: the encoded
:class:`~ioa_p2p.card.sketch.SignedSketch` of each card in that bucket, at most :data:`PAGE_ENTRIES`.
An owner puts a page holding its own sketch (``PUT_VALUE``) at the closest peers of each of its cells;
a storing peer **merges** it into the page it holds (:func:`merge_page`: one entry per peer, the
highest card version, expired entries dropped, first come while the page is full). The storing peer
checks every entry it admits: the signature, liveness, that the sketch's own bucket in that table
and level is the page's cell (the sketch's integer projections make the check exact), so an identity
is listed only in its own buckets, and (``min_bits``, the node's ``[discovery] min_stamp_bits``) that
the entry carries a stamp of that many bits (a version 3 sketch:
:func:`~ioa_p2p.card.sketch.sketch_stamp_bits`), so a page entry costs what a card costs. A reader
ranks the entries of the pages it lists against the query and fetches only the best cards
(:mod:`~ioa_p2p.dht.expand`).

Wire layout: ``docs/protocol.md`` sections 9.3.2 and 9.3.3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ioa_p2p.card.sketch import SignedSketch, check_live, decode_sketch, sketch_stamp_bits, verify_sketch
from ioa_p2p.dht.forest import BITS, LEVELS, TABLES, Cell, Forest, forest_for
from ioa_p2p.errors import InvalidCard, InvalidMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.wire import canonical

PAGE_PREFIX = "/ioa/page/"
PAGE_VERSION = 1
#: Sketches a page holds at most (a storing peer keeps the first ones while it is full).
PAGE_ENTRIES = 64
#: Largest encoded page accepted (64 entries of a 256-d family are ~28 KB).
MAX_PAGE_SIZE = 160 * 1024


@dataclass(frozen=True, slots=True)
class PageCell:
    """What a page key names: a forest cell of one family."""

    model: str
    dim: int
    table: int
    level: int
    prefix: int

    def forest(self) -> Forest:
        return forest_for(self.model, self.dim)


def page_key(cell: Cell, model: str, dim: int) -> str:
    """The DHT key (text) of the page of ``cell`` in the family ``model`` / ``dim``."""
    return f"{PAGE_PREFIX}2/{model}/{dim}/{TABLES}x{BITS}/{cell.table}/{cell.level}/{cell.prefix}"


def parse_page_key(key: str) -> PageCell:
    """The cell a page key names; raises :class:`InvalidCard` for anything else."""
    if not isinstance(key, str) or not key.startswith(PAGE_PREFIX + "2/"):
        raise InvalidCard(f"{key!r} is not a page key ({PAGE_PREFIX}2/...)")
    parts = key[len(PAGE_PREFIX) + 2 :].split("/")
    if len(parts) < 6 or parts[-4] != f"{TABLES}x{BITS}":
        raise InvalidCard(f"page key {key!r} does not name a {TABLES}x{BITS} forest cell")
    model = "/".join(parts[:-5])
    try:
        dim, table, level, prefix = (int(p) for p in (parts[-5], parts[-3], parts[-2], parts[-1]))
    except ValueError:
        raise InvalidCard(f"page key {key!r} has a field that is not a decimal number") from None
    if not model or not 1 <= dim <= 1024 or not 0 <= table < TABLES or level not in LEVELS:
        raise InvalidCard(f"page key {key!r} names no cell (model, dim 1..1024, table, level {LEVELS})")
    if not 0 <= prefix < 1 << level or str(prefix) != parts[-1] or str(dim) != parts[-5]:
        raise InvalidCard(f"page key {key!r}: prefix out of range or not canonical")
    return PageCell(model, dim, table, level, prefix)


def encode_page(entries: Iterable[bytes]) -> bytes:
    return canonical.encode({"page": PAGE_VERSION, "e": list(entries)})


def decode_page(data: bytes) -> list[bytes]:
    """The encoded sketches of a page (not checked one by one); raises :class:`InvalidMessage`."""
    if not isinstance(data, bytes | bytearray | memoryview) or len(data) > MAX_PAGE_SIZE:
        raise InvalidCard(f"a page is bytes of at most {MAX_PAGE_SIZE}")
    value = canonical.decode(bytes(data), max_size=MAX_PAGE_SIZE)
    if not isinstance(value, dict) or value.get("page") != PAGE_VERSION or set(value) != {"page", "e"}:
        raise InvalidCard(f'a page is {{"page": {PAGE_VERSION}, "e": [...]}}')
    entries = value["e"]
    if not isinstance(entries, list) or len(entries) > PAGE_ENTRIES:
        raise InvalidCard(f"a page lists at most {PAGE_ENTRIES} sketches")
    if not all(isinstance(e, bytes) for e in entries):
        raise InvalidCard("page entries are byte strings")
    return entries


def in_cell(sketch: SignedSketch, cell: PageCell) -> bool:
    """True when ``sketch`` is of ``cell``'s family and its own bucket at that table and level is the cell."""
    body = sketch.body
    if body.model != cell.model or body.dim != cell.dim:
        return False
    return cell.forest().prefix(body.sketch, cell.table, cell.level) == cell.prefix


Decode = Callable[[bytes], SignedSketch]
Verify = Callable[[SignedSketch], None]


def check_entry(
    data: bytes,
    cell: PageCell,
    now_ms: int,
    *,
    decode: Decode = decode_sketch,
    verify: Verify = verify_sketch,
    min_bits: int = 0,
) -> SignedSketch:
    """One entry as a storing peer admits it: well formed, live, signed by its peer, in ``cell``, stamped
    with at least ``min_bits`` (``decode``/``verify``: a caller may memoise them, as the simulator does)."""
    sketch = decode(data)
    check_live(sketch, now_ms)
    if not in_cell(sketch, cell):
        raise InvalidCard(f"the sketch of {sketch.peer_id} does not belong in this page's bucket")
    if min_bits > 0 and sketch_stamp_bits(sketch) < min_bits:
        raise InvalidCard(
            f"the sketch of {sketch.peer_id} has a stamp of {sketch_stamp_bits(sketch)} bits; this page "
            f"holder takes {min_bits} at least (issue a version 3 sketch with a stronger stamp)"
        )
    verify(sketch)
    return sketch


def validate_page(
    key: str,
    data: bytes,
    now_ms: int,
    *,
    decode: Decode = decode_sketch,
    verify: Verify = verify_sketch,
    min_bits: int = 0,
) -> list[SignedSketch]:
    """Every entry of a page put under ``key`` checked (:func:`check_entry`); at least one, one per peer."""
    cell = parse_page_key(key)
    entries = [
        check_entry(e, cell, now_ms, decode=decode, verify=verify, min_bits=min_bits)
        for e in decode_page(data)
    ]
    if not entries:
        raise InvalidCard("a page put must hold at least one sketch")
    if len({s.peer_id for s in entries}) != len(entries):
        raise InvalidCard("a page lists each peer once")
    return entries


@dataclass(frozen=True, slots=True)
class Merge:
    """The outcome of :func:`merge_page`: the page to store (``None``: keep what is held) and the peers
    whose entry was added (new to the page) or replaced by a newer version."""

    page: bytes | None
    added: tuple[PeerId, ...] = ()
    replaced: tuple[PeerId, ...] = ()
    refused: int = 0


def merge_page(
    held: bytes | None,
    incoming: list[SignedSketch],
    now_ms: int,
    *,
    admit: Iterable[PeerId] | None = None,
    limit: int = PAGE_ENTRIES,
    decode: Decode = decode_sketch,
) -> Merge:
    """Merge checked ``incoming`` sketches into the ``held`` page: a peer's entry is replaced by a higher
    card version; a new peer is added while the page has room and (``admit``) it is among the admitted
    peers; expired entries are dropped. ``held`` was checked when it was stored (not again here)."""
    kept: dict[PeerId, SignedSketch] = {}
    for sketch in read_page(held, now_ms, decode=decode):
        kept.setdefault(sketch.peer_id, sketch)
    before = {p: s.version for p, s in kept.items()}
    allowed = None if admit is None else set(admit)
    added, replaced, refused = [], [], 0
    for sketch in incoming:
        peer = sketch.peer_id
        old = kept.get(peer)
        if old is not None:
            if sketch.version > old.version:
                kept[peer] = sketch
                replaced.append(peer)
        elif len(kept) < limit and (allowed is None or peer in allowed):
            kept[peer] = sketch
            added.append(peer)
        else:
            refused += 1
    changed = added or replaced or len(kept) != len(before) or held is None
    page = encode_page(s.encoded for s in kept.values()) if changed and kept else None
    return Merge(page, tuple(added), tuple(replaced), refused)


def store_page(
    held: bytes | None,
    key: str,
    value: bytes,
    now_ms: int,
    admit_new: Callable[[PeerId], bool],
    *,
    decode: Decode = decode_sketch,
    verify: Verify = verify_sketch,
    min_bits: int = 0,
) -> Merge:
    """What a storing peer does with a page put under ``key``: every entry checked
    (:func:`validate_page`, with ``min_bits`` of stamp; raises :class:`InvalidMessage`), then merged into
    ``held``; a peer new to the page is added only when ``admit_new(peer)`` (the node's rate limits per
    provider, per source network and in total)."""
    incoming = validate_page(key, value, now_ms, decode=decode, verify=verify, min_bits=min_bits)
    present = {s.peer_id for s in read_page(held, now_ms, decode=decode)}
    admitted = present | {s.peer_id for s in incoming if s.peer_id not in present and admit_new(s.peer_id)}
    return merge_page(held, incoming, now_ms, admit=admitted, decode=decode)


def _held_entries(held: bytes | None) -> list[bytes]:
    if held is None:
        return []
    try:
        return decode_page(held)
    except InvalidMessage:
        return []


def read_page(data: bytes | None, now_ms: int, *, decode: Decode = decode_sketch) -> list[SignedSketch]:
    """A reader's view of a page: its well-formed, live entries (signatures NOT verified: a reader
    verifies the entries it acts on); a malformed page reads as empty."""
    out = []
    for entry in _held_entries(data):
        try:
            sketch = decode(entry)
            check_live(sketch, now_ms)
        except InvalidMessage:
            continue
        out.append(sketch)
    return out


def read_copies(
    values: Iterable[bytes | None], now_ms: int, *, decode: Decode = decode_sketch
) -> list[SignedSketch]:
    """A reader's view of the copies of one page that a lookup collected (every storing peer that answered
    holds its own, mostly the same): each peer's entry once, its highest version (:func:`read_page`'s
    rules). A search offers this, not every copy: with the copies of a page counted one by one, a
    10,000-node search's seed round (48 pages read from ~3 peers each) used up its whole byte budget
    and the search never expanded (docs/performance.md)."""
    best: dict[PeerId, SignedSketch] = {}
    for value in values:
        for sketch in read_page(value, now_ms, decode=decode):
            held = best.get(sketch.peer_id)
            if held is None or sketch.version > held.version:
                best[sketch.peer_id] = sketch
    return list(best.values())


__all__ = [
    "MAX_PAGE_SIZE",
    "PAGE_ENTRIES",
    "PAGE_PREFIX",
    "PAGE_VERSION",
    "Merge",
    "PageCell",
    "check_entry",
    "decode_page",
    "encode_page",
    "in_cell",
    "merge_page",
    "page_key",
    "parse_page_key",
    "read_copies",
    "read_page",
    "store_page",
    "validate_page",
]
