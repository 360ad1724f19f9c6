"""The thin layer over py-libp2p 0.8.1's ``KadDHT`` that discovery needs (network I/O, no policy).

Traps of the library and what this module does about them:

1. ``KadDHT(protocol_prefix=...)`` is ignored (every module imports the constant ``PROTOCOL_ID``,
   ``/ipfs/kad/1.0.0``). The fix, ``use_ioa_kad_protocol`` (``/ioa/kad/1.0.0``), lives with every other
   py-libp2p workaround in :mod:`ioa_p2p.node.net.libp2p_patches` and runs before the node's DHT is built;
   :func:`ensure_ioa_kad_protocol` checks it (and repairs a DHT built before the patch).
2. ``get_value`` answers from the local store without asking the network, and ``find_providers``
   answers only from local provider records whenever any exist (stale reads). Our lookups always ask
   the peers closest to each key (adding what we hold ourselves), so the caller sees what the network
   has now.
3. One request per stream is slow (stream negotiation dominates), and the library's lookups go in
   rounds that wait for their slowest peer. Ours are the pure batched lookup of
   :mod:`ioa_p2p.dht.lookup` driven by :mod:`ioa_p2p.node.net.kad_io`: all requests for one peer are
   pipelined on one stream, answers move their keys on at once, slow peers are hedged.
4. The library resets the stream of a peer that sends more than 10 ADD_PROVIDER in 10 s (the rest of the
   batch is lost): :func:`provide_many` paces each target peer with a
   :class:`~ioa_p2p.dht.provide.ProvidePacer`.
5. Everything the library raises is turned into a result (``None`` / empty / ``False``) here: a failed
   peer is one missing answer, never an exception in the caller.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import trio
from libp2p.custom_types import TProtocol
from libp2p.identity.identify_push.identify_push import push_identify_to_peers
from libp2p.kad_dht.pb.kademlia_pb2 import Message, Record
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo
from libp2p.peer.peerstore import env_to_send_in_RPC

from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.keyspace import estimate_network_size
from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.provide import ProvidePacer, assign
from ioa_p2p.errors import InvalidMessage
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net import libp2p_patches as _patches
from ioa_p2p.node.net.kad_io import (
    PEER_TIMEOUT,
    PROVIDERS,
    VALUE,
    exchange,
    kad_protocol_in_use,
    known_peers,
    run_lookup,
    serves_dht,
)
from ioa_p2p.node.net.sources import current_source

log = logging.getLogger("ioa_p2p.node.net.kad")

IOA_KAD_PROTOCOL = TProtocol(_patches.IOA_KAD_PROTOCOL)
UPSTREAM_KAD_PROTOCOL = TProtocol(_patches.UPSTREAM_KAD_PROTOCOL)
use_ioa_kad_protocol = _patches.use_ioa_kad_protocol
#: Peers asked per key (records are stored on the 20 closest; a few answers suffice).
DEFAULT_ASK = 2
#: Peers asked per key at least by the lookups that find where to store a record (better converged).
PLACE_ASK = 3
#: Tries per target peer of one provide round, and the back-off before a retry (times the tries so far).
PROVIDE_ATTEMPTS = 3
PROVIDE_RETRY = 2.0


async def prepare_dht(
    host: Any, dht: Any, namespace: str, validator: Any, admission: CardAdmission | None = None
) -> None:
    """Serve ``dht`` on ``/ioa/kad/1.0.0`` (telling connected peers by identify push when its handler had
    to move) and register ``validator`` (``validate(key, value)`` / ``select(key, values)``) for
    ``namespace``, telling it (``validator.stored``, when it has one) which keys this node stores; with
    ``admission``, provider records are rate-limited per provider and in total (:func:`guard_providers`).
    An identify push that fails is only logged: peers learn the protocol at the next identify."""
    if ensure_ioa_kad_protocol(dht):
        try:
            with trio.move_on_after(5):
                await push_identify_to_peers(host)
        except Exception as exc:
            log.debug("identify push after moving the DHT protocol failed: %s", exc)
    if hasattr(validator, "stored"):
        validator.stored = lambda key: dht.value_store.get(str(key).encode("utf-8")) is not None
    if admission is not None:  # the source network of the request being served (node/net/sources.py)
        admission.source = current_source
    dht.register_validator(namespace, validator)
    if admission is not None:
        guard_providers(dht, admission)
    if hasattr(validator, "store_page"):
        guard_pages(dht, validator, admission)


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


def ensure_ioa_kad_protocol(dht: Any) -> bool:
    """Patch the protocol and serve ``dht`` on it; True when the DHT had been built before the patch."""
    use_ioa_kad_protocol()
    handlers = getattr(dht.host.get_mux(), "handlers", {})
    if UPSTREAM_KAD_PROTOCOL not in handlers:
        return False
    log.info(
        "the node's DHT was built before %s was patched in; moving its handler now "
        "(call ioa_p2p.node.net.kad.use_ioa_kad_protocol() before building the DHT)",
        IOA_KAD_PROTOCOL,
    )
    dht.host.remove_stream_handler(UPSTREAM_KAD_PROTOCOL)
    dht.host.set_stream_handler(IOA_KAD_PROTOCOL, dht.handle_stream)
    return True


async def get_providers_many(
    dht: Any,
    keys: list[bytes],
    *,
    ask: int = DEFAULT_ASK,
    on_found: Callable[[bytes, list[ID]], None] | None = None,
) -> dict[bytes, set[ID]]:
    """Providers of each key, asking the network (plus the providers we hold ourselves); ``on_found(key,
    providers)`` sees each key's providers as answers arrive (ours first), before the lookup ends."""
    lookup = Lookup(keys, known_peers(dht), me=dht.local_peer_id.to_bytes(), ask=ask)
    if on_found is not None:
        for key in lookup.keys:
            on_found(key, [info.peer_id for info in dht.provider_store.get_providers(key)])

    def answer(key: bytes) -> None:
        if on_found is not None:
            on_found(key, [ID(p) for p in lookup.providers(key)])

    await run_lookup(dht, lookup, PROVIDERS, answer)
    out: dict[bytes, set[ID]] = {}
    for key in lookup.keys:
        found = out[key] = {ID(p) for p in lookup.providers(key)}
        found.update(info.peer_id for info in dht.provider_store.get_providers(key))
    return out


