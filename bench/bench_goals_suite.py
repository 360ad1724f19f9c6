"""The goal suites with exact answers, run through the ``ioa`` command on a local network.

README
======

Run (from the repository root, with the project's venv; niced, it shares the machine)::

    nice -n 10 python bench/bench_goals_suite.py --split train|dev|test|all [--only ID,...] [--timeout S]
        [--keep] [--json] [--quiet] [--model URL [--model-name NAME]]
    nice -n 10 python bench/bench_goals_suite.py --suite 3 --split all --quiet   # the held-out suite 3
    nice -n 10 python bench/bench_goals_suite.py --suite 4 --split all --quiet   # the fresh blind suite 4
    python bench/bench_goals_suite.py --suite 1 --split dev|check|all   # the old suite (issue 11)
    python bench/bench_goals_suite.py --validate [--suite 3]   # the suite files and the scorer, no network

``--suite 2`` (the default) is ``bench/goal_suite2/`` (issue 23): 16 document folders (``docs/a-*``,
``docs/b-*``: handbooks, spec sheets, recipes, timetables, incident reports, price and rate lists, rules with
exceptions, tables) and three splits per writer: ``train_*.json`` (look at it freely), ``dev_*.json`` (look
at it to decide) and ``test_*.json.gz`` (gzipped; read by this script only, and its goals' answers are never
printed: only the totals). ``--suite 1`` is issue 11's ``bench/goal_suite/`` (15 documents, ``dev.json`` and
``check.json``; its check split is no longer clean). Each goal has ``id``, a ``kind`` (``category`` in suite
1: ``single``, ``chained``, ``three_agent``, ``natural``), ``goal``, ``expected``, ``why`` and ``sources``.
The report prints every split per kind.

``--suite 3`` is ``bench/goal_suite3/`` (issue 23's independent held-out suite: 13 new document folders
``docs/c-*``, 153 goals by one writer who never read the planner): all three splits are gzipped
(``{train,dev,test}_c.json.gz``) and **sealed** (``bench/goal_suite3/SEALED``) until the coordinator opens
train and dev; test stays sealed for good. A sealed split's goals are run and counted per kind, but no goal's
text, answer or result is printed (only its id), none is in the ``--json`` report, and ``--keep`` / ``--root``
are refused for them (they would leave the goals on disk). ``--quiet`` does the same for every goal of any
suite. ``--validate`` also runs a suite's ``check_answers.py`` (suite 3: every answer recomputed from the
facts its ``why`` quotes), counting a sealed goal's problems without showing them. ``--suite 4`` is
``bench/goal_suite4/`` (the fresh blind suite written after suite 3's dev split was tuned against: 8 new
folders ``docs/d-*``, 133 goals by writer d, ``{train,dev,test}_d.json.gz``), sealed and checked the same way.
``--suite probe4 --split heldout`` is the fourth blind probe (``bench/goal_suite_probe4/``: 122 goals of
the four kinds over 9 folders, 25 to be refused), ``--suite probe5 --split heldout`` the fifth
(``bench/goal_suite_probe5/``: 161 goals over 11 folders, 43 to be refused), ``--suite probe6 --split
heldout`` the sixth (``bench/goal_suite_probe6/``: 142 goals over 11 folders, 42 to be refused), ``--suite
probe7 --split heldout`` the seventh (``bench/goal_suite_probe7/``: 90 goals over 9 folders, 22 to be
refused). Suites and splits: ``goals_suite_files.py``.

``--keep`` keeps the node homes, logs and every goal's raw ``--json`` result (``<root>/results/ID.json``),
``--root DIR`` puts them in DIR, ``--ioa PATH`` picks the ``ioa`` command (default: the one beside this
Python), ``--brain auto`` lets the nodes use a model configured through ``OPENAI_*`` (default: the offline
planner), ``--model URL`` gives every node the OpenAI-compatible model at URL (``[model] base_url``, brain
``llm``: the model takes the turns, the offline plan is its floor), ``--json`` prints one JSON report on
stdout (progress on stderr). Exit code 0, 130 when interrupted.

The network, a new user's local network: every process on 127.0.0.1, each node with its own ``IOA_HOME`` under
a temporary root, created with ``ioa init`` and started with ``ioa bootstrap start`` / ``ioa node start
--config F``: a bootstrap node, a ``coordinator`` (no adapter), a ``calculator`` (``calculator`` adapter), a
``coder`` (``python``) and a ``librarian`` (``retrieval`` over the suite's whole ``docs/``), run by
``goals_suite_network.py``. Every node's ``[chats]`` raises the per-inviter invitation rate limit
(:data:`BENCH_CHATS`): the coordinator invites the same agents once per goal. The bench waits until every
agent holds every other one's current card (``ioa find --json``), then runs the goals one after the other as
``ioa goal TEXT --json --timeout S`` on the coordinator. Every node is stopped at exit (also on Ctrl-C,
SIGTERM and errors) and stops by itself if the bench dies (``IOA_PARENT_PID``). Only the CLI, config files and
JSON outputs are used: nothing is imported from ``ioa_p2p``.

What is scored (``goals_suite_scoring.py``): the **answer** score reads the result's ``answer`` field when the
JSON has one, else the conclusion's first non-empty line; the **anywhere** score also accepts the value
anywhere in the conclusion. Numbers match within the goal's ``tol`` after normalising thousands separators,
decimal commas, scale words and units (a different known unit after the number does not match, a bare
number does; a rate such as ``EUR/m²`` is judged by its first unit); dates in any common format; text
case-insensitively on word boundaries, the ``value`` or any of its ``accept`` forms. The exit code of ``ioa
goal`` is reported, never scored. A goal not answered right is counted **refused** when the planner named
the value it lacked (a step with status ``missing``, exit 3: issue 23's honest failure) and **wrong** when it
answered with another value; the rest gave no answer for another reason. Figures: docs/performance.md,
"Goal suites".
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import goals_suite_files as suite_files
from goals_suite_files import CATEGORIES, SUITES
from goals_suite_network import Network
from goals_suite_scoring import REFUSED, WRONG, score_result

SUITE = SUITES["2"]  # set by main() from --suite


def load_goals(split: str) -> list[dict[str, Any]]:
    return suite_files.load_goals(SUITE, split)


def validate_suite(split: str = "all") -> list[str]:
    return suite_files.validate_suite(SUITE, split)


# --------------------------------------------------------------------------- the network


def run_goal(net: Network, goal: dict[str, Any], timeout: float, save: Path | None) -> dict[str, Any]:
    """``ioa goal TEXT --json --timeout S`` on the coordinator, scored; ``save``: folder for the raw JSON."""
    started = time.monotonic()
    args = ("goal", goal["goal"], "--json", "--timeout", f"{timeout:g}")
    try:
        done = net.run("coordinator", *args, timeout=timeout + 120)
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        code, stdout, stderr = "hung", "", f"ioa goal did not return within {timeout + 120:g} s"
    wall = time.monotonic() - started
    if save is not None:
        (save / f"{goal['id']}.json").write_text(stdout or stderr, encoding="utf-8")
    try:
        result = json.loads(stdout)
    except ValueError:
        result = {"error": {"type": "no JSON", "message": (stderr or stdout)[-300:]}}
    record = {
        "id": goal["id"],
        "split": goal["split"],
        "category": goal["category"],
        "exit_code": code,
        "wall_s": round(wall, 1),
        "expected": goal["expected"],
    }
    if "error" in result and "conclusion" not in result:
        return {
            **record,
            "status": "error",
            "error": result["error"],
            "answer": "",
            "answer_ok": False,
            "anywhere_match": None,
        }
    return {**record, **score_result(goal["expected"], result), "chat_id": result.get("chat_id")}


def score_table(records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    table = {}
    for cat in (*CATEGORIES, "total"):
        rows = [r for r in records if cat in ("total", r["category"])]
        if rows:
            table[cat] = {
                "goals": len(rows),
                "answer_ok": sum(r["answer_ok"] for r in rows),
                "anywhere_ok": sum(r["anywhere_match"] is not None for r in rows),
                "refused": sum(r.get("miss") == REFUSED for r in rows),
                "wrong": sum(r.get("miss") == WRONG for r in rows),
            }
    return table


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    splits = [s for s in SUITE.splits if any(r["split"] == s for r in records)]
    sizes = sorted(r.get("conclusion_chars", 0) for r in records) or [0]
    return {
        "goals": len(records),
        "by_category": score_table(records),
        "by_split": {s: score_table([r for r in records if r["split"] == s]) for s in splits},
        "exit_codes": dict(collections.Counter(str(r["exit_code"]) for r in records)),
        "statuses": dict(collections.Counter(str(r.get("status")) for r in records)),
        "all_tasks_completed": sum(
            1 for r in records if r.get("tasks") and r["tasks_completed"] == r["tasks"]
        ),
        "wall_s": round(sum(r["wall_s"] for r in records), 1),
        "conclusion_chars": {"median": sizes[len(sizes) // 2], "max": sizes[-1]},
    }


def goal_line(r: dict[str, Any]) -> str:
    verdict = "ok" if r["answer_ok"] else ("ok*" if r["anywhere_match"] is not None else "FAIL")
    verdict = "REFUS" if verdict == "FAIL" and r.get("miss") == REFUSED else verdict
    found = r.get("answer") or (r.get("error") or {}).get("message", "")
    found = found if len(found) <= 70 else found[:67] + "..."
    extra = f"  [in conclusion: {r['anywhere_match']!r}]" if verdict == "ok*" else ""
    tasks = f"{r.get('tasks_completed', 0)}/{r.get('tasks', 0)}"
    return (
        f"{r['id']:<10} {r['category']:<12} {verdict:<5} {r['wall_s']:>6.1f}s  exit {r['exit_code']!s:<4} "
        f"tasks {tasks:<5} {found!r}{extra}"
    )


def print_report(report: dict[str, Any]) -> None:
    s = report["summary"]
    tables = dict(s["by_split"]) if len(s["by_split"]) > 1 else {}
    tables["all" if tables else next(iter(s["by_split"]), "none")] = s["by_category"]
    for name, table in tables.items():
        label = "all goals" if name == "all" else f"{name} split"
        print(f"\n{label:<13} {'goals':>5} {'answer':>11} {'anywhere':>11} {'refused':>8} {'wrong':>6}")
        for cat, row in table.items():
            n = row["goals"]
            print(
                f"{cat:<13} {n:>5} {row['answer_ok']:>4} ({row['answer_ok'] / n:4.0%}) "
                f"{row['anywhere_ok']:>4} ({row['anywhere_ok'] / n:4.0%}) "
                f"{row.get('refused', 0):>8} {row.get('wrong', 0):>6}"
            )
    print(
        "\nanswer: the result's `answer`, else the conclusion's first line, states the expected value; "
        "anywhere: the whole conclusion does (ok* above); refused: no answer, the missing value named "
        "(a step 'missing', exit 3); wrong: an answer that is not the expected one"
    )
    print(
        f"exit codes of ioa goal: {s['exit_codes']}   statuses: {s['statuses']}   goals with every task "
        f"completed: {s['all_tasks_completed']}/{s['goals']}; conclusion length median "
        f"{s['conclusion_chars']['median']}, max {s['conclusion_chars']['max']} characters"
    )
    print(
        f"goal time {s['wall_s']:.0f} s; whole run {report['elapsed_s']:.0f} s (start-up "
        f"{report.get('startup_s', '?')} s, cards after {report.get('cards_s', '?')} s more); "
        f"load average at the end {report['load_avg']}"
    )


def ioa_command(explicit: str | None) -> list[str]:
    if explicit:
        return [explicit]
    beside = Path(sys.executable).parent / "ioa"
    found = str(beside) if beside.exists() else shutil.which("ioa")
    return [found] if found else [sys.executable, "-m", "ioa_p2p"]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--suite",
        choices=tuple(SUITES),
        default="2",
        help="2: goal_suite2 (default); 3: goal_suite3 (held out); 4: goal_suite4 (blind); 1: the old one",
    )
    parser.add_argument(
        "--split", default="all", help="train | dev | test | all (suites 2-4); dev | check | all (suite 1)"
    )
    parser.add_argument("--only", default=None, help="comma-separated goal ids (searched in every split)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per goal (ioa goal --timeout)")
    parser.add_argument("--keep", action="store_true", help="keep node homes, logs and raw goal results")
    parser.add_argument("--root", type=Path, default=None, help="folder for node homes (default: temporary)")
    parser.add_argument("--ioa", default=None, help="the ioa command (default: the one beside this Python)")
    parser.add_argument("--brain", choices=("offline", "auto"), default="offline")
    parser.add_argument(
        "--model", default="", metavar="URL", help="nodes use the OpenAI-compatible model at URL (brain llm)"
    )
    parser.add_argument("--model-name", default="default", help="the model name sent with --model")
    parser.add_argument("--json", action="store_true", help="one JSON report on stdout")
    parser.add_argument("--validate", action="store_true", help="check the suite files and exit")
    parser.add_argument(
        "--quiet", action="store_true", help="counts per kind only: no goal's text, answer or result"
    )
    return parser.parse_args()


def select_goals(args: argparse.Namespace) -> list[dict[str, Any]]:
    if not args.only:
        return load_goals(args.split)
    wanted = set(args.only.split(","))
    return [g for g in load_goals(args.split) if g["id"] in wanted]


def run_suite(net: Network, goals: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    """Start the network, wait for the cards, run the goals; the report so far even when interrupted."""
    report: dict[str, Any] = {
        "suite": SUITE.name,
        "split": args.split,
        "timeout": args.timeout,
        "brain": net.brain,
        "model": args.model,
        "goals": [],
    }
    started = time.monotonic()
    save = net.root / "results" if args.keep else None
    try:
        print(f"starting the network under {net.root} ...", file=net.log, flush=True)
        net.start()
        report["startup_s"] = round(time.monotonic() - started, 1)
        report["cards_s"] = round(net.wait_cards(), 1)
        report["peers"] = len(json.loads(net.run("coordinator", "peers", "--json").stdout or "[]"))
        print(
            f"ready after {report['startup_s']} s; cards after {report['cards_s']} s more; the coordinator "
            f"has {report['peers']} peers; {len(goals)} goals, --timeout {args.timeout:g}",
            file=net.log,
            flush=True,
        )
        if save is not None:
            save.mkdir(exist_ok=True)
        for goal in goals:
            report["goals"].append(run_goal(net, goal, args.timeout, save))
            done = report["goals"][-1]
            line = goal_line(done) if shown(done, args) else f"{done['id']:<10} (scored, not shown)"
            print(line, file=net.log, flush=True)
    except KeyboardInterrupt:
        report["interrupted"] = True
        print("interrupted; stopping the network", file=net.log, flush=True)
    finally:
        net.stop()
    report.update(
        summary=summary(report["goals"]),
        elapsed_s=round(time.monotonic() - started, 1),
        load_avg=[round(x, 2) for x in os.getloadavg()],
        date=time.strftime("%Y-%m-%d %H:%M"),
    )
    return report


def shown(record: dict[str, Any], args: argparse.Namespace) -> bool:
    """Whether a goal's own result may be printed: never for a sealed split's goals nor with --quiet."""
    return not args.quiet and record["split"] not in SUITE.sealed


def public_report(report: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The report without the goals whose results may not be shown (their counts stay in the summary)."""
    return {**report, "goals": [r for r in report["goals"] if shown(r, args)]}


