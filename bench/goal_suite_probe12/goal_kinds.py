"""Document paths of the probe12 goal lists (goals_a.py, goals_b.py, goals_c.py); the answer kinds are
``bench/goals_probe_kinds.py``."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

GC = "j-thornfield-golf/medal-card-2027.txt"
GF = "j-thornfield-golf/competitions-and-fees-2027.txt"
AT = "j-skylark-air/eticket-receipt-QX7RTM.txt"
AR = "j-skylark-air/fare-rules-VLOWGB-LSAVGB.txt"
DP = "j-larchmont-dental/treatment-plan-TP22417.txt"
IR = "j-greenrow-irrigation/rx8-program-report-2027-06-02.txt"
IW = "j-greenrow-irrigation/water-note-committee.txt"
KP = "j-tallis-yarns/TY118-harbour-gansey-pattern.txt"
KS = "j-tallis-yarns/shop-price-list-spring-2027.txt"
EB = "j-harbourgate-exchange/rate-board-2027-05-10.txt"
ER = "j-harbourgate-exchange/receipt-HG-0551873.txt"
SM = "j-stashd-backup/stashd.1.txt"
TC = "j-tallybook-app/CHANGELOG.md"
VC = "j-orchard-lane-vets/vaccination-card-MILO.txt"
VF = "j-orchard-lane-vets/vaccination-fees-2027.txt"
PT = "j-pitchford-staffing/timesheet-wk13-PS30881.txt"
PR = "j-pitchford-staffing/rate-card-brindle-foods-2027.txt"
