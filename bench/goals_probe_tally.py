"""Per-kind verdicts of a blind probe's dry run, with the goals that must be refused counted apart.

README
======

Run (from the repository root), for any probe folder ``bench/goal_suite_<name>/``::

    nice -n 5 .venv/bin/python bench/goals_dry_run.py --suite probe7 --split heldout \\
        | .venv/bin/python bench/goals_probe_tally.py probe7

(each probe's ``tally.py`` does the same for its own folder). It reads the dry run's per-goal lines
(``ID KIND ok|REFU|FAIL 'answer' exp=...``) and prints, per kind: goals right, refused (a missing value
named), wrong (a value given) and no answer, first over the goals that have an answer, then over those that
must be refused. A goal that must be refused is right only by the strict rule (its ``right`` column); the
old rule's count is printed beside it:

- **old**: the dry run's verdict (``ok``: some step was refused as missing), whatever the conclusion says;
- **strict**: ``ok`` *and* the conclusion is a refusal (``No answer: ...``), not a value: a goal whose
  conclusion still states a price although one step was missing (probe7 x-003) is wrong here.

Prints no goal text.

Old vs strict on the base of branch p-probe9 (9e3c15e), 2026-11-28 23:13-23:18 UTC, load 11.7-9.1, one
``goals_dry_run.py --suite probeN --split heldout`` each (nice -n 5), piped here: must-refuse goals right
probe2 4/6 -> 4/6, probe3 14/18 -> 14/18, probe3n 5/6 -> 5/6, probe4 21/25 -> 20/25 (s-039), probe5 29/43
-> 29/43, probe6 30/42 -> 30/42, probe7 14/22 -> 13/22 (x-003); every other ``ok`` must-refuse conclusion
was already a ``No answer: ...``. probe8's first run (23:21 UTC, load 8.3): 13/20 -> 13/20.
"""

from __future__ import annotations

import collections
import json
import sys
from collections.abc import Iterable
from pathlib import Path

KINDS = ("single", "chained", "three_agent", "natural")
VERDICTS = ("right", "refused", "wrong", "no answer")


def is_refusal(answer: str) -> bool:
    """Is a dry-run line's quoted conclusion a refusal (no value stated)?"""
    return answer.lstrip("'\"").startswith("No answer")


def tally(heldout: Path, lines: Iterable[str]) -> int:
    """Print the per-kind verdicts of the dry-run ``lines`` over the goals of ``heldout``; 1 if none read."""
    goals = json.loads(heldout.read_text(encoding="utf-8"))["goals"]
    must = {g["id"] for g in goals if g["expected"]["type"] == "refused"}
    counts: collections.Counter[tuple[str, bool, str]] = collections.Counter()
    old: collections.Counter[str] = collections.Counter()
    seen = 0
    for line in lines:
        parts = line.split(maxsplit=3)
        if len(parts) < 4 or parts[1] not in KINDS or parts[2] not in ("ok", "REFU", "FAIL"):
            continue
        seen += 1
        verdict = {"ok": "right", "REFU": "refused"}.get(parts[2])
        if verdict is None:
            verdict = "no answer" if is_refusal(parts[3]) else "wrong"
        if parts[0] in must and verdict == "right":
            old[parts[1]] += 1
            if not is_refusal(parts[3]):  # a step was missing, yet the conclusion states a value
                verdict = "wrong"
        counts[parts[1], parts[0] in must, verdict] += 1
    for refusal, title in ((False, "goals with an answer"), (True, "goals that must be refused")):
        print(f"{title}:")
        for kind in KINDS:
            row = {v: counts[kind, refusal, v] for v in VERDICTS}
            n = sum(row.values())
            extra = f" (old rule: {old[kind]}/{n} right)" if refusal else ""
            print(
                f"  {kind:<11} {row['right']}/{n} right, {row['refused']} refused, {row['wrong']} wrong, "
                f"{row['no answer']} no answer{extra}"
            )
    n_must = sum(counts[k, True, v] for k in KINDS for v in VERDICTS)
    strict = sum(counts[k, True, "right"] for k in KINDS)
    print(f"must be refused: old {old.total()}/{n_must} right, strict {strict}/{n_must} right")
    print(f"{seen} goal lines read")
    return 0 if seen else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: goals_probe_tally.py <probe name, e.g. probe7>  (dry-run lines on stdin)")
    folder = Path(__file__).resolve().parent / f"goal_suite_{sys.argv[1]}"
    if not (folder / "heldout.json").is_file():
        sys.exit(f"no probe folder with a heldout.json: {folder.name}")
    sys.exit(tally(folder / "heldout.json", sys.stdin))
