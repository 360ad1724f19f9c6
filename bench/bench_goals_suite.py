"""The goal suites with exact answers, run through the ``ioa`` command on a local network.

README
======

Run (from the repository root, with the project's venv; niced, it shares the machine)::

    nice -n 10 python bench/bench_goals_suite.py --split train|dev|test|all [--only ID,...] [--timeout S]
        [--keep] [--json] [--model URL [--model-name NAME]]
    python bench/bench_goals_suite.py --suite 1 --split dev|check|all   # the old suite (issue 11)
    python bench/bench_goals_suite.py --validate      # the suite files and the scorer only, no network

``--suite 2`` (the default) is ``bench/goal_suite2/`` (issue 23): 16 document folders (``docs/a-*``,
``docs/b-*``: handbooks, spec sheets, recipes, timetables, incident reports, price and rate lists, rules with
exceptions, tables) and three splits per writer: ``train_*.json`` (look at it freely), ``dev_*.json`` (look
at it to decide) and ``test_*.json.gz`` (gzipped; read by this script only, and its goals' answers are never
printed: only the totals). ``--suite 1`` is issue 11's ``bench/goal_suite/`` (15 documents, ``dev.json`` and
``check.json``; its check split is no longer clean). Each goal has ``id``, a ``kind`` (``category`` in suite
1: ``single``, ``chained``, ``three_agent``, ``natural``), ``goal``, ``expected``, ``why`` and ``sources``.
The report prints every split per kind.

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
goal`` is reported, never scored. Figures: docs/performance.md, "Goal suites".
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goals_suite_network import Network
from goals_suite_scoring import score_result, score_text, self_test

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Suite:
    """A goal suite: its folder, its splits (in order) and how a split's goals are read."""

    name: str
    root: Path
    splits: tuple[str, ...]
    #: documents that --validate checks an answer is not in (the old suite only: the new one's README
    #: says which small numbers recur by chance)
    distinct_answers: bool

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    def files(self, split: str) -> list[Path]:
        if self.name in ("1", "nat", "nat2"):
            return [self.root / f"{split}.json"]
        return sorted(self.root.glob(f"{split}_*.json.gz" if split == "test" else f"{split}_*.json"))


SUITES = {
    "1": Suite("1", HERE / "goal_suite", ("dev", "check"), True),
    "2": Suite("2", HERE / "goal_suite2", ("train", "dev", "test"), False),
    # a private held-out suite of natural and three-agent goals (bench/goal_suite_nat/README.md)
    "nat": Suite("nat", HERE / "goal_suite_nat", ("heldout",), False),
    # a second one, natural goals over rule-like documents (bench/goal_suite_nat2/README.md)
    "nat2": Suite("nat2", HERE / "goal_suite_nat2", ("heldout",), False),
}
SUITE = SUITES["2"]  # set by main() from --suite
CATEGORIES = ("single", "chained", "three_agent", "natural")

# --------------------------------------------------------------------------- the suite


def read_split(path: Path) -> list[dict[str, Any]]:
    """The goals of one split file (a test file is gzipped: read here, never printed)."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return list(json.loads(raw.decode("utf-8"))["goals"])


def load_goals(split: str) -> list[dict[str, Any]]:
    names = SUITE.splits if split == "all" else (split,)
    goals = []
    for name in names:
        for path in SUITE.files(name):
            for g in read_split(path):
                goals.append({**g, "category": g.get("category") or g.get("kind"), "split": name})
    return goals


def validate_suite(split: str = "all") -> list[str]:
    """Problems in the suite files (empty when sound). Problems of test goals are counted, never shown."""
    problems = self_test()
    goals = load_goals(split)
    docs = {
        p.relative_to(SUITE.docs).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(SUITE.docs.rglob("*"))
        if p.is_file()
    }
    ids = [g["id"] for g in goals]
    problems += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    if SUITE.name == "1":
        mixes = {
            s: collections.Counter(g["category"] for g in goals if g["split"] == s) for s in SUITE.splits
        }
        if split == "all" and mixes["dev"] != mixes["check"]:
            problems.append(f"category mix differs: dev {dict(mixes['dev'])} vs check {dict(mixes['check'])}")
    hidden = 0
    for g in goals:
        found = goal_problems(g, docs)
        if g["split"] == "test":
            hidden += len(found)
        else:
            problems += found
    if hidden:
        problems.append(f"{hidden} problem(s) in the test split (not shown: the test split is never read)")
    return problems


def goal_problems(g: dict[str, Any], docs: dict[str, str]) -> list[str]:
    where = g.get("id", "?")
    problems = []
    if g.get("category") not in CATEGORIES or not g.get("goal") or not g.get("why"):
        problems.append(f"{where}: needs a kind in {CATEGORIES}, a goal and a why")
    for source in g.get("sources", []):
        if source not in docs:
            problems.append(f"{where}: source {source} is not in docs/")
    exp = g.get("expected", {})
    try:
        hit = score_text(exp, g["goal"])
    except (KeyError, TypeError, ValueError) as exc:
        return [*problems, f"{where}: bad expected {exp}: {exc!r}"]
    if hit and exp.get("type") != "text":  # the answer must not be readable from the question itself
        problems.append(f"{where}: the expected answer already appears in the goal text ({hit!r})")
    if SUITE.distinct_answers:
        for doc, text in docs.items():  # nor from a passage a lookup would return by chance
            if doc not in g.get("sources", []) and score_text(exp, text):
                problems.append(f"{where}: the expected answer appears in {doc}, not one of its sources")
    return problems


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
            }
    return table


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    splits = [s for s in SUITE.splits if any(r["split"] == s for r in records)]
    sizes = sorted(r.get("conclusion_chars", 0) for r in records) or [0]
    return {
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
        print(f"\n{label:<13} {'goals':>5} {'answer':>11} {'anywhere':>11}")
        for cat, row in table.items():
            n = row["goals"]
            print(
                f"{cat:<13} {n:>5} {row['answer_ok']:>4} ({row['answer_ok'] / n:4.0%}) "
                f"{row['anywhere_ok']:>4} ({row['anywhere_ok'] / n:4.0%})"
            )
    print(
        "\nanswer: the result's `answer`, else the conclusion's first line, states the expected value; "
        "anywhere: the whole conclusion does (ok* above)"
    )
    print(
        f"exit codes of ioa goal: {s['exit_codes']}   statuses: {s['statuses']}   goals with every task "
        f"completed: {s['all_tasks_completed']}/{len(report['goals'])}; conclusion length median "
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
        "--suite", choices=tuple(SUITES), default="2", help="2: goal_suite2 (default); 1: the old one"
    )
    parser.add_argument(
        "--split", default="all", help="train | dev | test | all (suite 2); dev | check | all (suite 1)"
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
            line = (
                goal_line(done) if done["split"] != "test" else f"{done['id']:<10} (test: scored, not shown)"
            )
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
        print(json.dumps(report, indent=2, default=str))
    else:
        print_report(report)
    return 130 if report.get("interrupted") else 0


if __name__ == "__main__":
    sys.exit(main())
