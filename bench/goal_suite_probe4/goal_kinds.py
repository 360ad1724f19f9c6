"""Answer kinds and document paths shared by the probe4 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

HP = "s-harrowgate-home-policy/policy-schedule.txt"
VF = "s-vexa-r7-firmware/CHANGELOG.md"
CF = "s-caldmoor-fare-matrix/anytime-singles-2026.txt"
KW = "s-korvane-warranty/warranty-terms.md"
WR = "s-wyndle-rowing-tariff/membership-tariff.md"
PE = "s-pellam-election/declaration-of-result.txt"
TS = "s-tollerby-sowing-chart/sowing-chart.md"
BW = "s-brackley-weather-log/daily-log-may-2026.txt"
CD = "s-calmadol-dosing/dosing-chart-children.md"
