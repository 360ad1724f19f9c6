"""Where the retrieval's typed answer replaces the fact scorer's, and whether that was right.

README
======

Run (from the repository root, with the project's venv)::

    nice -n 10 .venv/bin/python bench/typed_arbitration.py [--suite 2 --split train,dev] [--policy misfit]

Every lookup the offline planner plans for the goals of the suites and splits given (no test split) is
asked of the retrieval adapter twice, in process: with the typed document model switched off
(``TYPED_POLICY = none``: the fact scorer alone) and with the policy given. The lookups whose answers
differ are listed; for a goal whose only step is that lookup (``single`` goals and one-step natural
goals) the goal's expected answer says which of the two was right. The figures say whether the
arbitration between the two (adapters/retrieval/typed.py) replaces correct answers.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

import trio
from goals_dry_run import SUITES, load
from goals_suite_scoring import score_text

from ioa_p2p.adapters.base import Task, TaskContext, run_task
from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.adapters.retrieval import typed as typed_policy
from ioa_p2p.planning import plan_request, value_of
from ioa_p2p.planning.types import LOOKUP

HERE = Path(__file__).resolve().parent
VERDICTS = {
    (True, False): "REPLACED A RIGHT ANSWER",
    (False, True): "fixed",
    (True, True): "both right",
    (False, False): "both wrong",
}


async def _quiet(_: object) -> None:
    return None


async def answer(adapter: object, question: str) -> str:
    task = Task(question, (), trio.current_time() + 60, "t", "c")
    result = await run_task(adapter, task, TaskContext(_quiet))  # type: ignore[arg-type]
    value = value_of(result.text, result.data, question) if result.ok else None
    return value.shown() if value is not None else "(none)"


async def main_async(args: argparse.Namespace) -> int:
    counts: collections.Counter[str] = collections.Counter()
    for suite_name in args.suite.split(","):
        suite = SUITES[suite_name]
        adapter = adapter_from_config(
            {"name": "l", "adapter": "retrieval", "options": {"path": str(suite / "docs")}}
        )
        splits = args.split.split(",")
        if suite_name in ("nat", "nat2"):
            splits = ["heldout"]
        elif suite_name == "1":
            splits = [s for s in splits if s in ("dev", "check")]
        for split in splits:
            for goal in load(suite, split, set()):
                plan = plan_request(goal["goal"])
                lookups = [
                    s for s in plan.steps if s.kind == LOOKUP and not re.search(r"\{\d+\}", s.template)
                ]
                alone = len(plan.steps) == 1 or (
                    len(plan.steps) == 2 and plan.steps[1].template == "derive(v1)"
                )
                for step in lookups:
                    typed_policy.TYPED_POLICY = "none"
                    before = await answer(adapter, step.template)
                    typed_policy.TYPED_POLICY = args.policy
                    after = await answer(adapter, step.template)
                    counts["lookups"] += 1
                    if before == after:
                        continue
                    counts["differ"] += 1
                    verdict = ""
                    if alone and len(lookups) == 1:
                        ok_before = score_text(goal["expected"], before) is not None
                        ok_after = score_text(goal["expected"], after) is not None
                        verdict = VERDICTS[(ok_before, ok_after)]
                        counts[verdict] += 1
                    print(f"{goal['id']:<8} {before[:40]!r:<44} -> {after[:40]!r:<44} {verdict}", flush=True)
        await adapter.aclose()  # type: ignore[attr-defined]
    print(", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--suite", default="2,nat,nat2,1", help="comma-separated: 1, 2, nat, nat2, para")
    parser.add_argument("--split", default="train,dev", help="comma-separated (never test)")
    parser.add_argument(
        "--policy", default=typed_policy.TYPED_POLICY, choices=("misfit", "confidence", "always")
    )
    args = parser.parse_args()
    if "test" in args.split.split(","):
        raise SystemExit("the test split is scored by bench_goals_suite.py only")
    return trio.run(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
