"""Answer kinds and document paths shared by the probe7 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

GB = "x-granite-hollow-bouldering/membership-and-prices-2026-27.yaml"
LW = "x-loomhall-coworking/plans-and-pricing.html"
FS = "x-fairholt-school-trip/Y5-residential-letter-and-consent.txt"
PK = "x-pawsbury-kennels/pawsbury-price-export-2026.2.json"
TS = "x-tipright-skip-hire/tipright-domestic-rates.ini"
VE = "x-voltway-ev-charging/Your-Voltway-tariff-from-1-May-2026.eml"
LE = "x-lanternlock-escape-rooms/booking-faq.txt"
HH = "x-hivewell-honey-show/schedule-2026.md"
SO = "x-starfold-observatory/public-programme-spring-2026.csv"
