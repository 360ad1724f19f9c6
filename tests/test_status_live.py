"""The live status streams (``GET /network/events``, ``GET /node/events``; node/status/live.py) on trio's
MockClock: the view at once, then each change once; a resumed stream gives the current view only when it
changed since its cursor (never one it gave already), ``reset`` for a cursor of another run, 400 for a
cursor past the last change; unchanged samples (the measurement's time, the uptime, memory within a MiB)
send nothing; one sample per period for all streams together.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing, asynccontextmanager
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.codec import JsonObject
from ioa_p2p.api.events import Event
from ioa_p2p.api.stream import Cursor, SseReader, StreamItem
from ioa_p2p.errors import UsageError
from ioa_p2p.node.status.live import HEARTBEAT, SAMPLE, StatusFeeds, network_key, node_key


class Probe(Event):
    """A stand-in view event: ``view`` as given."""

    __slots__ = ("data",)
    event = "network"

    def __init__(self, data: JsonObject) -> None:
        self.data = data

    def to_json(self) -> JsonObject:
        return {"event": "network", "view": self.data}


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def view(latency: float, measured: int, peers: int = 1) -> JsonObject:
    return {
        "peers": [{"peer_id": f"p{i}", "latency_ms": latency} for i in range(peers)],
        "routing_table": peers,
        "measured_ms": measured,
    }


class Source:
    def __init__(self) -> None:
        self.data = view(1.0, 0)
        self.samples = 0

    async def sample(self) -> Event:
        await trio.lowlevel.checkpoint()
        self.samples += 1
        return Probe(dict(self.data))


class Watch:
    """Reads a stream in a task of its own (cancelling an async generator mid-read would end it)."""

    def __init__(self, stream: AsyncIterator[bytes]) -> None:
        self.stream = stream
        self.items: list[StreamItem] = []

    async def run(self) -> None:
        reader = SseReader()
        async with aclosing(self.stream):
            async for chunk in self.stream:
                for line in chunk.decode().split("\n"):
                    item = reader.feed(line)
                    if item is not None:
                        self.items.append(item)

    async def take(self, seconds: float) -> list[StreamItem]:
        """What arrives within ``seconds`` (virtual time)."""
        await trio.sleep(seconds)
        out, self.items = self.items, []
        return out


@asynccontextmanager
async def watching(stream: AsyncIterator[bytes]) -> AsyncIterator[Watch]:
    watch = Watch(stream)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch.run)
        yield watch
        nursery.cancel_scope.cancel()


def views(items: list[StreamItem]) -> list[tuple[int, Any]]:
    out = []
    for item in items:
        data = getattr(item.event, "data", None)
        if item.cursor is not None and data is not None:
            out.append((item.cursor.seq, data["view"]["peers"][0]["latency_ms"]))
    return out


async def test_a_stream_gives_the_view_then_each_change_once_and_resumes_exactly(
    autojump_clock: MockClock,
) -> None:
    source = Source()
    feeds = StatusFeeds({"network": source.sample})
    async with watching(feeds.open("network", None, sse=True)) as watch:
        assert views(await watch.take(1)) == [(1, 1.0)]
        source.data = view(1.02, 5000)  # the same to the tenth of a ms, measured later: no event
        assert views(await watch.take(SAMPLE * 3)) == []
        source.data = view(2.5, 9000)
        changed = await watch.take(SAMPLE * 2)
        assert views(changed) == [(2, 2.5)]
    cursor = changed[0].cursor
    assert cursor is not None and cursor.epoch == feeds.epoch

    # resumed at the last cursor: nothing until the next change, then that change once
    async with watching(feeds.open("network", str(cursor), sse=True)) as watch:
        assert views(await watch.take(SAMPLE * 3)) == []
        source.data = view(4.0, 12000)
        assert views(await watch.take(SAMPLE * 2)) == [(3, 4.0)]
    # resumed at an older cursor: the current view once (it replaces the ones in between)
    async with watching(feeds.open("network", f"{feeds.epoch}.1", sse=True)) as watch:
        assert views(await watch.take(SAMPLE * 3)) == [(3, 4.0)]
    # another run's cursor: reset, then the current view
    async with watching(feeds.open("network", "abcdef.2", sse=True)) as watch:
        items = await watch.take(1)
    assert items[0].event.to_json() == {"event": "reset", "epoch": feeds.epoch}
    assert views(items[1:]) == [(3, 4.0)]
    with pytest.raises(UsageError, match="past the last change"):
        feeds.open("network", f"{feeds.epoch}.99", sse=True)


async def test_streams_share_samples_and_send_heartbeats_when_nothing_changes(
    autojump_clock: MockClock,
) -> None:
    source = Source()
    feeds = StatusFeeds({"network": source.sample})
    async with AsyncExitStack() as stack:
        watches = [
            await stack.enter_async_context(watching(feeds.open("network", None, sse=True))) for _ in range(5)
        ]
        await trio.sleep(HEARTBEAT * 2.5)
        for watch in watches:
            items = await watch.take(0)
            assert views(items) == [(1, 1.0)]
            assert [type(i.event).__name__ for i in items[1:]] == ["HeartbeatEvent"] * 2
    periods = HEARTBEAT * 2.5 / SAMPLE
    assert source.samples <= periods + 2  # one sample per period for the five streams together


def test_the_keys_ignore_what_a_viewer_does_not_see() -> None:
    assert network_key(view(3.01, 1)) == network_key(view(3.04, 2))
    assert network_key(view(3.0, 1)) != network_key(view(3.2, 1))
    assert network_key(view(3.0, 1, peers=2)) != network_key(view(3.0, 1))
    node: JsonObject = {
        "uptime": 1.0,
        "memory": {"rss": 100 << 20, "peak_rss": 120 << 20},
        "faults": {"total": 0},
    }
    later: JsonObject = {**node, "uptime": 50.0, "memory": {"rss": (100 << 20) + 5, "peak_rss": 120 << 20}}
    assert node_key(node) == node_key(later)
    assert node_key(node) != node_key({**node, "faults": {"total": 1}})
    assert json.loads(node_key(node))["uptime"] == 0
    assert Cursor.parse("ab.3").seq == 3
