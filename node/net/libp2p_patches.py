"""Every workaround for a py-libp2p 0.8.1 problem, in one place.

Each patch names the problem, what we do, and how ``tests/test_libp2p_patches.py`` (patches 11-14:
``tests/test_libp2p_patches_nat.py``) notices when upstream changes make it unnecessary or wrong (those
tests fail loudly rather than letting a stale patch linger).

1. Dial delay: every successful dial waited ``swarm._HAPPY_EYEBALLS_DELAY`` (250 ms) because the delay is
   not cut short after the primary dial succeeds. We set it to 0 (connect goes from ~250 ms to ~25 ms).
   The test checks the constant still exists with its upstream value before patching.
2. Plaintext by default: ``new_host()`` without ``sec_opt`` also accepts ``/plaintext/2.0.0`` (and secio),
   so a peer could claim any peer ID. We always pass a Noise-only ``sec_opt`` (:mod:`ioa_p2p.node.net.host`);
   the tests check that a plaintext dial to our node is refused and that upstream's default still offers
   plaintext.
3. Noisy loggers: py-libp2p sets up its own logger on import (no handler, no propagation, so Python's
   last-resort handler prints thousands of warnings on normal stream closes). :func:`apply_patches` re-applies
   our levels (:func:`ioa_p2p.logs.apply_third_party_levels`) after the import.
5. Kademlia protocol ID: ``KadDHT(protocol_prefix=...)`` is ignored; every Kademlia module imports the
   constant ``PROTOCOL_ID`` (``/ipfs/kad/1.0.0``), so an agent DHT would merge with the public IPFS DHT.
   :func:`use_ioa_kad_protocol` replaces that constant in each of those modules with
   :data:`IOA_KAD_PROTOCOL` (``/ioa/kad/1.0.0``, still standard Kademlia messages); :func:`apply_patches`
   runs it before any DHT is built. The test fails when a module's constant holds anything else.
4. Dial back-off: after a failed dial the swarm refuses to dial that peer again for 60 s. A restarted
   bootstrap or teammate would stay unreachable that long; :func:`unblock_peer` lifts the block before
   each deliberate dial (``Node.connect`` / ``connect_peer``).
6. Connection manager over-dialing: the swarm's ``AutoConnector`` aims for the midpoint of
   ``low_watermark``/``high_watermark`` (100/300: 200 connections) and, below ``min_connections`` (50), dials
   peers from the peerstore every 10 s. Every peer a node ever heard of gets dialed; with 25+ nodes on one
   machine the whole testnet becomes a full mesh of Noise + yamux + identify + GossipSub connections. The
   node manages its connections itself (:mod:`ioa_p2p.node.net.routing`, ``target_peers``);
   :func:`disable_auto_connector` turns the library's cycle into a no-op on each host. The test checks the
   upstream defaults and the method still exist and that a patched host dials nothing by itself.
7. Signed peer record re-verified on every pubsub RPC: py-libp2p attaches the sender's signed peer
   record to every pubsub RPC and the receiver parses and verifies it (Ed25519) each time, then rewrites
   the peerstore. A node re-sends the same record bytes until its addresses change, so
   :func:`cache_pubsub_peer_records` remembers, per receiving host and peer, the record bytes last
   verified and accepted
   and skips the work for identical bytes for :data:`PEER_RECORD_RECHECK` s (then verifies again, which
   also refreshes the record's peerstore TTL). Different bytes are always verified. The test checks
   that a forged record is still refused and that identical bytes are verified once.
8. A raising stream handler ends the whole host: the swarm runs each inbound stream's handler in the
   connection's nursery, under the swarm service; an exception there (py-libp2p's own pubsub handler lets
   ``DecodeError`` through for a frame that is not protobuf, for one) cancels the service, and with it the
   host and every task of the node, silently. :func:`contain_inbound_streams` wraps the host's one
   dispatching handler: any exception but cancellation resets that stream and is counted in the node's
   faults (:mod:`ioa_p2p.faults`). The test shows an unpatched host still dies of it.
9. Pubsub messages: ``push_msg`` runs as a task of the Pubsub service for every received message, and
   ``signature_validator`` re-raises when the message's ``key`` field is not a protobuf key, which fails the
   service (the node ends). :func:`contain_pubsub_messages` stops any exception of one message's handling
   there (the message is dropped and counted). The test checks upstream still raises on such a key.
10. Inbound streams per peer (in :mod:`~ioa_p2p.node.net.stream_caps`): yamux accepts any number of inbound
   streams (its 256-slot backlog only bounds the streams we open) and the resource manager counts streams
   only in total (10,000, shared with outbound streams). :func:`cap_inbound_streams` wraps the host's
   resource manager so that an inbound stream of a peer that already has ``per_peer`` open (or that the
   node's budgets do not admit) is refused before protocol negotiation (py-libp2p resets it at once); with
   the node's budgets it also holds the node-wide ``inbound_streams_total`` (strangers together leave the
   trusted share free). The test checks the hook still exists and that the caps hold.
11. One dial path: the swarm's ``dial_peer`` (behind ``host.connect`` and every ``new_stream`` to a peer
   not connected: the DHT, GossipSub, identify...) tries only the first TCP address it knows
   (``MAX_ADDRS_PER_PEER``, one per transport class), skips loopback addresses whenever others exist,
   never uses ``/p2p-circuit`` addresses, and refuses a peer for 60 s after one failure (its negative
   cache, which kept a restarted peer unreachable). :func:`route_dials` makes it call our
   :class:`~ioa_p2p.node.net.dialer.Dialer` instead; :func:`dial_one_address` dials exactly one address
   (the swarm's single-attempt dial, no retries, no cache). The tests check both internals still exist
   with the signatures we call and that a patched host dials a second address when the first is dead.
12. Advertised addresses: ``BasicHost.get_addrs()`` (what identify, the signed peer record and DCUtR
   advertise) returns the listen addresses as given (``/ip4/0.0.0.0/...``), and its ``addrs_factory``
   hook cannot carry a relay address: ``get_addrs`` strips the first ``/p2p/`` component it finds, which
   turns ``<relay addr>/p2p/<relay>/p2p-circuit`` into the relay's own address claimed as ours.
   :func:`advertise` replaces ``get_addrs`` on the host with our advertised list (each ending in
   ``/p2p/<our id>``). The test checks upstream still mangles a circuit address and that identify and the
   peer record carry ours.
13. Observed addresses: py-libp2p counts an identify observation only when four observers agree on IP
   *and port*; behind a NAT every outbound connection gets its own port, so nothing is ever confirmed.
   :func:`observe_identify` hands every observation (and every closed connection) also to our
   :class:`~ioa_p2p.node.net.observed.ObservedAddrs`, which counts observed IPs. The test checks the
   manager's two methods still exist.
14. AutoNAT dial-back: ``AutoNATService._try_dial`` calls ``host.connect``, which returns the connection
   the request arrived on: every requester is told it is reachable. :func:`probe_address` dials the
   address afresh (the swarm's transport for it, then the security handshake, which proves the peer ID)
   and closes it without registering it; :class:`ioa_p2p.node.net.autonat.AutoNATServer` uses it. The
   test shows upstream's service still answers OK for an address nobody listens on.
15. Hole punching from both ends: ``DCUtRProtocol``'s auto-drive starts a session from both sides of every
   relayed connection; concurrent sessions collide until the attempts are spent.
   :class:`ioa_p2p.node.net.punch.HolePuncher` wraps ``initiate_hole_punch`` (one initiator per pair) and
   ``_perform_hole_punch`` (to mark the connections a punch made). The test checks both still exist and
   that the auto-drive loop still goes through ``initiate_hole_punch``.
16. Not patched but replaced, because too much would need patching: the circuit relay HOP server
   (:mod:`ioa_p2p.node.net.relay_hop` says why) and the relayed dial
   (:func:`ioa_p2p.node.net.relay.dial_circuit`).
17. Unbounded reads: multistream-select reads a negotiation line of any announced length (50 MB
   lines took a node to 733 MB); Kademlia, identify and GossipSub read messages of up to 1-4 MiB with no
   deadline. :func:`~ioa_p2p.node.net.guard.meter_inbound_streams` meters every inbound stream's reads
   (:mod:`ioa_p2p.node.net.inbound_meter`). The test checks upstream still reads lines unbounded.
18. The muxer: yamux does not enforce its receive window and keeps a reset stream's unread bytes for
   60-90 s. :func:`~ioa_p2p.node.net.guard.meter_connections` meters each connection's stream buffers
   (:mod:`ioa_p2p.node.net.muxer_meter`) and charges its tasks' CPU to its peer
   (:mod:`ioa_p2p.node.net.cpu_meter`). The test checks yamux still buffers past the window.
19. Yamux windows grow to 16 MiB per stream; :func:`~ioa_p2p.node.net.guard.cap_yamux_window` caps
   them at 1 MiB. The test checks the constant still exists.
20. Shutting down: the swarm closes connections one after the other and yamux sleeps 0.1 s in each
   close: 50 connections took the whole shutdown budget and left the host open.
   :func:`~ioa_p2p.node.net.guard.close_connections` closes them concurrently first. The test checks
   yamux's close still sleeps.
21. Dials waited for each multistream-select answer (5 round trips): :mod:`~ioa_p2p.node.net.lazy_upgrade`
   sends them with the handshakes (3); ``tests/test_lazy_select.py`` checks the selector's shape.
22. Yamux window credit on nearly every read: :mod:`ioa_p2p.node.net.idle_traffic` (its docstring says all).
23. DHT handler slots kept by streams left open: :mod:`ioa_p2p.node.net.kad_slots` (its docstring says all).
24. Signed peer records re-verified in every Kademlia message (patch 7's problem, in the DHT):
   :mod:`ioa_p2p.node.net.peer_records` (its docstring says all).
25. A cancelled write broke its connection: Noise spends a nonce before the socket write, so a writer
   cancelled in between (a deadline, a hedged request) desynchronised the session and the peer dropped
   the connection (``NoiseInvalidMessage``); at N = 50 processes the idle network spent ~2 cores
   re-making connections. :mod:`ioa_p2p.node.net.atomic_writes` (its docstring says all); its bound on
   a stuck write counts from the write's last progress (``TrioTCPStream.write`` in pieces).
26. A Noise message read in more than 100 pieces ended its connection (``read_exactly`` gave up with the
   socket open): :mod:`ioa_p2p.node.net.whole_reads` (its docstring says all).
27. Identify ran once per connection: a failed first identify left the peer's protocols unknown (no
   GossipSub registration) for the connection's life: :mod:`ioa_p2p.node.net.identify_retry` (its
   docstring says all).
28. Every yamux frame waited its turn under the connection's write lock (4-5 scheduler turns each), and the
   muxer's reader waited there to ACK each new stream, reading nothing meanwhile (issue 26's convoy):
   :mod:`ioa_p2p.node.net.frame_writes` (its docstring says all).
29. Every stream's open and close ran each swarm notifee in a task of its own (a nursery, three tasks,
   2-3 scheduler passes per stream): :mod:`ioa_p2p.node.net.stream_events` (its docstring says all).
30. A free lock still cost a scheduler pass; py-libp2p takes several per read and write:
   :mod:`ioa_p2p.node.net.quick_locks` (its docstring says all).
31. Every TCP read was a schedule point, two per Noise message: under load a connection read about one
   frame per pass of the loop, its bytes piled up in the kernel and new streams (identify) timed out:
   :mod:`ioa_p2p.node.net.buffered_reads` (its docstring says all).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

import libp2p
import libp2p.network.swarm as _swarm

from ioa_p2p.logs import apply_third_party_levels
from ioa_p2p.node.net.atomic_writes import atomic_secure_writes
from ioa_p2p.node.net.buffered_reads import read_socket_in_chunks
from ioa_p2p.node.net.cpu_meter import OWNER
from ioa_p2p.node.net.frame_writes import write_frames_at_once
from ioa_p2p.node.net.identify_retry import retry_identify
from ioa_p2p.node.net.idle_traffic import credit_yamux_in_halves
from ioa_p2p.node.net.lazy_upgrade import negotiate_upgrades_lazily
from ioa_p2p.node.net.peer_records import cache_kad_peer_records, install_record_consumer
from ioa_p2p.node.net.quick_locks import take_free_locks_at_once
from ioa_p2p.node.net.stream_events import notify_stream_events_inline
from ioa_p2p.node.net.whole_reads import read_messages_whole

#: Seconds a verified signed peer record is trusted again without re-verification (patches 7 and 24).
PEER_RECORD_RECHECK = 600.0
PUBSUB_RECORD_MODULES = ("libp2p.pubsub.pubsub", "libp2p.pubsub.gossipsub")
#: The py-libp2p version these patches were written against.
PATCHED_FOR_VERSION = "0.8.1"
#: Upstream's happy-eyeballs delay before we patch it (seconds).
UPSTREAM_HAPPY_EYEBALLS_DELAY = 0.250
IOA_KAD_PROTOCOL = "/ioa/kad/1.0.0"
UPSTREAM_KAD_PROTOCOL = "/ipfs/kad/1.0.0"
KAD_MODULES = (
    "libp2p.kad_dht.common",
    "libp2p.kad_dht.kad_dht",
    "libp2p.kad_dht.peer_routing",
    "libp2p.kad_dht.provider_store",
    "libp2p.kad_dht.value_store",
)

#: ``record(where, peer, exception)``: where a contained exception is counted (``Faults.record``).
FaultSink = Callable[[str, Any, BaseException], None]

_NOISY_LOGGERS = ("libp2p", "multiaddr", "hypercorn", "zeroconf", "aioquic")
_applied = False


def upstream_happy_eyeballs_delay() -> float | None:
    """The value upstream ships (None if the constant is gone: the patch must be revisited)."""
    return _ORIGINAL_DELAY


_ORIGINAL_DELAY: float | None = getattr(_swarm, "_HAPPY_EYEBALLS_DELAY", None)


def apply_patches() -> None:
    """Idempotent; called by :func:`ioa_p2p.node.net.host.new_noise_host` before any host is made."""
    global _applied
    if _applied:
        return
    _swarm._HAPPY_EYEBALLS_DELAY = 0  # (the patch test checks it still exists)
    apply_third_party_levels()
    use_ioa_kad_protocol()
    cache_pubsub_peer_records()
    cache_kad_peer_records(PEER_RECORD_RECHECK)
    negotiate_upgrades_lazily()
    credit_yamux_in_halves()
    atomic_secure_writes()
    write_frames_at_once()
    notify_stream_events_inline()
    take_free_locks_at_once()
    read_messages_whole()
    read_socket_in_chunks()
    retry_identify()
    _applied = True


def use_ioa_kad_protocol() -> None:
    """Make every py-libp2p Kademlia module speak ``/ioa/kad/1.0.0`` (idempotent, process-wide)."""
    import importlib

    from libp2p.custom_types import TProtocol

    for name in KAD_MODULES:
        module = importlib.import_module(name)
        current = getattr(module, "PROTOCOL_ID", None)
        if current not in (UPSTREAM_KAD_PROTOCOL, IOA_KAD_PROTOCOL):
            raise RuntimeError(
                f"{name}.PROTOCOL_ID is {current!r}: py-libp2p changed; revisit "
                "ioa_p2p.node.net.libp2p_patches"
            )
        setattr(module, "PROTOCOL_ID", TProtocol(IOA_KAD_PROTOCOL))  # noqa: B010 - a module of py-libp2p


def cache_pubsub_peer_records() -> None:
    """Verify each peer's signed record once per :data:`PEER_RECORD_RECHECK` s in pubsub (patch 7)."""
    import time
    import weakref

    import libp2p.pubsub.utils as utils

    upstream = utils.maybe_consume_signed_record
    # Per receiving host: the record is stored in that host's peerstore, and the agents of one process
    # (several hosts) each need it in their own (a process-wide cache gave it to the first one only).
    by_host: weakref.WeakKeyDictionary[Any, dict[Any, tuple[bytes, float]]] = weakref.WeakKeyDictionary()

    def consume(msg: Any, host: Any, peer_id: Any) -> bool:
        if not msg.HasField("senderRecord"):
            return True
        record = bytes(msg.senderRecord)
        verified = by_host.get(host)
        if verified is None:
            verified = by_host[host] = {}
        last = verified.get(peer_id)
        now = time.monotonic()
        if last is not None and last[0] == record and now - last[1] < PEER_RECORD_RECHECK:
            return True
        ok = bool(upstream(msg, host, peer_id))
        if ok:
            if len(verified) > 10_000:
                verified.clear()
            verified[peer_id] = (record, now)
        return ok

    consume.upstream = upstream  # type: ignore[attr-defined]
    install_record_consumer(PUBSUB_RECORD_MODULES, consume, __name__)