async def get_values_many(dht: Any, keys: list[str], *, ask: int = DEFAULT_ASK) -> dict[str, list[bytes]]:
    """Every value stored under each key by the closest peers we reach, plus our own copy (unvalidated)."""
    encoded = {key.encode("utf-8"): key for key in keys}
    lookup = Lookup(encoded, known_peers(dht), me=dht.local_peer_id.to_bytes(), ask=ask)
    await run_lookup(dht, lookup, VALUE)
    out: dict[str, list[bytes]] = {}
    for key_bytes, key in encoded.items():
        values = out[key] = lookup.values(key_bytes)
        record = dht.value_store.get(key_bytes)
        if record is not None and record.value:
            values.append(bytes(record.value))
    return out


async def get_values_from(
    dht: Any, requests: dict[bytes, list[str]], *, per_peer: float = PEER_TIMEOUT
) -> dict[str, list[bytes]]:
    """Ask each peer (ID bytes) for the values it holds under its keys, all peers at once, each bounded by
    ``per_peer`` seconds (a peer that fails is a missing answer; one whose identify says it serves no DHT is
    not asked); callers bound the whole call."""
    out: dict[str, list[bytes]] = {}

    async def ask(peer: bytes, keys: list[str]) -> None:
        messages = [Message(type=Message.MessageType.GET_VALUE, key=k.encode("utf-8")) for k in keys]
        with trio.move_on_after(per_peer):
            try:
                replies = await exchange(dht.host, ID(peer), messages)
            except Exception as exc:
                log.debug("GET_VALUE to %s failed: %r", ID(peer), exc)
                return
            for key, reply in zip(keys, replies, strict=False):
                if (
                    reply.type == Message.MessageType.GET_VALUE
                    and reply.HasField("record")
                    and reply.record.value
                ):
                    out.setdefault(key, []).append(bytes(reply.record.value))

    async with trio.open_nursery() as nursery:
        for peer, keys in requests.items():
            # a peer in DHT client mode (private, behind NAT) serves no KAD requests: not worth a dial
            if peer != dht.local_peer_id.to_bytes() and serves_dht(dht.host, ID(peer)):
                nursery.start_soon(ask, peer, keys)
    return out


