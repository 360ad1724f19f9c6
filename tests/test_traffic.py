"""Counting a node's gossip and Kademlia messages by kind (ioa_p2p.node.net.traffic; issue 26)."""

from __future__ import annotations

import collections
from typing import Any

import pytest
import trio
from libp2p.kad_dht.pb.kademlia_pb2 import Message
from libp2p.pubsub.pb import rpc_pb2

from ioa_p2p.node.net.traffic import (
    GossipTraffic,
    KadTraffic,
    count_kad,
    count_rpc,
    kad_traffic,
    tagged,
    tally_pubsub,
)

ME, OTHER = b"\x00\x01me", b"\x00\x01other"


def rpc_with(*, own: int = 0, forwarded: int = 0, subs: int = 0, ihave: int = 0, graft: int = 0) -> Any:
    rpc = rpc_pb2.RPC()
    for i in range(own):
        rpc.publish.add(from_id=ME, data=b"card", seqno=bytes([i]), topicIDs=["t"])
    for i in range(forwarded):
        rpc.publish.add(from_id=OTHER, data=b"card", seqno=bytes([i]), topicIDs=["t"])
    for _ in range(subs):
        rpc.subscriptions.add(subscribe=True, topicid="t")
    for _ in range(ihave):
        rpc.control.ihave.add(topicID="t", messageIDs=[b"m"])
    for _ in range(graft):
        rpc.control.graft.add(topicID="t")
    return rpc


def test_an_rpc_is_counted_by_its_parts() -> None:
    counter: collections.Counter[str] = collections.Counter()
    count_rpc(counter, rpc_with(own=1, forwarded=2, subs=1, ihave=3, graft=1), ME)
    count_rpc(counter, rpc_with(subs=1), ME)
    assert counter == {
        "rpcs": 2,
        "publish_own": 1,
        "publish_fwd": 2,
        "subscription": 2,
        "ihave": 3,
        "graft": 1,
    }


def test_kad_requests_are_counted_by_type() -> None:
    traffic = KadTraffic()
    traffic.note_requests([Message(type=Message.FIND_NODE), Message(type=Message.FIND_NODE)])
    traffic.note_requests([Message(type=Message.PUT_VALUE)])
    assert traffic.to_json() == {
        "sent": {"FIND_NODE": 2, "PUT_VALUE": 1},
        "by_caller": {"other.FIND_NODE": 2, "other.PUT_VALUE": 1},
        "served": 0,
    }


async def test_kad_requests_are_counted_by_the_loop_that_started_them() -> None:
    traffic = KadTraffic()

    async def send(kind: int) -> None:
        traffic.note_requests([Message(type=kind)])

    async def loop(kind: int) -> None:
        await send(kind)  # in the loop's task
        async with trio.open_nursery() as nursery:  # and in a task it started
            nursery.start_soon(send, kind)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(tagged("catch_up", loop), Message.GET_VALUE)
        nursery.start_soon(tagged("census", loop), Message.GET_PROVIDERS)
        nursery.start_soon(send, Message.FIND_NODE)
    assert traffic.by_caller == {
        "catch_up.GET_VALUE": 2,
        "census.GET_PROVIDERS": 2,
        "other.FIND_NODE": 1,
    }


def test_a_host_gets_one_kad_counter() -> None:
    class Host:
        pass

    host = Host()
    assert kad_traffic(host) is None
    first = count_kad(host)
    assert count_kad(host) is first and kad_traffic(host) is first


class FakeId:
    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def to_bytes(self) -> bytes:
        return self.raw

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FakeId) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(self.raw)


class FakePubsub:
    """The methods of py-libp2p's Pubsub that :func:`tally_pubsub` wraps, recording their calls."""

    def __init__(self) -> None:
        self.my_id = FakeId(ME)
        self.calls: list[str] = []

    async def write_msg(self, stream: Any, rpc: Any) -> bool:
        self.calls.append("write")
        return True

    async def push_msg(self, forwarder: Any, msg: Any) -> None:
        self.calls.append("push")

    def handle_subscription(self, origin: Any, sub: Any) -> None:
        self.calls.append("sub")


class FakeRouter:
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def handle_rpc(self, rpc: Any, sender: Any) -> None:
        self.calls.append("control")

    def mesh_heartbeat(self) -> tuple[dict[Any, Any], dict[Any, Any]]:
        self.calls.append("heartbeat")
        return {}, {}


async def test_tally_counts_and_still_calls_the_library() -> None:
    pubsub, router, traffic = FakePubsub(), FakeRouter(), GossipTraffic()
    tally_pubsub(pubsub, router, traffic)
    assert await pubsub.write_msg(None, rpc_with(own=1, subs=1))
    await pubsub.push_msg(FakeId(OTHER), rpc_pb2.Message())
    await pubsub.push_msg(FakeId(ME), rpc_pb2.Message())  # our own announcement: not received
    pubsub.handle_subscription(FakeId(OTHER), rpc_pb2.RPC.SubOpts())
    await router.handle_rpc(rpc_with(ihave=2), FakeId(OTHER))
    assert router.mesh_heartbeat() == ({}, {})
    await trio.lowlevel.checkpoint()
    assert pubsub.calls == ["write", "push", "push", "sub"] and router.calls == ["control", "heartbeat"]
    assert traffic.to_json() == {
        "sent": {"rpcs": 1, "publish_own": 1, "subscription": 1},
        "received": {"publish": 1, "subscription": 1, "control_rpcs": 1, "ihave": 2},
        "heartbeats": 1,
    }


def test_tally_refuses_a_library_without_the_methods() -> None:
    class Bare:
        my_id = FakeId(ME)

    with pytest.raises(RuntimeError, match="revisit"):
        tally_pubsub(Bare(), FakeRouter(), GossipTraffic())
