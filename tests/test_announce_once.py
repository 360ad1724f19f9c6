"""A card goes out by gossip once per version at start, not twice (issue 26, l-spread).

Every announcement is flooded to every node of the card topic (each forwards it to its mesh), so an agent
that announced its first card twice, 0.04 s apart (``card_loop`` issues the first card once every service is
open and announces it; ``go_live`` then announced the same version again), cost a 100-agent network 100
extra floods while it started: measured in a 4 x 25 start, every agent announced at least twice. On the
in-memory network under ``MockClock``; the re-announcements on topic growth and the renewals are untouched.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.node.discovery import Discovery
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards, MemoryCardTopic
from ioa_p2p.testing.memnet import MemoryNetwork

NAMES = {"plotter": "draws plots and charts of data", "weather": "weather forecasts for any city"}


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


def _discovery(services: object) -> Discovery:
    discovery = getattr(services, "discovery", None)
    assert isinstance(discovery, Discovery)
    return discovery


async def test_the_first_card_is_announced_once(tmp_path: Path, autojump_clock: MockClock) -> None:
    net = MemoryNetwork()
    cards = MemoryCards(net)
    with trio.fail_after(300):
        async with AsyncExitStack() as stack:
            agents = []
            for name, description in NAMES.items():
                raw = {"agent": {"name": name, "description": description}}
                agents.append(
                    await stack.enter_async_context(open_memory_agent(net, cards, tmp_path / name, raw))
                )
            discoveries = [_discovery(services) for _, services in agents]
            while any(len(d.directory) < len(NAMES) for d in discoveries):  # noqa: ASYNC110
                await trio.sleep(0.5)
            await trio.sleep(1.0)  # well under the first re-announcement's gap (3 s after growth)
            for discovery in discoveries:
                topic = discovery.gossip
                assert isinstance(topic, MemoryCardTopic)
                assert discovery.card is not None
                assert topic.published == 1, f"{discovery.agent.name}: {topic.published} announcements"
            # a new version is still announced (once), and the version already out is not again
            first = discoveries[0]
            topic = first.gossip
            assert isinstance(topic, MemoryCardTopic)
            await first.republish()
            assert topic.published == 2
            await first.go_live()  # the start's announcement of a version already out: nothing
            assert topic.published == 2
