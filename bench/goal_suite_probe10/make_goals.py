"""Writes heldout.json: the tenth probe set's goals (issue 23, p-probe11). Run: python make_goals.py

Each goal's ``why`` quotes its facts in «guillemets» and ends with ``Check: <expression>``; a goal that must
be refused lists ``Absent: «...»`` instead (and says why the nearest fact does not answer it).
check_answers.py recomputes every answer from the documents; mutate_check.py proves that a changed answer
is caught.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: the shared writer lives in bench/
    sys.path.insert(0, str(HERE.parent))

from goals_a import GOALS_A  # noqa: E402
from goals_b import GOALS_B  # noqa: E402
from goals_c import GOALS_C  # noqa: E402
from goals_probe_write import write_heldout  # noqa: E402

GOALS = GOALS_A + GOALS_B + GOALS_C
WRITER = "p-probe11 probe (written without reading the planner, before running it on these goals)"


def main() -> None:
    write_heldout(HERE, GOALS, prefix="v", writer=WRITER)


if __name__ == "__main__":
    main()
