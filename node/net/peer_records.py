"""Patch 24: the signed peer records in Kademlia messages, verified once per peer and record.

py-libp2p 0.8.1 attaches signed peer records (an Ed25519-signed envelope holding a peer's addresses) to
every Kademlia message: the sender's own in every request and answer (``senderRecord``), and one for each
peer a FIND_NODE / GET_VALUE / GET_PROVIDERS answer names (``Message.Peer.signedRecord``). For each of them
``libp2p.kad_dht.utils.maybe_consume_signed_record`` parses the envelope, verifies its signature, decodes
the record's multiaddrs and rewrites the peer's entry in the certified address book, although a peer
re-sends the same bytes until its addresses change (py-libp2p caches the local record and re-issues it only
then). An idle agent of a 25-node testnet spent most of its lookups' CPU here (docs/performance.md, "Idle
CPU and the N = 100 spread"): every own-key lookup asks ~3-20 peers, each answer names up to 20 peers with
their records, mostly the same records every time.

:func:`cache_kad_peer_records` wraps that function in every Kademlia module that imports it. Per receiving
host (each agent of a process has its own peerstore) it remembers, per peer, the record bytes it verified
and accepted and the envelope the peerstore then held. Identical bytes for the same peer are accepted
without the work while (a) fewer than :data:`~ioa_p2p.node.net.libp2p_patches.PEER_RECORD_RECHECK` s
passed and (b) the peerstore still holds that very envelope (not expired, not replaced by a newer record
from identify or pubsub, the peer not forgotten). What the skipped call would have done is therefore
already done: the signature over these exact bytes was checked (the outcome depends on the bytes only),
the record's peer was checked against the claimed one (the same claim: the cache is keyed by it), and the
peerstore holds the record with its addresses, whose 2-hour TTL the re-check every 600 s refreshes long
before it ends. Different bytes, another claimed peer, or a record the peerstore refused (an older
sequence number) are always handled by upstream. The cache holds at most :data:`RECORDS_PER_HOST` peers
per host (least recently used out first; a few hundred bytes each).
"""

from __future__ import annotations

import importlib
import time
import weakref
from collections import OrderedDict
from typing import Any

#: Peers whose verified record a host remembers (least recently used dropped first).
RECORDS_PER_HOST = 2048
#: The Kademlia modules that call ``maybe_consume_signed_record`` (each imported the name itself).
KAD_RECORD_MODULES = (
    "libp2p.kad_dht.utils",
    "libp2p.kad_dht.kad_dht",
    "libp2p.kad_dht.peer_routing",
    "libp2p.kad_dht.provider_store",
    "libp2p.kad_dht.value_store",
)

_Entry = tuple[bytes, float, Any]  # (record bytes, when verified, the envelope the peerstore held)


class VerifiedRecords:
    """Per host: peer (ID bytes) -> the record bytes verified and accepted, when, and the envelope stored."""

    def __init__(self, recheck: float, capacity: int = RECORDS_PER_HOST) -> None:
        self.recheck = recheck
        self.capacity = capacity
        self._by_host: weakref.WeakKeyDictionary[Any, OrderedDict[bytes, _Entry]]
        self._by_host = weakref.WeakKeyDictionary()

    def known(self, host: Any, peer: bytes, raw: bytes, stored: Any) -> bool:
        """True when ``raw`` is what ``host`` verified for ``peer`` less than ``recheck`` s ago and the
        peerstore's envelope for ``peer`` is still ``stored`` (the one that verification stored)."""
        entries = self._by_host.get(host)
        entry = entries.get(peer) if entries is not None else None
        if entry is None or entry[0] != raw or stored is None or entry[2] is not stored:
            return False
        if time.monotonic() - entry[1] >= self.recheck:
            return False
        entries.move_to_end(peer)  # type: ignore[union-attr]  # entries is set when entry is
        return True

    def remember(self, host: Any, peer: bytes, raw: bytes, stored: Any) -> None:
        entries = self._by_host.get(host)
        if entries is None:
            entries = self._by_host[host] = OrderedDict()
        entries[peer] = (raw, time.monotonic(), stored)
        entries.move_to_end(peer)
        while len(entries) > self.capacity:
            entries.popitem(last=False)


def _claim(msg: Any, peer_id: Any) -> tuple[str, bytes] | None:
    """The record field of ``msg`` and the peer it must belong to (ID bytes); None when upstream must
    decide alone (no claimed peer to key the cache by)."""
    from libp2p.kad_dht.pb.kademlia_pb2 import Message

    if isinstance(msg, Message):
        if peer_id is None:
            return None
        return "senderRecord", peer_id.to_bytes()
    return "signedRecord", bytes(msg.id)


def _stored_envelope(host: Any, peer: bytes) -> Any:
    from libp2p.peer.id import ID

    state = host.get_peerstore().peer_record_map.get(ID(peer))
    return None if state is None else state.envelope


def cache_kad_peer_records(recheck: float) -> None:
    """Install the cache in every Kademlia module (idempotent, process-wide)."""
    utils = importlib.import_module("libp2p.kad_dht.utils")
    upstream = getattr(utils, "maybe_consume_signed_record", None)
    if upstream is None:
        raise RuntimeError(
            "libp2p.kad_dht.utils.maybe_consume_signed_record is gone: py-libp2p changed; revisit "
            "ioa_p2p.node.net.peer_records"
        )
    upstream = getattr(upstream, "upstream", upstream)
    verified = VerifiedRecords(recheck)

    def consume(msg: Any, host: Any, peer_id: Any = None) -> bool:
        claim = _claim(msg, peer_id)
        if claim is None:
            return bool(upstream(msg, host, peer_id))
        field, peer = claim
        if not msg.HasField(field):
            return True  # upstream's answer for a message without a record
        raw = bytes(getattr(msg, field))
        if verified.known(host, peer, raw, _stored_envelope(host, peer)):
            return True
        ok = bool(upstream(msg, host, peer_id))
        if ok:
            stored = _stored_envelope(host, peer)
            if stored is not None:
                verified.remember(host, peer, raw, stored)
        return ok

    consume.upstream = upstream  # type: ignore[attr-defined]
    consume.verified = verified  # type: ignore[attr-defined]
    install_record_consumer(KAD_RECORD_MODULES, consume, __name__)


def install_record_consumer(modules: tuple[str, ...], consume: Any, owner: str) -> None:
    """Put ``consume`` (which keeps the library's function as ``consume.upstream``) in place of
    ``maybe_consume_signed_record`` in each of py-libp2p's ``modules``, once (a module already patched keeps
    its wrapper); a module without the function means py-libp2p changed and ``owner`` needs a look."""
    for name in modules:
        module = importlib.import_module(name)
        current = getattr(module, "maybe_consume_signed_record", None)
        if current is None:
            raise RuntimeError(
                f"{name}.maybe_consume_signed_record is gone: py-libp2p changed; revisit {owner}"
            )
        if getattr(current, "upstream", None) is None:
            module.maybe_consume_signed_record = consume  # type: ignore[attr-defined]


__all__ = ["KAD_RECORD_MODULES", "RECORDS_PER_HOST", "VerifiedRecords", "cache_kad_peer_records"]
