"""Per-kind verdicts of a dry run of this probe, with the goals that must be refused counted apart.

README
======

Run (from the repository root)::

    nice -n 10 .venv/bin/python bench/goals_dry_run.py --suite probe12 --split heldout \\
        | python bench/goal_suite_probe12/tally.py

The counting is ``bench/goals_probe_tally.py`` (shared by the probes).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: the shared tally lives in bench/
    sys.path.insert(0, str(HERE.parent))

from goals_probe_tally import tally  # noqa: E402

if __name__ == "__main__":
    sys.exit(tally(HERE / "heldout.json", sys.stdin))
