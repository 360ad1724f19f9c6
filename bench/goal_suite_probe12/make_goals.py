"""Writes heldout.json: the twelfth probe set's goals (issue 23, p-probe13). Run: python make_goals.py

The goals are in goals_a.py, goals_b.py and goals_c.py; ``write_probe`` (bench/goals_probe_write.py) says how
each is checked.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: the shared writer lives in bench/
    sys.path.insert(0, str(HERE.parent))

from goals_probe_write import write_probe  # noqa: E402

if __name__ == "__main__":
    write_probe(
        HERE,
        prefix="j",
        writer="p-probe13 probe (written without reading the planner, before running it on these goals)",
    )
