"""``GET /cards`` says when the node first held each peer's card (``first_ms``, kept across versions), so a
benchmark measures when a card reached a node, not when a poll of a busy control API was answered (issue 26,
l-spread: at 4 x 25 the coordinator held its last card ~56 s after every agent was up, and the poll that saw
it answered at 72.7 s; ``learned_ms`` moves with every new version and confirmation). In-memory network,
MockClock."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.discovery import CardsReply
from ioa_p2p.node.discovery import Discovery
from ioa_p2p.node.discovery.views import cards_view
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def _discovery(services: object) -> Discovery:
    discovery = getattr(services, "discovery", None)
    assert isinstance(discovery, Discovery)
    return discovery


def _entry(view: dict[str, object], peer: str) -> dict[str, object]:
    cards = view["cards"]
    assert isinstance(cards, list)
    return next(c for c in cards if c["peer_id"] == peer)


async def test_cards_say_when_a_peer_was_first_held(tmp_path: Path, autojump_clock: MockClock) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    with trio.fail_after(300):
        async with AsyncExitStack() as stack:
            agents = []
            for name in ("plotter", "weather"):
                raw = {"agent": {"name": name, "description": f"the {name} agent"}}
                agent = open_memory_agent(net, cards, tmp_path / name, raw)
                agents.append(_discovery((await stack.enter_async_context(agent))[1]))
            plotter, weather = agents
            while len(weather.directory) < 2:  # noqa: ASYNC110
                await trio.sleep(0.5)
            peer = str(plotter.node.peer_id)
            first = _entry(cards_view(weather), peer)
            assert isinstance(first["first_ms"], int) and first["first_ms"] == first["learned_ms"]
            await trio.sleep(30)
            await plotter.republish()  # a new version, learned later
            later = _entry(cards_view(weather), peer)
            assert later["version"] != first["version"]
            assert isinstance(later["learned_ms"], int) and later["learned_ms"] >= first["first_ms"] + 30_000
            assert later["first_ms"] == first["first_ms"]  # still when the peer's card was first held
            reply = CardsReply.from_json(cards_view(weather))  # the typed reply keeps it
            assert next(c for c in reply.cards if c.peer_id == peer).first_ms == first["first_ms"]
