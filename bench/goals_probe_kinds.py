"""The expected-answer kinds every blind probe's goal list is written with (shared by ``goal_suite_probe*/``).

A probe's ``goal_kinds.py`` (or its ``make_goals.py``) names its document paths and imports these; the
dicts are what ``heldout.json`` holds under ``expected`` and what ``bench/goals_suite_check.py`` and
``bench/goals_suite_scoring.py`` read.
"""

from __future__ import annotations

from typing import Any


def num(value: float, unit: str = "", tol: float = 0.01) -> dict[str, Any]:
    """A number answer, right within ``tol``."""
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value: str, *accept: str) -> dict[str, Any]:
    """A text answer and the other forms accepted for it."""
    return {"type": "text", "value": value, "accept": list(accept)}


def day(iso: str) -> dict[str, Any]:
    """A date answer (``YYYY-MM-DD``)."""
    return {"type": "date", "value": iso}


def refused(missing: str) -> dict[str, Any]:
    """The documents do not answer: the planner must name the value missing (exit 3)."""
    return {"type": "refused", "missing": missing}
