"""Inbound DHT streams and the node's handler slots (ioa_p2p.node.net.kad_slots, patch 23): a stream left
open, by a leaking client or by a thousand identities, cannot keep a newcomer out of a node's DHT. Here on
fake streams under MockClock; on real hosts: tests/test_kad_slots_net.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import trio
import trio.testing
import varint

from ioa_p2p.node.net.kad_slots import KadSlots


class FakeStream:
    """The reading side of a stream: requests come from ``send``; closing ``send`` is end of stream."""

    def __init__(self, peer: str) -> None:
        self.muxed_conn = SimpleNamespace(peer_id=peer)
        self.send, self._receive = trio.open_memory_channel[bytes](16)
        self.was_reset = False
        self._buffer = b""

    async def read(self, n: int | None = None) -> bytes:
        if not self._buffer:
            try:
                self._buffer = await self._receive.receive()
            except trio.EndOfChannel:
                return b""
        size = len(self._buffer) if n is None else n
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    async def reset(self) -> None:
        self.was_reset = True


def request(body: bytes) -> bytes:
    return varint.encode(len(body)) + body


class Server:
    """A handler like py-libp2p's: reads varint-prefixed requests until end of stream."""

    def __init__(self) -> None:
        self.requests: list[bytes] = []
        self.ended: list[FakeStream] = []

    async def serve(self, stream: Any) -> None:
        while True:
            first = await stream.read(1)
            if not first:
                break
            body = b""
            while len(body) < first[0]:  # requests under 128 bytes in these tests
                more = await stream.read(first[0] - len(body))
                if not more:
                    return
                body += more
            self.requests.append(body)
        self.ended.append(stream)


async def open_idle(nursery: trio.Nursery, slots: KadSlots, peer: str) -> FakeStream:
    """A stream that sent one request and now waits (idle)."""
    stream = FakeStream(peer)
    nursery.start_soon(slots.handle, stream)
    await stream.send.send(request(b"find"))
    await trio.testing.wait_all_tasks_blocked()
    return stream


async def test_a_stream_idle_past_the_timeout_is_ended(mock_clock: trio.testing.MockClock) -> None:
    server = Server()
    slots = KadSlots(server.serve, total=2, idle_timeout=10.0)
    async with trio.open_nursery() as nursery:
        stream = await open_idle(nursery, slots, "a")
        mock_clock.jump(9.0)
        await trio.testing.wait_all_tasks_blocked()
        assert server.ended == [] and slots.held() == 1
        mock_clock.jump(1.5)
        await trio.testing.wait_all_tasks_blocked()
        assert server.ended == [stream] and slots.held() == 0
    assert slots.stats.ended_idle == 1 and server.requests == [b"find"]


async def test_a_new_stream_ends_the_longest_idle_one_when_every_slot_is_taken(
    mock_clock: trio.testing.MockClock,
) -> None:
    server = Server()
    slots = KadSlots(server.serve, total=2, idle_timeout=60.0)
    async with trio.open_nursery() as nursery:
        older = await open_idle(nursery, slots, "a")
        mock_clock.jump(1.0)
        newer = await open_idle(nursery, slots, "b")
        newcomer = await open_idle(nursery, slots, "c")
        assert server.ended == [older]
        assert not newcomer.was_reset and server.requests == [b"find"] * 3
        assert slots.held() == 2 and slots.stats.evicted == 1
        for stream in (newer, newcomer):
            await stream.send.aclose()


