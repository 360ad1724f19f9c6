"""Why a connection ended, from both of its ends (``node/net/conn_events.py``; issue 25's "remote closed
mid-frame"): real py-libp2p hosts (TCP, Noise, yamux) on 127.0.0.1, whose TCP bytes the tests write
directly to play a peer that ends the stream inside a Noise message, sends one in many small pieces, or
gives up a stuck write."""

from __future__ import annotations

import contextlib
import itertools
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.atomic_writes import _abandon
from ioa_p2p.node.net.conn_events import RECENT, ConnectionEvents
from ioa_p2p.node.net.host import new_noise_host
from ioa_p2p.node.net.whole_reads import upstream_read_exactly

from .raw_hosts import watched_pair

PROTO = "/test/idle/1"


async def _hold(stream: Any) -> None:
    await trio.sleep_forever()


@asynccontextmanager
async def _pair() -> AsyncIterator[tuple[Any, Any, ConnectionEvents, ConnectionEvents]]:
    async with watched_pair(PROTO, _hold) as (a, b, events_a, events_b):
        await a.new_stream(b.get_id(), [PROTO])  # a stream open at the close: its protocol is recorded
        yield a, b, events_a, events_b


def _tcp(host: Any, peer: Any) -> Any:
    """py-libp2p's TCP stream under ``host``'s one connection to ``peer`` (``write`` takes its lock;
    ``.stream`` is the trio socket stream)."""
    (conn,) = host.get_network().get_connections(peer)
    obj = conn.muxed_conn
    for attr in ("secured_conn", "conn", "read_writer", "read_write_closer", "stream"):
        obj = getattr(obj, attr)
    assert isinstance(obj.stream, trio.SocketStream)
    return obj


async def _until_closed(events: ConnectionEvents) -> dict[str, Any]:
    with trio.fail_after(40):
        for _ in itertools.count():
            if events.snapshot()["closed"]:
                return events.snapshot()
            await trio.sleep(0.02)
    raise AssertionError("unreachable")


@pytest.mark.slow
async def test_an_end_inside_a_noise_message_is_the_remote_s_and_both_ends_are_recorded() -> None:
    with trio.fail_after(120):
        async with _pair() as (a, b, events_a, events_b):
            tcp = _tcp(a, b.get_id())
            await tcp.write(b"\x00\x40" + b"x" * 10)  # a Noise message of 64 bytes, 10 of them sent
            tcp.stream.socket.shutdown(socket.SHUT_WR)  # the end of a's stream (FIN), a still reading
            seen_b, seen_a = await _until_closed(events_b), await _until_closed(events_a)
    assert seen_b["closed"] == {"remote closed mid-frame": 1}, seen_b
    assert list(seen_a["closed"]) in (["remote closed"], ["remote GO_AWAY normal"]), seen_a
    (at_b,), (at_a,) = seen_b["recent"], seen_a["recent"]
    assert at_b["bytes"] == [10, 64] and at_b["direction"] == "inbound" and at_a["direction"] == "outbound"
    assert PROTO in at_b["streams"], at_b
    assert at_b["peer"] == str(a.get_id())[-8:] and at_b["age_s"] >= 0
    # the same connection in both records, its addresses swapped: which end ended it is readable
    assert at_b["remote"].startswith("127.0.0.1:") and at_b["local"].startswith("127.0.0.1:")


#: Bytes of the message sent a byte at a time: four times the reads upstream's ``read_exactly`` retries.
PIECES = 400


async def _message_in_pieces(a: Any, b: Any) -> None:
    """A Noise message of :data:`PIECES` bytes from a to b, sent a byte at a time (the TCP stream's write
    lock held throughout: no other frame of a's gets between the pieces), on a socket that stays open."""
    tcp = _tcp(a, b.get_id())
    async with tcp.write_lock:
        await tcp.stream.send_all(PIECES.to_bytes(2, "big"))
        for _ in range(PIECES):
            try:
                await tcp.stream.send_all(b"y")
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return  # b gave up on the connection (upstream's reader): a's end closed with it
            await trio.sleep(0.002)


@pytest.mark.slow
async def test_a_message_sent_in_many_pieces_keeps_its_connection() -> None:
    """Patch 26: the reader waits for the rest of the message (here: bytes that are no valid Noise
    message, so once whole it fails to decrypt; what matters is that it was read whole)."""
    with trio.fail_after(120):
        async with _pair() as (a, b, events_a, events_b):
            await _message_in_pieces(a, b)
            seen_b = await _until_closed(events_b)
    assert seen_b["closed"] == {"read error NoiseInvalidMessage": 1}, seen_b


