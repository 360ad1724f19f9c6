"""Issue 11 on a real local network of node processes, through the ``ioa`` command: the planner's steps are
routed by ability, a rejected step is re-routed, retrieval below its threshold fails honestly, the
conclusion's first line is the answer, ``--json`` carries ``answer`` / ``steps`` / ``citations``, and
``ioa goal`` exits 3 when a needed step failed or a needed value is missing (issue 23: the value named).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from ioa_p2p.api.goals import EXIT_TASKS_FAILED as EXIT_INCOMPLETE
from ioa_p2p.bootstrap.testnet import open_testnet

from .test_goals_process import (
    CALCULATOR,
    COORDINATOR,
    ioa,
    spec,
    tasks_by_title,
    wait_cards,
)

pytestmark = pytest.mark.slow

DRONES = """# Drone specifications

## K2 survey drone

- Take-off weight: 3.4 kg
- Flight time: 38 min
- List price: EUR 2,900

## K1 hobby drone

- Take-off weight: 1.2 kg
- Flight time: 22 min
"""
LIBRARIAN = {
    "adapter": "retrieval",
    "description": "Answers questions from the drone documents with cited passages.",
    "skills": ["documents", "search"],
}
#: A coder whose card claims arithmetic too and reads like a calculator: calculation steps go to it first
#: (same ability, closer wording); its adapter's can_do says no, so the planner must re-route.
OVERCONFIDENT_CODER = {
    "adapter": "python",
    "description": "Exact arithmetic: computes products, sums and percentages of numbers.",
    "skills": ["arithmetic", "calculate", "python"],
    "task_types": ["arithmetic", "code"],
}


#: The goals' team, named (team selection by wording is not what this test is about).
TEAM = ("--team", "librarian,calculator,coder")


async def goal_json(home: Path, goal: str, *args: str) -> tuple[int, dict[str, Any]]:
    done = await ioa(home, "goal", goal, "--timeout", "60", "--json", *args)
    assert done.stdout, done.stderr.decode()
    return done.returncode, json.loads(done.stdout)


async def test_planned_goals_answer_first_reroute_and_fail_honestly(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "drones.md").write_text(DRONES, encoding="utf-8")
    specs = [
        spec("coordinator", COORDINATOR),
        spec("calculator", CALCULATOR),
        spec("coder", OVERCONFIDENT_CODER),
        spec("librarian", {**LIBRARIAN, "options": {"path": str(docs)}}),
    ]
    with trio.fail_after(300):
        async with open_testnet(tmp_path / "net", specs) as net:
            coordinator = net["coordinator"]
            await wait_cards(net, coordinator, 3)

            # a lookup (routed to the librarian by ability), then a calculation on its value
            code, result = await goal_json(
                coordinator.home, "Look up the take-off weight of the K2 drone, then triple it.", *TEAM
            )
            assert code == 0, result["conclusion"]
            first = result["conclusion"].splitlines()[0]
            assert first == result["answer"] == "The answer is 10.2 kg.", result["conclusion"]
            assert [(s["kind"], s["who"], s["status"]) for s in result["steps"]][0] == (
                "lookup",
                "librarian",
                "completed",
            )
            assert result["steps"][0]["value"]["value"] == 3.4 and result["steps"][0]["value"]["unit"] == "kg"
            assert result["citations"] and result["citations"][0]["path"] == "drones.md"
            assert "3.4 kg" in result["citations"][0]["text"] and result["complete"] is True
            assert len(result["conclusion"]) < 1500  # a derivation, not pasted transcripts

            # re-routing: the coder claims arithmetic and ranks first, rejects through can_do, the
            # calculator does it; the coder's refusal forms no sub-team
            code, result = await goal_json(coordinator.home, "Compute 37 * 54.", "--team", "coder,calculator")
            assert code == 0, result["conclusion"]
            attempts = tasks_by_title(result)["step 1/1"]
            assert [(t["assignee_name"], t["status"]) for t in attempts] == [
                ("coder", "failed"),
                ("calculator", "completed"),
            ]
            assert "can_do = 0" in attempts[0]["text"]
            assert not (attempts[0].get("data") or {}).get("sub_chat")
            assert result["answer"] == "The answer is 1998."

            # nothing in the documents answers: the lookup fails (below the retrieval threshold), no other
            # member "completes" it, the conclusion names what the lookup asked for as the missing value
            # (planning/refusal.py absence_refusal) and the exit code is 3
            code, result = await goal_json(
                coordinator.home,
                "Look up the boiling point of the coolant in the Q9 reactor, then double it.",
                *TEAM,
            )
            assert code == EXIT_INCOMPLETE, result["conclusion"]
            assert result["answer"] == "" and result["complete"] is False
            assert result["conclusion"].startswith(
                'No answer: missing value: what step 1 asks for ("Look up the boiling point of the coolant'
            )
            assert [s["status"] for s in result["steps"]][:1] == ["missing"]
            lookups = tasks_by_title(result)["step 1/2"]
            assert lookups and all(t["status"] == "failed" for t in lookups)
            assert lookups[0]["assignee_name"] == "librarian"
            assert "step 2/2" not in tasks_by_title(result)  # never run on a missing value
            assert not result["citations"]

            # a needed value is absent from the documents (no hire rate for the K2, only its list price):
            # the derivation is refused, not guessed from the list price; the conclusion names the
            # missing rate first, the step is "missing", nobody was asked to do it and the exit code is 3
            code, result = await goal_json(
                coordinator.home, "What would hiring the K2 survey drone cost for 3 days?", *TEAM
            )
            assert code == EXIT_INCOMPLETE, result["conclusion"]
            first = result["conclusion"].splitlines()[0]
            assert first.startswith("No answer: missing value: a rate in EUR per day"), first
            assert result["answer"] == "" and result["complete"] is False
            refused = result["steps"][-1]
            assert refused["status"] == "missing" and refused["missing"]["unit"] == "EUR/days", refused
            assert f"step {len(result['steps'])}/{len(result['steps'])}" not in tasks_by_title(result)
