"""Recompute every expected answer of goal suite 4 from the facts its ``why`` lists (stdlib only).

README
======

Run (from the repository root)::

    python bench/goal_suite4/check_answers.py            # every split; prints counts and problem ids only
    python bench/goal_suite4/check_answers.py --show     # also the reasons (reveals nothing but ids)

Every goal's ``why`` quotes the facts it uses in double quotes and ends with ``Check: <expression>``, the
arithmetic of the answer written with the numbers of those facts. This script, independent of the planner
(it imports nothing from ``ioa_p2p``), checks for every goal of every split, with the checker shared by the
suites (``bench/goals_suite_check.py``; ``connection`` is this suite's own):

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

import csv
import gzip
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: the shared checker lives in bench/
    sys.path.insert(0, str(HERE.parent))

from goals_suite_check import AnswerChecker, check_main, mins  # noqa: E402

DOCS = HERE / "docs"
SPLITS = ("train", "dev", "test")
RAIL = DOCS / "d-kestrel-ferries" / "coastal-rail-connections.csv"


def read_split(name: str) -> list[dict[str, Any]]:
    path = HERE / f"{name}_d.json.gz"
    return list(json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))["goals"])


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


CHECKER = AnswerChecker(DOCS, {"connection": connection})


def computed_answer(g: dict[str, Any]) -> Any:
    return CHECKER.computed_answer(g)


def goal_problems(g: dict[str, Any], docs: dict[str, str]) -> list[str]:
    """What is wrong with one goal (``bench/goals_suite_files.py`` --validate calls this)."""
    return CHECKER.goal_problems(g, docs)


def main(argv: list[str] | None = None) -> int:
    splits = [(s, lambda s=s: read_split(s)) for s in SPLITS]
    return check_main(CHECKER, splits, (__doc__ or "").split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
