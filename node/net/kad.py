"""The thin layer over py-libp2p 0.8.1's ``KadDHT`` that discovery needs (network I/O, no policy).

Traps of the library and what this module does about them:

1. ``KadDHT(protocol_prefix=...)`` is ignored (every module imports the constant ``PROTOCOL_ID``,
   ``/ipfs/kad/1.0.0``). The fix, ``use_ioa_kad_protocol`` (``/ioa/kad/1.0.0``), lives with every other
   py-libp2p workaround in :mod:`ioa_p2p.node.net.libp2p_patches` and runs before the node's DHT is built;
   :func:`ensure_ioa_kad_protocol` checks it (and repairs a DHT built before the patch).
2. ``get_value`` answers from the local store without asking the network, and ``find_providers``
   answers only from local provider records whenever any exist (stale reads). :func:`lookup` always
   asks the peers closest to each key (adding what we hold ourselves), so the caller sees what the
   network has now.
3. One request per stream is slow (stream negotiation dominates: a find over 24 LSH buckets opened
   72 streams and took ~0.6 s on 4 in-process nodes). :func:`lookup` is a batched iterative lookup:
   per round, all requests for one peer are pipelined on one stream (the library's handler serves
   any number of requests per stream) and replies are read with a buffered frame reader.
4. Everything the library raises is turned into a result (``None`` / empty) here: a failed peer is
   one missing answer, never an exception in the caller.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

import trio
import varint
from libp2p.custom_types import TProtocol
from libp2p.identity.identify_push.identify_push import push_identify_to_peers
from libp2p.kad_dht import kad_dht as _kad_dht_module
from libp2p.kad_dht.common import BUCKET_SIZE, MAX_DHT_MESSAGE_SIZE
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.kad_dht.utils import sort_peer_ids_by_distance
from libp2p.peer.id import ID
from libp2p.peer.peerinfo import PeerInfo
from multiaddr import Multiaddr

from ioa_p2p.node.net import libp2p_patches as _patches

log = logging.getLogger("ioa_p2p.node.net.kad")

IOA_KAD_PROTOCOL = TProtocol(_patches.IOA_KAD_PROTOCOL)
UPSTREAM_KAD_PROTOCOL = TProtocol(_patches.UPSTREAM_KAD_PROTOCOL)
use_ioa_kad_protocol = _patches.use_ioa_kad_protocol
#: Peers asked per key (records are stored on the BUCKET_SIZE closest; a few answers suffice).
DEFAULT_ASK = 2
#: Rounds of the iterative lookup (each round moves every key closer to its closest peers).
MAX_ROUNDS = 3
PEER_TIMEOUT = 5.0
ATTEMPTS = 2
READ_CHUNK = 64 * 1024
ADDR_TTL = 600


def kad_protocol_in_use() -> str:
    """The protocol ID py-libp2p's KadDHT module speaks now (read at call time: the patch rebinds it)."""
    return str(_kad_dht_module.PROTOCOL_ID)  # type: ignore[attr-defined]


async def prepare_dht(host: Any, dht: Any, namespace: str, validator: Any) -> None:
    """Serve ``dht`` on ``/ioa/kad/1.0.0`` (telling connected peers by identify push when its handler had
    to move) and register ``validator`` (``validate(key, value)`` / ``select(key, values)``) for
    ``namespace``. An identify push that fails is only logged: peers learn the protocol at next identify."""
    if ensure_ioa_kad_protocol(dht):
        try:
            with trio.move_on_after(5):
                await push_identify_to_peers(host)
        except Exception as exc:
            log.debug("identify push after moving the DHT protocol failed: %s", exc)
    dht.register_validator(namespace, validator)


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


def local_closest(dht: Any, key: bytes, count: int = BUCKET_SIZE) -> list[ID]:
    """The peers we know (routing table and connections) closest to ``key`` by XOR distance, leaving out
    peers whose identify says they do not serve the DHT (clients: nodes behind NAT run in client mode)."""
    known = set(dht.routing_table.get_peer_ids()) | set(dht.host.get_connected_peers())
    known.discard(dht.local_peer_id)
    servers = [p for p in known if serves_dht(dht.host, p)]
    return list(sort_peer_ids_by_distance(key, servers))[:count]


def serves_dht(host: Any, peer: ID) -> bool:
    """False only when identify told us ``peer``'s protocols and the DHT's is not among them."""
    try:
        protocols = {str(p) for p in host.get_peerstore().get_protocols(peer)}
    except Exception:  # not identified (yet): it may serve the DHT
        return True
    return not protocols or kad_protocol_in_use() in protocols


