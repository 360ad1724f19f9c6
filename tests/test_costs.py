"""The per-agent cost table, computed from task-result contents alone (ioa_p2p.conversation.costs)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ioa_p2p.conversation.costs import cost_table, normalize_usage, render_costs, usage_of


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
    assert lines[1].startswith("llm-1") and "150+15" in lines[1] and "2.0 s" in lines[1]
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
