"""The yamux meter (patch 18, :mod:`ioa_p2p.node.net.muxer_meter`) on py-libp2p's real yamux objects,
fed the way its reader task feeds them: the receive window is enforced, unread bytes are held in the
node's budget (and released as they are read), a full budget sheds the least-trusted stream first,
and a reset stream's bytes are dropped at once (issue 20)."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from libp2p.peer.id import ID
from libp2p.stream_muxer.yamux.yamux import DEFAULT_WINDOW_SIZE, Yamux, YamuxStream

from ioa_p2p.budget import TRUST_PARTNER
from ioa_p2p.config.limits import Limits
from ioa_p2p.identity import Identity
from ioa_p2p.node.net.budgets import NodeBudgets
from ioa_p2p.node.net.muxer_meter import MeteredBuffer, meter_yamux


class _Secured:
    is_initiator = False


def connection(budgets: NodeBudgets, identity: Identity | None = None) -> tuple[Any, Any]:
    peer = (identity or Identity.generate()).peer_id
    conn = Yamux(_Secured(), ID(peer.raw), is_initiator=False)  # type: ignore[arg-type]
    meter = meter_yamux(conn, peer, budgets)
    assert meter is not None
    return conn, peer


def open_inbound(conn: Any, sid: int) -> Any:
    """What yamux's reader does on a SYN: the stream, its (now metered) buffer and event."""
    stream = YamuxStream(sid, conn, False)
    conn.streams[sid] = stream
    conn.stream_buffers[sid] = bytearray()
    conn.stream_events[sid] = trio.Event()
    return stream


def arrive(conn: Any, sid: int, data: bytes) -> None:
    """What yamux's reader does with a DATA frame."""
    conn.stream_buffers[sid].extend(data)
    stream = conn.streams[sid]
    stream.recv_window = max(0, stream.recv_window - len(data))


async def test_unread_bytes_are_held_per_peer_and_released_as_they_are_read() -> None:
    budgets = NodeBudgets(Limits())
    conn, peer = connection(budgets)
    open_inbound(conn, 2)
    assert isinstance(conn.stream_buffers[2], MeteredBuffer)
    arrive(conn, 2, b"x" * 1000)
    assert budgets.unread.held(peer) == 1000
    data = await conn.read_stream(2, 600)
    assert len(data) == 600 and budgets.unread.held(peer) == 400
    await conn.read_stream(2, 1000)
    assert budgets.unread.held_total == 0


async def test_a_sender_past_the_receive_window_gets_its_stream_reset() -> None:
    budgets = NodeBudgets(Limits())
    conn, _ = connection(budgets)
    stream = open_inbound(conn, 2)
    arrive(conn, 2, b"x" * DEFAULT_WINDOW_SIZE)  # exactly its window: fine
    assert not stream.closed and len(conn.stream_buffers[2]) == DEFAULT_WINDOW_SIZE
    arrive(conn, 2, b"y")  # one byte more than it was granted
    assert stream.closed and stream.reset_received
    assert len(conn.stream_buffers[2]) == 0 and budgets.unread.held_total == 0
    assert conn.ioa_meter.resets == 1
    arrive(conn, 2, b"z" * 100)  # whatever it still sends on the dead stream is dropped
    assert len(conn.stream_buffers[2]) == 0


async def test_a_full_unread_budget_sheds_the_stranger_before_the_partner() -> None:
    limits = Limits(unread_bytes_per_peer=300_000, unread_bytes_total=400_000, trusted_share=0.25)
    budgets = NodeBudgets(limits)
    stranger_conn, _ = connection(budgets)
    partner = Identity.generate()
    budgets.trust_peers([partner.peer_id], TRUST_PARTNER)
    partner_conn, _ = connection(budgets, partner)
    one, two = open_inbound(stranger_conn, 2), open_inbound(stranger_conn, 4)
    arrive(stranger_conn, 2, b"a" * 150_000)
    arrive(stranger_conn, 4, b"b" * 150_000)  # strangers may hold 300,000 of the 400,000
    kept = open_inbound(partner_conn, 2)
    arrive(partner_conn, 2, b"p" * 200_000)  # the reserved share, then the stranger's newest stream
    assert not kept.closed and budgets.unread.held(partner.peer_id) == 200_000
    assert two.closed and not one.closed
    assert budgets.unread.held_total == 350_000


async def test_a_reset_streams_unread_bytes_are_dropped_when_it_is_finalized() -> None:
    budgets = NodeBudgets(Limits())
    conn, _ = connection(budgets)
    stream = open_inbound(conn, 2)
    arrive(conn, 2, b"x" * 5000)
    stream.closed = stream.reset_received = stream.recv_closed = True
    async with conn.streams_lock:
        conn._finalize_stream_locked(stream, fully_closed=True)
    assert 2 not in conn.stream_buffers and 2 not in conn.streams  # not kept 60-90 s for a sweeper
    assert budgets.unread.held_total == 0


def test_upstream_yamux_still_buffers_past_the_window_when_unmetered() -> None:
    """The sentinel of patch 18: if upstream starts enforcing the window, the patch can go."""
    import inspect

    source = inspect.getsource(Yamux.handle_incoming)
    assert "peer exceeded" in source and "receive window" in source
    assert "recv_window = 0" in source  # upstream clamps and keeps the data


@pytest.mark.parametrize("name", ["stream_buffers", "_finalize_stream_locked", "streams_lock", "_nursery"])
def test_the_yamux_internals_the_meter_uses_still_exist(name: str) -> None:
    conn = Yamux(_Secured(), ID(Identity.generate().peer_id.raw), is_initiator=False)  # type: ignore[arg-type]
    assert hasattr(conn, name)
