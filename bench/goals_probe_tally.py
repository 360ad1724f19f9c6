"""Per-kind verdicts of a blind probe's dry run, with the goals that must be refused counted apart.

Each probe folder's ``tally.py`` (``bench/goal_suite_probe4/``, ``bench/goal_suite_probe5/``) calls
:func:`tally` with its own ``heldout.json``. It reads the dry run's per-goal lines (``ID KIND ok|REFU|FAIL
'answer' exp=...``) and prints, per kind: goals right, refused (a missing value named), wrong (a value given)
and no answer, first over the goals that have an answer, then over those that must be refused (right =
refused). Prints no goal text.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Iterable
from pathlib import Path

KINDS = ("single", "chained", "three_agent", "natural")


def tally(heldout: Path, lines: Iterable[str]) -> int:
    """Print the per-kind verdicts of the dry-run ``lines`` over the goals of ``heldout``; 1 if none read."""
    goals = json.loads(heldout.read_text(encoding="utf-8"))["goals"]
    must = {g["id"] for g in goals if g["expected"]["type"] == "refused"}
    counts: collections.Counter[tuple[str, bool, str]] = collections.Counter()
    seen = 0
    for line in lines:
        parts = line.split(maxsplit=3)
        if len(parts) < 4 or parts[1] not in KINDS or parts[2] not in ("ok", "REFU", "FAIL"):
            continue
        seen += 1
        verdict = {"ok": "right", "REFU": "refused"}.get(parts[2])
        if verdict is None:
            verdict = "no answer" if parts[3].startswith(("'No answer", '"No answer')) else "wrong"
        counts[parts[1], parts[0] in must, verdict] += 1
    for refusal, title in ((False, "goals with an answer"), (True, "goals that must be refused")):
        print(f"{title}:")
        for kind in KINDS:
            row = {v: counts[kind, refusal, v] for v in ("right", "refused", "wrong", "no answer")}
            n = sum(row.values())
            print(
                f"  {kind:<11} {row['right']}/{n} right, {row['refused']} refused, {row['wrong']} wrong, "
                f"{row['no answer']} no answer"
            )
    print(f"{seen} goal lines read")
    return 0 if seen else 1
