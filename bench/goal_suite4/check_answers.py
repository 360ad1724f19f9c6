"""Recompute every expected answer of goal suite 4 from the facts its ``why`` lists (stdlib only).

README
======

Run (from the repository root)::

    python bench/goal_suite4/check_answers.py            # every split; prints counts and problem ids only
    python bench/goal_suite4/check_answers.py --show     # also the reasons (reveals nothing but ids)

Every goal's ``why`` quotes the facts it uses in double quotes and ends with ``Check: <expression>``, the
arithmetic of the answer written with the numbers of those facts. This script, independent of the planner
(it imports nothing from ``ioa_p2p``), checks for every goal of every split:

- the kind, the id (unique), the sources (each a file under ``docs/``);
- every quoted fact occurs in one of the goal's sources (whitespace-normalised);
- the ``Check`` expression, evaluated with ``date``, ``timedelta``, ``ceil``, ``floor``, ``round``,
  ``clock(start, minutes)`` (a time of day later), ``mins(start, end)`` (minutes from one time of day to a
  later one), ``workdays_after(day, n)`` / ``workdays_before(day, n)`` (the n-th Monday-to-Friday day after or
  before a date), ``nearest(value, step)`` (rounded to the nearest multiple of ``step``),
  ``connection(arrival, runs)`` (the first Kestrel Coast Railway train of the rail CSV, on days ``runs``, that
  leaves Skerra at least the minimum connection time after a ferry's arrival, as a row of the CSV) and
  ``run(**vars)`` (the goal's own Python code, run in a subprocess with ``vars`` bound, its printed output),
  gives the expected answer: a number within ``tol``, the same date, the same text (or, for ``all_of``, the
  same set);
- the text answer of a single lookup (no code run) occurs in one of its sources.

The splits are held out (README.md): the output names goal ids and problem kinds only, never a goal's
text or answer. Exit code 0 when every goal checks out, 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import math
import re
import subprocess
import sys
from datetime import date, timedelta
from math import floor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
SPLITS = ("train", "dev", "test")
KINDS = ("single", "chained", "three_agent", "natural")
FENCED = re.compile(r"```(?:python)?\s*\n(.*?)```", re.DOTALL)
INLINE = re.compile(r"`([^`\n]+)`")
BARE = re.compile(r"\brun (print\(.*?\))(?= with )")


def read_split(name: str) -> list[dict[str, Any]]:
    path = HERE / f"{name}_d.json.gz"
    return list(json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))["goals"])


def squash(text: str) -> str:
    return " ".join(text.split())


def goal_code(goal: str) -> str:
    """A goal's Python code: a fenced block, else the first inline code, else ``run print(..) with``."""
    for pattern in (FENCED, INLINE, BARE):
        m = pattern.search(goal)
        if m:
            return m.group(1).strip()
    raise ValueError("no code in the goal")


class Printed(float):
    """A program's output that is a number: usable in arithmetic, its printed text kept in ``raw``."""

    raw: str


def run_code(code: str, bindings: dict[str, Any]) -> float | str:
    """Run ``code`` with ``bindings`` set, in a fresh Python; its output (a :class:`Printed` number when it
    is one, else the text)."""
    prelude = "".join(f"{name} = {value!r}\n" for name, value in bindings.items())
    done = subprocess.run(
        [sys.executable, "-I", "-c", prelude + code], capture_output=True, text=True, timeout=30, check=True
    )
    out = done.stdout.strip()
    try:
        number = Printed(out)
    except ValueError:
        return out
    number.raw = out
    return number


def clock(start: str, minutes: int) -> str:
    """``HH:MM`` ``minutes`` after ``start`` (``HH:MM``) on the same day."""
    hours, mins_ = map(int, start.split(":"))
    total = hours * 60 + mins_ + minutes
    return f"{total // 60:02d}:{total % 60:02d}"


def mins(start: str, end: str) -> int:
    """Minutes from ``start`` to a later ``end`` (both ``HH:MM``, same day)."""
    (h1, m1), (h2, m2) = (map(int, t.split(":")) for t in (start, end))
    return (h2 * 60 + m2) - (h1 * 60 + m1)


def workdays_after(day: date, n: int) -> date:
    """The ``n``-th Monday-to-Friday day after ``day`` (``day`` itself not counted)."""
    while n:
        day += timedelta(days=1)
        n -= day.weekday() < 5
    return day


def workdays_before(day: date, n: int) -> date:
    """The ``n``-th Monday-to-Friday day before ``day`` (``day`` itself not counted)."""
    while n:
        day -= timedelta(days=1)
        n -= day.weekday() < 5
    return day


def nearest(value: float, step: float) -> float:
    """``value`` rounded to the nearest multiple of ``step`` (halves up)."""
    return floor(value / step + 0.5 + 1e-9) * step


