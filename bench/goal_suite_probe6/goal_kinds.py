"""Answer kinds and document paths shared by the probe6 goal lists (goals_a.py, goals_b.py, goals_c.py)."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

DS = "w-tamsin-driving-school/tamsin-lessons-and-packages-2026.adoc"
TR = "w-orlo-translation-rates/orlo-rate-card-2026-27.xml"
KH = "w-kestle-scaffold-hire/kestle-hire-rates-2026.csv"
ML = "w-mossgiel-livery-yard/letter-to-liveries-april-2026.txt"
PC = "w-pennock-campsite/pennock-sands-tariff-2026.org"
CH = "w-cairnbeg-mountain-hut/cairnbeg-hut-booking-summer-2026.rec"
HC = "w-haddow-chess-congress/haddow-congress-2026-entry-form.txt"
FP = "w-felgate-pest-control/agreement-schedule-2-charges-rev-c.txt"
BD = "w-brisa-dive-centre/brisa-prices-2026.wiki"
QP = "w-quarrel-piano-services/quarrel-rates-2026.tsv"
AS = "w-ambersley-photo-studio/invoice-AS-2026-0147-and-terms.txt"
