"""Team selection: goal splitting, similarity with a threshold and sub-need coverage, and the LLM variant's
tools, shortlist and choice parser (with the tool loop driven by a scripted model)."""

from __future__ import annotations

import numpy as np
import pytest

from ioa_p2p.embedding import WordLlamaEmbedder, normalise
from ioa_p2p.errors import ModelOutputError, UsageError
from ioa_p2p.llm.model import ModelReply, ToolCall
from ioa_p2p.teaming.clauses import split_goal
from ioa_p2p.teaming.llm_team import (
    TEAM_TOOLS,
    llm_choose_team,
    merge_results,
    parse_search_queries,
    parse_team_choice,
    render_shortlist,
)
from ioa_p2p.teaming.selection import Candidate, choose_team
from ioa_p2p.testing.models import ScriptedModel


@pytest.mark.parametrize(
    ("goal", "clauses"),
    [
        ("Sum the sales figures and plot them as a chart",
         [("Sum the sales figures", False), ("plot them as a chart", False)]),
        ("add 2 and 3", [("add 2 and 3", False)]),
        ("Write and run a script", [("Write and run a script", False)]),
        ("Find the population of France; then double it. Finally write a short report.",
         [("Find the population of France", False), ("double it", True),
          ("write a short report", True)]),
        ("1. compute 2+2\n2. write a haiku about the number", [("compute 2+2", False),
         ("write a haiku about the number", False)]),
        ("Compute the total, and then summarize the docs",
         [("Compute the total", False), ("summarize the docs", True)]),
        ("   ", []),
    ],
)  # fmt: skip
def test_split_goal(goal, clauses) -> None:
    assert [(c.text, c.sequenced) for c in split_goal(goal)] == clauses


def test_split_goal_is_bounded() -> None:
    goal = ". ".join(f"Compute {i} plus {i}" for i in range(20))
    clauses = split_goal(goal, max_clauses=5)
    assert len(clauses) == 5 and "Compute 19 plus 19" in clauses[-1].text


def unit(*values: float) -> np.ndarray:
    return normalise(np.array(values, dtype=np.float32))[0]


def cand(peer: str, *values: float, score: float = 0.0) -> Candidate:
    return Candidate(peer, peer, f"agent {peer}", unit(*values), score)


def test_each_need_goes_to_its_best_candidate() -> None:
    needs = ["math", "code"]
    need_vectors = np.stack([unit(1, 0, 0), unit(0, 1, 0)])
    goal = unit(1, 1, 0)
    candidates = [cand("calc", 1, 0.1, 0), cand("py", 0.1, 1, 0), cand("poet", 0, 0, 1),
                  cand("generalist", 0.6, 0.6, 0.5)]  # fmt: skip
    choice = choose_team(goal, needs, need_vectors, candidates, threshold=0.5)
    assert choice.peer_ids == ("calc", "py") and not choice.below_threshold
    assert [(c.need, c.peer_id) for c in choice.coverage] == [("math", "calc"), ("code", "py")]
    # max_team 1: the member covering most needs (tie: best score) is kept, needs re-covered by it
    one = choose_team(goal, needs, need_vectors, candidates, threshold=0.5, max_team=1)
    assert len(one.members) == 1
    # excluded peers (e.g. the initiator itself) are never chosen
    assert "calc" not in choose_team(goal, needs, need_vectors, candidates, exclude=["calc"]).peer_ids


def test_threshold_and_the_single_best_fallback() -> None:
    needs = ["x"]
    need_vectors = np.stack([unit(1, 0, 0)])
    far = [cand("a", 0, 1, 0.2), cand("b", 0, 0.2, 1)]
    choice = choose_team(unit(1, 0, 0), needs, need_vectors, far, threshold=0.5)
    assert len(choice.members) == 1 and choice.below_threshold
    empty = choose_team(unit(1, 0, 0), needs, need_vectors, [], threshold=0.5)
    assert empty.members == () and empty.coverage[0].peer_id == ""
    with pytest.raises(UsageError, match="same embedding model"):
        choose_team(unit(1, 0, 0), needs, need_vectors, [cand("bad", 1, 0)])
    with pytest.raises(UsageError):
        choose_team(unit(1, 0, 0), needs, need_vectors, far, max_team=0)


def test_realistic_cards_with_the_default_embedder() -> None:
    embedder = WordLlamaEmbedder()
    cards = {
        "calculator": "Exact calculator: arithmetic, percentages, fractions, powers, sums and averages.",
        "python": "Runs Python code in a sandbox: scripts, data processing, charts and plots.",
        "docs": "Answers questions from a folder of documentation files, with citations.",
        "translator": "Translates text between English, French and German.",
        "weather": "Current weather and forecasts for any city.",
    }  # fmt: skip
    vectors = embedder.embed([f"{k}: {v}" for k, v in cards.items()])
    candidates = [Candidate(k, k, v, vectors[i]) for i, (k, v) in enumerate(cards.items())]
    goal = "Calculate the average of 12, 18 and 27, then write a Python script that plots it"
    needs = [c.text for c in split_goal(goal)]
    choice = choose_team(embedder.embed([goal])[0], needs, embedder.embed(needs), candidates,
                         threshold=0.2)  # fmt: skip
    assert set(choice.peer_ids) == {"calculator", "python"}


