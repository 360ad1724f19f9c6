"""Kademlia messages on py-libp2p streams, and the driver of the pure lookup (network I/O, no policy).

- :func:`exchange`: several requests pipelined on one ``/ioa/kad/1.0.0`` stream, one reply read per
  request with a buffered frame reader (the library reads varint prefixes byte by byte, and serves any
  number of requests per stream); the stream's protocol negotiation is sent with the requests
  (:mod:`~ioa_p2p.node.net.lazy_select`), so an exchange on an open connection is one round trip, not
  three; one that has to dial sends its requests with Noise's last message
  (:func:`~ioa_p2p.node.net.lazy_upgrade.pipelined_dials`): dial and requests 3 round trips, not 4.
  With another agent of this process (``[[agents]]``) the exchange is an in-memory stream that
  agent's DHT handler answers (:mod:`~ioa_p2p.node.net.local_streams`): no connection, no negotiation.
- :func:`run_lookup`: drives a :class:`~ioa_p2p.dht.lookup.Lookup` (which peers, which keys, when it is
  done) over the network (``GET_PROVIDERS``, ``GET_VALUE``, or ``FIND_NODE`` for the peer lookups of
  :mod:`~ioa_p2p.node.net.routing`). Each peer gets its keys in one batch; an answer is fed to the lookup
  as soon as it arrives, so the next requests go out at once (no rounds waiting for the slowest peer). A
  peer silent for the *hedge* is reported slow (its keys ask the next candidate as well; its late answer
  still counts), one silent for :data:`PEER_TIMEOUT` failed. The hedge follows measured round trips
  (:func:`hedges_of`, :class:`~ioa_p2p.dht.rtt.Hedges`: ``srtt + 4 rttvar``, :data:`HEDGE_LOW` ..
  :data:`HEDGE_HIGH`, :data:`HEDGE` before any answer), so a loaded network is not asked twice for
  everything: a request over an open connection waits what those requests take; one that has to dial
  waits first for the dial's handshake (the peer answered Noise's first message: it is there) within
  the *reach* wait measured from earlier handshakes (at least :data:`REACH_LOW`), then what a request
  on an open connection takes. A peer that has gone never answers the handshake, so it is noticed
  after ~2 round trips, not after a dial and a request's wait. Peers that missed their reach wait or
  failed are remembered for :data:`~ioa_p2p.dht.rtt.SUSPECT_TTL` (:func:`unreached_of`): later lookups
  still ask them but do not wait for them; while dials keep missing (churn), each key also asks one
  spare candidate (``Hedges.spare``). A request that failed without a connection is a failure of the
  contact, an answer a sign of life, and stale contacts (the remote ended their connection) are
  suspected too (:mod:`~ioa_p2p.node.net.stale_contacts`). A peer this node is connected to has not
  gone: its failed request (busy: reset, timed out) is not remembered, it is never suspected, and a
  lookup that dials none of its first candidates asks no spare (``dht/rtt.py``: what suspecting busy
  peers cost at N = 50). When the lookup is done, requests still in flight are cancelled.
  Callers bound the whole lookup with their own cancel scope.
- Reply parsing: closer peers' and providers' addresses go into the peerstore (so they can be dialled);
  peer IDs cross into the pure lookup as their bytes. Peers whose identify says they do not serve the DHT
  (clients behind NAT) are never asked (:func:`serves_dht`).

Everything the library raises for one peer is that peer's failure, never the caller's exception.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable
from typing import Any

import trio
import varint
from libp2p.kad_dht import kad_dht as _kad_dht_module
from libp2p.kad_dht.common import MAX_DHT_MESSAGE_SIZE
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.peer.id import ID
from multiaddr import Multiaddr

from ioa_p2p.dht.keyspace import estimate_network_size
from ioa_p2p.dht.lookup import Lookup, grace_after_covered
from ioa_p2p.dht.netsize import SizeEstimate
from ioa_p2p.dht.rtt import REACH_LOW, Hedges, RoundTrips, Unreached
from ioa_p2p.dht.timing import RequestTiming
from ioa_p2p.dht.timing import record as record_timing
from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.lazy_select import open_lazy_stream
from ioa_p2p.node.net.lazy_upgrade import pipelined_dials
from ioa_p2p.node.net.stale_contacts import contacts_of, note_failure, note_heard
from ioa_p2p.node.net.traffic import kad_traffic

log = logging.getLogger("ioa_p2p.node.net.kad")

#: Seconds before a peer that has not answered is reported slow (its keys ask the next candidate too),
#: before any round trip was measured; then between HEDGE_LOW and HEDGE_HIGH (:func:`round_trips_of`).
#: The hedge never drops below 0.4 s: hedged peers do not finish a key, so a shorter hedge under uneven
#: load moved puts and gets to farther peers that disagree (a late joiner's pages were not found,
#: tests/test_discovery_net.py); it grows when answers are slow, so a loaded network is not asked twice.
HEDGE = 0.4
HEDGE_LOW, HEDGE_HIGH = 0.4, 1.5
#: Seconds before a peer that has not answered is given up.
PEER_TIMEOUT = 5.0
# REACH_LOW (from dht/rtt.py): a dial's handshake (TCP, Noise's first exchange) never gets less.
ATTEMPTS = 2
READ_CHUNK = 64 * 1024
ADDR_TTL = 600
PROVIDERS, VALUE, CLOSEST = "providers", "value", "closest"
#: What a request's task hands the lookup's driver: the peer, its replies (None: failed; :data:`_REACHED`:
#: its dial's handshake is through, the replies follow), its timing.
_Answer = tuple[bytes, list[Any] | None, RequestTiming | None]
_REACHED: list[Any] = []
_REQUEST = {
    PROVIDERS: Message.MessageType.GET_PROVIDERS,
    VALUE: Message.MessageType.GET_VALUE,
    CLOSEST: Message.MessageType.FIND_NODE,
}


def kad_protocol_in_use() -> str:
    """The protocol ID py-libp2p's KadDHT module speaks now (read at call time: the patch rebinds it)."""
    return str(_kad_dht_module.PROTOCOL_ID)  # type: ignore[attr-defined]