async def test_a_stream_still_waiting_for_its_first_request_is_not_taken_for_one_left_open(
    mock_clock: trio.testing.MockClock,
) -> None:
    """Under load a client's request may arrive seconds after its stream: that stream was opened to be
    served, not left open. Newcomers end the streams left open after an answer first (even the more
    recently idle), and a stream without a request only after ``first_request_grace``."""
    server = Server()
    slots = KadSlots(server.serve, total=2, idle_timeout=60.0, first_request_grace=5.0, wait=1.0)
    async with trio.open_nursery() as nursery:
        opening = FakeStream("a")  # its request has not arrived yet
        nursery.start_soon(slots.handle, opening)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(1.0)
        answered = await open_idle(nursery, slots, "b")
        newcomer = await open_idle(nursery, slots, "c")
        assert server.ended == [answered] and not opening.was_reset and not newcomer.was_reset
        await newcomer.send.aclose()
        busy = FakeStream("d")
        nursery.start_soon(slots.handle, busy)
        await busy.send.send(varint.encode(5) + b"ab")  # mid-request: not idle
        await trio.testing.wait_all_tasks_blocked()
        late = FakeStream("e")  # the only idle stream is still opening, within its grace: e waits
        nursery.start_soon(slots.handle, late)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(1.5)
        await trio.testing.wait_all_tasks_blocked()
        assert late.was_reset and slots.stats.refused == 1 and slots.stats.evicted == 1
        await opening.send.send(request(b"slow"))  # its request arrives after 2.5 s: it is served
        await busy.send.send(b"cde")
        await trio.testing.wait_all_tasks_blocked()
        assert server.requests == [b"find", b"find", b"slow", b"abcde"]
        assert server.ended == [answered, newcomer] and slots.held() == 2
        for stream in (opening, busy):
            await stream.send.aclose()


async def test_a_stream_that_never_sends_a_request_is_ended_for_a_newcomer_after_its_grace(
    mock_clock: trio.testing.MockClock,
) -> None:
    """Identities are free: streams opened and never used cannot keep a newcomer out either."""
    server = Server()
    slots = KadSlots(server.serve, total=2, idle_timeout=60.0, first_request_grace=5.0)
    async with trio.open_nursery() as nursery:
        silent = [FakeStream("x"), FakeStream("y")]
        for stream in silent:
            nursery.start_soon(slots.handle, stream)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(5.5)
        newcomer = await open_idle(nursery, slots, "c")
        assert len(server.ended) == 1 and server.ended[0] in silent and not newcomer.was_reset
        assert server.requests == [b"find"] and slots.stats.evicted == 1
        for stream in (*silent, newcomer):
            await stream.send.aclose()


async def test_a_stream_mid_request_is_not_ended_as_idle_and_a_newcomer_waits_then_is_reset(
    mock_clock: trio.testing.MockClock,
) -> None:
    server = Server()
    slots = KadSlots(server.serve, total=1, idle_timeout=60.0, wait=2.0)
    async with trio.open_nursery() as nursery:
        busy = FakeStream("a")
        nursery.start_soon(slots.handle, busy)
        await busy.send.send(varint.encode(5) + b"ab")  # a request announced, 3 bytes still to come
        await trio.testing.wait_all_tasks_blocked()
        late = FakeStream("b")
        nursery.start_soon(slots.handle, late)
        await trio.testing.wait_all_tasks_blocked()
        assert not late.was_reset and slots.stats.waited == 1
        mock_clock.jump(2.5)
        await trio.testing.wait_all_tasks_blocked()
        assert late.was_reset and slots.stats.refused == 1 and server.ended == []
        await busy.send.aclose()


async def test_a_request_trickled_past_the_request_timeout_ends_its_stream(
    mock_clock: trio.testing.MockClock,
) -> None:
    """A peer sending a request a byte at a time, each byte within the idle timeout, held a slot for as
    long as it liked; now the whole request must arrive within request_timeout of its first byte."""
    server = Server()
    slots = KadSlots(server.serve, total=1, idle_timeout=10.0, request_timeout=5.0)
    async with trio.open_nursery() as nursery:
        slow = FakeStream("a")
        nursery.start_soon(slots.handle, slow)
        await slow.send.send(varint.encode(20))
        await trio.testing.wait_all_tasks_blocked()
        for byte in b"abcd":
            mock_clock.jump(1.0)
            await slow.send.send(bytes([byte]))
            await trio.testing.wait_all_tasks_blocked()
        assert slots.held() == 1 and slots.stats.slow_requests == 0
        mock_clock.jump(1.5)  # 5.5 s since the request began
        await trio.testing.wait_all_tasks_blocked()
        assert slots.held() == 0 and slots.stats.slow_requests == 1 and server.requests == []
        # a request that arrives in time is served as before, one after another
        quick = FakeStream("b")
        nursery.start_soon(slots.handle, quick)
        for _ in range(3):
            await quick.send.send(request(b"find"))
            mock_clock.jump(4.0)
            await trio.testing.wait_all_tasks_blocked()
        assert server.requests == [b"find"] * 3
        await quick.send.aclose()


