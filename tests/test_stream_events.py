"""Patch 29 (``node/net/stream_events.py``): a stream's open and close tell the swarm's notifees in the
caller's task. Real py-libp2p hosts (TCP, Noise, yamux) on 127.0.0.1; the sentinels check upstream's
shape (a task per notifee, pubsub's callbacks a bare checkpoint)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import trio

from ioa_p2p.identity import Identity
from ioa_p2p.node.net.host import new_noise_host
from ioa_p2p.node.net.stream_events import STREAM_EVENTS, upstream_notify, upstream_pubsub_callbacks

from .raw_hosts import watched_pair

PROTO = "/test/stream-events/1"


async def _sink(stream: Any) -> None:
    try:
        while await stream.read(65536):
            pass
    except Exception:  # reset or closed
        return


class Recorder:
    """A notifee that records stream events; ``fail`` makes its stream callbacks raise."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.events: list[str] = []

    async def _record(self, name: str) -> None:
        self.events.append(name)
        if self.fail:
            raise RuntimeError(f"{name} failed on purpose")

    async def opened_stream(self, network: Any, stream: Any) -> None:
        await self._record("opened_stream")

    async def closed_stream(self, network: Any, stream: Any) -> None:
        await self._record("closed_stream")

    async def connected(self, network: Any, conn: Any) -> None:
        self.events.append("connected")

    async def disconnected(self, network: Any, conn: Any) -> None:
        self.events.append("disconnected")

    async def listen(self, network: Any, multiaddr: Any) -> None:
        return None

    async def listen_close(self, network: Any, multiaddr: Any) -> None:
        return None


def test_upstream_still_runs_a_task_per_notifee_and_pubsubs_callbacks_only_checkpoint() -> None:
    """The sentinel: when this fails, upstream changed its notifications: revisit patch 29."""
    new_noise_host(Identity.generate())  # the patches are in place
    source = inspect.getsource(upstream_notify())
    assert "trio.open_nursery()" in source and "nursery.start_soon(_call)" in source
    for name, callback in upstream_pubsub_callbacks().items():
        body = inspect.getsource(callback).split("-> None:", 1)[1]
        assert body.split() == ["await", "trio.lowlevel.checkpoint()"], (name, body)
    assert set(upstream_pubsub_callbacks()) == STREAM_EVENTS


@pytest.mark.slow
async def test_a_streams_open_and_close_run_no_other_task() -> None:
    """Opening a stream on an open connection and closing it: the swarm's stream events start no task
    (upstream's ``_notify`` starts a ``_call`` per notifee; other tasks, the peer's handler, do not count)."""
    spawned = 0

    class Spawns(trio.abc.Instrument):
        def task_spawned(self, task: trio.lowlevel.Task) -> None:
            nonlocal spawned
            spawned += task.name.endswith("_call")

    with trio.fail_after(60):
        async with watched_pair(PROTO, _sink) as (a, b, _, _):
            await (await a.new_stream(b.get_id(), [PROTO])).close()  # the connection is warm
            swarm = a.get_network()
            stream = (await a.new_stream(b.get_id(), [PROTO])).muxed_stream
            instrument = Spawns()
            trio.lowlevel.add_instrument(instrument)
            try:
                net_stream = await swarm.get_connections(b.get_id())[0].new_stream()
                await swarm.notify_closed_stream(net_stream)
            finally:
                trio.lowlevel.remove_instrument(instrument)
            await stream.close()
    assert spawned == 0


@pytest.mark.slow
async def test_a_raising_notifee_breaks_neither_the_stream_nor_the_others() -> None:
    bad, good = Recorder(fail=True), Recorder()
    with trio.fail_after(60):
        async with watched_pair(PROTO, _sink) as (a, b, _, _):
            a.get_network().register_notifee(bad)
            a.get_network().register_notifee(good)
            stream = await a.new_stream(b.get_id(), [PROTO])
            await stream.write(b"still works")
            await stream.close()
            with trio.fail_after(10):
                while "closed_stream" not in good.events:  # noqa: ASYNC110 - a notifee has no event to wait on
                    await trio.sleep(0.02)
    assert bad.events[:1] == ["opened_stream"] and good.events[:1] == ["opened_stream"]
    assert "closed_stream" in bad.events


@pytest.mark.slow
async def test_connection_events_still_reach_every_notifee() -> None:
    recorder = Recorder()
    with trio.fail_after(60):
        async with watched_pair(PROTO, _sink) as (a, b, _, _):
            b.get_network().register_notifee(recorder)
            for conn in a.get_network().get_connections(b.get_id()):
                await conn.close()
            with trio.fail_after(10):
                while "disconnected" not in recorder.events:  # noqa: ASYNC110 - no event to wait on
                    await trio.sleep(0.02)