def known_peers(dht: Any) -> list[bytes]:
    """Every peer the node knows for routing (its routing table and its connections) as ID bytes, leaving
    out peers whose identify says they do not serve the DHT (clients: nodes behind NAT run in client mode)
    and stale contacts without a connection (:mod:`~ioa_p2p.node.net.stale_contacts`: not named to others
    either)."""
    connected = set(dht.host.get_connected_peers())
    stale = contacts_of(dht).peers
    table = {p for p in dht.routing_table.get_peer_ids() if not stale or p.to_bytes() not in stale}
    peers = table | connected
    peers.discard(dht.local_peer_id)
    return [p.to_bytes() for p in peers if serves_dht(dht.host, p)]


def serves_dht(host: Any, peer: ID) -> bool:
    """False only when identify told us ``peer``'s protocols and the DHT's is not among them."""
    try:
        protocols = {str(p) for p in host.get_peerstore().get_protocols(peer)}
    except Exception:  # not identified (yet): it may serve the DHT
        return True
    return not protocols or kad_protocol_in_use() in protocols


def hedges_of(dht: Any) -> Hedges:
    """The measured round trips of ``dht``'s lookup requests, whose waits are the hedges (kept on the DHT
    object: one per node)."""
    hedges = getattr(dht, "_ioa_hedges", None)
    if not isinstance(hedges, Hedges):
        hedges = Hedges(low=HEDGE_LOW, high=HEDGE_HIGH, initial=HEDGE, reach=True, reach_low=REACH_LOW)
        with contextlib.suppress(AttributeError):
            dht._ioa_hedges = hedges
    return hedges


def round_trips_of(dht: Any) -> RoundTrips:
    """The round trips of ``dht``'s lookup requests over open connections (:func:`hedges_of`)."""
    return hedges_of(dht).open


def unreached_of(dht: Any) -> Unreached:
    """The peers ``dht``'s lookups recently failed to reach (kept on the DHT object: one per node)."""
    unreached = getattr(dht, "_ioa_unreached", None)
    if not isinstance(unreached, Unreached):
        unreached = Unreached()
        with contextlib.suppress(AttributeError):
            dht._ioa_unreached = unreached
    return unreached


def size_estimate_of(dht: Any) -> SizeEstimate:
    """The pooled size estimate of ``dht``'s node (:mod:`~ioa_p2p.dht.netsize`; kept on the DHT object)."""
    estimate = getattr(dht, "_ioa_size", None)
    if not isinstance(estimate, SizeEstimate):
        estimate = SizeEstimate(dht.local_peer_id.to_bytes())
        with contextlib.suppress(AttributeError):
            dht._ioa_size = estimate
    return estimate


