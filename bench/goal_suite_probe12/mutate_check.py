"""Proves that check_answers.py catches a wrong expected answer: every goal's answer is changed in turn.

README
======

Run (from the repository root)::

    python bench/goal_suite_probe12/mutate_check.py

The mutations and the count are ``bench/goals_probe_mutate.py`` (shared by the probes).
"""

from __future__ import annotations

import sys

from check_answers import PROBE  # puts bench/ on sys.path for the shared module
from goals_probe_mutate import mutate_check

if __name__ == "__main__":
    sys.exit(mutate_check(PROBE))
