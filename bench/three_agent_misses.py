"""Why three-agent goals are missed: a verbose dry run's misses sorted into classes (issue 23, p-three).

README
======

Run (from the repository root) on a readable split::

    nice -n 10 .venv/bin/python bench/goals_dry_run.py --suite probe9 --split heldout -v \\
        | .venv/bin/python bench/three_agent_misses.py probe9 heldout [--ids]

Each three-agent goal the dry run did not answer right goes to the first class that fits, from its plan
and task lines and, where the goal's ``why`` ends ``Check: run(name=value, ...)``, the values the code
should have been run with:

- **must-refuse answered**: the value is in no document, yet no step was named missing;
- **input unbound**: the planner left a code input without a value ("No answer: the code uses X");
- **not planned**: another reason the request got no plan;
- **no code step**: the request's code was not found or not parsed;
- **a lookup refused**: a lookup the code needs was named missing (retrieval found no passage);
- **code never ran**: a step before the code failed;
- **input bound to the wrong value**: the right value was found by some step, another went into the code;
- **lookup wrong**: an input got a value no step found right (retrieval, or the lookup's question);
- **inputs right, work around the code**: every input right, the answer needs arithmetic the code does
  not do (the ``Check`` wraps ``run(...)``);
- **inputs right, answer not the code's**: every input right, the conclusion is not the code's output;
- **no Check to compare**: suites whose goals give no ``Check`` (probe, chain, nat, suite 2, para): a
  value or a binding was wrong, not told apart.

Prints counts per class and, with ``--ids``, the goal ids; never a goal's text or answer.
"""

from __future__ import annotations

import argparse
import ast
import collections
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from goals_dry_run import SUITES, load  # noqa: E402
from goals_suite_files import sealed_splits  # noqa: E402

_VERDICT = re.compile(r"^(\S+) (single|chained|three_agent|natural)\s+(ok|FAIL|REFU)\s")
_RUN_ARGS = re.compile(r"run\(([^()]*)\)")
_CODER = re.compile(r"Run this Python code:\\n```python\\n(.*?)(?:```|' -> )")


def runs(lines: Iterable[str]) -> dict[str, tuple[str, list[str]]]:
    """goal id -> (verdict, its indented lines) from a verbose dry run."""
    out: dict[str, tuple[str, list[str]]] = {}
    current = ""
    for line in lines:
        m = _VERDICT.match(line)
        if m:
            current = m.group(1)
            out[current] = (m.group(3), [])
        elif current and line.startswith("   "):
            out[current][1].append(line.rstrip("\n"))
    return out


def _number(text: Any) -> float | None:
    try:
        return float(str(text).replace(",", "").strip("'\" "))
    except ValueError:
        return None


def check_args(why: str) -> tuple[dict[str, Any] | None, str]:
    """The values ``Check: run(...)`` runs the code with, and the whole Check expression."""
    m = re.search(r"Check:\s*(.*)$", why or "", re.S)
    expr = m.group(1).strip() if m else ""
    r = _RUN_ARGS.search(expr)
    if r is None:
        return None, expr
    args: dict[str, Any] = {}
    for part in re.finditer(r"(\w+)\s*=\s*([^,]+)", r.group(1)):
        try:
            args[part.group(1)] = ast.literal_eval(part.group(2).strip())
        except (ValueError, SyntaxError):
            args[part.group(1)] = part.group(2).strip()
    return args, expr


def _assigned(lines: list[str]) -> dict[str, str]:
    coder = [line for line in lines if re.match(r"\s*\d+ coder ", line)]
    m = _CODER.search(coder[-1]) if coder else None
    return dict(re.findall(r"(?:^|\\n)(\w+) = ([^\\]+)", m.group(1))) if m else {}


def classify(goal: dict[str, Any], lines: list[str]) -> str:
    """The class of one missed three-agent goal (see the module docstring)."""
    text = "\n".join(lines)
    if goal["expected"]["type"] == "refused":
        return "must-refuse answered"
    if "unplanned: the code uses" in text:
        return "input unbound"
    if "unplanned:" in text:
        return "not planned"
    if not any(re.match(r"\s*plan \d+ code ", line) for line in lines):
        return "no code step"
    if not any(re.match(r"\s*\d+ coder ", line) for line in lines):
        return "a lookup refused" if "refused: missing" in text else "code never ran"
    args, expr = check_args(goal.get("why", ""))
    if args is None:
        return "a lookup refused" if "refused: missing" in text else "no Check to compare"
    got = _assigned(lines)
    wrong = [k for k, v in args.items() if k in got and _number(v) != _number(got[k]) and str(v) != got[k]]
    if [k for k in args if k not in got] and not wrong:
        return "a lookup refused" if "refused: missing" in text else "input unbound"
    if wrong:
        found = {
            _number(n)
            for line in lines
            if re.match(r"\s*\d+ \w+ ok=True", line)
            for n in re.findall(r"-?\d[\d,]*(?:\.\d+)?", (re.search(r"-> '([^']*)'", line) or ["", ""])[1])
        }
        return (
            "input bound to the wrong value"
            if all(_number(args[k]) in found for k in wrong)
            else "lookup wrong"
        )
    if not re.fullmatch(r"run\([^()]*\)", expr):
        return "inputs right, work around the code"
    return "inputs right, answer not the code's"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("suite", choices=tuple(SUITES))
    parser.add_argument("split")
    parser.add_argument("--ids", action="store_true", help="print the goal ids of each class")
    args = parser.parse_args()
    if args.split == "test" or args.split in sealed_splits(SUITES[args.suite]):
        raise SystemExit(f"{args.split} is sealed: its goals are scored, never read")
    goals = {g["id"]: g for g in load(SUITES[args.suite], args.split, set()) if g["kind"] == "three_agent"}
    seen = runs(sys.stdin)
    classes: dict[str, list[str]] = collections.defaultdict(list)
    right = 0
    for gid, goal in goals.items():
        if gid not in seen:
            continue
        verdict, lines = seen[gid]
        if verdict == "ok":
            right += 1
        else:
            classes[classify(goal, lines)].append(gid)
    total = sum(1 for g in goals if g in seen)
    print(f"{args.suite} {args.split}: three-agent right {right}/{total}")
    for name, ids in sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"{len(ids):4d}  {name}" + (f": {' '.join(ids)}" if args.ids else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
