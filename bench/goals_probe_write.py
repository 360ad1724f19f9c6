"""Writes a probe's ``heldout.json`` from its goal tuples (shared by the probes' ``make_goals.py``).

Each goal is ``(kind, goal, expected, why, sources)``; ids are ``<prefix>-NNN`` in order. One goal a line,
so the file stays short and a diff shows the goal that changed.
"""

from __future__ import annotations

import json
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