async def put_value(dht: Any, key: str, value: bytes, *, ask: int = DEFAULT_ASK) -> bool:
    """Store locally (validated, never replacing a better record) and at the ``K`` closest peers a lookup
    finds, in parallel; False when the library refused (invalid, older) or no peer stored it while peers
    were known."""
    try:
        dht.validator.validate(key, value)
        key_bytes = key.encode("utf-8")
        old = dht.value_store.get(key_bytes)
        if old is not None and old.value != value and dht.validator.select(key, [value, old.value]) != 0:
            raise ValueError("refusing to replace a newer value with an older one")
        dht.value_store.put(key_bytes, value)
    except Exception as exc:  # validator errors, an older version
        log.info("DHT put of %s refused: %s", key, exc)
        return False
    lookup = Lookup([key_bytes], known_peers(dht), me=dht.local_peer_id.to_bytes(), ask=max(ask, PLACE_ASK))
    await run_lookup(dht, lookup, VALUE)
    targets = lookup.keys[key_bytes].candidates
    stored = 0

    request = put_request(dht, key_bytes)

    async def store(peer: bytes) -> None:
        nonlocal stored
        with trio.move_on_after(PEER_TIMEOUT):
            stored += await store_at(dht, peer, request)

    async with trio.open_nursery() as nursery:
        for peer in targets:
            nursery.start_soon(store, peer)
    return stored > 0 or not targets


def put_request(dht: Any, key: bytes) -> Message:
    """The PUT_VALUE request for the record this node holds under ``key`` (signed as stored), as
    py-libp2p's ``_store_at_peer`` sends it. Sent with :func:`exchange`, which closes the stream even
    when the caller's deadline ends the request (the library's client left it open at the peer, holding
    one of its DHT handler slots: :mod:`~ioa_p2p.node.net.kad_slots`), in one round trip instead of
    three."""
    record, _ = dht.value_store.store[key]
    message = Message(type=Message.MessageType.PUT_VALUE, key=key)
    message.record.CopyFrom(record)
    message.record.ClearField("timeReceived")
    message.senderRecord, _ = env_to_send_in_RPC(dht.host)
    return message


async def store_at(dht: Any, peer: bytes, request: Message) -> bool:
    """Send one PUT_VALUE (:func:`put_request`) to ``peer``; whether it stores the record. Its stream is
    closed however the request ends (the caller's deadline included). A refused put counts when the
    peer already holds this record or one the validator prefers (:func:`holds_record`): py-libp2p
    refuses (resets) a put of the record it holds (its ``select`` keeps the held one on a tie, where
    go-libp2p keeps the new one), so every re-put of an unchanged card failed at every peer."""
    try:
        [reply] = await exchange(dht.host, ID(peer), [request])
    except Exception as exc:  # dial / negotiation / stream errors, or refused
        log.debug("PUT_VALUE to %s failed: %r", ID(peer), exc)
        return await holds_record(dht, peer, request)
    return bool(reply.type == Message.MessageType.PUT_VALUE and reply.key == request.key)


async def holds_record(dht: Any, peer: bytes, put: Message) -> bool:
    """Whether ``peer`` answers GET_VALUE for ``put``'s key with its record or a valid one the validator
    prefers to it (a newer version)."""
    try:
        [reply] = await exchange(
            dht.host, ID(peer), [Message(type=Message.MessageType.GET_VALUE, key=put.key)]
        )
        held, ours = bytes(reply.record.value), bytes(put.record.value)
        if reply.type != Message.MessageType.GET_VALUE or not held:
            return False
        if held == ours:
            return True
        key = put.key.decode("utf-8")
        dht.validator.validate(key, held)
        return bool(dht.validator.select(key, [ours, held]) == 1)
    except Exception as exc:  # unreachable, reset, undecodable, invalid: it does not hold ours
        log.debug("GET_VALUE to %s after a refused put failed: %r", ID(peer), exc)
        return False


