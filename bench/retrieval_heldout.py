"""Retrieval answers on a private held-out set: made-up documents in new styles, questions with exact answers.

README
======

Run (from the repository root, with the project's venv)::

    nice -n 10 .venv/bin/python bench/retrieval_heldout.py [--data tests/data/docmodel_heldout] [-v]

The retrieval adapter indexes the set's ``docs/`` folder (every document, as a librarian node would) and
answers each question of ``questions.json`` through :meth:`DocIndex.find_answer`, the path a task takes. An
answer is right when its value is the expected number (and unit, where one is expected), or, for a name,
time or reason, when the value's text holds the expected words. The set was written before the typed
document model (adapters/retrieval/docmodel/) was built, and nothing was tuned to it: it measures how
retrieval does on documents and wordings nobody fitted rules to. Prints the score per answer type.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path
from typing import Any

from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.adapters.retrieval import typed as retrieval_adapter
from ioa_p2p.adapters.retrieval.docmodel import ask
from ioa_p2p.planning.values import ALIASES, NUMBER, Value, numbers_in

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent / "tests" / "data" / "docmodel_heldout"


def unit_of(text: str) -> str:
    low = text.strip().lower()
    return ALIASES.get(low, text.strip())


def right(value: Value | None, case: dict[str, Any]) -> bool:
    """The value answers the case exactly (numbers within 1e-6, the unit where one is expected)."""
    if value is None:
        return False
    shown = value.shown()
    if "text" in case:
        return any(t.lower() in shown.lower() for t in case["text"])
    if value.kind == NUMBER and value.number is not None:
        pairs = [(value.number, value.unit)]
    else:
        pairs = [(f.number, f.unit) for f in numbers_in(shown)[:1]]
    want, unit = float(case["number"]), unit_of(case.get("unit", ""))
    for number, got_unit in pairs:
        if abs(number - want) <= 1e-6 * max(1.0, abs(want)) and (not unit or unit_of(got_unit) == unit):
            return True
    return False


def kind_of(case: dict[str, Any]) -> str:
    if "text" in case:
        return "text"
    return "amount" if case.get("unit") else "count"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT))
    parser.add_argument("-v", action="store_true", help="print every answer")
    parser.add_argument("-q", action="store_true", help="print the totals only")
    parser.add_argument(
        "--engine",
        choices=("adapter", "docmodel"),
        default="adapter",
        help="adapter: DocIndex.find_answer (what a task gets); docmodel: the typed records alone",
    )
    parser.add_argument(
        "--policy",
        choices=("none", "misfit", "confidence", "always"),
        default=retrieval_adapter.TYPED_POLICY,
        help="when the adapter gives the typed model's answer (none: the fact scorer's, as before it)",
    )
    args = parser.parse_args()
    retrieval_adapter.TYPED_POLICY = args.policy
    data = Path(args.data)
    cases = json.loads((data / "questions.json").read_text())
    adapter = adapter_from_config(
        {"name": "librarian", "adapter": "retrieval", "options": {"path": str(data / "docs")}}
    )
    index = adapter.index  # type: ignore[attr-defined]
    started = time.perf_counter()
    index.refresh()
    loaded = time.perf_counter() - started
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    started = time.perf_counter()
    for case in cases:
        if args.engine == "docmodel":
            typed = ask(case["q"], index.documents())
            value = typed.value if typed is not None else None
        else:
            _, found = index.find_answer(case["q"])
            value = found.value if found is not None else None
        ok = right(value, case)
        per[kind_of(case)][0] += ok
        per[kind_of(case)][1] += 1
        if args.v or (not ok and not args.q):
            mark = "ok " if ok else "BAD"
            got = value.shown() if value is not None else "(none)"
            want = case.get("text") or f"{case['number']} {case.get('unit', '')}"
            print(f"{mark} {case['id']} {case['q'][:70]!r} -> {got[:60]!r} (want {want})")
    took = time.perf_counter() - started
    total = [sum(v[0] for v in per.values()), sum(v[1] for v in per.values())]
    for kind, (good, n) in sorted(per.items()):
        print(f"{kind:8s} {good:3d}/{n:<3d}")
    print(
        f"total    {total[0]:3d}/{total[1]:<3d}  "
        f"(index {loaded:.1f} s, {took / len(cases) * 1e3:.0f} ms a question)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