#: Seconds a node's size estimate is reused (unless a lookup offered new draws meanwhile): several loops
#: of every agent ask for it each second (the publishing loop's levels and growth rules, the pages, the
#: census), and each ask listed and hashed every peer known, ~100 at N = 101 (issue 26, l-idle9).
SIZE_MEMO = 1.0


def network_size(dht: Any) -> float:
    """How many peers the network has: the routing table's estimate (:mod:`~ioa_p2p.dht.keyspace`) pooled
    with the draws of the node's finished lookups, damped (:class:`~ioa_p2p.dht.netsize.SizeEstimate`);
    the same value for :data:`SIZE_MEMO` s."""
    try:
        now = trio.current_time()
    except RuntimeError:  # outside trio (no lookup ran there either): the routing table's estimate
        return estimate_network_size(dht.local_peer_id.to_bytes(), known_peers(dht))
    memo = getattr(dht, "_ioa_size_memo", None)
    if isinstance(memo, tuple) and 0 <= now - memo[0] < SIZE_MEMO:
        return float(memo[1])
    known = known_peers(dht)
    local = estimate_network_size(dht.local_peer_id.to_bytes(), known)
    value = size_estimate_of(dht).estimate(local, len(known), now)
    with contextlib.suppress(AttributeError):
        dht._ioa_size_memo = (now, value)
    return value


def _offer_sizes(dht: Any, lookup: Lookup, kind: str) -> None:
    """Each key whose lookup finished is a draw of the network's size (:mod:`~ioa_p2p.dht.netsize`); a
    peer lookup's key is a peer's own position (not independent of the peers'): not offered."""
    if kind == CLOSEST:
        return
    estimate, now = size_estimate_of(dht), trio.current_time()
    for key, state in lookup.keys.items():
        if lookup.finished(key):
            estimate.offer(key, state.candidates, now)
    with contextlib.suppress(AttributeError):
        dht._ioa_size_memo = None  # new draws: the next ask pools them


def _dials_ahead(host: Any, lookup: Lookup) -> bool:
    """Whether any key's first candidates (its ``ask`` closest and the spare after them) include a peer this
    node is not connected to: only then may a request miss on a gone peer (``Hedges.spare``)."""
    return any(
        not _connected(host, ID(peer))
        for state in lookup.keys.values()
        for peer in state.candidates[: lookup.ask + 1]
    )


def _connected(host: Any, peer: ID) -> bool:
    try:
        return bool(host.get_network().connections.get(peer))
    except Exception:  # not a swarm (a test double): count it as a dial
        return False


