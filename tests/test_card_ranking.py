"""Discovery's ranking with the offline matcher: mixed-version cards, live cards only, the LSH family both
card schemes share, the matcher setting, and the LLM team-up confined to the offline shortlist (scripted
server)."""

from __future__ import annotations

import numpy as np
import pytest
import trio

from ioa_p2p.card import issue_card
from ioa_p2p.dht.directory import Directory
from ioa_p2p.dht.lsh import card_buckets, hyperplanes_for
from ioa_p2p.dht.ranking import CardRanker, card_profile
from ioa_p2p.dht.settings import DiscoverySettings
from ioa_p2p.embedding import WordLlamaEmbedder
from ioa_p2p.errors import ConfigError, ModelOutputError, UsageError
from ioa_p2p.identity import Identity
from ioa_p2p.llm.openai_compat import OpenAIModel
from ioa_p2p.matching import HYBRID_MODEL_ID, LITE_MODEL_ID, HybridMatcher, hybrid_matcher
from ioa_p2p.teaming.candidates import Candidate
from ioa_p2p.teaming.llm_team import check_in_shortlist, llm_team_from_shortlist

from .openai_server import Reply, ToolCallReply, serve

pytest.importorskip("onnxruntime")

NOW = 1_700_000_000_000
AGENTS = {
    "scribe": "Converts recorded speech to text with timestamps and speaker labels.",
    "sakura-bridge": "Translates between Japanese and English in both directions.",
    "nimbus": "Weather forecasts: rain, wind and temperature for any city, hour by hour.",
    "py-plotter": "Offline Python sandbox with pandas and matplotlib; returns charts as PNG images.",
    "cellar": "Suggests wines to pour with a dish, by grape, region and budget.",
    "gist": "Condenses long documents into a short summary of the key points.",
}


@pytest.fixture(scope="module")
def matcher() -> HybridMatcher:
    m = hybrid_matcher()
    m.load()
    return m


def card_of(i: int, name: str, model: str, vector: np.ndarray, version: int = 1, ttl_ms: int = 60_000):
    identity = Identity(i.to_bytes(32, "big"))
    return issue_card(
        identity,
        name=name,
        description=AGENTS[name],
        model=model,
        vector=vector,
        version=version,
        now_ms=NOW,
        ttl_ms=ttl_ms,
    )


def hybrid_card(matcher: HybridMatcher, i: int, name: str, **kw):
    draft = card_of(i, name, "draft", np.ones(1, dtype=np.float32))
    return card_of(i, name, matcher.model_id, matcher.card_vectors([card_profile(draft.card)])[0], **kw)


def test_mixed_version_cards_are_ranked_alike(matcher: HybridMatcher) -> None:
    ranker = CardRanker(hybrid_matcher())  # a fresh index (the models are loaded once per process)
    directory = Directory(matcher.model_id, matcher.dim, ranker=ranker)
    old = WordLlamaEmbedder()
    cards = []
    for i, name in enumerate(AGENTS, start=1):
        if i % 2:  # half the network runs the previous release: wordllama vectors, another model id
            cards.append(card_of(i, name, old.model_id, old.embed([AGENTS[name]])[0]))
        else:
            cards.append(hybrid_card(matcher, i, name))
    for card in cards:
        directory.offer(card, NOW, "gossip")
    assert ranker.pending() == len(AGENTS)
    found = directory.rank("speech to text of my meeting recording", 2, NOW)
    assert found[0].card.card.name == "scribe"  # an old-model card, re-embedded from its text
    assert ranker.reembedded == 3 and ranker.pending() == 0
    assert directory.rank("Japanese to English translation", 1, NOW)[0].card.card.name == "sakura-bridge"
    # a published vector of the matcher's scheme is used as is (only foreign cards are re-embedded)
    directory.offer(hybrid_card(matcher, 2, "sakura-bridge", version=2), NOW, "gossip")
    assert directory.rank("translate Japanese", 1, NOW)[0].card.version == 2 and ranker.reembedded == 3


def test_directory_rank_gives_live_cards_only(matcher: HybridMatcher) -> None:
    ranker = CardRanker(hybrid_matcher())
    directory = Directory(matcher.model_id, matcher.dim, ranker=ranker)
    short = hybrid_card(matcher, 3, "nimbus", ttl_ms=1_000)
    plotter = hybrid_card(matcher, 4, "py-plotter")
    for card in (short, plotter, hybrid_card(matcher, 6, "gist")):
        directory.offer(card, NOW, "gossip")
    assert directory.rank("will it rain tomorrow", 1, NOW)[0].card.card.name == "nimbus"
    later = NOW + 2_000  # nimbus expired: never returned, even before the expiry loop drops it
    assert "nimbus" not in [m.card.card.name for m in directory.rank("will it rain tomorrow", 3, later)]
    mine = frozenset({plotter.peer_id})
    assert plotter.peer_id not in {m.card.peer_id for m in directory.rank("chart", 3, NOW, exclude=mine)}
    directory.remove(plotter.peer_id)
    assert plotter.peer_id not in {m.card.peer_id for m in directory.rank("plot a chart", 3, NOW)}
    assert directory.rank("chart", 0, NOW) == []
    with pytest.raises(UsageError, match="no matcher"):
        Directory(matcher.model_id, matcher.dim).rank("x", 1, NOW)