RAIL = DOCS / "d-kestrel-ferries" / "coastal-rail-connections.csv"


def connection(arrival: str, runs: str) -> dict[str, str]:
    """The first train on days ``runs`` leaving Skerra at least the minimum connection time (read from the
    CSV's comment lines) after a ferry arriving at ``arrival``."""
    text = RAIL.read_text(encoding="utf-8")
    stated = re.search(r"Minimum connection time.*?: (\d+) minutes", text, re.DOTALL)
    if stated is None:
        raise ValueError("the rail file states no minimum connection time")
    minimum = int(stated.group(1))
    rows = csv.DictReader(io.StringIO("\n".join(ln for ln in text.splitlines() if not ln.startswith("#"))))
    fit = [r for r in rows if r["runs"] == runs and mins(arrival, r["depart_skerra"]) >= minimum]
    return min(fit, key=lambda r: mins(arrival, r["depart_skerra"]))


def computed_answer(g: dict[str, Any]) -> Any:
    why = g["why"]
    if "Check:" not in why:
        raise ValueError("the why has no Check: expression")
    expression = why.rsplit("Check:", 1)[1].strip()

    def run(**bindings: Any) -> float | str:
        return run_code(goal_code(g["goal"]), bindings)

    names = {
        "date": date,
        "timedelta": timedelta,
        "ceil": math.ceil,
        "floor": math.floor,
        "min": min,
        "max": max,
        "round": round,
        "clock": clock,
        "mins": mins,
        "workdays_after": workdays_after,
        "workdays_before": workdays_before,
        "nearest": nearest,
        "connection": connection,
        "run": run,
    }
    return eval(expression, {"__builtins__": {}}, names)  # our own data, never input from elsewhere


def agrees(expected: dict[str, Any], value: Any) -> bool:
    kind = expected["type"]
    if kind == "number":
        if isinstance(value, str):  # printed with a currency or separators: "EUR 1,250.00"
            numbers = re.findall(r"-?\d[\d,]*(?:\.\d+)?", value)
            value = float(numbers[0].replace(",", "")) if len(numbers) == 1 else None
        return (
            isinstance(value, int | float) and abs(float(value) - expected["value"]) <= expected["tol"] + 1e-9
        )
    if kind == "date":
        return isinstance(value, date) and value.isoformat() == expected["value"]
    if expected.get("all_of"):
        return isinstance(value, list) and sorted(value) == sorted(expected["all_of"])
    return getattr(value, "raw", value) == expected["value"]


def goal_problems(g: dict[str, Any], docs: dict[str, str]) -> list[str]:
    problems = []
    if g.get("kind") not in KINDS or not g.get("goal") or not g.get("why"):
        problems.append("needs a kind, a goal and a why")
    texts = []
    for source in g.get("sources", []):
        if source not in docs:
            problems.append("a source is not under docs/")
        else:
            texts.append(squash(docs[source]))
    facts = re.findall(r'"([^"]+)"', g["why"].rsplit("Check:", 1)[0])
    missing = sum(1 for fact in facts if not any(squash(fact) in t for t in texts))
    if missing:
        problems.append(f"{missing} quoted fact(s) not in the sources")
    if g.get("sources") and not facts:
        problems.append("sources but no quoted fact")
    try:
        value = computed_answer(g)
    except (
        ValueError,
        TypeError,
        NameError,
        SyntaxError,
        ZeroDivisionError,
        subprocess.SubprocessError,
    ) as exc:
        return [*problems, f"the Check expression fails ({type(exc).__name__})"]
    if not agrees(g["expected"], value):
        problems.append("the Check expression does not give the expected answer")
    exp = g["expected"]
    ran_code = "run(" in g["why"].rsplit("Check:", 1)[1]
    lookup = exp["type"] == "text" and g.get("kind") == "single" and not ran_code
    if lookup and texts:
        forms = exp.get("all_of") or [exp.get("value"), *exp.get("accept", [])]
        if not any(squash(f).lower() in t.lower() for f in forms if f for t in texts):
            problems.append("a text answer found in none of its sources")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print the problem reasons (ids and kinds only)")
    args = parser.parse_args()
    docs = {
        p.relative_to(DOCS).as_posix(): p.read_text(encoding="utf-8") for p in DOCS.rglob("*") if p.is_file()
    }
    seen: set[str] = set()
    bad = 0
    total = 0
    for split in SPLITS:
        for g in read_split(split):
            total += 1
            found = goal_problems(g, docs)
            if g["id"] in seen:
                found.append("duplicate id")
            seen.add(g["id"])
            if found:
                bad += 1
                print(
                    f"{split} {g['id']}: " + ("; ".join(found) if args.show else f"{len(found)} problem(s)")
                )
    print(f"{total} goals checked, {bad} with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