async def test_a_stream_holds_its_slot_max_hold_seconds_in_all(mock_clock: trio.testing.MockClock) -> None:
    """Requests sent just in time, each within the idle and request timeouts, kept a slot for good."""
    server = Server()
    slots = KadSlots(server.serve, total=1, idle_timeout=10.0, request_timeout=5.0, max_hold=30.0)
    async with trio.open_nursery() as nursery:
        steady = FakeStream("a")
        nursery.start_soon(slots.handle, steady)
        for _ in range(8):
            await steady.send.send(request(b"find"))
            await trio.testing.wait_all_tasks_blocked()
            mock_clock.jump(4.0)
            await trio.testing.wait_all_tasks_blocked()
        assert steady.was_reset and slots.stats.held_too_long == 1 and slots.held() == 0
        assert len(server.requests) == 8


async def test_a_waiting_stream_takes_the_slot_a_finished_one_frees(
    mock_clock: trio.testing.MockClock,
) -> None:
    server = Server()
    slots = KadSlots(server.serve, total=1, idle_timeout=60.0, wait=2.0)
    async with trio.open_nursery() as nursery:
        busy = FakeStream("a")
        nursery.start_soon(slots.handle, busy)
        await busy.send.send(varint.encode(5) + b"ab")
        await trio.testing.wait_all_tasks_blocked()
        late = FakeStream("b")
        nursery.start_soon(slots.handle, late)
        await trio.testing.wait_all_tasks_blocked()
        await busy.send.send(b"cde")
        await busy.send.aclose()  # the busy stream finishes: its slot goes to the waiting one
        await late.send.send(request(b"find"))
        await trio.testing.wait_all_tasks_blocked()
        assert not late.was_reset and server.requests == [b"abcde", b"find"]
        await late.send.aclose()


async def test_a_peer_at_its_own_cap_ends_its_own_idle_stream_not_anothers(
    mock_clock: trio.testing.MockClock,
) -> None:
    server = Server()
    slots = KadSlots(server.serve, total=10, per_peer=2, idle_timeout=60.0)
    async with trio.open_nursery() as nursery:
        other = await open_idle(nursery, slots, "other")
        mock_clock.jump(1.0)
        first = await open_idle(nursery, slots, "x")
        mock_clock.jump(1.0)
        second = await open_idle(nursery, slots, "x")
        third = await open_idle(nursery, slots, "x")
        assert server.ended == [first]
        assert slots.held("x") == 2 and slots.held("other") == 1 and not third.was_reset
        for stream in (other, second, third):
            await stream.send.aclose()


async def test_waiting_streams_are_bounded_in_number(mock_clock: trio.testing.MockClock) -> None:
    server = Server()
    # (the busy stream's request may take 60 s here: only the waiting streams' bound is under test)
    slots = KadSlots(server.serve, total=1, idle_timeout=60.0, request_timeout=60.0, wait=5.0, max_waiting=1)
    async with trio.open_nursery() as nursery:
        busy = FakeStream("a")
        nursery.start_soon(slots.handle, busy)
        await busy.send.send(varint.encode(5))
        await trio.testing.wait_all_tasks_blocked()
        waiting, refused = FakeStream("b"), FakeStream("c")
        nursery.start_soon(slots.handle, waiting)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(slots.handle, refused)
        await trio.testing.wait_all_tasks_blocked()
        assert refused.was_reset and not waiting.was_reset
        mock_clock.jump(6.0)
        await trio.testing.wait_all_tasks_blocked()
        assert waiting.was_reset
        await busy.send.aclose()