def test_both_card_schemes_share_the_default_schemes_buckets(matcher: HybridMatcher) -> None:
    text = "weather forecast for Oslo"
    hybrid_vector = matcher.embed([text])[0]  # a card or query of the 640-d scheme
    wordllama_vector = WordLlamaEmbedder().embed([text])[0]  # the default scheme's
    hybrid, default = card_buckets(HYBRID_MODEL_ID, 640), card_buckets(LITE_MODEL_ID, 256)
    assert hybrid.planes is default.planes is hyperplanes_for(LITE_MODEL_ID, 256)
    assert np.allclose(hybrid.view(hybrid_vector), wordllama_vector, atol=1e-5)
    assert [b.key for b in hybrid.buckets(hybrid_vector)] == [
        b.key for b in default.buckets(wordllama_vector)
    ]
    assert [b.key for b in hybrid.probes(hybrid_vector, 40)] == [
        b.key for b in default.probes(wordllama_vector, 40)
    ]
    own = card_buckets("openai/text-embedding-3-small/1536", 1536)  # any other scheme keeps its family
    assert own.part is None and own.planes is hyperplanes_for("openai/text-embedding-3-small/1536", 1536)
    with pytest.raises(UsageError, match="dimensions"):
        hybrid.buckets(wordllama_vector)


def test_discovery_matcher_setting() -> None:
    assert DiscoverySettings.from_section({}).matcher == "hybrid"
    assert DiscoverySettings.from_section({"matcher": "lite"}).matcher == "lite"
    with pytest.raises(ConfigError, match="matcher"):
        DiscoverySettings.from_section({"matcher": "bert"})


def _shortlist_setup(matcher: HybridMatcher) -> tuple[CardRanker, dict[str, str], tuple[str, ...]]:
    ranker = CardRanker(hybrid_matcher())
    directory = Directory(matcher.model_id, matcher.dim, ranker=ranker)
    names = {}
    for i, name in enumerate(AGENTS, start=1):
        card = hybrid_card(matcher, i, name)
        directory.offer(card, NOW, "gossip")
        names[str(card.peer_id)] = name
    goal = "Transcribe the recording of our Osaka interviews and translate them into English"
    pick, keys = ranker.shortlist(goal, size=3)
    assert keys[: len(pick.keys)] == pick.keys and len(keys) == 3
    return ranker, names, keys


async def test_llm_team_up_is_confined_to_the_offline_shortlist(matcher: HybridMatcher) -> None:
    ranker, names, keys = _shortlist_setup(matcher)
    shortlist = [Candidate(k, names[k], "") for k in keys]
    outsider = next(n for k, n in names.items() if k not in keys)

    async def search(query: str) -> list[Candidate]:  # what the node passes: the matcher over the shortlist
        return [Candidate(m.key, names[m.key], "") for m in ranker.rank(query, len(keys), among=keys)]

    goal = "Transcribe the recording of our Osaka interviews and translate them into English"
    with serve() as server:
        server.script(
            Reply(tool_calls=(ToolCallReply("search_agents", '{"queries": ["wine pairing"]}', "c1"),)),
            Reply(tool_calls=(ToolCallReply("team_up", f'{{"members": ["{outsider}", "1"]}}', "c2"),)),
        )
        model = OpenAIModel(model="scripted", base_url=server.base_url, api_key="test")
        with trio.fail_after(30):
            team = await llm_team_from_shortlist(model, goal, shortlist, search)
        assert [c.peer_id for c in team] and {c.peer_id for c in team} <= set(keys)
        assert outsider not in [c.name for c in team]  # named by the model, but not on the shortlist
        first = server.requests[0]["messages"][-1]["content"]
        assert all(names[k] in first for k in keys) and outsider not in first  # the model saw only these
        tool_answer = [m for m in server.requests[1]["messages"] if m.get("role") == "tool"][0]["content"]
        assert outsider not in tool_answer  # its search re-ranks the shortlist, nothing beyond

        server.script(*[Reply(tool_calls=(ToolCallReply("team_up", f'{{"members": ["{outsider}"]}}'),))] * 2)
        with trio.fail_after(30), pytest.raises(ModelOutputError):
            await llm_team_from_shortlist(model, goal, shortlist, search, max_rounds=2)
        await model.aclose()
    with pytest.raises(ModelOutputError, match="not on the shortlist"):
        check_in_shortlist([Candidate("x", outsider, "")], set(keys))
    assert await llm_team_from_shortlist(model, goal, [], search) == ()
