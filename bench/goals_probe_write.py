"""Writes a probe's ``heldout.json`` from its goal tuples (shared by the probes' ``make_goals.py``).

Each goal is ``(kind, goal, expected, why, sources)``; ids are ``<prefix>-NNN`` in order. One goal a line,
so the file stays short and a diff shows the goal that changed.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def write_heldout(folder: Path, goals: Sequence[tuple[Any, ...]], *, prefix: str, writer: str) -> None:
    """Write ``folder/heldout.json``: the goals with ids, under a head naming who wrote them."""
    rows = [
        {"id": f"{prefix}-{i:03d}", "kind": k, "goal": g, "expected": e, "why": w, "sources": s}
        for i, (k, g, e, w, s) in enumerate(goals, 1)
    ]
    head = {"writer": writer, "docs": "docs"}
    lines = [json.dumps(g, ensure_ascii=False) for g in rows]
    body = json.dumps(head, ensure_ascii=False)[:-1] + ', "goals": [\n' + ",\n".join(lines) + "\n]}\n"
    (folder / "heldout.json").write_text(body)


def write_probe(folder: Path, *, prefix: str, writer: str, parts: Sequence[str] = ("a", "b", "c")) -> None:
    """Write a probe's ``heldout.json`` from its ``goals_<part>.py`` modules (``GOALS_<PART>`` each).

    Each goal's ``why`` quotes its facts in «guillemets» and ends with ``Check: <expression>``; a goal that
    must be refused lists ``Absent: «...»`` instead (and says why the nearest fact does not answer it).
    check_answers.py recomputes every answer from the documents; mutate_check.py proves that a changed
    answer is caught.
    """
    sys.path.insert(0, str(folder))
    try:
        goals = [
            g
            for part in parts
            for g in getattr(importlib.import_module(f"goals_{part}"), f"GOALS_{part.upper()}")
        ]
    finally:
        sys.path.remove(str(folder))
        for part in parts:  # another probe's modules have the same names
            sys.modules.pop(f"goals_{part}", None)
    write_heldout(folder, goals, prefix=prefix, writer=writer)
