"""Putting a node's budgets into its py-libp2p host: :func:`guard_host` (patches 17-20 of
:mod:`ioa_p2p.node.net.libp2p_patches`, which documents each with its sentinel test).

One call, right after the host is made and before it listens, installs every guard that bounds what
peers can make the node hold or do inside py-libp2p (docs/security.md, "Resource budgets"):

- every inbound stream's reads metered: negotiation lines, py-libp2p's own messages in the
  partial-frame budget, a whole-message deadline (:func:`meter_inbound_streams`, patch 17);
- every connection metered: yamux windows enforced, unread bytes in the node's budget, the CPU its
  tasks take charged to its peer, its reads paced while the peer owes (:func:`meter_connections`,
  patch 18); a connection to another agent of the process is the process's own work (not charged,
  not paced: :mod:`ioa_p2p.node.net.cohosted`);
- yamux windows grow to at most :data:`MAX_YAMUX_WINDOW` (:func:`cap_yamux_window`, patch 19);
- the trio instrument that times the tasks working for peers (:mod:`ioa_p2p.node.net.cpu_meter`).

The inbound stream caps (patch 10, with the node-wide ``inbound`` ledger) are installed by the network
(:mod:`ioa_p2p.node.net.network`); :func:`close_connections` (patch 20) runs at shutdown.
"""

from __future__ import annotations

import contextlib
from typing import Any

import trio

from ioa_p2p.errors import InvalidPeerId
from ioa_p2p.identity import PeerId
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.conn_events import socket_of
from ioa_p2p.node.net.cpu_meter import ensure_step_timer, own_work, pace_reads, working_for
from ioa_p2p.node.net.inbound_meter import MessageMeter
from ioa_p2p.node.net.muxer_meter import meter_yamux

#: Largest receive window a yamux stream grows to (upstream: 16 MiB).
MAX_YAMUX_WINDOW = 1024 * 1024


def guard_host(host: Any, budgets: NodeBudgets) -> None:
    """Install the node's budgets into ``host`` (call inside trio, before the host listens)."""
    cap_yamux_window()
    host.ioa_expecting = budgets.expecting  # our requests' answers are not strangers' work (kad_io)
    meter_inbound_streams(host, budgets)
    meter_connections(host, budgets)
    budgets.watch_loop(ensure_step_timer().gauge(budgets))


def cap_yamux_window() -> None:
    """Patch 19: yamux receive windows grow to at most :data:`MAX_YAMUX_WINDOW` (process-wide)."""
    import libp2p.stream_muxer.yamux.yamux as yamux

    if not hasattr(yamux, "MAX_WINDOW_SIZE"):
        raise RuntimeError("py-libp2p's yamux has no MAX_WINDOW_SIZE any more: revisit libp2p_patches")
    yamux.MAX_WINDOW_SIZE = min(yamux.MAX_WINDOW_SIZE, MAX_YAMUX_WINDOW)


def meter_inbound_streams(host: Any, budgets: NodeBudgets) -> None:
    """Patch 17: every inbound stream reads through a :class:`MessageMeter` (bounded negotiation
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
        if not meter.start_negotiation():  # strangers' negotiation slots full: the cheapest refusal
            with contextlib.suppress(Exception):
                await stream.reset()
            return
        meter.install()
        try:
            await upstream(stream)
        finally:
            meter.finish()

    handler.metered = True  # type: ignore[attr-defined]
    handler.contained = getattr(upstream, "contained", False)  # type: ignore[attr-defined]
    network.set_stream_handler(handler)


def meter_connections(host: Any, budgets: NodeBudgets) -> None:
    """Patch 18: each new connection's yamux buffers are metered, its tasks work for its peer (the
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
        if budgets.is_cohosted(peer):  # another agent of this process: the process's own work
            with own_work():
                return await upstream(muxed_conn, *args, **kwargs)
        secured = getattr(muxed_conn, "secured_conn", None)
        if secured is not None and hasattr(secured, "read"):
            pace_reads(secured, budgets, peer)
        with working_for(budgets, peer):  # the connection's tasks, started in here, inherit it
            return await upstream(muxed_conn, *args, **kwargs)

    add_conn.metered = True  # type: ignore[attr-defined]
    network.add_conn = add_conn


async def close_connections(host: Any) -> None:
    """Patch 20: close every connection of ``host`` concurrently (best effort)."""
    conns = connections_of(host)

    async def close(conn: Any) -> None:
        with contextlib.suppress(Exception):  # shutting down: a broken connection is closed enough
            await conn.close()

    async with trio.open_nursery() as nursery:
        for conn in conns:
            nursery.start_soon(close, conn)


def connections_of(host: Any) -> list[Any]:
    """Every connection the host's swarm holds now."""
    network = host.get_network()
    return [conn for peer_conns in list(network.connections.values()) for conn in list(peer_conns)]


def abort_sockets(conns: list[Any]) -> int:
    """Close the TCP socket under each of ``conns`` at once (no I/O, no checkpoint); how many were open.

    What a connection's orderly close could not finish (a GO_AWAY that a peer not reading kept from
    being written, a close cancelled by its deadline) must not leave its socket to the garbage
    collector: a long-running node would keep the descriptor."""
    aborted = 0
    for conn in conns:
        sock = socket_of(conn)
        if sock is not None and sock.fileno() != -1:
            sock.close()
            aborted += 1
    return aborted


def _peer_id(libp2p_id: Any) -> PeerId:
    return PeerId.from_bytes(libp2p_id.to_bytes())


__all__ = [
    "MAX_YAMUX_WINDOW",
    "abort_sockets",
    "cap_yamux_window",
    "close_connections",
    "connections_of",
    "guard_host",
    "meter_connections",
    "meter_inbound_streams",
]