def unblock_peer(host: Any, peer_id: Any) -> None:
    """Forget a failed dial to ``peer_id`` so the next dial is attempted at once."""
    network = host.get_network()
    if hasattr(network, "unblock_peer"):
        network.unblock_peer(peer_id)


def disable_auto_connector(host: Any) -> None:
    """Stop the swarm's connection manager from dialing peerstore peers on its own (patch 6)."""
    connector = getattr(host.get_network(), "auto_connector", None)
    if connector is None or not hasattr(connector, "maybe_connect"):
        raise RuntimeError(
            "py-libp2p's swarm has no auto_connector.maybe_connect any more: "
            "revisit ioa_p2p.node.net.libp2p_patches"
        )

    async def maybe_connect() -> None:
        return None

    connector.maybe_connect = maybe_connect


def contain_inbound_streams(host: Any, record: FaultSink) -> None:
    """Patch 8: an exception raised while serving one inbound stream resets that stream only."""
    network = host.get_network()
    upstream = getattr(network, "common_stream_handler", None)
    if upstream is None or not callable(getattr(network, "set_stream_handler", None)):
        raise RuntimeError(
            "py-libp2p's swarm has no common_stream_handler / set_stream_handler any more: "
            "revisit ioa_p2p.node.net.libp2p_patches"
        )
    if getattr(upstream, "contained", False):
        return

    async def handler(stream: Any) -> None:
        try:
            await upstream(stream)
        except Exception as exc:  # the point of the patch; cancellation passes
            record(f"libp2p stream {_protocol_of(stream)}", _peer_of(stream), exc)
            with contextlib.suppress(Exception):
                await stream.reset()

    handler.contained = True  # type: ignore[attr-defined]
    network.set_stream_handler(handler)