@pytest.mark.slow
async def test_upstream_reader_ends_a_connection_whose_message_comes_in_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sentinel: with upstream's ``read_exactly`` the same message ends the connection while its
    socket is open (counted as ``short reads``, not as the peer's end). When this fails, upstream may
    have fixed its reader: revisit patch 26."""
    import libp2p.io.msgio as msgio

    new_noise_host(Identity.generate())  # the patches are in place (so the upstream reader is known)
    monkeypatch.setattr(msgio, "read_exactly", upstream_read_exactly())
    with trio.fail_after(120):
        async with _pair() as (a, b, events_a, events_b):
            await _message_in_pieces(a, b)
            seen_b = await _until_closed(events_b)
    assert seen_b["closed"] == {"short reads": 1}, seen_b
    (at_b,) = seen_b["recent"]
    assert at_b["bytes"][1] == PIECES and 0 < at_b["bytes"][0] < PIECES, at_b


@pytest.mark.slow
async def test_a_given_up_write_is_counted_as_local_at_the_writer() -> None:
    with trio.fail_after(120):
        async with _pair() as (a, b, events_a, events_b):
            (conn,) = a.get_network().get_connections(b.get_id())
            await _abandon(conn.muxed_conn.secured_conn)
            seen_a, seen_b = await _until_closed(events_a), await _until_closed(events_b)
    assert seen_a["closed"] == {"local: stuck write": 1}, seen_a
    # a closed its socket with bytes unread (a reset) or after b's last ones (an end of stream)
    assert list(seen_b["closed"]) in (["remote closed"], ["read error ConnectionClosedError"]), seen_b


def test_recent_closes_are_bounded() -> None:
    events = ConnectionEvents()
    for i in range(RECENT + 5):
        events.note_close("remote closed", {"peer": f"p{i}", "direction": "inbound"})
    recent = events.snapshot()["recent"]
    assert len(recent) == RECENT and recent[-1]["peer"] == f"p{RECENT + 4}"
    assert events.snapshot()["closed"] == {"remote closed": RECENT + 5}


@pytest.mark.slow
async def test_a_peer_that_stops_reading_has_its_connection_given_up_by_the_writer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The N = 50 churn's mechanism, end to end: b stops reading a's connection (as the CPU budgets'
    pacing does for a peer that owes time); a's writes fill the socket buffers and one outlasts
    ``WRITE_BOUND``; a gives the session up (``local: stuck write``) and b, reading again, finds the
    stream ended inside a Noise message (``remote closed mid-frame``): one connection, both ends."""
    import ioa_p2p.node.net.atomic_writes as atomic_writes

    monkeypatch.setattr(atomic_writes, "WRITE_BOUND", 0.5)
    with trio.fail_after(120):
        async with _pair() as (a, b, events_a, events_b):
            # streams first (their negotiation needs b reading); each may send yamux's initial
            # window (256 KiB) unread: 64 of them are more than loopback's socket buffers hold
            streams = [await a.new_stream(b.get_id(), [PROTO]) for _ in range(64)]
            (conn_b,) = b.get_network().get_connections(a.get_id())
            secured_b = conn_b.muxed_conn.secured_conn
            resume = trio.Event()
            own_read = secured_b.read

            async def paused_read(*args: Any, **kwargs: Any) -> bytes:
                await resume.wait()
                return bytes(await own_read(*args, **kwargs))

            secured_b.read = paused_read

            async def fill(stream: Any) -> None:
                with contextlib.suppress(Exception):  # the write that is given up raises
                    for _ in range(5):
                        await stream.write(b"z" * 50_000)

            with trio.move_on_after(30):
                async with trio.open_nursery() as nursery:
                    for stream in streams:
                        nursery.start_soon(fill, stream)
            seen_a = await _until_closed(events_a)
            resume.set()
            seen_b = await _until_closed(events_b)
    assert seen_a["closed"] == {"local: stuck write": 1}, seen_a
    # b finds the stream ended inside a message, or reset when a's socket closed with b's bytes unread
    (reason_b,) = seen_b["closed"]
    assert reason_b in ("remote closed mid-frame", "read error ConnectionClosedError"), seen_b
    (at_a,), (at_b,) = seen_a["recent"], seen_b["recent"]
    assert (at_a["local"], at_a["remote"]) == (at_b["remote"], at_b["local"]), (at_a, at_b)
    if reason_b == "remote closed mid-frame":
        assert 0 < at_b["bytes"][0] < at_b["bytes"][1], at_b
