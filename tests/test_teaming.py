"""ioa_p2p.teaming, the one home of who joins a team: candidates from cards, ability coverage of the
plan's steps, and the LLM re-rank of the offline shortlist (its tools, shortlist, choice parser and tool
loop, driven by a scripted model). The offline team over the real matcher (lead, join rule, shortlist) is
tested in tests/test_matching_models.py, the join rule alone in tests/test_matching_join.py."""

from __future__ import annotations

import pytest

from ioa_p2p.card import issue_card
from ioa_p2p.conversation.brains.base import MemberInfo
from ioa_p2p.embedding import HashingEmbedder
from ioa_p2p.errors import ModelOutputError
from ioa_p2p.identity import Identity
from ioa_p2p.llm.model import ModelReply, ToolCall
from ioa_p2p.planning import plan_request
from ioa_p2p.teaming import (
    TEAM_TOOLS,
    Candidate,
    add_able,
    add_best,
    cover_steps,
    llm_team_from_shortlist,
    merge_results,
    parse_search_queries,
    parse_team_choice,
    render_shortlist,
    step_abilities,
)
from ioa_p2p.testing.models import ScriptedModel


def cand(peer: str, score: float = 0.0, abilities: tuple[str, ...] = ()) -> Candidate:
    return Candidate(peer, peer, f"agent {peer}", score, abilities=abilities)


def test_a_candidate_is_what_its_verified_card_says() -> None:
    embedder = HashingEmbedder(16)
    card = issue_card(
        Identity.generate(), name="calculator", description="Exact arithmetic: sums, percentages.",
        model=embedder.model_id, vector=embedder.embed(["calculator"])[0], version=1, now_ms=1,
        skills=("math",), task_types=("arithmetic",),
    ).card  # fmt: skip
    c = Candidate.from_card(card, 0.7)
    assert (c.peer_id, c.name, c.score, c.skills, c.abilities) == (
        str(card.peer),
        "calculator",
        0.7,
        ("math",),
        ("arithmetic",),
    )
    assert MemberInfo.from_card(card).abilities == c.abilities  # the planner routes by the same field


def test_the_plans_step_kinds_each_get_a_member_able_to_do_them() -> None:
    steps = plan_request("Calculate 17 * 23. Then run this Python code: print(2 ** 10)").steps
    wanted = step_abilities(steps)
    assert wanted and all(wanted)  # a calculation and code: each needs someone able
    writer = cand("writer", 0.9, ("text",))
    calc = cand("calc", 0.4, ("arithmetic",))
    calc2 = cand("calc2", 0.3, ("arithmetic",))
    coder = cand("coder", 0.2, ("code",))
    team = add_able([writer], [calc2, calc, coder, writer], wanted, max_team=4)
    assert [m.peer_id for m in team] == ["writer", "calc", "coder"]  # the best able one of each kind
    assert [m.peer_id for m in add_able([calc], [calc2, coder], wanted, max_team=4)] == ["calc", "coder"]
    assert [m.peer_id for m in add_able([writer], [calc, coder], wanted, max_team=2)] == ["writer", "calc"]
    assert add_able([writer], [], wanted, max_team=4) == [writer]  # nobody able: the team stays


def test_add_best_brings_in_each_steps_best_agent() -> None:
    encoder, converter, weak = cand("e", 0.9), cand("c", 0.78), cand("w", 0.003)
    # the converter ranks first by far for the conversion step: it joins; a step's weak best does not
    team = add_best([encoder], [converter, encoder, weak, None], max_team=4, threshold=0.2)
    assert [m.peer_id for m in team] == ["e", "c"]
    assert [m.peer_id for m in add_best([encoder], [converter], max_team=1, threshold=0.2)] == ["e"]


def test_cover_steps_is_ability_coverage_then_each_steps_best() -> None:
    steps = plan_request("Calculate 17 * 23").steps
    lead, calc, other = cand("lead", 0.9, ("text",)), cand("calc", 0.5, ("arithmetic",)), cand("o", 0.6)
    team = cover_steps([lead], [calc, other], steps, [other], max_team=4, threshold=0.2)
    assert [m.peer_id for m in team] == ["lead", "calc", "o"]
    capped = cover_steps([lead], [calc, other], steps, [other], max_team=2, threshold=0.2)
    assert [m.peer_id for m in capped] == ["lead", "calc"]  # never beyond max_team


def test_shortlist_merge_render_and_choice_parsing() -> None:
    a, b, c = cand("pa", 0.5), cand("pb", 0.9), cand("pc", 0.2)
    shortlist = merge_results([[a, c], [b, Candidate("pa", "pa", "again", 0.7)]])
    assert [x.peer_id for x in shortlist] == ["pb", "pa", "pc"] and shortlist[1].score == 0.7
    text = render_shortlist(shortlist)
    assert text.splitlines()[0].startswith("1. pb (score 0.90)")
    assert render_shortlist([]) == "No agents found."
    assert len(render_shortlist([cand(f"p{i}", 0.5) for i in range(50)], budget=60).splitlines()) < 50
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


async def test_the_model_re_ranks_and_picks_from_the_shortlist_never_beyond_it() -> None:
    shortlist = [cand("calc", 0.9), cand("py", 0.8), cand("poet", 0.1)]
    outsider = cand("outsider", 0.99)
    asked: list[str] = []

    async def search(query: str) -> list[Candidate]:  # a search that leaks an agent outside the list
        asked.append(query)
        return {"plotting": [shortlist[1]], "arithmetic": [shortlist[0]], "x": [outsider]}.get(query, [])

    model = ScriptedModel([
        ModelReply("", (ToolCall("c1", "search_agents", '{"queries": ["arithmetic", "plotting"]}'),)),
        ModelReply("", (ToolCall("c2", "search_agents", '{"queries": ["x"]}'),)),  # leaks: an error
        ModelReply("", (ToolCall("c3", "team_up", '{"members": ["outsider"]}'),)),  # not listed: an error
        ModelReply("", (ToolCall("c4", "team_up", '{"members": ["1", "py"]}'),)),
    ])  # fmt: skip
    team = await llm_team_from_shortlist(model, "add numbers and plot them", shortlist, search)
    assert [c.peer_id for c in team] == ["calc", "py"] and asked == ["arithmetic", "plotting", "x"]
    assert "1. calc" in model.calls[0][-1]["content"]  # the shortlist is in the prompt
    tool_answers = [m["content"] for m in model.calls[-1] if m.get("role") == "tool"]
    assert tool_answers[0].startswith("1. calc") and "outsider" not in tool_answers[0]
    assert tool_answers[1].startswith("error: chosen agents are not on the shortlist")
    assert tool_answers[2].startswith("error: team_up named no agent from the shortlist")

    never = ScriptedModel([ModelReply("I think we need a calculator.")] * 2)
    with pytest.raises(ModelOutputError, match="did not team up"):
        await llm_team_from_shortlist(never, "goal", shortlist, search, max_rounds=2)
    assert await llm_team_from_shortlist(never, "goal", [], search) == ()  # nothing to choose from
