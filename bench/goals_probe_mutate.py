"""Proves that a probe's checker catches a wrong expected answer: every goal's answer is changed in turn.

README
======

Shared by the probes' ``mutate_check.py`` (probe5, probe6, probe7); run one of those, e.g.::

    python bench/goal_suite_probe6/mutate_check.py

Each goal of the probe's ``heldout.json`` is changed in one way and checked again with the shared checker
(``bench/goals_suite_check.py``): a number becomes ``value * 1.07 + 1``, a date moves a day later, a text
answer gets a letter added (to its value and every accepted form), and a goal that must be refused gets an
``Absent:`` list of its first source's first three words (a phrase that source holds; «the» is not in every
document). Prints how many mutants were caught; exit code 0 when every one was, 1 otherwise (with the ids
that slipped through).
"""

from __future__ import annotations

import copy
from datetime import date, timedelta
from typing import Any

from goals_suite_check import HeldoutProbe


def mutant(g: dict[str, Any], docs: dict[str, str]) -> dict[str, Any]:
    """The goal with its expected answer (or its refusal's Absent list) changed."""
    m = copy.deepcopy(g)
    exp = m["expected"]
    kind = exp["type"]
    if kind == "number":
        exp["value"] = exp["value"] * 1.07 + 1
    elif kind == "date":
        exp["value"] = (date.fromisoformat(exp["value"]) + timedelta(days=1)).isoformat()
    elif kind == "text":
        exp["value"] += "x"
        exp["accept"] = [a + "x" for a in exp.get("accept", [])]
    else:
        opening = " ".join(docs[m["sources"][0]].split()[:3])
        m["why"] = m["why"].rsplit("Absent:", 1)[0] + f"Absent: «{opening}»"
    return m


def mutate_check(probe: HeldoutProbe) -> int:
    """Check every mutant of ``probe``'s goals; the exit code (0: every mutant caught, none clean fails)."""
    docs = probe.checker.documents()
    goals = probe.read_split()
    clean = [g["id"] for g in goals if probe.goal_problems(g, docs)]
    slipped = [g["id"] for g in goals if not probe.goal_problems(mutant(g, docs), docs)]
    print(
        f"{len(goals)} goals, {len(clean)} with problems as written; "
        f"{len(goals) - len(slipped)}/{len(goals)} mutants caught"
    )
    if slipped:
        print("not caught: " + ", ".join(slipped))
    return 1 if slipped or clean else 0
