"""Builds s2.json, s3.json and s4.json of the cover suite from its plain-text sources (stdlib only).

Each source line is one goal: ``folder|kind|source file|expected|question``. ``expected`` is ``n VALUE
[UNIT] [TOL]`` (a number; TOL only after a UNIT), ``d YYYY-MM-DD`` (a date) or ``t TEXT[;ACCEPTED;...]``.
A single lookup's answer must occur in its source document as written (a number in any of its usual
spellings: 1312, 1,312, 5.50); the exceptions, answers converted on purpose (2 hours 15 minutes asked in
minutes), are listed in ``CONVERTED``. Run from anywhere: ``python bench/goal_suite_cover/make_cover.py``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
GROUPS = {
    "s2": ("s2a.txt", "s2b.txt", "s2c.txt", "s2d.txt", "s2e.txt"),
    "s3": ("s3a.txt", "s3b.txt", "s3c.txt"),
    "s4": ("s4.txt",),
}
DOCS = {"s2": "../goal_suite2/docs", "s3": "../goal_suite3/docs", "s4": "../goal_suite4/docs"}
#: answers stated in another unit than the document's (the question asks for the conversion)
CONVERTED = {
    "How long do marathon runners have to finish the Kittering Marathon, in minutes?",
    "How long does the Marrow Lane lamb and apricot tagine cook in the oven?",
}
NOTE = (
    "questions about facts of the suite's documents that its readable goals do not ask; answers looked up "
    "by hand (bench/goal_suite_cover/README.md)"
)


def expected(spec: str) -> dict[str, Any]:
    kind, rest = spec.split(" ", 1)
    if kind == "d":
        return {"type": "date", "value": rest}
    if kind == "t":
        first, *accepted = rest.split(";")
        return {"type": "text", "value": first, **({"accept": accepted} if accepted else {})}
    parts = rest.split(" ")
    value = float(parts[0])
    tol: float | None = None
    unit = " ".join(parts[1:])
    if len(parts) > 2 and re.fullmatch(r"[\d.]+", parts[-1]):
        tol, unit = float(parts[-1]), " ".join(parts[1:-1])
    if tol is None:
        tol = 0.005 if value != int(value) else 0
    return {"type": "number", "value": int(value) if value == int(value) else value, "tol": tol, "unit": unit}


def verbatim(e: dict[str, Any], text: str) -> bool:
    """Whether the document states the expected answer as written."""
    flat = " ".join(text.split())
    if e["type"] == "text":
        return any(x.lower() in flat.lower() for x in [e["value"], *e.get("accept", [])])
    if e["type"] != "number":
        return True
    v = e["value"]
    forms = {str(v), f"{v:,}", f"{v:.2f}", f"{v:,.2f}", f"{v:.1f}", f"{v:.3f}"}
    return any(re.search(r"(?<![\d.])" + re.escape(f) + r"(?!\d)", flat) for f in forms)


def build(src: Path) -> list[str]:
    problems = []
    for split, files in GROUPS.items():
        goals: list[dict[str, Any]] = []
        for name in files:
            for line in (src / name).read_text(encoding="utf-8").splitlines():
                if not line.strip() or line.startswith("#"):
                    continue
                folder, kind, source, spec, question = line.split("|", 4)
                e = expected(spec)
                doc = (BENCH / DOCS[split][3:] / folder / source).read_text(encoding="utf-8")
                if kind == "single" and question not in CONVERTED and not verbatim(e, doc):
                    problems.append(f"{split} {folder}: {e} not in {source}: {question}")
                goals.append(
                    {
                        "id": f"cv{split[1]}-{len(goals) + 1:03d}",
                        "kind": kind,
                        "goal": question,
                        "expected": e,
                        "why": f"{folder}/{source}: looked up by hand (writer p-sealed).",
                        "sources": [f"{folder}/{source}"],
                    }
                )
        data = {"writer": "p-sealed", "split": split, "docs": DOCS[split], "note": NOTE, "goals": goals}
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        (HERE / f"{split}.json").write_text(text, encoding="utf-8")
        print(split, len(goals), "goals")
    return problems


if __name__ == "__main__":
    found = build(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "src")
    print("\n".join(found) or "every single lookup's answer is in its source")
    sys.exit(1 if found else 0)
