"""Streams between the agents of one process go through memory, not libp2p (node/net/local_streams.py):
the same handlers, budgets and signed messages, no connection, no negotiation (issue 26: in a 25-agent
process every invitation between two agents went unanswered, 48 s of team formation for a team of one)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from libp2p.network.stream.exceptions import StreamClosed, StreamEOF, StreamReset

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.config import parse_config
from ioa_p2p.config.node_config import NodeConfig
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.validators import card_key
from ioa_p2p.errors import PeerClosed, PeerUnreachable
from ioa_p2p.history.audit import audit_history
from ioa_p2p.identity import Identity, PeerId
from ioa_p2p.node.agents import agent_specs, open_agents
from ioa_p2p.node.agents.config import agents_file_plan
from ioa_p2p.node.lifecycle import open_node
from ioa_p2p.node.net.card_net import Libp2pCardNet
from ioa_p2p.node.net.cohosted import CoHosted
from ioa_p2p.node.net.cpu_wait import RunnableClock
from ioa_p2p.node.net.framing import FramedStream
from ioa_p2p.node.net.local_streams import WINDOW, LocalStream, local_stream_pair
from ioa_p2p.node.node import Node

from .test_chats_net import FAST

A, B = Identity.generate().peer_id, Identity.generate().peer_id
PROTO = "/ioa/test/echo/1.0.0"


async def test_bytes_written_at_one_end_are_read_at_the_other_then_eof_after_close() -> None:
    mine, theirs = local_stream_pair(PROTO, A, B)
    assert (mine.remote, theirs.remote, theirs.get_protocol()) == (B, A, PROTO)
    await mine.write(b"hello ")
    await mine.write(b"world")
    await mine.close()
    assert await theirs.read(3) == b"hel"
    assert await theirs.read(100) == b"lo world"
    with pytest.raises(StreamEOF):
        await theirs.read(100)
    with pytest.raises(StreamClosed):
        await mine.write(b"more")
    await theirs.write(b"answer")  # a half-close: the other direction stays open
    assert await mine.read(100) == b"answer"


async def test_a_reader_waits_for_bytes_and_a_reset_ends_both_directions() -> None:
    mine, theirs = local_stream_pair(PROTO, A, B)
    got: list[bytes] = []

    async def reader() -> None:
        got.append(await theirs.read(10))
        with pytest.raises(StreamReset):
            await theirs.read(10)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(reader)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []
        await mine.write(b"x")
        await trio.testing.wait_all_tasks_blocked()
        assert got == [b"x"]
        await mine.write(b"dropped")
        await theirs.reset()
    with pytest.raises(StreamReset):
        await mine.write(b"y")
    with pytest.raises(StreamReset):
        await mine.read(1)


async def test_a_writer_waits_while_the_other_end_holds_a_window_of_unread_bytes() -> None:
    mine, theirs = local_stream_pair(PROTO, A, B)
    await mine.write(bytes(WINDOW))
    written = trio.Event()

    async def write_more() -> None:
        await mine.write(b"z")
        written.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(write_more)
        await trio.testing.wait_all_tasks_blocked()
        assert not written.is_set()  # bounded: the reader has a window unread
        assert len(await theirs.read(WINDOW)) == WINDOW
        await written.wait()
    assert await theirs.read(10) == b"z"


async def test_frames_over_a_local_stream_keep_their_deadline() -> None:
    mine, theirs = local_stream_pair(PROTO, A, B)
    reader = FramedStream(theirs, A, read_timeout=0.2)
    writer = FramedStream(mine, B)
    await writer.send(b"frame")
    assert await reader.receive() == b"frame"
    with trio.fail_after(5), pytest.raises(Exception, match="sent nothing"):
        await reader.receive()  # silence: the read timeout holds in memory too
    await writer.close()
    with pytest.raises(PeerClosed):
        await FramedStream(theirs, A).receive()


@pytest.mark.slow
async def test_agents_of_a_process_open_streams_in_memory_and_remote_peers_over_libp2p(
    tmp_path: Path,
) -> None:
    cohosted = CoHosted()

    def config(name: str) -> NodeConfig:
        return NodeConfig(home=tmp_path / name, raw={"chats": FAST})

    async def echo(stream: FramedStream) -> None:
        await stream.send(b"from " + str(stream.remote).encode() + b": " + await stream.receive())

    with trio.fail_after(90):
        async with (
            open_node(config("a"), identity=Identity.generate(), write_info=False, cohosted=cohosted) as a,
            open_node(config("b"), identity=Identity.generate(), write_info=False, cohosted=cohosted) as b,
            open_node(config("c"), identity=Identity.generate(), write_info=False) as outsider,
        ):
            for node in (b, outsider):
                node.set_stream_handler(PROTO, echo)
            assert a.serves_locally(b.peer_id) and not a.serves_locally(outsider.peer_id)
            opened = cohosted.local_streams
            stream = await a.open_stream(b.peer_id, PROTO)
            assert isinstance(stream._stream, LocalStream)
            async with stream:
                await stream.send(b"ping")
                assert await stream.receive() == b"from " + str(a.peer_id).encode() + b": ping"
            assert not a.is_connected(b.peer_id)  # no connection was made: the stream was in memory
            assert cohosted.local_streams > opened
            # the DHT's requests too: b's own card record, asked of b, answered by b's DHT handler
            discovery = b.services.discovery
            assert discovery is not None and a.services.discovery is not None
            await discovery.card_ready.wait()
            key = card_key(b.peer_id)
            net = discovery.net
            assert isinstance(net, Libp2pCardNet)
            with trio.fail_after(30):  # card_ready = issued; b's publish loop then stores it at b first
                while True:  # no event marks a local store
                    if net.dht.value_store.get(key.encode()) is not None:
                        break
                    await trio.sleep(0.05)
            opened = cohosted.local_streams
            found = await a.services.discovery.net.ask_values({b.peer_id: [key]}, per_peer=10.0)
            assert found.get(key) and cohosted.local_streams > opened
            assert not a.is_connected(b.peer_id)
            with pytest.raises(PeerUnreachable, match="does not serve"):
                await a.open_stream(b.peer_id, "/ioa/test/nothing/1.0.0")
            await a.connect(outsider.listen_addrs()[0])
            remote = await a.open_stream(outsider.peer_id, PROTO)  # not hosted with a: libp2p
            assert not isinstance(remote._stream, LocalStream)
            async with remote:
                await remote.send(b"ping")
                assert await remote.receive() == b"from " + str(a.peer_id).encode() + b": ping"


K = 5
AGENTS = [
    ("coordinator", "Coordinates agents: launches goals and plans them.", None),
    ("writer", "Drafts and edits short texts: emails, announcements, reports and summaries.", "echo"),
    ("translator", "Translates between English, French, German and Spanish, keeping the tone.", "echo"),
    ("analyst", "Reads tables of numbers and explains trends, outliers and simple statistics.", "echo"),
    ("reviewer", "Reviews code and designs for bugs, security problems and unclear parts.", "echo"),
]
GOAL = "Write a short announcement of the new release. Then translate it into French."


@pytest.mark.slow
async def test_co_hosted_agents_form_a_team_in_memory_with_no_invitation_timeout(
    tmp_path: Path, runnable_clock: RunnableClock
) -> None:
    """K agents of one ``[[agents]]`` process (the product's ``open_agents``, real libp2p hosts on
    127.0.0.1, no bootstrap node: they never connect to each other) form a goal's team: every invitation
    answered, the goal concluded, and every member holds the same signed, hash-chained history."""
    node = {"listen": ["/ip4/127.0.0.1/tcp/0"]}
    entries = [
        {"name": name, "description": text, **({"adapter": kind, "options": {"delay": 0.0}} if kind else {})}
        for name, text, kind in AGENTS[:K]
    ]
    raw = {"agents": entries}
    home = tmp_path / "proc"
    plan = agents_file_plan(raw, home / "agents.toml")
    settings = {"node": node, "chats": FAST, "goals": {"brain": "offline", "max_team": 3}}
    specs = agent_specs(parse_config(home, settings), plan)
    with trio.fail_after(120):  # bounds a loaded box; nothing below waits on a timeout to pass
        async with open_agents(specs, home=home, control_api=False) as agents:
            nodes = agents.nodes
            assert len(nodes) == K, [r.error for r in agents.failed]
            while not all(len(_directory(n)) == K for n in nodes):  # noqa: ASYNC110 - handed over at once
                await trio.sleep(0.05)
            coordinator = agents["coordinator"].node
            assert coordinator is not None
            result = await coordinator.launch_goal(LaunchRequest(goal=GOAL, timeout=60.0))
            assert result.unanswered == () and result.declined == ()
            assert result.status == "concluded", result.conclusion
            team = [PeerId.from_string(t.peer_id) for t in result.team]
            names = {t.name for t in result.team}
            assert {"coordinator", "writer", "translator"} <= names, names
            cohosted = coordinator.budgets.cohosted
            assert cohosted is not None and cohosted.local_streams >= 2 * (len(team) - 1)
            assert not any(n.is_connected(p) for n in nodes for p in team)  # no libp2p connection at all
            chat_id = bytes.fromhex(result.chat_id)
            assert coordinator.services.chats is not None
            held = len(coordinator.services.chats.get(chat_id))  # the conclusion included
            exports = []
            for peer in team:  # delivered in the background: wait for each member's copy to be whole
                chats = next(n for n in nodes if n.peer_id == peer).services.chats
                assert chats is not None
                await chats.wait_until(lambda c=chats: len(c.get(chat_id)) >= held)
                exports.append(chats.export(chat_id))
            assert len(set(exports)) == 1
            report = audit_history(exports[0])
            assert report.valid, [f.line() for f in report.findings]


def _directory(node: Node) -> Directory:
    discovery = node.services.discovery
    assert discovery is not None
    return discovery.directory