@dataclass
class _Lookup:
    """Iterative state of one key: candidates by distance, peers asked, answers."""

    key: bytes
    candidates: list[ID]
    asked: set[ID] = field(default_factory=set)
    providers: set[ID] = field(default_factory=set)
    values: list[bytes] = field(default_factory=list)

    def next_peers(self, ask: int) -> list[ID]:
        """The closest ``ask`` candidates, minus those already asked (empty once converged)."""
        return [p for p in self.candidates[:ask] if p not in self.asked]


async def lookup(
    dht: Any, keys: list[bytes], kind: str, *, ask: int = DEFAULT_ASK, rounds: int = MAX_ROUNDS
) -> dict[bytes, _Lookup]:
    """Batched iterative Kademlia lookup of many keys (``kind`` = ``"providers"`` or ``"value"``).

    Start from the locally known closest peers of each key; each round asks, for every key, its
    ``ask`` closest not-yet-asked candidates, merging the closer peers they return. All requests to
    one peer in a round travel pipelined on one stream (py-libp2p's handler serves several requests
    per stream), so a find costs a few streams per peer instead of one per key and peer.
    """
    states = {key: _Lookup(key, local_closest(dht, key)) for key in dict.fromkeys(keys)}
    for key, state in states.items():
        if kind == "providers":
            state.providers.update(info.peer_id for info in dht.provider_store.get_providers(key))
        else:
            record = dht.value_store.get(key)
            if record is not None and record.value:
                state.values.append(bytes(record.value))
    for _ in range(rounds):
        plan: dict[ID, list[bytes]] = {}
        for state in states.values():
            for peer in state.next_peers(ask):
                state.asked.add(peer)
                plan.setdefault(peer, []).append(state.key)
        if not plan:
            break
        async with trio.open_nursery() as nursery:
            for peer, peer_keys in plan.items():
                nursery.start_soon(_ask_peer, dht, peer, peer_keys, kind, states)
    return states


async def _ask_peer(dht: Any, peer: ID, keys: list[bytes], kind: str, states: dict[bytes, _Lookup]) -> None:
    msg_type = Message.MessageType.GET_PROVIDERS if kind == "providers" else Message.MessageType.GET_VALUE
    requests = [Message(type=msg_type, key=key) for key in keys]
    started = trio.current_time()
    with trio.move_on_after(PEER_TIMEOUT) as scope:
        replies: list[Message] = []
        for attempt in range(ATTEMPTS):
            try:
                replies = await _exchange(dht.host, peer, requests)
                break
            except Exception as exc:  # dial / negotiation / stream resets under load: retry, then give up
                log.debug("KAD requests to %s failed (attempt %d): %r", peer, attempt + 1, exc)
                await trio.sleep(0.05 * (attempt + 1))
        peerstore = dht.host.get_peerstore()
        for key, reply in zip(keys, replies, strict=False):
            if reply.type != msg_type:
                continue
            state = states[key]
            closer = []
            for info in reply.closerPeers:
                try:
                    closer_id = ID(info.id)
                    addrs = [Multiaddr(a) for a in info.addrs]
                except Exception:
                    continue
                if closer_id == dht.local_peer_id:
                    continue
                if addrs:
                    peerstore.add_addrs(closer_id, addrs, ADDR_TTL)
                if serves_dht(dht.host, closer_id):
                    closer.append(closer_id)
            if closer:
                merged = list(dict.fromkeys([*state.candidates, *closer]))
                state.candidates = list(sort_peer_ids_by_distance(key, merged))[:BUCKET_SIZE]
            if kind == "providers":
                for info in reply.providerPeers:
                    try:
                        provider = ID(info.id)
                        addrs = [Multiaddr(a) for a in info.addrs]
                    except Exception:
                        continue
                    if addrs and provider != dht.local_peer_id:
                        peerstore.add_addrs(provider, addrs, ADDR_TTL)
                    state.providers.add(provider)
            elif reply.HasField("record") and reply.record.value:
                state.values.append(bytes(reply.record.value))
    if scope.cancelled_caught:
        log.debug("KAD requests to %s timed out after %.1f s", peer, trio.current_time() - started)


async def _exchange(host: Any, peer: ID, requests: list[Message]) -> list[Message]:
    """Send ``requests`` pipelined on one KAD stream; read one reply per request, in order."""
    stream = await host.new_stream(peer, [TProtocol(kad_protocol_in_use())])
    try:
        payload = b"".join(varint.encode(len(b)) + b for b in (r.SerializeToString() for r in requests))
        await stream.write(payload)
        reader = _FrameReader(stream)
        replies = []
        for _ in requests:
            reply = Message()
            reply.ParseFromString(await reader.frame())
            replies.append(reply)
        return replies
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(1.0), contextlib.suppress(Exception):
            await stream.close()


