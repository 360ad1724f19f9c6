"""The per-agent cost table, computed from task-result contents alone (ioa_p2p.conversation.costs)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ioa_p2p.conversation.costs import (
    COSTS_HEADING,
    agent_labels,
    cost_table,
    costs_appendix,
    duration,
    nested_agents,
    nested_usage,
    normalize_usage,
    render_costs,
    usage_of,
)


def _result(task_id: str, ok: bool, usage: Any) -> dict[str, Any]:
    return {"task_id": task_id, "ok": ok, "text": "", "data": {"usage": usage}, "files": {}, "failure": None}


def test_usage_records_are_normalised_and_unknowns_stay_unknown() -> None:
    raw = {
        "model": "openai/tiny",
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "tool_calls": 3,
        "wall_ms": 40,
    }
    assert normalize_usage(raw) == raw
    assert normalize_usage(None, wall_ms=1234) == {
        "model": None, "prompt_tokens": None, "completion_tokens": None, "tool_calls": 0, "wall_ms": 1234
    }  # fmt: skip
    hostile = {"prompt_tokens": -5, "completion_tokens": True, "tool_calls": "many", "wall_ms": 2**60}
    assert normalize_usage(hostile, wall_ms=7) == {
        "model": None, "prompt_tokens": None, "completion_tokens": None, "tool_calls": 0, "wall_ms": 7
    }  # fmt: skip
    assert usage_of("not a map")["prompt_tokens"] is None


def test_the_table_adds_up_per_agent_and_counts_a_task_once() -> None:
    a, b = "12D3KooWA", "12D3KooWB"
    results = [
        (
            a,
            _result(
                "t#0", True, {"prompt_tokens": 100, "completion_tokens": 10, "tool_calls": 2, "wall_ms": 1500}
            ),
        ),
        (
            a,
            _result("t#0", True, {"prompt_tokens": 999, "completion_tokens": 999, "wall_ms": 9}),
        ),  # repeat: ignored
        (
            a,
            _result(
                "t#1", False, {"prompt_tokens": 50, "completion_tokens": 5, "tool_calls": 1, "wall_ms": 500}
            ),
        ),
        (b, _result("t#2", True, {"model": "a2a", "tool_calls": 0, "wall_ms": 2000})),  # tokens unknown
    ]
    table = cost_table(results)
    rows = {r.agent: r for r in table.rows}
    assert (rows[a].tasks, rows[a].ok, rows[a].prompt_tokens, rows[a].completion_tokens) == (2, 1, 150, 15)
    assert (rows[a].tool_calls, rows[a].wall_ms, rows[a].unknown_tokens) == (3, 2000, 0)
    assert (rows[b].tasks, rows[b].unknown_tokens, rows[b].models) == (1, 1, ["a2a"])
    total = table.total
    assert (total.tasks, total.prompt_tokens, total.tool_calls, total.wall_ms) == (3, 150, 3, 4000)
    lines = render_costs(table, {a: "llm-1", b: "remote"})
    assert lines[0].split()[:2] == ["agent", "tasks"]
    assert lines[1].startswith("llm-1") and "150+15" in lines[1] and "2.00 s" in lines[1]
    assert "unknown" in lines[2] and lines[3].startswith("total") and "(+? in 1)" in lines[3]
    assert table.to_json({a: "llm-1"})["agents"][0]["name"] == "llm-1"


@given(st.lists(st.tuples(st.sampled_from("abc"), st.text(max_size=3), st.booleans(), st.dictionaries(
    st.sampled_from(["prompt_tokens", "completion_tokens", "tool_calls", "wall_ms", "model"]),
    st.one_of(st.integers(-10, 10**6), st.none(), st.text(max_size=3), st.booleans()),
))))  # fmt: skip
def test_any_claims_give_a_table_whose_total_is_the_sum_of_its_rows(claims: list[Any]) -> None:
    table = cost_table((author, _result(task, ok, usage)) for author, task, ok, usage in claims)
    for key in (
        "tasks",
        "ok",
        "prompt_tokens",
        "completion_tokens",
        "tool_calls",
        "wall_ms",
        "unknown_tokens",
    ):
        assert getattr(table.total, key) == sum(getattr(r, key) for r in table.rows)
    assert all(r.prompt_tokens >= 0 and r.wall_ms >= 0 for r in table.rows)


def test_times_are_shown_as_measured_not_rounded_to_zero() -> None:
    assert [duration(ms) for ms in (0, 31, 225, 999, 1000, 1234, 12_345, 61_000, 3_725_000)] == [
        "0 ms", "31 ms", "225 ms", "999 ms", "1.00 s", "1.23 s", "12.3 s", "1 min 01 s", "62 min 05 s"
    ]  # fmt: skip
    table = cost_table([("12D3KooWA", _result("t#0", True, {"wall_ms": 31})),
                        ("12D3KooWA", _result("t#1", True, {"wall_ms": 225}))])  # fmt: skip
    assert render_costs(table)[1].endswith("256 ms") and render_costs(table)[2].endswith("256 ms")


def test_agents_are_named_by_card_name_with_their_peer_id_available() -> None:
    a, b, c, d = (
        "12D3KooWAaaaaaaaaaaa1",
        "12D3KooWBbbbbbbbbbbb2",
        "12D3KooWCccccccccccc3",
        "12D3KooWDdddddddd4",
    )
    names = {a: "calculator", b: "writer", c: "writer"}  # two agents may publish the same name
    labels = agent_labels([a, b, c, d], names)
    assert labels == {a: "calculator", b: f"writer ..{b[-6:]}", c: f"writer ..{c[-6:]}", d: d[-12:]}
    table = cost_table([(p, _result(f"t#{i}", True, {"wall_ms": 5})) for i, p in enumerate((a, b, c, d))])
    text = costs_appendix(table, names)
    lines = text.splitlines()
    assert lines[0] == COSTS_HEADING and lines[2].startswith("calculator ") and "12D3KooW" not in lines[2]
    assert f"Peer ID of calculator: {a}" in lines and f"Peer ID of writer ..{b[-6:]}: {b}" in lines
    assert f"Peer ID of {d[-12:]}: {d}" in lines  # no card name known: the end of its peer ID, then all of it


def test_a_sub_teams_usage_is_added_to_its_parent_task_and_tables_add_up() -> None:
    # the sub-team: two tasks with tokens, one without (a calculator), and a nested sub-sub-team
    sub = cost_table([
        ("llm", _result("s#0", True, {"prompt_tokens": 100, "completion_tokens": 20, "tool_calls": 1})),
        ("llm", _result("s#1", True, {"prompt_tokens": 30, "completion_tokens": 5, "wall_ms": 9})),
        ("calc", _result("s#2", True, {"tool_calls": 0, "wall_ms": 3})),
        ("lead", _result("s#3", True, {"prompt_tokens": 7, "completion_tokens": 1, "tokens_unknown_tasks": 2,
                                       "tool_calls": 4, "wall_ms": 50})),
    ])  # fmt: skip
    usage = nested_usage(sub)
    assert usage == {"model": None, "prompt_tokens": 137, "completion_tokens": 26, "tool_calls": 5,
                     "tokens_unknown_tasks": 3}  # fmt: skip
    signed = normalize_usage(usage, wall_ms=412)  # what the parent's node posts: the task's real time
    assert signed["wall_ms"] == 412 and signed["tokens_unknown_tasks"] == 3
    writer = _result("p#1", True, {"prompt_tokens": 3, "completion_tokens": 2})
    parent = cost_table([("manager", _result("p#0", True, signed)), ("writer", writer)])
    total = parent.total
    assert (total.prompt_tokens, total.completion_tokens, total.tool_calls) == (140, 28, 5)  # adds up
    assert total.unknown_tokens == 3 and "(+? in 3)" in render_costs(parent)[1]
    unknown = nested_usage(cost_table([("calc", _result("s#0", True, {"wall_ms": 3}))]))
    assert unknown["prompt_tokens"] is None and "tokens_unknown_tasks" not in unknown
    assert nested_usage(cost_table([]))["prompt_tokens"] is None


def test_agents_named_by_a_sub_teams_result_are_read_tolerantly() -> None:
    data = {"agents": [{"peer_id": "p1", "name": "calc  ulator"}, {"peer_id": "p1", "name": "again"},
                       {"peer_id": 7}, "junk", {"peer_id": "p2"},
                       {"peer_id": "x" * 500, "name": "long"}]}  # fmt: skip
    assert nested_agents(data) == [("p1", "calc ulator"), ("p2", "")]
    assert nested_agents({"agents": "nope"}) == [] and nested_agents(None) == []
    assert len(nested_agents({"agents": [{"peer_id": f"p{i}"} for i in range(1000)]})) == 64
