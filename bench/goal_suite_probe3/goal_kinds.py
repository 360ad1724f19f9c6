"""Answer kinds and document paths shared by the probe3 goal lists (make_goals.py, goals_first.py)."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

TS = "r-tarnsync-manual/tarnsync.1.txt"
OG = "r-ostler-garden-minutes/committee-minutes.md"
KB = "r-kestrel-kd4-bom/kd4-bom-rev7.txt"
FL = "r-fenmoor-league/division-one-table.txt"
QE = "r-quayside-api-errors/error-reference.md"
MB = "r-mb014-gel-protocol/SOP-MB-014.md"
BR = "r-brightlane-rewards/programme-terms.md"
SH = "r-saltery-holm-tides/calendar-april.txt"
