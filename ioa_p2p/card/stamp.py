"""The card stamp: a proof of work bound to the card's key and capability content (pure: no I/O, no clock).

Minting a card costs its issuer about ``2**bits`` SHA-256 evaluations; checking it costs one. The work is
bound to the signer's peer ID and to everything the card claims (name, description, skills, task types,
adapter, the structured fields, the embedding model and vector), never to what changes between versions
(addresses, version, issue and expiry times): an agent re-issues its card every ``republish`` seconds
without new work, but a new identity, or a different claim (keyword stuffing included), costs a new stamp.

Specification (``docs/protocol.md`` section 9.1.1)::

    content = canonical_cbor({"peer": <38 peer ID bytes>, "name": ..., "description": ...,
                              "skills": [...], "adapter": ..., "task_types": [...], "languages": [...],
                              "input_types": [...], "output_types": [...], "tools": [...],
                              "model": ..., "dim": ..., "vector": <bytes>})
    digest  = SHA-256(content)
    h       = SHA-256("ioa-p2p/card-stamp/v1" 0x00 || digest || nonce)        (nonce: 1..32 bytes)
    bits    = the number of leading zero bits of h (read big-endian)

A receiver requires ``bits >= [discovery] min_stamp_bits`` of every card it accepts (a version 1 or 2
card, which has no stamp, counts 0 bits). :func:`mint` tries nonces 0, 1, 2, ... (8 bytes, big-endian)
until one reaches ``bits``. SHA-256 is cheap on GPUs: the stamp slows an attacker with one CPU core by
the same factor as an honest node (1 s per card at 20 bits in Python on this project's test machine),
and is meant to work together with the rate limits and the ranking that discount unproven cards.
"""

from __future__ import annotations

import hashlib
import struct
import time
from collections.abc import Callable, Mapping
from typing import Any

from ioa_p2p.errors import InvalidCard, UsageError
from ioa_p2p.wire import canonical

STAMP_CONTEXT = b"ioa-p2p/card-stamp/v1\x00"
#: Largest nonce accepted (bytes).
MAX_NONCE = 32
#: Most bits anyone may ask a stamp to have (beyond that minting would not end in practice).
MAX_BITS = 40
#: :func:`mint` calls its ``pause`` once every this many tries (about 1 ms of hashing here).
PAUSE_TRIES = 1024
#: The capability fields a stamp covers, in addition to the peer (``docs/protocol.md`` section 9.1.1).
STAMPED_FIELDS = (
    "name",
    "description",
    "skills",
    "adapter",
    "task_types",
    "languages",
    "input_types",
    "output_types",
    "tools",
    "model",
    "dim",
    "vector",
)


def content_digest(peer_raw: bytes, fields: Mapping[str, Any]) -> bytes:
    """SHA-256 of the canonical CBOR map of the peer ID and the stamped fields (lists as arrays; a field
    a card version lacks, e.g. ``tools`` of a version 1 card, is an empty array)."""
    content: dict[str, Any] = {"peer": peer_raw}
    for name in STAMPED_FIELDS:
        value = fields.get(name, ())
        content[name] = list(value) if isinstance(value, tuple | list) else value
    return hashlib.sha256(canonical.encode(content)).digest()


def stamp_bits(digest: bytes, nonce: bytes, context: bytes = STAMP_CONTEXT) -> int:
    """The leading zero bits of the stamp hash (0 for an empty or over-long nonce); ``context``: what is
    stamped (a card; a sketch's is ``ioa_p2p.card.sketch.SKETCH_STAMP_CONTEXT``)."""
    if not 1 <= len(nonce) <= MAX_NONCE:
        return 0
    value = int.from_bytes(hashlib.sha256(context + digest + nonce).digest(), "big")
    return 256 - value.bit_length()


def mint(
    digest: bytes,
    bits: int,
    *,
    start: int = 0,
    tries: int | None = None,
    context: bytes = STAMP_CONTEXT,
    pause: Callable[[], None] | None = None,
) -> bytes:
    """A nonce giving ``digest`` at least ``bits`` leading zero bits (about ``2**bits`` hashes; blocking).
    ``tries`` bounds the work (:class:`~ioa_p2p.errors.InvalidCard` when it runs out). ``pause`` is called
    every :data:`PAUSE_TRIES` tries: in a worker thread, :func:`yield_gil` (the loop holds the GIL hashing,
    and a thread that waits for it, the node's event loop, would otherwise get it only when the
    interpreter forces a switch, after 5 ms at best and tens of ms on a loaded machine)."""
    if not 0 <= bits <= MAX_BITS:
        raise UsageError(f"a card stamp has 0..{MAX_BITS} bits, not {bits}")
    if bits == 0:
        return start.to_bytes(8, "big")
    copy = hashlib.sha256(context + digest).copy
    # a hash has ``bits`` leading zero bits when, as 32 big-endian bytes, it sorts below 2**(256 - bits):
    # comparing the bytes skips converting every hash to an int (~35 % of a try; 2**18 tries per stamp,
    # two stamps per agent start)
    limit = (1 << (256 - bits)).to_bytes(32, "big")
    pack = struct.Struct(">Q").pack
    counter = start
    end = (1 << 64) if tries is None else min(1 << 64, start + tries)
    while counter < end:
        stop = end if pause is None else min(end, counter + PAUSE_TRIES)
        while counter < stop:
            h = copy()
            nonce = pack(counter)
            h.update(nonce)
            if h.digest() < limit:
                return nonce
            counter += 1
        if pause is not None and counter < end:
            pause()
    raise InvalidCard(f"no {bits}-bit stamp found in {tries} tries")


def yield_gil() -> None:
    """A ``pause`` for :func:`mint` run in a worker thread: releases the GIL for a moment, so that a thread
    waiting for it (the event loop, woken by the network) takes it now. Measured (a trio loop waking every
    2 ms beside a minting thread, load 22-33 on 2 cores): wake-up delay p50 10-34 ms without it, 0.25-0.43
    ms with it (0.13-0.20 ms with no minting thread), at the same hashing rate."""
    time.sleep(0)


__all__ = [
    "MAX_BITS",
    "MAX_NONCE",
    "PAUSE_TRIES",
    "STAMPED_FIELDS",
    "STAMP_CONTEXT",
    "content_digest",
    "mint",
    "stamp_bits",
    "yield_gil",
]
