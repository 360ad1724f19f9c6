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
5. Writes (puts, bucket pages, provider records) are :mod:`~ioa_p2p.node.net.kad_write`; what the stores
   accept from other peers (rate limits, merged pages) is :mod:`~ioa_p2p.node.net.kad_store`; both are
   re-exported here.
6. Everything the library raises is turned into a result (``None`` / empty / ``False``) here: a failed
   peer is one missing answer, never an exception in the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import trio
from libp2p.custom_types import TProtocol
from libp2p.identity.identify_push.identify_push import push_identify_to_peers
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID

from ioa_p2p.dht.admission import CardAdmission
from ioa_p2p.dht.lookup import Lookup
from ioa_p2p.dht.timing import record as record_timing
from ioa_p2p.node.net import libp2p_patches as _patches
from ioa_p2p.node.net.kad_io import (
    PEER_TIMEOUT,
    PROVIDERS,
    VALUE,
    exchange,
    kad_protocol_in_use,
    known_peers,
    network_size,
    run_lookup,
    serves_dht,
)
from ioa_p2p.node.net.kad_store import guard_pages, guard_providers
from ioa_p2p.node.net.kad_write import (
    DEFAULT_ASK,
    holds_record,
    provide_many,
    put_many,
    put_request,
    put_value,
    store_at,
)
from ioa_p2p.node.net.sources import current_source

log = logging.getLogger("ioa_p2p.node.net.kad")

IOA_KAD_PROTOCOL = TProtocol(_patches.IOA_KAD_PROTOCOL)
UPSTREAM_KAD_PROTOCOL = TProtocol(_patches.UPSTREAM_KAD_PROTOCOL)
use_ioa_kad_protocol = _patches.use_ioa_kad_protocol


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


async def get_values_many(
    dht: Any,
    keys: list[str],
    *,
    ask: int = DEFAULT_ASK,
    grace: float = 0.0,
    on_value: Callable[[str, bytes], None] | None = None,
) -> dict[str, list[bytes]]:
    """Every value stored under each key by the closest peers we reach, plus our own copy (unvalidated);
    ``grace`` > 0: ends that share of its time after every key has a value (:func:`run_lookup`);
    ``on_value(key, value)`` sees each value as its answer arrives (our own copy first)."""
    encoded = {key.encode("utf-8"): key for key in keys}
    lookup = Lookup(encoded, known_peers(dht), me=dht.local_peer_id.to_bytes(), ask=ask)
    passed: dict[bytes, int] = {}  # values of each key already handed to on_value

    def answer(key: bytes) -> None:
        if on_value is None:
            return
        values = lookup.values(key)
        for value in values[passed.get(key, 0) :]:
            on_value(encoded[key], value)
        passed[key] = len(values)

    if on_value is not None:
        for key_bytes, key in encoded.items():
            record = dht.value_store.get(key_bytes)
            if record is not None and record.value:
                on_value(key, bytes(record.value))
    await run_lookup(dht, lookup, VALUE, answer if on_value is not None else None, grace=grace)
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

    async def ask(peer: bytes, keys: list[str], queued: float) -> None:
        messages = [Message(type=Message.MessageType.GET_VALUE, key=k.encode("utf-8")) for k in keys]
        timing = record_timing("owner", len(keys), queued, trio.current_time())
        with trio.move_on_after(per_peer):
            try:
                replies = await exchange(dht.host, ID(peer), messages)
            except Exception as exc:
                log.debug("GET_VALUE to %s failed: %r", ID(peer), exc)
                return
            if timing is not None:
                timing.answered = timing.handled = trio.current_time()
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
                nursery.start_soon(ask, peer, keys, trio.current_time())
    return out


def routing_table_size(dht: Any) -> int:
    return int(dht.routing_table.size())


__all__ = [
    "IOA_KAD_PROTOCOL",
    "ensure_ioa_kad_protocol",
    "get_providers_many",
    "guard_pages",
    "guard_providers",
    "holds_record",
    "put_request",
    "store_at",
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