async def run_lookup(
    dht: Any,
    lookup: Lookup,
    kind: str,
    on_answer: Callable[[bytes], None] | None = None,
    *,
    grace: float = 0.0,
) -> None:
    """Drive ``lookup`` until it is done (see the module docstring). ``kind``: providers, value or closest
    (``FIND_NODE``: the keys are peer IDs, the answers only name closer peers);
    ``on_answer(key)`` is called after each answer for ``key`` was applied (to use results early).
    ``grace`` > 0: once every key found something (:attr:`Lookup.covered`), the lookup ends after
    :func:`~ioa_p2p.dht.lookup.grace_after_covered` (that share of the time so far) even if slower peers
    it asked have not answered: a quick lookup does not wait for its slowest peer."""
    send, receive = trio.open_memory_channel[_Answer](math.inf)
    hedges, unreached, stale = hedges_of(dht), unreached_of(dht), contacts_of(dht).peers
    host = dht.host
    if lookup.suspect is None:
        lookup.suspect = lambda peer: (
            unreached.suspects(peer, trio.current_time(), connected=_connected(host, ID(peer)))
            or (peer in stale and not _connected(host, ID(peer)))
        )
    lookup.spare = hedges.spare(dialling=_dials_ahead(host, lookup))
    due: dict[bytes, float] = {}  # peers asked and not reported slow yet: when they will be
    sent: dict[bytes, float] = {}  # every peer asked, until it answers
    dialling: set[bytes] = set()  # peers asked by a dial whose handshake is not through yet
    dialled: set[bytes] = set()  # peers asked by a dial, until they answer
    reached: dict[bytes, float] = {}  # dialled peers whose handshake is through: when it was
    began, ends = trio.current_time(), math.inf
    async with trio.open_nursery() as nursery:
        while True:
            for peer, keys in lookup.requests().items():
                now = sent[peer] = trio.current_time()
                reach = None if _connected(dht.host, ID(peer)) else hedges.reach_wait()
                if reach is None:
                    due[peer] = now + hedges.wait(True)
                    dialled.discard(peer)
                else:
                    due[peer] = now + reach
                    dialling.add(peer)
                    dialled.add(peer)
                nursery.start_soon(_ask, dht, peer, keys, kind, send, now)
            now = trio.current_time()
            if grace > 0 and ends == math.inf and lookup.covered:
                ends = now + grace_after_covered(now - began, grace)
            if lookup.done or now >= ends:
                break
            with trio.move_on_after(max(0.0, min([*due.values(), ends]) - now)):
                peer, replies, timing = await receive.receive()
                now = trio.current_time()
                if replies is _REACHED:
                    if peer in dialling and peer in sent:
                        dialling.discard(peer)
                        reached[peer] = now
                        hedges.sample_reach(now - sent[peer])
                        hedges.note_dial(missed=False)
                        if peer in due:  # not reported slow yet: now it waits as on an open connection
                            due[peer] = now + hedges.wait(True)
                    continue
                due.pop(peer, None)
                dialling.discard(peer)
                asked_at = sent.pop(peer, None)
                if replies is None:  # busy (connected) or gone: only a gone peer is suspected
                    connected = _connected(dht.host, ID(peer))
                    unreached.failed(peer, now, connected=connected)
                    if not connected:  # its dial failed: a failure of the contact (stale_contacts.py)
                        note_failure(dht, ID(peer), now)
                    lookup.failed(peer)
                else:
                    unreached.clear(peer)
                    note_heard(dht, ID(peer))
                    if asked_at is not None:
                        hedges.sample(now - asked_at, peer not in dialled)
                    if peer in reached:  # after its handshake, a request as on an open connection
                        hedges.sample(now - reached.pop(peer), True)
                    _apply(dht, lookup, peer, replies, kind)
                    lookup.batch_done(peer)
                    if on_answer is not None:
                        for key, _ in replies:
                            on_answer(key)
                if timing is not None:
                    timing.handled = now
                continue
            now = trio.current_time()
            for peer, at in list(due.items()):
                if now >= at:
                    if peer in dialling:  # its handshake is not through: probably gone
                        unreached.note(peer, now)
                        hedges.note_dial(missed=True)
                    lookup.slow(peer)
                    del due[peer]  # still in flight: its answer is applied when it comes
        nursery.cancel_scope.cancel()
    _offer_sizes(dht, lookup, kind)


async def _ask(dht: Any, peer: bytes, keys: list[bytes], kind: str, send: Any, queued: float) -> None:
    timing = record_timing(kind, len(keys), queued, trio.current_time())
    requests = [Message(type=_REQUEST[kind], key=key) for key in keys]
    replies: list[Any] | None = None

    def reached() -> None:
        send.send_nowait((peer, _REACHED, None))

    with trio.move_on_after(PEER_TIMEOUT):
        for attempt in range(ATTEMPTS):
            try:
                answers = await exchange(dht.host, ID(peer), requests, on_open=reached)
                replies = list(zip(keys, answers, strict=False))
                if timing is not None:
                    timing.answered = trio.current_time()
                break
            except Exception as exc:  # dial / negotiation / stream resets under load: retry, then give up
                log.debug("KAD requests to %s failed (attempt %d): %r", ID(peer), attempt + 1, exc)
                await trio.sleep(0.05 * (attempt + 1))
    send.send_nowait((peer, replies, timing))


def _apply(dht: Any, lookup: Lookup, peer: bytes, replies: list[Any], kind: str) -> None:
    """Feed one peer's replies to the lookup (peer addresses into the peerstore on the way)."""
    me = dht.local_peer_id.to_bytes()
    for key, reply in replies:
        if reply.type != _REQUEST[kind]:
            continue
        closer = [p for p in _peers(dht, reply.closerPeers) if p != me and serves_dht(dht.host, ID(p))]
        if kind == CLOSEST:
            lookup.answered(peer, key, closer)
        elif kind == PROVIDERS:
            lookup.answered(peer, key, closer, providers=_peers(dht, reply.providerPeers))
        else:
            value = bytes(reply.record.value) if reply.HasField("record") and reply.record.value else None
            lookup.answered(peer, key, closer, value=value)


