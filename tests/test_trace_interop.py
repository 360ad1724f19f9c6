"""Trace context never breaks interoperation (docs/protocol.md §10.11), on the in-memory transport.

A traced launcher puts its ``traceparent`` into ``conv.start`` and its task turns only when every other
member serves the feature flag :data:`~ioa_p2p.node.goals.trace_peers.TRACE_FEATURE` (nodes of this version
do); with one member of an earlier version (no flag: its decoder would refuse the key) the messages go
out without it, and the goal concludes all the same. An earlier version's decoder is the real one of
version 1 without the optional key: a content schema that accepts no unknown key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.contents import StartContent
from ioa_p2p.history.bodies import ChatMessage
from ioa_p2p.node.goals.trace_peers import PROBE_TIMEOUT, TRACE_FEATURE, TracePeers
from ioa_p2p.telemetry.tracer import AttrValue, Span
from ioa_p2p.testing.memnet import MemoryNetwork

from .test_goals_memnet import CALCULATOR, COORDINATOR, goals_of, open_team

TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class _Span:
    def set_attribute(self, key: str, value: AttrValue) -> None:
        return None

    def record_error(self, kind: str, message: str = "") -> None:
        return None

    def traceparent(self) -> str:
        return TRACE


class FixedTracer:
    """A tracer whose every span gives the same traceparent (what goes on the wire is under test)."""

    enabled = True

    def span(
        self,
        name: str,
        *,
        parent: str | None = None,
        kind: str = "internal",
        attributes: Mapping[str, AttrValue] | None = None,
    ) -> Any:
        @contextmanager
        def opened() -> Iterator[Span]:
            yield _Span()

        return opened()

    def describe(self) -> str:
        return "on: fixed"


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def conv_contents(agent: Any, chat_id: str) -> list[tuple[str, dict[str, Any]]]:
    chats = agent[1].chats
    out = []
    for env in chats.history(bytes.fromhex(chat_id)):
        if isinstance(env.body, ChatMessage) and env.body.kind.startswith("conv."):
            out.append((env.body.kind, dict(env.body.content)))
    return out


@pytest.mark.parametrize("member_is_older", [False, True])
async def test_trace_context_goes_only_to_teams_that_accept_it(
    tmp_path: Path, autojump_clock: MockClock, member_is_older: bool
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, CALCULATOR]) as team:
            launcher, member = team
            launcher[0].tracer = FixedTracer()
            if member_is_older:  # a node of an earlier version serves no feature flag
                del member[0].handlers[TRACE_FEATURE]
            result = await goals_of(launcher).launch_goal(
                LaunchRequest("Calculate 17 * 23", team=("calculator",), timeout=60)
            )
            assert result.status == "concluded" and "391" in result.conclusion
            await member[1].chats.wait_until(
                lambda: len(member[1].chats.get(bytes.fromhex(result.chat_id))) >= result.messages
            )
            sent = conv_contents(member, result.chat_id)
    traced = [kind for kind, content in sent if "trace" in content]
    if member_is_older:
        assert traced == []  # what an earlier decoder reads: version 1 without the optional key
        start = next(content for kind, content in sent if kind == cm.START)
        older = {f.name for f in dataclasses.fields(StartContent) if f.name != "trace"}  # as first shipped
        assert set(start) == older
    else:
        assert cm.START in traced and any(k in cm.TASK_KINDS for k in traced)
        start = next(content for kind, content in sent if kind == cm.START)
        assert start["trace"] == TRACE


async def test_answers_are_remembered_and_an_unknown_member_id_gets_no_trace(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(120):
        async with open_team(net, tmp_path, [COORDINATOR, CALCULATOR]) as team:
            launcher, member = team
            peers = TracePeers(launcher[0])
            me, other = str(launcher[0].peer_id), str(member[0].peer_id)
            assert await peers.context_for(TRACE, [me, other]) == TRACE
            del member[0].handlers[TRACE_FEATURE]  # remembered: not asked again
            assert await peers.context_for(TRACE, [me, other]) == TRACE
            assert await TracePeers(launcher[0]).context_for(TRACE, [me, other]) == ""  # asked anew
            assert await peers.context_for(TRACE, [me, "not-a-peer-id"]) == ""
            assert await peers.context_for("", [me, other]) == ""  # tracing off: nobody is asked


@pytest.mark.slow
async def test_the_feature_flag_is_asked_over_real_libp2p(tmp_path: Path) -> None:
    """A node of this version answers the flag; a node without it (here one without the goals service,
    as a node of an earlier version) gets multistream-select's ``na``: no trace for it, within the bound."""
    from ioa_p2p.config.node_config import NodeConfig
    from ioa_p2p.identity import Identity
    from ioa_p2p.node import open_node

    def config(name: str, **more: Any) -> NodeConfig:
        raw = {"agent": {"name": name}, "goals": {"brain": "offline"}}
        return NodeConfig(home=tmp_path / name, listen=("/ip4/127.0.0.1/tcp/0",), raw=raw, **more)

    with trio.fail_after(120):
        async with open_node(config("asker"), identity=Identity.generate(), write_info=False) as asker:
            seed = (asker.listen_addrs()[0],)
            new = open_node(config("new", bootstrap=seed), identity=Identity.generate(), write_info=False)
            old = open_node(
                config("old", bootstrap=seed), identity=Identity.generate(), write_info=False, services=False
            )
            async with new as member, old as earlier:
                connected = (member.peer_id, earlier.peer_id)  # they dial it (their bootstrap), like a team
                while not all(asker.is_connected(p) for p in connected):  # noqa: ASYNC110
                    await trio.sleep(0.05)
                peers = TracePeers(asker)
                me, ok, no = str(asker.peer_id), str(member.peer_id), str(earlier.peer_id)
                assert await peers.context_for(TRACE, [me, ok]) == TRACE
                started = trio.current_time()
                assert await peers.context_for(TRACE, [me, ok, no]) == ""
                assert trio.current_time() - started <= PROBE_TIMEOUT + 1
                assert peers.known[earlier.peer_id][0] is False  # a final answer: remembered
