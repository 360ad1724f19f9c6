"""Document paths of the probe10 goal lists (goals_a.py, goals_b.py, goals_c.py); the answer kinds are
``bench/goals_probe_kinds.py``."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

KF = "v-kettlewell-inn/folio-40817-room-12.txt"
KH = "v-kettlewell-inn/house-charges-card.txt"
BN = "v-bramblecote-nursery/tag-sheet-3-perennials-spring-2027.txt"
LL = "v-larkhill-leisure/group-exercise-grid-feb-2027.txt"
CT = "v-corran-taxis/hackney-table-of-fares-2027.txt"
PC = "v-pellwick-catering/re-re-fwd-quote-PK-2291.txt"
OO = "v-ossory-orchard/pressing-day-2027.ipynb"
TM = "v-tidewell-makers/issue-318-laser-price-mismatch.md"
QA = "v-quenby-aircare/DH-24-datasheet-rev-C.txt"
MH = "v-marlpit-hall/hire-charges-2027-28.txt"
SS = "v-saffron-salt/winter-menu-allergens.txt"
