"""Writes heldout.json: the sixth probe set's goals (issue 23, p-probe7). Run: python make_goals.py

Each goal's ``why`` quotes its facts in «guillemets» and ends with ``Check: <expression>``; a goal that must
be refused lists ``Absent: «...»`` instead (and says why the nearest fact does not answer it).
check_answers.py recomputes every answer from the documents; mutate_check.py proves that a changed answer
is caught.
"""

import json
from pathlib import Path

from goals_a import GOALS_A
from goals_b import GOALS_B
from goals_c import GOALS_C

GOALS = GOALS_A + GOALS_B + GOALS_C


def main() -> None:
    goals = [
        {"id": f"w-{i:03d}", "kind": k, "goal": g, "expected": e, "why": w, "sources": s}
        for i, (k, g, e, w, s) in enumerate(GOALS, 1)
    ]
    head = {
        "writer": "p-probe7 probe (written without reading the planner, before running it on these goals)",
        "docs": "docs",
    }
    lines = [json.dumps(g, ensure_ascii=False) for g in goals]  # one goal a line: the file stays short
    body = json.dumps(head, ensure_ascii=False)[:-1] + ', "goals": [\n' + ",\n".join(lines) + "\n]}\n"
    Path(__file__).with_name("heldout.json").write_text(body)


if __name__ == "__main__":
    main()