def contain_pubsub_messages(pubsub: Any, record: FaultSink) -> None:
    """Patch 9: an exception while handling one received pubsub message drops that message only."""
    upstream = getattr(pubsub, "push_msg", None)
    if upstream is None:
        raise RuntimeError(
            "py-libp2p's Pubsub has no push_msg any more: revisit ioa_p2p.node.net.libp2p_patches"
        )
    if getattr(upstream, "contained", False):
        return

    async def push_msg(forwarder: Any, msg: Any) -> None:
        owner = OWNER.get()
        if owner is not None and owner[0].owes(owner[1]):
            return  # the forwarder owes CPU time: its gossip is dropped (gossip is never relied on)
        try:
            await upstream(forwarder, msg)
        except Exception as exc:  # the point of the patch; cancellation passes
            record("pubsub message", str(forwarder), exc)

    push_msg.contained = True  # type: ignore[attr-defined]
    pubsub.push_msg = push_msg


def _protocol_of(stream: Any) -> str:
    try:
        return str(stream.get_protocol() or "(negotiating)")
    except Exception:
        return "(unknown protocol)"


def _peer_of(stream: Any) -> str | None:
    try:
        return str(stream.muxed_conn.peer_id)
    except Exception:
        return None


def quiet_libp2p_logs(level: int = logging.CRITICAL) -> None:
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).setLevel(level)