async def provide_many(dht: Any, keys: list[bytes], pacer: ProvidePacer, *, ask: int = DEFAULT_ASK) -> int:
    """Announce ourselves as provider of ``keys`` to the ``K`` closest peers of each (and locally); returns
    how many (peer, key) announcements were acknowledged.

    One batched lookup finds the closest peers of every key; every target peer then gets its keys
    pipelined on one stream, as many as ``pacer`` allows now (py-libp2p resets the stream past 10
    ADD_PROVIDER per 10 s from one peer), the rest when the pacer allows. Callers bound the whole call.
    """
    me = dht.host.get_id()
    addrs = list(dht.host.get_addrs())
    for key in keys:
        dht.provider_store.add_provider(key, PeerInfo(me, addrs))
    if not addrs:
        return 0
    lookup = Lookup(keys, known_peers(dht), me=me.to_bytes(), ask=max(ask, PLACE_ASK))
    await run_lookup(dht, lookup, PROVIDERS)
    # every closest candidate, including those that timed out during the lookup (busy, not gone: the
    # ADD_PROVIDER has its own tries)
    remaining = assign({key: state.candidates for key, state in lookup.keys.items()})
    acknowledged = 0
    failures: dict[bytes, int] = {}
    retry_at: dict[bytes, float] = {}

    async def announce(peer: bytes, peer_keys: list[bytes]) -> None:
        nonlocal acknowledged
        requests = []
        for key in peer_keys:
            message = Message(type=Message.MessageType.ADD_PROVIDER, key=key)
            provider = message.providerPeers.add()
            provider.id = me.to_bytes()
            provider.addrs.extend(addr.to_bytes() for addr in addrs)
            requests.append(message)
        replies: list[Any] = []
        with trio.move_on_after(PEER_TIMEOUT):
            try:
                replies = await exchange(dht.host, ID(peer), requests)
            except Exception as exc:  # reset (the peer's inbound limit), refused, unreachable
                log.debug("ADD_PROVIDER to %s failed: %r", ID(peer), exc)
        done = sum(r.type == Message.MessageType.ADD_PROVIDER for r in replies)
        acknowledged += done
        if done < len(peer_keys) and failures.get(peer, 0) < PROVIDE_ATTEMPTS - 1:
            failures[peer] = failures.get(peer, 0) + 1  # the unacknowledged keys go again later
            remaining[peer] = peer_keys[done:] + remaining.get(peer, [])
            retry_at[peer] = trio.current_time() + PROVIDE_RETRY * failures[peer]

    while remaining:
        now = trio.current_time()
        async with trio.open_nursery() as nursery:
            for peer, peer_keys in list(remaining.items()):
                if retry_at.get(peer, now) > now:
                    continue
                count = pacer.take(peer, len(peer_keys), now)
                if count:
                    nursery.start_soon(announce, peer, peer_keys[:count])
                    remaining[peer] = peer_keys[count:]
                if not remaining[peer]:
                    del remaining[peer]
        if remaining:
            now = trio.current_time()
            wake = min(max(pacer.next_free(p, now), retry_at.get(p, now)) for p in remaining)
            await trio.sleep(max(0.05, wake - now))
    return acknowledged


async def put_many(dht: Any, keys: list[str], value: bytes, *, ask: int = DEFAULT_ASK) -> int:
    """Store ``value`` under every key locally (validated; bucket pages merge) and at the ``K`` closest
    peers of each: one batched lookup finds them, then every target peer gets its keys as ``PUT_VALUE``
    pipelined on one stream (py-libp2p limits no rate of puts), each bounded by the per-peer timeout;
    returns how many (peer, key) puts were acknowledged. Callers bound the whole call."""
    stored: list[bytes] = []
    for key in dict.fromkeys(keys):
        try:
            dht.validator.validate(key, value)
            dht.value_store.put(key.encode("utf-8"), value)
            stored.append(key.encode("utf-8"))
        except Exception as exc:  # validator errors
            log.info("DHT put of %s refused: %s", key, exc)
    if not stored:
        return 0
    me = dht.local_peer_id.to_bytes()
    lookup = Lookup(stored, known_peers(dht), me=me, ask=max(ask, PLACE_ASK))
    await run_lookup(dht, lookup, VALUE)
    plan = assign({key: state.candidates for key, state in lookup.keys.items()})
    acknowledged = 0

    async def put_at(peer: bytes, peer_keys: list[bytes]) -> None:
        nonlocal acknowledged
        messages = []
        for key in peer_keys:
            message = Message(type=Message.MessageType.PUT_VALUE, key=key)
            message.record.key, message.record.value = key, value
            messages.append(message)
        with trio.move_on_after(PEER_TIMEOUT):
            try:
                replies = await exchange(dht.host, ID(peer), messages)
            except Exception as exc:  # reset, refused, unreachable
                log.debug("PUT_VALUE to %s failed: %r", ID(peer), exc)
                return
            acknowledged += sum(r.type == Message.MessageType.PUT_VALUE for r in replies)

    async with trio.open_nursery() as nursery:
        for peer, peer_keys in plan.items():
            nursery.start_soon(put_at, peer, peer_keys)
    return acknowledged


def routing_table_size(dht: Any) -> int:
    return int(dht.routing_table.size())


def network_size(dht: Any) -> float:
    """How many peers the network has, estimated from the routing table (:mod:`ioa_p2p.dht.keyspace`)."""
    return estimate_network_size(dht.local_peer_id.to_bytes(), known_peers(dht))


__all__ = [
    "IOA_KAD_PROTOCOL",
    "ensure_ioa_kad_protocol",
    "get_providers_many",
    "guard_pages",
    "guard_providers",
    "get_values_from",
    "get_values_many",
    "kad_protocol_in_use",
    "network_size",
    "prepare_dht",
    "provide_many",
    "put_many",
    "put_value",
    "routing_table_size",
    "serves_dht",
    "use_ioa_kad_protocol",
]
