"""Teams and completions that generalise (issue 23, classes 9 and 10), on the in-memory network under a
mock clock: every request of a goal becomes its own step; the team covers every step's best agent and
ability; an agent that accepts any text (an encoder) never "completes" a step that asks for something else.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from trio.testing import MockClock

from ioa_p2p.api.launch import LaunchRequest
from ioa_p2p.testing.memnet import MemoryNetwork

from .test_goals_memnet import CALCULATOR, COORDINATOR, goals_of, open_team, tasks_of

ENCODER = {
    "name": "encoder",
    "adapter": "echo",
    "description": "Encodes any text it is given (base64, hex, URL encoding) and returns it.",
    "skills": ["base64", "encoding", "text"],
    "options": {"name": "encoder", "skills": ["base64", "encoding"]},
}
GOAL = "Convert 12 miles to kilometres and encode the word hello in base64."


@pytest.fixture
def autojump_clock() -> MockClock:
    return MockClock(autojump_threshold=0)


async def test_each_request_is_a_step_for_its_best_agent(tmp_path: Path, autojump_clock: MockClock) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, CALCULATOR, ENCODER]) as team:
            result = await goals_of(team[0]).launch_goal(LaunchRequest(GOAL, timeout=60))
            out = result.to_json()
            assert {m["name"] for m in out["team"]} >= {"coordinator", "calculator", "encoder"}, out["team"]
            by_title = {t["title"]: t for t in tasks_of(result) if t["status"] == "completed"}
            assert by_title["step 1/2"]["assignee_name"] == "calculator"
            assert by_title["step 2/2"]["assignee_name"] == "encoder"  # not merged into step 1
            assert out["steps"][0]["value"]["value"] == pytest.approx(19.312128, abs=1e-6)
            assert out["complete"] and result.exit_code == 0, out


async def test_an_agent_that_accepts_any_text_does_not_complete_a_conversion(
    tmp_path: Path, autojump_clock: MockClock
) -> None:
    net = MemoryNetwork()
    with trio.fail_after(600):
        async with open_team(net, tmp_path, [COORDINATOR, ENCODER]) as team:
            result = await goals_of(team[0]).launch_goal(LaunchRequest(GOAL, timeout=60))
            out = result.to_json()
            conversion = [t for t in tasks_of(result) if t["title"] == "step 1/2"]
            # the encoder ran it (it accepts anything) and echoed the words back: not an answer
            assert conversion and all(t["assignee_name"] != "calculator" for t in conversion)
            assert out["steps"][0]["status"] != "completed" and out["steps"][0]["value"] is None
            assert not out["complete"] and result.exit_code == 3, out
            assert "step 1" in out["conclusion"].splitlines()[0]  # the conclusion names what is missing
