"""Answer kinds and document paths shared by the probe5 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

PA = "u-varrow-payroll-allowances/agreement-appendix-c-2026.txt"
KB = "u-kelby-bin-collections/round-7-calendar-apr-sep-2026.txt"
AG = "u-ardent-arts-grant-call/call-2026-1.md"
TB = "u-thermaline-boiler-manual/cx-service-manual-issue4.txt"
BL = "u-brannock-lift-passes/lift-pass-prices-winter-2026-27.txt"
GT = "u-grivel-tile-adhesive/tds-grivel-flex-s1-v3.2.txt"
DC = "u-dunmere-council-tax/council-tax-leaflet-2026-27.md"
PR = "u-pelorus-mobile-roaming/roaming-guide-may-2026.md"
ST = "u-skelder-tunnel-tolls/toll-order-2026.txt"
CH = "u-corrin-herbicide-label/corrin-480-sl-label.txt"
LA = "u-loweth-angling-permits/permits-and-rules-2026.md"
