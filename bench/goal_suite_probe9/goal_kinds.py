"""Document paths of the probe9 goal lists (goals_a.py, goals_b.py, goals_c.py); the answer kinds are
``bench/goals_probe_kinds.py``."""

import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from goals_probe_kinds import day, num, refused, text  # noqa: E402, F401

WP = "z-wendle-power/electricity-bill-nov-2026.txt"
AR = "z-ambervale-railway/engineering-works-notice-KVL-41.txt"
BP = "z-brockhurst-primary/weekly-word-issue-7.txt"
DF = "z-dunholm-futsal/rules-of-competition-2026-27.txt"
PF = "z-portmoor-freight/manifest-SERAPH-BAY-0447E.txt"
SC = "z-spindle-cycles/winter-service-prices-video.srt"
MA = "z-millrace-auctions/catalogue-sale-412.txt"
GC = "z-granary-cafe/autumn-prices.diff"
TV = "z-thistledown-vanclub/forum-thread-easter-rally-2027.txt"
TC = "z-thornby-cricket/statement-112-sep-2026.txt"
