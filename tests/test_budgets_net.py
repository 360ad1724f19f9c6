"""Resource budgets on real libp2p hosts (in-process, 127.0.0.1): caps refuse, a full node-wide
budget evicts the heaviest peer's newest work, and a good peer is still served."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.errors import ConfigError
from ioa_p2p.history.frames import SyncBatch, SyncRequest
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node import Node
from ioa_p2p.node.chats.sync import PROTO_SYNC
from ioa_p2p.node.messaging.service import PROTOCOL_ID
from ioa_p2p.node.net.framing import FramedStream, encode_varint
from ioa_p2p.node.net.host import new_noise_host, peer_info_from_addr, to_libp2p_id
from ioa_p2p.wire.control import decode_control, encode_control
from ioa_p2p.wire.schema import build
from tests.nodes import checked_node
from tests.raw_hosts import run_raw_host

from .test_chats_net import FAST, chats_of, connect_all

pytestmark = pytest.mark.slow


@asynccontextmanager
async def victim_node(tmp_path: Path, **limits: Any) -> AsyncIterator[Node]:
    config = NodeConfig(home=tmp_path / "victim", raw={"chats": FAST, "limits": limits})
    async with checked_node(config, Identity.generate()) as node:
        yield node


@asynccontextmanager
async def good_node(tmp_path: Path, victim: Node, identity: Identity | None = None) -> AsyncIterator[Node]:
    config = NodeConfig(home=tmp_path / "good", raw={"chats": FAST})
    async with checked_node(config, identity or Identity.generate()) as node:
        await connect_all([node, victim])
        yield node


@asynccontextmanager
async def raw_hosts(node: Node, count: int) -> AsyncIterator[list[Any]]:
    """``count`` bare py-libp2p hosts (fresh identities) connected to ``node``."""
    async with AsyncExitStack() as stack:
        hosts = []
        for _ in range(count):
            host = new_noise_host(Identity.generate())
            await stack.enter_async_context(run_raw_host(host))
            await host.connect(peer_info_from_addr(node.listen_addrs()[0]))
            hosts.append(host)
        yield hosts


async def open_silent(host: Any, node: Node, count: int) -> list[Any]:
    """Open up to ``count`` /ioa/msg streams that send nothing; stops at the first refused one."""
    streams = []
    for _ in range(count):
        try:
            streams.append(await host.new_stream(to_libp2p_id(node.peer_id), [PROTOCOL_ID]))
        except Exception:
            break
    await trio.sleep(0.3)  # let the node's handlers start (and claim their budget)
    return streams


async def is_reset(stream: Any) -> bool:
    with trio.move_on_after(2):
        try:
            await stream.write(b"\x01")
            await stream.read(1)
        except Exception:
            return True
    return False


async def wait_held(node: Node, total: int) -> None:
    """Until ``node``'s partial-frame budget holds ``total`` bytes (its readers claimed them), at most 5 s."""
    with trio.move_on_after(5):
        while node.budgets.frames.held_total != total:  # noqa: ASYNC110 - the ledger offers no event
            await trio.sleep(0.02)
    assert node.budgets.frames.held_total == total


