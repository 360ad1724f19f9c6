"""Recompute every expected answer of the ninth probe set from the facts its ``why`` lists (stdlib only).

README
======

Run (from the repository root)::

    python bench/goal_suite_probe9/check_answers.py            # prints counts and problem ids
    python bench/goal_suite_probe9/check_answers.py --show     # also the reasons

The checks are those of ``bench/goals_suite_check.py`` (shared with suites 3 and 4 and the other probes):
every fact quoted in «guillemets» occurs in the goal's sources, the ``Check`` expression (with
``run(**vars)`` running the goal's own code) gives the expected answer, a single lookup's text answer is in
its sources, and a goal that must be refused names what is missing and its ``Absent:`` phrases occur in none
of its sources. Exit code 0 when every goal checks out, 1 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: the shared checker lives in bench/
    sys.path.insert(0, str(HERE.parent))

from goals_suite_check import HeldoutProbe  # noqa: E402

PROBE = HeldoutProbe(HERE)
read_split = PROBE.read_split


def goal_problems(g: dict[str, Any], docs: dict[str, str]) -> list[str]:
    """What is wrong with one goal (``bench/goals_suite_files.py`` --validate calls this)."""
    return PROBE.goal_problems(g, docs)


if __name__ == "__main__":
    sys.exit(PROBE.main((__doc__ or "").split("\n\n")[0]))
