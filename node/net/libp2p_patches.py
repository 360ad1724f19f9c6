"""Every workaround for a py-libp2p 0.8.1 problem, in one place.

Each patch names the problem, what we do, and how ``tests/test_libp2p_patches.py`` notices when upstream
changes make it unnecessary or wrong (those tests fail loudly rather than letting a stale patch linger).

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
   :func:`cache_pubsub_peer_records` remembers, per peer, the record bytes last verified and accepted
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
10. Inbound streams per peer: yamux accepts any number of inbound streams (its 256-slot backlog only
   bounds the streams we open) and the resource manager counts streams only in total (10,000, shared
   with outbound streams). :func:`cap_inbound_streams` wraps the host's resource manager so that an
   inbound stream of a peer that already has ``per_peer`` open (or that the node's budgets do not
   admit) is refused before protocol negotiation (py-libp2p resets it at once); with the node's
   budgets it also holds the node-wide ``inbound_streams_total`` (strangers together leave the
   trusted share free). The test checks the hook still exists and that the caps hold.
11. Unbounded reads of py-libp2p's own protocols: multistream-select reads a negotiation line of
   any announced length into memory (a peer announcing 50 MB lines on its streams took a node to
   733 MB), and Kademlia, identify and GossipSub read messages of up to 1-4 MiB each with no
   deadline. :func:`meter_inbound_streams` gives every inbound stream a metered ``read``
   (:mod:`ioa_p2p.node.net.inbound_meter`): negotiation lines of at most 1 KiB, every message held
   in the node's partial-frame budget until complete, within the whole-frame deadline. The test
   checks that an over-long negotiation line is refused and that upstream still reads it unbounded.
12. The muxer: yamux does not enforce its receive window and keeps the unread bytes of a reset
   stream for 60-90 s (growing with whatever the peer still sends on it). :func:`meter_connections`
   wraps the swarm's ``add_conn``: each new connection's stream buffers are metered
   (:mod:`ioa_p2p.node.net.muxer_meter`: window enforced, unread bytes in the node's budget, dead
   streams dropped at once) and its tasks work for the peer, so the CPU they take is charged to it
   and its reads wait while it owes CPU time (:mod:`ioa_p2p.node.net.cpu_meter`). The test checks
   that yamux still buffers past the window when unpatched.
13. Yamux windows grow to 16 MiB per stream (auto-tuning); :func:`apply_patches` caps the growth at
   :data:`MAX_YAMUX_WINDOW` (1 MiB), so that a peer that respects flow control never has more than
   that unread per stream. The test checks the constant still exists.
14. Shutting down: the swarm closes its connections one after the other and yamux sleeps 0.1 s
   in each close, so a node with 50 connections needed 5 s, the whole shutdown budget, and the host
   was left open (trio then reports its nurseries corrupted and the node exits 1).
   :func:`close_connections` closes them all at once before the swarm's own close. The test checks
   that yamux's close still sleeps (while it does, closing one by one is slow).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import libp2p
import libp2p.network.swarm as _swarm

from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.identity import PeerId
from ioa_p2p.logs import apply_third_party_levels
from ioa_p2p.node.net.cpu_meter import OWNER, pace_reads, working_for
from ioa_p2p.node.net.inbound_meter import MessageMeter
from ioa_p2p.node.net.muxer_meter import meter_yamux

if TYPE_CHECKING:
    from ioa_p2p.node.net.budgets import NodeBudgets

#: Largest receive window a yamux stream grows to (patch 13; upstream: 16 MiB).
MAX_YAMUX_WINDOW = 1024 * 1024
#: Seconds a verified signed peer record is trusted again without re-verification (patch 7).
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
    if hasattr(_swarm, "_HAPPY_EYEBALLS_DELAY"):
        _swarm._HAPPY_EYEBALLS_DELAY = 0
    apply_third_party_levels()
    use_ioa_kad_protocol()
    cache_pubsub_peer_records()
    cap_yamux_window()
    _applied = True


def cap_yamux_window() -> None:
    """Patch 13: yamux receive windows grow to at most :data:`MAX_YAMUX_WINDOW`."""
    import libp2p.stream_muxer.yamux.yamux as yamux

    if not hasattr(yamux, "MAX_WINDOW_SIZE"):
        raise RuntimeError("py-libp2p's yamux has no MAX_WINDOW_SIZE any more: revisit libp2p_patches")
    yamux.MAX_WINDOW_SIZE = min(yamux.MAX_WINDOW_SIZE, MAX_YAMUX_WINDOW)


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
    import importlib
    import time

    import libp2p.pubsub.utils as utils

    upstream = utils.maybe_consume_signed_record
    verified: dict[Any, tuple[bytes, float]] = {}

    def consume(msg: Any, host: Any, peer_id: Any) -> bool:
        if not msg.HasField("senderRecord"):
            return True
        record = bytes(msg.senderRecord)
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
    for name in PUBSUB_RECORD_MODULES:
        module = importlib.import_module(name)
        current = getattr(module, "maybe_consume_signed_record", None)
        if current is None:
            raise RuntimeError(
                f"{name}.maybe_consume_signed_record is gone: py-libp2p changed; revisit "
                "ioa_p2p.node.net.libp2p_patches"
            )
        if getattr(current, "upstream", None) is None:
            module.maybe_consume_signed_record = consume  # type: ignore[attr-defined]


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


def cap_inbound_streams(
    host: Any,
    per_peer: int,
    on_refused: Callable[[str], None] | None = None,
    admit: Callable[[str], bool] | None = None,
    budgets: NodeBudgets | None = None,
) -> None:
    """Refuse a peer's inbound streams past ``per_peer`` open at once, or when ``admit(peer)`` says
    no, or past the node-wide ``budgets.inbound`` ledger (by the peer's trust), before negotiation
    (patch 10); ``on_refused(peer)`` hears of each refusal."""
    from libp2p.rcmgr import Direction

    manager = getattr(host.get_network(), "_resource_manager", None)
    if manager is None or not hasattr(manager, "acquire_stream") or not hasattr(manager, "release_stream"):
        raise RuntimeError(
            "py-libp2p's swarm has no resource manager with acquire_stream/release_stream any more: "
            "revisit ioa_p2p.node.net.libp2p_patches"
        )
    acquire, release = manager.acquire_stream, manager.release_stream
    open_inbound: dict[str, int] = {}
    claims: dict[str, list[Any]] = {}

    def refuse(key: str) -> bool:
        if on_refused is not None:
            on_refused(key)
        return False

    def acquire_stream(peer_id: Any, direction: Any) -> bool:
        key = str(peer_id)
        if direction == Direction.INBOUND and (
            open_inbound.get(key, 0) >= per_peer or (admit is not None and not admit(key))
        ):
            return refuse(key)
        claim = None
        if direction == Direction.INBOUND and budgets is not None:
            claim = budgets.inbound.try_claim(key, 1, trust=budgets.trust_of(key))
            if claim is None:
                return refuse(key)
        if not acquire(peer_id, direction):
            if budgets is not None:
                budgets.inbound.release(claim)
            return False
        if direction == Direction.INBOUND:
            open_inbound[key] = open_inbound.get(key, 0) + 1
            if claim is not None:
                claims.setdefault(key, []).append(claim)
        return True

    def release_stream(peer_id: Any, direction: Any) -> None:
        release(peer_id, direction)
        key = str(peer_id)
        if direction == Direction.INBOUND and key in open_inbound:
            open_inbound[key] -= 1
            if not open_inbound[key]:
                del open_inbound[key]
            held = claims.get(key)
            if held and budgets is not None:
                budgets.inbound.release(held.pop())
                if not held:
                    del claims[key]

    manager.acquire_stream = acquire_stream
    manager.release_stream = release_stream
    manager.ioa_open_inbound = open_inbound


def meter_inbound_streams(host: Any, budgets: NodeBudgets) -> None:
    """Patch 11: every inbound stream reads through a :class:`MessageMeter` (bounded negotiation
    lines, py-libp2p's messages held in the partial-frame budget, a whole-message deadline)."""
    network = host.get_network()
    upstream = getattr(network, "common_stream_handler", None)
    if upstream is None:
        raise RuntimeError("py-libp2p's swarm has no common_stream_handler any more: revisit libp2p_patches")
    if getattr(upstream, "metered", False):
        return

    async def handler(stream: Any) -> None:
        try:
            peer = _peer_id(stream.muxed_conn.peer_id)
        except (InvalidPeerId, AttributeError):
            await upstream(stream)  # contained: it resets what it cannot serve
            return
        meter = MessageMeter(stream, peer, budgets)
        meter.install()
        try:
            await upstream(stream)
        finally:
            meter.release()

    handler.metered = True  # type: ignore[attr-defined]
    handler.contained = getattr(upstream, "contained", False)  # type: ignore[attr-defined]
    network.set_stream_handler(handler)


def meter_connections(host: Any, budgets: NodeBudgets) -> None:
    """Patch 12: each new connection's yamux buffers are metered, its tasks work for its peer (the
    CPU they take is charged to it) and its reads wait while the peer owes CPU time."""
    network = host.get_network()
    upstream = getattr(network, "add_conn", None)
    if upstream is None:
        raise RuntimeError("py-libp2p's swarm has no add_conn any more: revisit libp2p_patches")
    if getattr(upstream, "metered", False):
        return

    async def add_conn(muxed_conn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            peer = _peer_id(muxed_conn.peer_id)
        except (InvalidPeerId, AttributeError):
            return await upstream(muxed_conn, *args, **kwargs)
        meter_yamux(muxed_conn, peer, budgets)
        secured = getattr(muxed_conn, "secured_conn", None)
        if secured is not None and hasattr(secured, "read"):
            pace_reads(secured, budgets, peer)
        with working_for(budgets, peer):  # the connection's tasks, started in here, inherit it
            return await upstream(muxed_conn, *args, **kwargs)

    add_conn.metered = True  # type: ignore[attr-defined]
    network.add_conn = add_conn


async def close_connections(host: Any) -> None:
    """Patch 14: close every connection of ``host`` concurrently (best effort)."""
    import trio

    network = host.get_network()
    conns = [conn for peer_conns in list(network.connections.values()) for conn in list(peer_conns)]

    async def close(conn: Any) -> None:
        with contextlib.suppress(Exception):  # shutting down: a broken connection is closed enough
            await conn.close()

    async with trio.open_nursery() as nursery:
        for conn in conns:
            nursery.start_soon(close, conn)


def _peer_id(libp2p_id: Any) -> PeerId:
    return PeerId.from_bytes(libp2p_id.to_bytes())


def quiet_libp2p_logs(level: int = logging.CRITICAL) -> None:
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).setLevel(level)


def libp2p_version() -> str:
    return str(libp2p.__version__)
