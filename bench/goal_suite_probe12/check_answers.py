"""The answer check of the twelfth probe set: ``HeldoutProbe`` in ``bench/goals_suite_check.py``.

python bench/goal_suite_probe12/check_answers.py [--show]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the shared checker lives in bench/
from goals_suite_check import HeldoutProbe  # noqa: E402

PROBE = HeldoutProbe(Path(__file__).resolve().parent)
read_split, goal_problems = PROBE.read_split, PROBE.goal_problems

if __name__ == "__main__":
    sys.exit(PROBE.main("Recompute every expected answer of the twelfth probe set"))
