"""What the node's Kademlia stores accept from other peers (network-facing limits, no I/O of their own).

py-libp2p's ``KadDHT`` stores any provider record and replaces a value on every put. Patched here, on the
DHT's own stores (:func:`~ioa_p2p.node.net.kad.prepare_dht` installs them):

- :func:`guard_providers`: an ``ADD_PROVIDER`` record of another peer is stored only within the
  :class:`~ioa_p2p.dht.admission.CardAdmission` limits (per provider, per source network, in total);
- :func:`guard_pages`: a bucket page put (``/ioa/page/...``) is merged into the page held
  (:func:`ioa_p2p.dht.pages.store_page`) instead of replacing it; a peer new to a page counts against the
  same limits; the pages held are bounded in number and in sketches (:data:`MAX_PAGES_HELD`,
  :data:`MAX_PAGE_ENTRIES_HELD`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from libp2p.kad_dht.pb.kademlia_pb2 import Record

from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.errors import InvalidMessage
from ioa_p2p.identity import PeerId

log = logging.getLogger("ioa_p2p.node.net.kad")

#: Bucket pages a node stores at most, and sketches in them in total (a full page is ~28 KB): past either,
#: pages new to the node are refused until stored ones expire.
MAX_PAGES_HELD = 4096
MAX_PAGE_ENTRIES_HELD = 40_000


def guard_providers(dht: Any, admission: CardAdmission) -> None:
    """Store an ADD_PROVIDER record of another peer only within ``admission``'s limits (per provider and
    in total; py-libp2p itself refuses more than 10 ADD_PROVIDER per 10 s from one peer, and keeps the
    first 20 providers of a key). Our own records are never limited."""
    store = dht.provider_store
    if getattr(store, "_ioa_guarded", False):
        return
    upstream = store.add_provider
    me = dht.local_peer_id

    def add_provider(key: bytes, provider: Any) -> None:
        peer = getattr(provider, "peer_id", None)
        if (
            peer is not None
            and peer != me
            and not admission.admit_provider(peer.to_bytes(), time.monotonic())
        ):
            log.debug("provider record of %s refused: over the provider rate limit", peer)
            return
        upstream(key, provider)

    store.add_provider = add_provider
    store._ioa_guarded = True


#: Bucket pages a node stores at most, and sketches in them in total (a full page is ~28 KB): past either,
#: pages new to the node are refused until stored ones expire.
MAX_PAGES_HELD = 4096
MAX_PAGE_ENTRIES_HELD = 40_000


def guard_pages(dht: Any, validator: Any, admission: CardAdmission | None) -> None:
    """Merge every bucket page put (``PUT_VALUE`` of ``/ioa/page/...``, ours and others') into the page held
    (``validator.store_page``: :func:`ioa_p2p.dht.pages.store_page`) instead of replacing it; a peer new
    to a page counts against ``admission``'s provider limits; the pages held are bounded in number and in
    sketches (:data:`MAX_PAGES_HELD`, :data:`MAX_PAGE_ENTRIES_HELD`)."""
    store = dht.value_store
    if getattr(store, "_ioa_pages", False):
        return
    upstream_record, upstream_put = store.put_record, store.put
    me = dht.local_peer_id.to_bytes()
    held: dict[bytes, tuple[int, int]] = {}  # page key -> (sketches, latest expiry ms)

    def admit(peer: PeerId) -> bool:
        return peer.raw == me or admission is None or admission.admit_provider(peer.raw, time.monotonic())

    def merged(key: bytes, value: bytes) -> bytes | None:
        text = key.decode("utf-8", "replace")
        old = store.get(key)
        current = bytes(old.value) if old is not None and old.value else None
        if key not in held and not _room_for_page(store, held, int(time.time() * 1000)):
            log.debug("page %s refused: this node holds %d pages already", text, len(held))
            return None
        try:
            result = validator.store_page(text, current, value, admit)
        except InvalidMessage as exc:
            log.debug("page put under %s refused: %s", text, exc)
            return None
        page: bytes | None = result.page
        if page is None:
            return None
        # Imported here: pages need numpy and the LSH forest, which a bootstrap node loads only
        # when a page first arrives (tests/test_light_nodes.py pins what a node imports at start).
        from ioa_p2p.dht.pages import read_page

        entries = read_page(page, int(time.time() * 1000))
        held[key] = (len(entries), max((e.expires_at for e in entries), default=0))
        return page

    def put_record(key: bytes, record: Any) -> None:
        if not validator.is_page(key.decode("utf-8", "replace")):
            upstream_record(key, record)
            return
        page = merged(key, bytes(record.value))
        if page is not None:
            fresh = Record()
            fresh.key, fresh.value, fresh.timeReceived = key, page, record.timeReceived
            upstream_record(key, fresh)

    def put(key: bytes, value: bytes, validity: float = 0.0) -> None:
        if not validator.is_page(key.decode("utf-8", "replace")):
            upstream_put(key, value, validity)
            return
        page = merged(key, value)
        if page is not None:
            upstream_put(key, page, validity)

    store.put_record, store.put = put_record, put
    store._ioa_pages = True


def _room_for_page(store: Any, held: dict[bytes, tuple[int, int]], now_ms: int) -> bool:
    """True when one more page fits; pages whose sketches all expired are dropped to make room."""
    if len(held) < MAX_PAGES_HELD and sum(count for count, _ in held.values()) < MAX_PAGE_ENTRIES_HELD:
        return True
    for key, (_, expiry) in list(held.items()):
        if expiry <= now_ms:
            del held[key]
            store.remove(key)
    return len(held) < MAX_PAGES_HELD and sum(count for count, _ in held.values()) < MAX_PAGE_ENTRIES_HELD


__all__ = ["MAX_PAGES_HELD", "MAX_PAGE_ENTRIES_HELD", "guard_pages", "guard_providers"]