def test_shortlist_merge_render_and_choice_parsing() -> None:
    a, b, c = cand("pa", 1, 0, score=0.5), cand("pb", 0, 1, score=0.9), cand("pc", 1, 1, score=0.2)
    shortlist = merge_results([[a, c], [b, Candidate("pa", "pa", "again", None, 0.7)]])
    assert [x.peer_id for x in shortlist] == ["pb", "pa", "pc"] and shortlist[1].score == 0.7
    text = render_shortlist(shortlist)
    assert text.splitlines()[0].startswith("1. pb (score 0.90)")
    assert render_shortlist([]) == "No agents found."
    assert [x.peer_id for x in parse_team_choice({"members": ["2", 1, "PC", "nobody"]}, shortlist)] == [
        "pa", "pb", "pc"
    ]  # fmt: skip
    assert parse_team_choice({"team_members": "3. pc (score 0.20)"}, shortlist)[0].peer_id == "pc"
    assert len(parse_team_choice({"members": [1, 2, 3]}, shortlist, max_team=2)) == 2
    for bad in ({"members": ["nobody", 9]}, {"members": "x"}, {}, {"members": [True]}):
        with pytest.raises(ModelOutputError):
            parse_team_choice(bad, shortlist)
    assert parse_search_queries({"queries": ["math", " math ", "", "plots"]}) == ("math", "plots")
    assert parse_search_queries({"queries": "one"}) == ("one",)
    with pytest.raises(ModelOutputError):
        parse_search_queries({"queries": [1, 2]})
    assert [t["function"]["name"] for t in TEAM_TOOLS] == ["search_agents", "team_up"]


async def test_llm_team_up_tool_loop() -> None:
    pool = {"arithmetic": [cand("calc", 1, 0, score=0.9)], "plotting": [cand("py", 0, 1, score=0.8)]}
    asked: list[str] = []

    async def search(query: str):
        asked.append(query)
        return pool.get(query, [])

    model = ScriptedModel([
        ModelReply("", (ToolCall("c1", "search_agents", '{"queries": ["arithmetic", "plotting"]}'),)),
        ModelReply("", (ToolCall("c2", "team_up", '{"members": ["nobody"]}'),)),  # error, retried
        ModelReply("", (ToolCall("c3", "team_up", '{"members": ["1", "py"]}'),)),
    ])  # fmt: skip
    team = await llm_choose_team(model, "add numbers and plot them", search)
    assert [c.peer_id for c in team] == ["calc", "py"] and asked == ["arithmetic", "plotting"]
    tool_answers = [m for m in model.calls[-1] if m.get("role") == "tool"]
    assert "1. calc" in tool_answers[0]["content"] and "error" in tool_answers[1]["content"]

    never = ScriptedModel([ModelReply("I think we need a calculator.")] * 2)
    with pytest.raises(ModelOutputError, match="did not team up"):
        await llm_choose_team(never, "goal", search, max_rounds=2)


def test_candidates_from_cards_and_choice_for_a_goal() -> None:
    from ioa_p2p.card import card_text, issue_card
    from ioa_p2p.conversation.brains.base import MemberInfo
    from ioa_p2p.embedding import HashingEmbedder
    from ioa_p2p.identity import Identity
    from ioa_p2p.teaming.selection import choose_team_for_goal

    embedder = WordLlamaEmbedder()
    specs = [("calculator", "Exact arithmetic: sums, percentages, averages.", ("math",)),
             ("python", "Runs Python scripts and draws charts.", ("code",)),
             ("weather", "Weather forecasts for cities.", ())]  # fmt: skip
    cards = []
    for name, description, skills in specs:
        text = card_text(name, description, skills)
        other = HashingEmbedder(16) if name == "weather" else embedder  # a card from another model
        cards.append(issue_card(Identity.generate(), name=name, description=description,
                                model=other.model_id, vector=other.embed([text])[0], version=1,
                                now_ms=1, skills=skills).card)  # fmt: skip
    candidates = [Candidate.from_card(card, embedder, score=0.5) for card in cards]
    assert all(c.vector.shape == (embedder.dim,) for c in candidates)  # the foreign one re-embedded
    assert candidates[0].peer_id == str(cards[0].peer) and candidates[0].skills == ("math",)
    choice = choose_team_for_goal("Compute the average of 3, 5 and 10, then plot it with Python",
                                  embedder, candidates)  # fmt: skip
    assert {c.name for c in choice.members} == {"calculator", "python"}
    weather = choose_team_for_goal("Will it rain in Oslo tomorrow?", embedder, candidates)
    assert [c.name for c in weather.members] == ["weather"]
    assert MemberInfo.from_card(cards[1]).name == "python"


def test_add_best_brings_in_each_steps_best_agent() -> None:
    from ioa_p2p.teaming.selection import Candidate as C
    from ioa_p2p.teaming.selection import add_best

    encoder, converter, weak = (
        C("e", "encoder", "", score=0.9),
        C("c", "converter", "", score=0.78),
        C("w", "weak", "", score=0.003),
    )
    # the converter ranks first by far for the conversion step: it joins; a step's weak best does not
    team = add_best([encoder], [converter, encoder, weak], max_team=4, threshold=0.2)
    assert [m.peer_id for m in team] == ["e", "c"]
    assert [m.peer_id for m in add_best([encoder], [converter], max_team=1, threshold=0.2)] == ["e"]