def libp2p_version() -> str:
    return str(libp2p.__version__)


# --------------------------------------------------------------------------- patches 11-13


def _require(obj: Any, *names: str) -> None:
    missing = [n for n in names if not callable(getattr(obj, n, None))]
    if missing:
        raise RuntimeError(
            f"py-libp2p's {type(obj).__name__} has no {', '.join(missing)} any more: "
            "revisit ioa_p2p.node.net.libp2p_patches"
        )


def live_connections(host: Any, peer_id: Any) -> list[Any]:
    """The swarm's open connections to ``peer_id`` (closed ones left out)."""
    conns = host.get_network().connections.get(peer_id) or []
    return [c for c in conns if not getattr(c, "is_closed", False)]


async def dial_one_address(host: Any, addr: Any, peer_id: Any) -> Any:
    """Patch 11: one dial to exactly ``addr`` (no retry, no negative cache); the started connection."""
    swarm = host.get_network()
    _require(swarm, "_dial_addr_single_attempt")
    conn = await swarm._dial_addr_single_attempt(addr, peer_id)
    started = getattr(conn, "event_started", None)
    if started is not None:
        await started.wait()
    return conn


DialPeer = Callable[[Any], Any]


def route_dials(host: Any, dial: Callable[[Any], Any]) -> None:
    """Patch 11: the swarm's ``dial_peer(peer_id)`` becomes ``[await dial(peer_id)]``; our errors are
    raised as the ``SwarmException`` py-libp2p's callers expect."""
    from libp2p.network.exceptions import SwarmException

    swarm = host.get_network()
    _require(swarm, "dial_peer")

    async def dial_peer(peer_id: Any) -> list[Any]:
        try:
            return [await dial(peer_id)]
        except Exception as exc:  # our DialFailed / PeerUnreachable: the library expects SwarmException
            raise SwarmException(str(exc)) from exc

    swarm.dial_peer = dial_peer


