"""Writes heldout.json: the third probe set's goals (issue 23, p-probe3). Run: python make_goals.py

Each goal's ``why`` quotes its facts in «guillemets» and ends with ``Check: <expression>``; a goal that must
be refused lists ``Absent: «...»`` instead (and says why the nearest fact does not answer it).
check_answers.py recomputes every answer from the documents.
"""

import json
from pathlib import Path

from goal_kinds import BR, FL, KB, MB, OG, QE, SH, TS, day, num, refused, text  # noqa: F401
from goals_first import GOALS_FIRST

GOALS = GOALS_FIRST + [
    # ------------------------------------------------------------------ an API error reference
    (
        "single",
        "Which HTTP status comes with Quayside error QP-4002?",
        num(409),
        "«| QP-4002 | 409 |» Check: 409",
        [QE],
    ),
    (
        "single",
        "What does the Quayside Payments error code QP-2003 mean?",
        text("The key lacks the scope for this call", "lacks the scope"),
        "«| QP-2003 | 403 | The key lacks the scope for this call» "
        "Check: 'The key lacks the scope for this call'",
        [QE],
    ),
    (
        "single",
        "How long does Quayside keep idempotency keys?",
        num(24, "h"),
        "«Idempotency keys are kept for 24 hours.» Check: 24",
        [QE],
    ),
    (
        "single",
        "Which Quayside error code means that a payment was not found?",
        text("QP-3001"),
        "«| QP-3001 | 404 | Payment not found» Check: 'QP-3001'",
        [QE],
    ),
    (
        "single",
        "What per-key rate limit did QP-4290 enforce in version 2 of the Quayside API?",
        num(50),
        "«In v2, QP-4290 allowed 50 requests per second per key» Check: 50",
        [QE],
    ),
    (
        "chained",
        "Look up Quayside's current rate limit per key and work out how many requests it allows in "
        "one minute.",
        num(6000),
        "«Limit: 100 requests per second per key» Check: 100 * 60",
        [QE],
    ),
    (
        "chained",
        "Convert the period over which Quayside retries a webhook to days.",
        num(1.5, "days"),
        "«retried up to 8 times over 36 hours» Check: 36 / 24",
        [QE],
    ),
    (
        "three_agent",
        "Find the largest amount a single Quayside payment may have, divide it by 12, then run "
        "`print(f'{monthly:.2f}')` with monthly bound to the quotient.",
        num(2083.33),
        "«Amounts must be between 0.50 and 25,000.00» Check: run(monthly=25000 / 12)",
        [QE],
    ),
    (
        "single",
        "What rate limit did sandbox keys have in Quayside API v1?",
        refused("the v1 sandbox limit"),
        "near miss, another version: v2 and v3 only. Absent: «v1» «version 1»",
        [QE],
    ),
    (
        "chained",
        "Look up the HTTP status of Quayside error QP-4031 and subtract 400.",
        refused("the error code QP-4031"),
        "no such code. Absent: «QP-4031»",
        [QE],
    ),
    # ------------------------------------------------------------------ a lab protocol
    (
        "single",
        "In SOP-MB-014, how long is the gel left to set?",
        num(25, "min"),
        "«let the gel set for 25 minutes at room temperature» Check: 25",
        [MB],
    ),
    (
        "single",
        "At what voltage is a mini gel run under the electrophoresis SOP?",
        num(120, "V"),
        "«Run a mini gel (8 cm) at 120 V for 40 minutes.» Check: 120",
        [MB],
    ),
    (
        "single",
        "How many grams of agarose does SOP-MB-014 use for fragments under 500 bp?",
        num(2.0, "g"),
        "«For fragments under 500 bp use 2.0 g (2 %).» Check: 2.0",
        [MB],
    ),
    (
        "single",
        "Where do stained gels go for disposal according to SOP-MB-014?",
        text("yellow bin", "the yellow bin"),
        "«gels that contain stain go in the yellow bin» Check: 'yellow bin'",
        [MB],
    ),
    (
        "chained",
        "Look up how much DNA stain SOP-MB-014 adds per 100 mL of gel and compute the amount for 350 mL.",
        num(35, "µL"),
        "«add 10 µL DNA stain per 100 mL of gel» Check: 10 * 350 / 100",
        [MB],
    ),
    (
        "chained",
        "How many minutes do the setting time and a mini-gel run take together in SOP-MB-014?",
        num(65, "min"),
        "«let the gel set for 25 minutes» «at 120 V for 40 minutes» Check: 25 + 40",
        [MB],
    ),
    (
        "three_agent",
        "Look up the run time of a midi gel in SOP-MB-014, multiply it by 2, then execute "
        "`print(total / 40)` with total bound to the product.",
        num(3.0),
        "«Run a midi gel (15 cm) at 150 V for 60 minutes.» Check: run(total=60 * 2)",
        [MB],
    ),
    (
        "single",
        "What voltage does SOP-MB-014 prescribe for a maxi gel?",
        refused("the voltage for a maxi gel"),
        "near miss, another product: mini and midi gels only. Absent: «maxi» «large gel»",
        [MB],
    ),
    (
        "single",
        "For how many days can a poured gel be kept at room temperature before loading under SOP-MB-014?",
        refused("how long a gel keeps at room temperature"),
        "near miss, another condition: the SOP allows 3 days at 4 °C only. "
        "Absent: «kept at room temperature» «days at room temperature»",
        [MB],
    ),
    # ------------------------------------------------------------------ loyalty programme terms
    (
        "single",
        "How long is a Brightlane Rewards voucher valid?",
        num(60, "days"),
        "«Vouchers are valid for 60 days from the day they are issued.» Check: 60",
        [BR],
    ),
    (
        "single",
        "How much does a Brightlane member have to spend in a year to reach Gold?",
        num(2500, "EUR"),
        "«Gold: members who spent EUR 2,500 or more» Check: 2500",
        [BR],
    ),
    (
        "chained",
        "Look up the points a Gold Brightlane member earns per euro in stores and work out the points "
        "for an EUR 84 shop.",
        num(126),
        "«Gold members earn 1.5 points per EUR 1 spent in stores» Check: 1.5 * 84",
        [BR],
    ),
    (
        "chained",
        "Look up how many points a EUR 5 Brightlane voucher takes and work out the points needed for "
        "EUR 40 of vouchers.",
        num(4000),
        "«500 points can be exchanged for a EUR 5 voucher» Check: 40 / 5 * 500",
        [BR],
    ),
    (
        "three_agent",
        "Find how many months Brightlane points last before they expire, divide that by 12, and "
        "run `print(f'{years:.1f} years')` with years bound to the quotient.",
        num(2, "years"),
        "«Points expire 24 months after the end of the month» Check: run(years=24 / 12)",
        [BR],
    ),
    (
        "single",
        "How many Brightlane points does a member earn per euro spent on fuel?",
        refused("a points rate per euro on fuel"),
        "near miss, another unit: fuel earns per 10 litres, «whatever the amount spent». "
        "Absent: «per EUR 1 spent on fuel» «points per euro on fuel»",
        [BR],
    ),
    (
        "single",
        "What was the Gold spending threshold in Brightlane's 2025 terms?",
        refused("the 2025 Gold threshold"),
        "near miss, another year: these terms take effect on 1 March 2026. Absent: «2025»",
        [BR],
    ),
    (
        "three_agent",
        "How many points does a Standard Brightlane member need for a EUR 12 voucher? Double it "
        "and run `print(n // 100)` with n bound to the result.",
        refused("a EUR 12 voucher for Standard members"),
        "near miss, a condition: only Gold members may exchange points for a EUR 12 voucher (3.3). "
        "Absent: «Standard members may» «Standard members can exchange»",
        [BR],
    ),
    # ------------------------------------------------------------------ a tide and opening calendar
    (
        "single",
        "When is the morning high water at Saltery Holm on Friday 3 April?",
        text("06:41", "6:41"),
        "«Fri 3 Apr 06:41 4.7» Check: '06:41'",
        [SH],
    ),
    (
        "single",
        "How high is the evening high tide at Saltery Holm on 4 April 2026?",
        num(5.0, "m"),
        "«Sat 4 Apr 07:22 4.9 19:44 5.0» Check: 5.0",
        [SH],
    ),
    (
        "single",
        "Until what time is the Saltery Holm causeway safe to cross on 2 April?",
        text("14:25"),
        "«Thu 2 Apr 05:58 4.4 18:21 4.6 12:09 0.6 - 09:55 to 14:25» Check: '14:25'",
        [SH],
    ),
    (
        "single",
        "What does a child pay for admission to the Saltery Holm visitor centre?",
        num(3.00, "EUR"),
        "«children (5-15) EUR 3.00» Check: 3.00",
        [SH],
    ),
    (
        "chained",
        "Look up the causeway's safe crossing window on Sunday 5 April and work out how long it is "
        "in minutes.",
        num(270, "min"),
        "«Sun 5 Apr 08:03 5.0 20:26 5.0 01:57 0.2 14:16 0.2 12:00 to 16:30» Check: mins('12:00', '16:30')",
        [SH],
    ),
    (
        "chained",
        "Find the price of a seal-watching boat trip at Saltery Holm and compute the cost for a group of 7.",
        num(154, "EUR"),
        "«90 minutes, EUR 22 per person» Check: 22 * 7",
        [SH],
    ),
    (
        "three_agent",
        "Take the adult admission price at Saltery Holm, multiply it by 4, then run "
        "`print(round(t - 16.00, 2))` with t bound to the product.",
        num(10),
        "«Admission: adults EUR 6.50» Check: run(t=6.50 * 4)",
        [SH],
    ),
    (
        "single",
        "When is high water at Saltery Holm on 12 April 2026?",
        refused("the tides of 12 April"),
        "near miss, another date: the calendar lists 1 to 7 April. Absent: «12 Apr» «Sun 12»",
        [SH],
    ),
    (
        "chained",
        "At what time do the Saltery Holm seal-watching trips leave on Sundays? Add 90 minutes.",
        refused("a Sunday departure"),
        "near miss, a condition: trips run on Saturdays only. Absent: «Sundays at» «Sunday at 14»",
        [SH],
    ),
    # ------------------------------------------------------------------ no documents
    (
        "single",
        "Convert 12 nautical miles to kilometres.",
        num(22.224, "km", 0.01),
        "1 nautical mile = 1.852 km Check: 12 * 1.852",
        [],
    ),
    (
        "chained",
        "Compute 18% of 2,450, then run `print(round(v / 7, 3))` with v set to that result.",
        num(63),
        "0.18 * 2450 = 441 Check: run(v=0.18 * 2450)",
        [],
    ),
    (
        "chained",
        "Run `print(len('electrophoresis') * 3)` and add 17 to what it prints.",
        num(62),
        "len = 15 Check: run() + 17",
        [],
    ),
]


def main() -> None:
    goals = [
        {"id": f"r-{i:03d}", "kind": k, "goal": g, "expected": e, "why": w, "sources": s}
        for i, (k, g, e, w, s) in enumerate(GOALS, 1)
    ]
    out = {
        "writer": "p-probe3 probe (written before reading or running the planner on it)",
        "docs": "docs",
        "goals": goals,
    }
    Path(__file__).with_name("heldout.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