async def test_a_peers_inbound_streams_past_its_cap_are_refused_before_negotiation(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with victim_node(tmp_path, streams_per_peer=4) as node, raw_hosts(node, 1) as (host,):
            await trio.sleep(0.5)  # identify and friends finish
            streams = await open_silent(host, node, 8)
            assert 2 <= len(streams) <= 4
            assert node.budgets.streams_refused_early >= 1
            # a stream given back makes room again
            await streams[0].reset()
            await trio.sleep(0.3)
            assert len(await open_silent(host, node, 1)) == 1


async def test_a_full_stream_budget_resets_the_heaviest_peers_newest_stream(tmp_path: Path) -> None:
    with trio.fail_after(60):
        async with (
            victim_node(tmp_path, streams_per_peer=5, streams_total=6, trusted_share=0) as node,
            raw_hosts(node, 2) as (heavy, light),
        ):
            await trio.sleep(0.5)
            heavy_streams = await open_silent(heavy, node, 4)
            light_streams = await open_silent(light, node, 2)
            assert (len(heavy_streams), len(light_streams)) == (4, 2)
            assert node.budgets.streams.held_total == 6
            async with good_node(tmp_path, node) as good:
                await good.services.messaging.send_text(node.peer_id, "served")
            assert node.services.messaging.inbox[-1].body.text == "served"
            assert node.budgets.streams.evicted >= 1
            assert await is_reset(heavy_streams[-1])
            assert not await is_reset(light_streams[0])


async def test_a_full_frame_budget_evicts_the_heaviest_peers_newest_partial_frame(tmp_path: Path) -> None:
    mib = 1 << 20
    with trio.fail_after(60):
        async with (
            victim_node(
                tmp_path,
                partial_frame_bytes_per_peer=2 * mib,
                partial_frame_bytes_total=2 * mib,
                trusted_share=0,
            ) as node,
            raw_hosts(node, 1) as (heavy,),
        ):
            streams = await open_silent(heavy, node, 2)
            for claimed, stream in enumerate(streams, 1):
                await stream.write(encode_varint(mib - 64) + b"x" * 1000)
                # "newest" is the order of the claims: frames written back to back can reach the
                # node in one read of the connection, and then trio picks which reader claims first
                await wait_held(node, claimed * (mib - 64))
            async with good_node(tmp_path, node) as good:
                # a large message arrives in several reads: it needs budget, and gets it by eviction
                await good.services.messaging.send_text(node.peer_id, "y" * 300_000)
            assert node.services.messaging.inbox[-1].body.text == "y" * 300_000
            assert node.budgets.frames.evicted == 1
            assert await is_reset(streams[-1])
            assert not await is_reset(streams[0])
            assert node.budgets.frames.held_total == mib - 64


async def test_a_peer_whose_frame_budget_is_full_opens_no_new_stream_until_it_frees_it(
    tmp_path: Path,
) -> None:
    mib = 1 << 20
    with trio.fail_after(60):
        async with (
            victim_node(tmp_path, partial_frame_bytes_per_peer=mib) as node,
            raw_hosts(node, 2) as (heavy, other),
        ):
            (stream,) = await open_silent(heavy, node, 1)
            await stream.write(encode_varint(mib - 64) + b"x" * 1000)
            await trio.sleep(0.5)
            assert node.budgets.frames.held_total == mib - 64
            early = node.budgets.streams_refused_early
            # any frame it would announce now is refused: it is not even let to negotiate a stream
            assert await open_silent(heavy, node, 1) == []
            assert node.budgets.streams_refused_early == early + 1
            assert len(await open_silent(other, node, 1)) == 1  # others are served
            await stream.reset()
            await trio.sleep(0.5)
            assert node.budgets.frames.held_total == 0
            assert len(await open_silent(heavy, node, 1)) == 1


async def test_bad_limits_stop_the_node_from_starting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[limits\]\.streams_per_peer"):
        async with victim_node(tmp_path, streams_per_peer=-3):
            pass


async def sync_once(host: Any, node: Node, chat_id: bytes) -> SyncBatch:
    """One raw sync request with an empty version: the responder answers from the first message."""
    raw = await host.new_stream(to_libp2p_id(node.peer_id), [PROTO_SYNC])
    async with FramedStream(raw, node.peer_id) as stream:
        request = build(SyncRequest, chat_id=chat_id, authors=(), seqs=(), limit=500)
        await stream.send(encode_control(request))
        header = decode_control(await stream.receive(), SyncBatch)
        for _ in range(header.count):
            await stream.receive()
        return header


async def test_sync_answers_past_the_peers_budget_are_busy(tmp_path: Path) -> None:
    limits = {"sync_messages_per_peer": 25, "sync_requests_per_peer": 3, "sync_period": 600.0}
    with trio.fail_after(60):
        async with victim_node(tmp_path, **limits) as node, raw_hosts(node, 2) as (member, other):
            chats = chats_of(node)
            ids = [PeerId.from_bytes(h.get_id().to_bytes()) for h in (member, other)]
            handle = await chats.create_chat(ids, "sync budget", invite_timeout=0.5)
            for i in range(20):
                await chats.post(handle.chat_id, "text", {"text": f"m{i}"})
            answers = [await sync_once(member, node, handle.chat_id) for _ in range(3)]
            assert [(a.status, a.count, a.more) for a in answers] == [
                ("ok", 20, False),
                ("ok", 5, True),  # the messages budget cuts the answer short
                ("busy", 0, False),
            ]
            # requests are counted too, and every peer has its own budget
            assert (await sync_once(other, node, handle.chat_id)).count == 20
            assert (await sync_once(other, node, handle.chat_id)).count == 5
            for _ in range(2):
                assert (await sync_once(member, node, handle.chat_id)).status == "busy"
            assert (node.budgets.sync_messages.refused, node.budgets.sync_requests.refused) == (1, 2)