def advertise(host: Any, addrs: Callable[[], list[str]]) -> None:
    """Patch 12: ``host.get_addrs()`` returns ``addrs()`` (multiaddr text without ``/p2p/<our id>``), each
    with ``/p2p/<our id>`` appended; an address the multiaddr library cannot parse is left out."""
    import multiaddr

    if not callable(getattr(host, "get_addrs", None)):
        raise RuntimeError(
            "py-libp2p's BasicHost has no get_addrs any more: revisit ioa_p2p.node.net.libp2p_patches"
        )
    suffix = f"/p2p/{host.get_id()}"

    def get_addrs() -> list[Any]:
        out = []
        for text in addrs():
            with contextlib.suppress(Exception):
                out.append(multiaddr.Multiaddr(text if text.endswith(suffix) else text + suffix))
        return out

    host.get_addrs = get_addrs


def observe_identify(host: Any, record: Callable[[Any, Any], None], forget: Callable[[Any], None]) -> None:
    """Patch 13: ``record(conn, observed_multiaddr)`` for every identify observation py-libp2p records,
    ``forget(conn)`` for every connection it forgets."""
    manager = getattr(host, "_observed_addr_manager", None)
    if manager is None:
        raise RuntimeError(
            "py-libp2p's BasicHost has no _observed_addr_manager any more: revisit "
            "ioa_p2p.node.net.libp2p_patches"
        )
    _require(manager, "record_observation", "remove_conn")
    upstream_record, upstream_remove = manager.record_observation, manager.remove_conn

    def record_observation(conn: Any, observed: Any, local_addrs: Any) -> None:
        upstream_record(conn, observed, local_addrs)
        record(conn, observed)

    def remove_conn(conn: Any) -> None:
        upstream_remove(conn)
        forget(conn)

    manager.record_observation = record_observation
    manager.remove_conn = remove_conn


async def probe_address(host: Any, addr: Any, peer_id: Any) -> None:
    """Patch 14: a fresh connection to ``addr`` that authenticates ``peer_id`` (Noise), then closed; it
    never joins the swarm. Raises when nothing answers there as ``peer_id``."""
    swarm = host.get_network()
    manager = getattr(swarm, "transport_manager", None)
    upgrader = getattr(swarm, "upgrader", None)
    if manager is None or upgrader is None:
        raise RuntimeError(
            "py-libp2p's swarm has no transport_manager / upgrader any more: revisit "
            "ioa_p2p.node.net.libp2p_patches"
        )
    transport = manager.transport_for_dialing(addr)
    if transport is None:
        raise ValueError(f"no transport can dial {addr}")
    raw = await transport.dial(addr)
    try:
        secured = await upgrader.upgrade_security(raw, True, peer_id)
        with contextlib.suppress(Exception):
            await secured.close()
    finally:
        with contextlib.suppress(Exception):
            await raw.close()
