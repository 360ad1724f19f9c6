"""Patch 22 (ioa_p2p.node.net.idle_traffic): yamux credits the receive window in halves, not per read."""

from __future__ import annotations

import inspect
import struct
from collections import Counter
from typing import Any

import multiaddr
import pytest
import trio

from ioa_p2p.identity import Identity
from ioa_p2p.node.net import idle_traffic
from ioa_p2p.node.net.host import new_noise_host

PROTOCOL = "/test/idle-traffic/1"
WINDOW_UPDATE = 0x1


def _count_frames(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[int, int]]:
    """(type, flags) of every yamux frame written in this process from now on."""
    from libp2p.stream_muxer.yamux.yamux import Yamux

    frames: Counter[tuple[int, int]] = Counter()
    upstream = Yamux._write_frame

    async def write_frame(self: Any, data: bytes, *args: Any, **kwargs: Any) -> Any:
        frames[(data[1], struct.unpack(">H", data[2:4])[0])] += 1
        return await upstream(self, data, *args, **kwargs)

    monkeypatch.setattr(Yamux, "_write_frame", write_frame)
    return frames


async def _exchange(messages: list[bytes], read_all: bool = False) -> bytes:
    """Two real hosts on 127.0.0.1: one writes ``messages`` on a stream, the other reads them back as
    py-libp2p's own protocols do (varint prefix byte by byte), or with plain reads (``read_all``)."""
    from libp2p.peer.peerinfo import PeerInfo
    from libp2p.utils.varint import encode_varint_prefixed, read_varint_prefixed_bytes

    sender, receiver = new_noise_host(Identity.generate()), new_noise_host(Identity.generate())
    received = bytearray()
    done = trio.Event()
    total = sum(len(m) for m in messages)

    async def handler(stream: Any) -> None:
        if read_all:
            while len(received) < total:
                received.extend(await stream.read(64 * 1024))
        else:
            for _ in messages:
                received.extend(await read_varint_prefixed_bytes(stream))
        done.set()

    receiver.set_stream_handler(PROTOCOL, handler)
    listen = [multiaddr.Multiaddr("/ip4/127.0.0.1/tcp/0")]
    async with sender.run(listen), receiver.run(listen):
        await sender.connect(PeerInfo(receiver.get_id(), receiver.get_addrs()))
        stream = await sender.new_stream(receiver.get_id(), [PROTOCOL])
        for message in messages:
            await stream.write(message if read_all else encode_varint_prefixed(message))
        await done.wait()
        await stream.close()
    return bytes(received)


def test_upstream_still_credits_the_window_on_nearly_every_read() -> None:
    """Patch 22's sentinel: upstream's credit still has the per-read branches the patch leaves out."""
    idle_traffic.credit_yamux_in_halves()
    source = inspect.getsource(idle_traffic.upstream_credit())
    assert "_yamux_release_on_read()" in source and "_window_update_partial_slack" in source


def test_yamux_rtt_pings_every_two_minutes() -> None:
    """The constant the RTT loop reads before each sleep still exists, and the patch sets it."""
    import libp2p.stream_muxer.yamux.yamux as yamux

    idle_traffic.credit_yamux_in_halves()
    assert yamux.RTT_MEASURE_INTERVAL == idle_traffic.RTT_PING_INTERVAL == 120.0
    assert "RTT_MEASURE_INTERVAL" in inspect.getsource(yamux.Yamux._measure_rtt_loop)


def test_yamux_sweeps_closed_streams_every_two_minutes() -> None:
    """The sweeper's interval is a module constant it reads before each sleep, and the patch sets it."""
    import libp2p.stream_muxer.yamux.yamux as yamux

    idle_traffic.credit_yamux_in_halves()
    assert yamux._STALE_STREAM_SWEEP_INTERVAL == idle_traffic.STALE_SWEEP_INTERVAL == 120.0
    assert "trio.sleep(_STALE_STREAM_SWEEP_INTERVAL)" in inspect.getsource(yamux.Yamux._stale_stream_sweeper)
    # what it reclaims waits longer than before, not forever: its grace is shorter than one interval
    assert yamux._STALE_STREAM_GRACE_SECONDS < idle_traffic.STALE_SWEEP_INTERVAL


async def test_small_messages_cost_no_window_updates_with_the_patch(monkeypatch: pytest.MonkeyPatch) -> None:
    from libp2p.stream_muxer.yamux.yamux import YamuxStream

    idle_traffic.credit_yamux_in_halves()
    messages = [bytes([i % 251]) * 300 for i in range(100)]
    frames = _count_frames(monkeypatch)
    with trio.fail_after(60):
        assert await _exchange(messages) == b"".join(messages)
    patched = frames[(WINDOW_UPDATE, 0)]
    frames.clear()
    monkeypatch.setattr(YamuxStream, "_auto_tune_and_send_window_update", idle_traffic.upstream_credit())
    with trio.fail_after(60):
        assert await _exchange(messages) == b"".join(messages)
    unpatched = frames[(WINDOW_UPDATE, 0)]
    assert unpatched >= len(messages)  # upstream: at least one per message (still worth patching)
    assert patched <= 2  # 30 KB is far below half a window: nothing to credit


async def test_a_transfer_of_many_windows_still_completes_with_the_patch() -> None:
    """Flow control still works: 3 MiB through windows of 256 KiB (growing to 1 MiB at most)."""
    from ioa_p2p.node.net.guard import cap_yamux_window

    idle_traffic.credit_yamux_in_halves()
    cap_yamux_window()
    chunks = [bytes([i % 256]) * 16_384 for i in range(192)]
    with trio.fail_after(120):
        assert await _exchange(chunks, read_all=True) == b"".join(chunks)