def _peers(dht: Any, infos: Any) -> list[bytes]:
    """Peer IDs (bytes) of a reply's peer list; the addresses of peers the peerstore cannot dial yet are
    remembered (parsing multiaddrs is the slow part of a reply, and most peers are known)."""
    peerstore = dht.host.get_peerstore()
    me = dht.local_peer_id
    out = []
    for info in infos:
        try:
            peer = ID(info.id)
            if peer != me and info.addrs and not _has_addrs(peerstore, peer):
                peerstore.add_addrs(peer, [Multiaddr(a) for a in info.addrs], ADDR_TTL)
        except Exception:
            continue
        out.append(peer.to_bytes())
    return out


def _has_addrs(peerstore: Any, peer: ID) -> bool:
    try:
        return bool(peerstore.addrs(peer))
    except Exception:  # PeerStoreError: unknown peer
        return False


async def exchange(
    host: Any, peer: ID, requests: list[Any], *, on_open: Callable[[], None] | None = None
) -> list[Any]:
    """Send ``requests`` pipelined on one KAD stream; read one reply per request, in order. The stream's
    negotiation rides with the requests (:mod:`~ioa_p2p.node.net.lazy_select`): one round trip in all.
    Meanwhile the peer's work for us (its answer) is not paced as a stranger's (``NodeBudgets.expecting``).
    ``on_open()`` runs once the stream is open (after a dial: the peer answered the handshake)."""
    with _expecting(host, peer):
        return await _exchange(host, peer, requests, on_open)


def _expecting(host: Any, peer: ID) -> contextlib.AbstractContextManager[None]:
    """``NodeBudgets.expecting(peer)`` on a guarded host (a node's); else nothing."""
    expecting = getattr(host, "ioa_expecting", None)
    try:
        return expecting(PeerId.from_bytes(peer.to_bytes())) if expecting else contextlib.nullcontext()
    except InvalidPeerId:  # not an Ed25519 peer: never a peer of ours, the answer is a stranger's
        return contextlib.nullcontext()


async def _exchange(
    host: Any, peer: ID, requests: list[Any], on_open: Callable[[], None] | None = None
) -> list[Any]:
    stream = _local_stream(host, peer)
    if stream is None:
        with pipelined_dials():  # a dial for these requests sends them with Noise's last message
            stream = await open_lazy_stream(host, peer, kad_protocol_in_use())
    if on_open is not None:
        on_open()
    traffic = kad_traffic(host)
    if traffic is not None:
        traffic.note_requests(requests)
    try:
        payload = b"".join(varint.encode(len(b)) + b for b in (r.SerializeToString() for r in requests))
        await stream.write(payload)
        reader = FrameReader(stream)
        replies = []
        for _ in requests:
            reply = Message()
            reply.ParseFromString(await reader.frame())
            replies.append(reply)
        return replies
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(1.0), contextlib.suppress(Exception):
            await stream.close()


def _local_stream(host: Any, peer: ID) -> Any:
    """An in-process stream to ``peer`` when it is another agent of this process (the DHT's handler there
    answers it: no connection, no negotiation, no encryption on the process's one loop; ``Node.local_stream``,
    :mod:`~ioa_p2p.node.net.local_streams`), else None."""
    opener = getattr(host, "ioa_local_stream", None)
    if opener is None:
        return None
    try:
        return opener(PeerId.from_bytes(peer.to_bytes()), kad_protocol_in_use())
    except InvalidPeerId:  # not an Ed25519 peer: never an agent of ours
        return None


class FrameReader:
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


__all__ = [
    "CLOSEST",
    "HEDGE",
    "HEDGE_HIGH",
    "HEDGE_LOW",
    "PEER_TIMEOUT",
    "REACH_LOW",
    "FrameReader",
    "exchange",
    "kad_protocol_in_use",
    "hedges_of",
    "known_peers",
    "network_size",
    "round_trips_of",
    "run_lookup",
    "size_estimate_of",
    "unreached_of",
]
