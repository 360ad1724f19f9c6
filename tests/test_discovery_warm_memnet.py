"""The card matcher's models on the in-memory transport under trio's ``MockClock(autojump_threshold=0)``:
warmed in the background after start (``[discovery] warm``), at the first find and unloaded when idle
(``warm = "auto"``), and a process that never ranks dropping its card encoder soon after its cards. The
agents and helpers are tests/test_discovery_memnet.py's."""

from __future__ import annotations

import dataclasses
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.dht.ranking import CardRanker
from ioa_p2p.matching.encoders import MiniLMEncoder, WordLlamaEncoder
from ioa_p2p.node.discovery.views import status as discovery_status
from ioa_p2p.node.discovery.warm import CARD_ENCODER_IDLE, IDLE_CHECK
from ioa_p2p.testing.memagents import open_memory_agent
from ioa_p2p.testing.memcards import MemoryCards
from ioa_p2p.testing.memnet import MemoryNetwork

from .test_discovery_memnet import AGENTS, Agent, discovery_of, names, open_agents, wait_cards


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


async def test_the_matcher_warms_in_the_background_after_start(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """With ``[discovery] warm`` the models load after the first card, not at the first find, and cards
    that arrive are embedded in the background: a find then has nothing left to embed."""
    net = MemoryNetwork()
    cards = MemoryCards(net)
    agents: list[Agent] = []
    with trio.fail_after(600):
        async with AsyncExitStack() as stack:
            for name, warm in (("plotter", True), ("weather", True), ("translator", False)):
                raw = {"agent": {"name": name, "description": AGENTS[name]}, "discovery": {"warm": warm}}
                agents.append(
                    await stack.enter_async_context(open_memory_agent(net, cards, tmp_path / name, raw))
                )
            seeker, cold = discovery_of(agents[1]), discovery_of(agents[2])
            await seeker.warm.warmed.wait()
            assert discovery_status(seeker)["matcher"]["state"] == "warm"
            await wait_cards(agents, 3)
            ranker = seeker.directory.ranker
            assert ranker is not None
            while ranker.pending():  # noqa: ASYNC110 - the warm-up embeds them on its period
                await trio.sleep(0.5)
            assert len(ranker.matcher) == 3  # every card embedded before any find
            assert names(await seeker.find("draw a chart of the data", k=1, use_dht=False)) == ["plotter"]
            expected = {"policy": "false", "state": "cold", "load_ms": None, "unloads": 0, "pending": 3}
            assert discovery_status(cold)["matcher"] == expected
            assert cold.directory.ranker is not None and len(cold.directory.ranker.matcher) == 0
            assert all(a[0].faults.snapshot() == {} for a in agents)


async def test_auto_warms_at_the_first_find_and_the_models_are_unloaded_when_idle(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    """``warm = "auto"`` (the default): no model at start; a find loads them, arriving cards are then
    embedded in the background; after ``unload_idle`` s without a find they are unloaded (the index stays)
    and the next find loads them again. A node of the process with ``warm = true`` keeps them loaded."""
    WordLlamaEncoder.unload()  # the models are the process's: another test may have loaded them
    MiniLMEncoder.unload()
    net = MemoryNetwork()
    cards = MemoryCards(net)
    auto = {"warm": "auto", "unload_idle": 60.0, "matcher": "lite"}
    async with open_agents(net, cards, tmp_path, ["plotter", "weather"], discovery=auto) as agents:
        seeker = discovery_of(agents[1])
        ranker = seeker.directory.ranker
        assert ranker is not None
        await wait_cards(agents, 2)
        await trio.sleep(IDLE_CHECK * 2)
        assert not ranker.holds_models() and discovery_status(seeker)["matcher"]["state"] == "cold"
        assert names(await seeker.find("draw a chart of the data", k=1, use_dht=False)) == ["plotter"]
        assert ranker.loaded()
        await seeker.warm.warmed.wait()
        assert discovery_status(seeker)["matcher"]["state"] == "warm"
        await trio.sleep(60.0 + 2 * IDLE_CHECK)  # no find meanwhile
        status = discovery_status(seeker)["matcher"]
        assert not ranker.holds_models() and status["state"] == "cold" and status["unloads"] >= 1
        assert len(ranker.matcher) == 2  # the index stayed
        assert names(await seeker.find("weather forecast for Paris", k=1, use_dht=False)) == ["weather"]
        assert ranker.loaded()
        async with open_agents(net, cards, tmp_path, ["translator"], discovery={"warm": True}) as keeper:
            await discovery_of(keeper[0]).warm.warmed.wait()
            await trio.sleep(60.0 + 2 * IDLE_CHECK)
            assert ranker.loaded()  # a warm = true node of the process keeps the shared models
        assert all(a[0].faults.snapshot() == {} for a in agents)


async def test_a_process_that_never_ranked_drops_its_card_encoder_soon_after_its_cards(
    tmp_path: Path, autojump_clock: MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Agents that only serve (no find, no goal in the process) hold wordllama's tokenizer only for their
    own cards: it goes ``CARD_ENCODER_IDLE`` s after the process's last embedding (default
    ``unload_idle``: 300 s), a later agent's card postponing it; a re-issue with new settings reloads it."""
    WordLlamaEncoder.unload()
    MiniLMEncoder.unload()
    monkeypatch.setattr(CardRanker, "queries", 0)  # rankings are counted per process: none in this one
    net = MemoryNetwork()
    cards = MemoryCards(net)
    lite, wordllama = {"matcher": "lite"}, {name: {"backend": "wordllama"} for name in ("plotter", "weather")}
    async with open_agents(net, cards, tmp_path, ["plotter"], lite, wordllama) as agents:
        first = discovery_of(agents[0])
        await first.card_ready.wait()
        ranker = first.directory.ranker
        assert ranker is not None and ranker.holds_models()  # its card was embedded
        await trio.sleep(CARD_ENCODER_IDLE - 20)
        async with open_agents(net, cards, tmp_path, ["weather"], lite, wordllama) as later:
            await wait_cards([*agents, *later], 2)
            await trio.sleep(CARD_ENCODER_IDLE - 20)
            assert ranker.holds_models()  # the later card is an embedding of the process: not idle yet
            await trio.sleep(20 + IDLE_CHECK)
            assert not ranker.holds_models()
            assert discovery_status(first)["matcher"]["unloads"] == 1
            plotter = first.agent
            card = await first.set_agent(dataclasses.replace(plotter, description="Draws bar charts"))
            assert card.card.description == "Draws bar charts"
            assert CardRanker.queries == 0 and first.directory.ranker is ranker
        assert all(a[0].faults.snapshot() == {} for a in agents)
