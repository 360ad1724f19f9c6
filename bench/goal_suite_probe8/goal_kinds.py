"""Document paths of the probe8 goal lists (goals_a.py, goals_b.py, goals_c.py); the answer kinds are
``bench/goals_probe_kinds.py``."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

AC = "y-ashcombe-allotments/agm-minutes-2026-03-07.txt"
QP = "y-quillan-pottery/quillan-workshops-autumn-2026.ics"
MP = "y-merrow-plumbing/call-transcript-2026-09-14.txt"
TL = "y-tolland-library/charges-and-services-2026.rst"
BW = "y-brenwick-water/quarterly-usage-report-Q2-2026.txt"
CB = "y-corvel-bike-share/terms-and-conditions-v3.txt"
PC = "y-pinefold-choir/whatsapp-chat-export.txt"
MF = "y-midsummer-fair/flyer-scan-ocr.txt"
OV = "y-oakridge-vets/oakridge-fees-dump-2026-05.sql"
SS = "y-saltmarsh-sailing/course-fees-2026.tex"