def sealed_guard(goals: list[dict[str, Any]], args: argparse.Namespace) -> str | None:
    """Why the run must not start: a sealed goal's raw results (--keep) or node homes (--root) would stay."""
    sealed = sorted({g["split"] for g in goals if g["split"] in SUITE.sealed})
    if sealed and (args.keep or args.root is not None):
        return (
            f"suite {SUITE.name}'s {', '.join(sealed)} split(s) are held out: --keep and --root would leave "
            "their goals and answers on disk; run without them (or pick an open split)"
        )
    return None


def main() -> int:
    global SUITE
    args = parse_args()
    SUITE = SUITES[args.suite]
    if args.split not in (*SUITE.splits, "all"):
        print(
            f"--split must be one of {', '.join(SUITE.splits)} or all for suite {SUITE.name}", file=sys.stderr
        )
        return 2
    problems = validate_suite(args.split)
    if args.validate or problems:
        print("\n".join(problems) or f"suite ok: {len(load_goals(args.split))} goals", file=sys.stderr)
        return 1 if problems else 0
    goals = select_goals(args)
    if not goals:
        print(f"no goal with id in {args.only}", file=sys.stderr)
        return 2
    refused = sealed_guard(goals, args)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    root = (args.root or Path(tempfile.mkdtemp(prefix="ioa-suite-"))).resolve()
    root.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the finally blocks stop the nodes
    brain = "llm" if args.model else args.brain
    log = sys.stderr if args.json else sys.stdout
    net = Network(root, ioa_command(args.ioa), brain, log, SUITE.docs, args.model, args.model_name)
    try:
        report = run_suite(net, goals, args)
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"node homes, logs and raw results kept in {root}", file=net.log)
        elif args.root is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(public_report(report, args), indent=2, default=str))
    else:
        print_report(report)
    return 130 if report.get("interrupted") else 0


if __name__ == "__main__":
    sys.exit(main())