class _FrameReader:
    """Varint-length-prefixed frames read in large chunks (the library reads prefixes byte by byte)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.buffer = bytearray()

    async def _fill(self) -> None:
        chunk = await self.stream.read(READ_CHUNK)
        if not chunk:
            raise EOFError("KAD stream closed before the reply was complete")
        self.buffer += chunk

    async def frame(self) -> bytes:
        while True:
            length, used = _uvarint(self.buffer)
            if length is not None:
                if length > MAX_DHT_MESSAGE_SIZE:
                    raise ValueError(f"KAD reply of {length} bytes is over the limit")
                while len(self.buffer) < used + length:
                    await self._fill()
                frame = bytes(self.buffer[used : used + length])
                del self.buffer[: used + length]
                return frame
            await self._fill()


def _uvarint(data: bytearray) -> tuple[int | None, int]:
    value = 0
    for i, byte in enumerate(data[:10]):
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value, i + 1
    if len(data) >= 10:
        raise ValueError("bad varint in a KAD reply")
    return None, 0


async def get_providers_many(dht: Any, keys: list[bytes], *, ask: int = DEFAULT_ASK) -> dict[bytes, set[ID]]:
    """Providers of each key, asking the network (never only our local provider store)."""
    states = await lookup(dht, keys, "providers", ask=ask)
    return {key: state.providers for key, state in states.items()}


async def get_values_many(dht: Any, keys: list[str], *, ask: int = DEFAULT_ASK) -> dict[str, list[bytes]]:
    """Every value stored under each key by the closest peers we reach, plus our own copy (unvalidated)."""
    encoded = {key.encode("utf-8"): key for key in keys}
    states = await lookup(dht, list(encoded), "value", ask=ask)
    return {encoded[k]: state.values for k, state in states.items()}


async def put_value(dht: Any, key: str, value: bytes) -> bool:
    """Store locally and at the closest peers; False when the library refused or failed."""
    try:
        await dht.put_value(key, value)
    except Exception as exc:  # validator errors, "refusing to replace newer value", network errors
        log.info("DHT put of %s failed: %s", key, exc)
        return False
    return True


async def provide_many(dht: Any, keys: list[bytes], *, ask: int = DEFAULT_ASK) -> int:
    """Announce ourselves as provider of ``keys`` to the closest peers of each; returns how many
    (peer, key) announcements were acknowledged.

    One batched :func:`lookup` finds the closest peers of every key (its replies carry each peer's
    closest known peers), then every target peer gets all its keys pipelined on one stream. The
    library's ``provide`` costs one iterative lookup and one stream per key and peer instead (8 keys
    took 15-20 s on 10 in-process nodes). Receivers accept at most 10 ADD_PROVIDER per 10 s from us.
    """
    me = dht.host.get_id()
    addrs = list(dht.host.get_addrs())
    for key in keys:
        dht.provider_store.add_provider(key, PeerInfo(me, addrs))
    if not addrs:
        return 0
    states = await lookup(dht, keys, "providers", ask=ask)
    plan: dict[ID, list[bytes]] = {}
    for key, state in states.items():
        for peer in state.candidates[:BUCKET_SIZE]:
            plan.setdefault(peer, []).append(key)
    acknowledged = 0

    async def announce(peer: ID, peer_keys: list[bytes]) -> None:
        nonlocal acknowledged
        requests = []
        for key in peer_keys:
            message = Message(type=Message.MessageType.ADD_PROVIDER, key=key)
            provider = message.providerPeers.add()
            provider.id = me.to_bytes()
            provider.addrs.extend(addr.to_bytes() for addr in addrs)
            requests.append(message)
        with trio.move_on_after(PEER_TIMEOUT):
            try:
                replies = await _exchange(dht.host, peer, requests)
            except Exception as exc:
                log.debug("ADD_PROVIDER to %s failed: %r", peer, exc)
                return
            acknowledged += sum(r.type == Message.MessageType.ADD_PROVIDER for r in replies)

    async with trio.open_nursery() as nursery:
        for peer, peer_keys in plan.items():
            nursery.start_soon(announce, peer, peer_keys)
    return acknowledged


async def provide(dht: Any, key: bytes) -> bool:
    """Announce ourselves as a provider of ``key`` to its closest peers (and locally)."""
    try:
        return bool(await dht.provider_store.provide(key))
    except Exception as exc:
        log.info("DHT provide of %s failed: %s", key.hex(), exc)
        return False


def routing_table_size(dht: Any) -> int:
    return int(dht.routing_table.size())


__all__ = [
    "IOA_KAD_PROTOCOL",
    "ensure_ioa_kad_protocol",
    "get_providers_many",
    "get_values_many",
    "kad_protocol_in_use",
    "local_closest",
    "lookup",
    "provide",
    "provide_many",
    "put_value",
    "routing_table_size",
    "serves_dht",
    "use_ioa_kad_protocol",
]
