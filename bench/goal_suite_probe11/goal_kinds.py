"""Document paths of the probe11 goal lists (goals_a.py, goals_b.py, goals_c.py); the answer kinds are
``bench/goals_probe_kinds.py``."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

HR = "k-hobbs-hardware/receipt-0412-88213.txt"
HS = "k-hobbs-hardware/shelf-edge-labels-aisle-4.txt"
WP = "k-wrenfield-joinery/payslip-2027-02-ilic.txt"
WH = "k-wrenfield-joinery/staff-handbook-s4-pay.txt"
CP = "k-calder-vale-parking/pcn-CV40418872.txt"
CT = "k-calder-vale-parking/off-street-tariffs-2026.txt"
TE = "k-tamarisk-patterns/T2214-envelope-back.txt"
TF = "k-tamarisk-patterns/fabric-counter-prices.txt"
SR = "k-scarth-fell-ramblers/route-card-2027-05-15.txt"
MG = "k-muddy-paws-grooming/booking-app.production.env"
EC = "k-ellesby-courier/smalls-week-09-2027.txt"
PM = "k-pennard-motors/mot-history-WX16KRT.txt"
PB = "k-pennard-motors/price-board-2027.txt"
BG = "k-bracken-mill/hazelnut-apricot-granola-pack.txt"
BR = "k-bracken-mill/range-sheet-2027.txt"
FL = "k-fernlea-lettings/checkout-report-flat3-27-orchard-terrace.txt"
