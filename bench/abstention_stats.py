"""Which lookups of the readable goal splits would the near-miss abstention refuse? (issue 23, p-probe3)

README
======

Run (from the repository root, with the project's venv)::

    nice -n 10 .venv/bin/python bench/abstention_stats.py [--splits 2:train,2:dev,...] [--verdicts DIR]

For the first lookup step of every goal (planned by the offline planner, asked of the retrieval adapter over
the suite's documents), prints the goal when the document the answer is read from leaves one of the
question's qualifiers unnamed (``adapters/retrieval/qualifiers.py``: a year, a version, an item code, an
option, a proper name, a calendar date, a day of the week the answering fact excludes), i.e. when the
retrieval abstains. ``--verdicts DIR`` reads files of ``goals_dry_run.py`` output (one per split, any names)
made **without** the abstention, and shows each flagged goal's verdict there: an abstention on a goal the
dry run answered right (``ok``) would be a lost answer. This is how the classes were chosen: on every
readable split none is flagged on a right answer (docs/performance.md, "Third probe set"). Sealed splits are
refused.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from goals_dry_run import SUITES, load
from goals_suite_files import sealed_splits

from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.adapters.retrieval import RetrievalAdapter
from ioa_p2p.adapters.retrieval.qualifiers import unnamed_qualifiers
from ioa_p2p.planning import describe, plan_request
from ioa_p2p.planning.types import LOOKUP

READABLE = "2:train,2:dev,3:train,3:dev,4:train,probe:heldout,probe2:heldout,chain:heldout,single:heldout"


def verdicts(folder: Path | None) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(folder.glob("*.txt")) if folder else []:
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^(\S+) +\S+ +(ok  |FAIL|REFU)", line)
            if m:
                found[m.group(1)] = m.group(2).strip()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--splits", default=READABLE, help="suite:split pairs, comma-separated")
    parser.add_argument("--verdicts", type=Path, default=None, help="folder of dry-run outputs")
    args = parser.parse_args()
    seen = verdicts(args.verdicts)
    adapters: dict[Path, RetrievalAdapter] = {}
    lookups = flagged = lost = 0
    for spec in args.splits.split(","):
        suite, split = spec.split(":")
        if split in sealed_splits(SUITES[suite]):
            raise SystemExit(f"suite {suite} split {split} is sealed")
        for g in load(SUITES[suite], split, set()):
            if g["docs"] not in adapters:
                made = adapter_from_config(
                    {"name": "l", "adapter": "retrieval", "options": {"path": str(g["docs"])}}
                )
                assert isinstance(made, RetrievalAdapter)
                made.index.refresh()
                adapters[g["docs"]] = made
            index = adapters[g["docs"]].index
            step = next((s for s in plan_request(g["goal"]).steps if s.kind == LOOKUP and not s.needs), None)
            if step is None:
                continue
            question = describe(step, {})
            _, found = index.find_answer(question)
            entry = index.files.get(found.fact.path) if found is not None else None
            if found is None or entry is None:
                continue
            lookups += 1
            unnamed = unnamed_qualifiers(question, "\n".join(entry.lines), found.fact.path, found.fact.text)
            if unnamed:
                flagged += 1
                verdict = seen.get(g["id"], "?")
                lost += verdict == "ok" and g["expected"]["type"] != "refused"
                shown = ", ".join(f"{q.kind} {q.shown}" for q in unnamed)
                print(
                    f"{g['id']:8} {g['expected']['type'][:7]:7} was {verdict:4} unnamed: {shown}", flush=True
                )
    print(f"{lookups} lookups, {flagged} abstentions, {lost} on goals the dry run answered right")
    return 0


if __name__ == "__main__":
    sys.exit(main())
