"""Writes heldout.json: the third probe set's goals (issue 23, p-probe3). Run: python make_goals.py

Each goal's ``why`` quotes its facts in «guillemets» and ends with ``Check: <expression>``; a goal that must
be refused lists ``Absent: «...»`` instead (and says why the nearest fact does not answer it).
check_answers.py recomputes every answer from the documents.
"""

import json
from pathlib import Path

TS = "r-tarnsync-manual/tarnsync.1.txt"
OG = "r-ostler-garden-minutes/committee-minutes.md"
KB = "r-kestrel-kd4-bom/kd4-bom-rev7.txt"
FL = "r-fenmoor-league/division-one-table.txt"
QE = "r-quayside-api-errors/error-reference.md"
MB = "r-mb014-gel-protocol/SOP-MB-014.md"
BR = "r-brightlane-rewards/programme-terms.md"
SH = "r-saltery-holm-tides/calendar-april.txt"


def num(value, unit="", tol=0.01):
    return {"type": "number", "value": value, "tol": tol, "unit": unit}


def text(value, *accept):
    return {"type": "text", "value": value, "accept": list(accept)}


def day(iso):
    return {"type": "date", "value": iso}


def refused(missing):
    """The documents do not answer: the planner must name the value missing (exit 3)."""
    return {"type": "refused", "missing": missing}


GOALS = [
    # ------------------------------------------------------------------ a man page
    (
        "single",
        "What is tarnsync's default number of parallel uploads?",
        num(4),
        "«Number of files uploaded in parallel. Default: 4.» Check: 4",
        [TS],
    ),
    (
        "single",
        "tarnsync exit status when some files still failed after every retry?",
        num(2),
        "«2 Some files could not be copied after all retries.» Check: 2",
        [TS],
    ),
    (
        "single",
        "Which environment variable overrides the access token in tarnsync's configuration file?",
        text("TARNSYNC_TOKEN"),
        "«TARNSYNC_TOKEN The access token; overrides the token» Check: 'TARNSYNC_TOKEN'",
        [TS],
    ),
    (
        "single",
        "How long does tarnsync wait for the bucket to answer before it abandons a request?",
        num(45, "s"),
        "«Seconds to wait for a response from the bucket before a request is abandoned. Default: 45.» "
        "Check: 45",
        [TS],
    ),
    (
        "single",
        "What log level does tarnsync use unless told otherwise?",
        text("warn"),
        "«One of error, warn, info, debug. Default: warn.» Check: 'warn'",
        [TS],
    ),
    (
        "chained",
        "Look up tarnsync's default chunk size in MiB and work out how many parts a 200 MiB file is "
        "uploaded in.",
        num(25),
        "«Default: 8 MiB. Files smaller than 64 MiB are sent in one part.» Check: ceil(200 / 8)",
        [TS],
    ),
    (
        "chained",
        "Find tarnsync's default request timeout and express it in minutes.",
        num(0.75, "min"),
        "«before a request is abandoned. Default: 45.» Check: 45 / 60",
        [TS],
    ),
    (
        "three_agent",
        "Get the default number of retries of tarnsync, add 1 for the first attempt, then run "
        "`print(2 ** attempts)` with attempts bound to the sum.",
        num(16),
        "«gives up on that file. Default: 3.» Check: run(attempts=3 + 1)",
        [TS],
    ),
    (
        "single",
        "What is the default value of tarnsync's --max-file-size option?",
        refused("a --max-file-size option"),
        "the page lists no such option. Absent: «max-file-size» «file size»",
        [TS],
    ),
    (
        "chained",
        "Which exit status did tarnsync 3.0 use for a run interrupted by the user? Add 1 to it.",
        refused("the exit status of tarnsync 3.0"),
        "near miss, another version: the page describes tarnsync 2.6 only. Absent: «3.0» «version 3»",
        [TS],
    ),
    # ------------------------------------------------------------------ meeting minutes
    (
        "single",
        "Who chaired the Ostler Street garden committee meetings?",
        text("Hana Okafor", "Okafor"),
        "«Hana Okafor (chair)» Check: 'Hana Okafor'",
        [OG],
    ),
    (
        "single",
        "What was the Ostler Street garden's bank balance at the end of February 2026?",
        num(4870.15, "EUR"),
        "«balance on 28 February 2026: EUR 4,870.15» Check: 4870.15",
        [OG],
    ),
    (
        "single",
        "Whose quote for the shed roof did the Ostler garden committee accept?",
        text("Holm & Sons", "Holm and Sons", "Holm"),
        "«Decision: accept the quote from Holm & Sons.» Check: 'Holm & Sons'",
        [OG],
    ),
    (
        "single",
        "On what date is the Ostler Street garden's spring open day?",
        day("2026-04-18"),
        "«The spring open day is set for Saturday 18 April 2026» Check: date(2026, 4, 18)",
        [OG],
    ),
    (
        "single",
        "According to the garden committee minutes, who has to ask the insurer about the hives?",
        text("Tom", "Tom Achebe"),
        "«[Tom] ask the insurer whether hives are covered» Check: 'Tom'",
        [OG],
    ),
    (
        "chained",
        "Look up the old and the new annual plot fee in the Ostler garden minutes and work out the "
        "rise as a percentage of the old fee.",
        num(11.43, "%", 0.01),
        "«raise the annual plot fee from EUR 70 to EUR 78» Check: (78 - 70) / 70 * 100",
        [OG],
    ),
    (
        "chained",
        "The Ostler garden budgeted for the water butts and then ordered them: how far under budget "
        "did they come in, in euros?",
        num(16, "EUR"),
        "«budget EUR 180 in total» «ordered for EUR 164.00 in total» Check: 180 - 164",
        [OG],
    ),
    (
        "three_agent",
        "Take the plot fees the Ostler garden received for the new season, divide them by the "
        "number of plots, then run `print(round(fee * 1.1, 2))` with fee bound to the quotient.",
        num(77),
        "«EUR 1,890.00 from 27 plots» Check: run(fee=1890 / 27)",
        [OG],
    ),
    (
        "single",
        "What was the Ostler Street garden's metered water bill for 2024?",
        refused("the water bill for 2024"),
        "near miss, another year: the minutes give the 2025 bill only. Absent: «2024»",
        [OG],
    ),
    (
        "chained",
        "What does an associate member of the Ostler garden pay per year? Multiply it by 3.",
        refused("an associate member's fee"),
        "the minutes speak of plot fees only. Absent: «associate»",
        [OG],
    ),
    # ------------------------------------------------------------------ a bill of materials
    (
        "single",
        "What is the unit cost of the KD-4's flight controller?",
        num(69, "EUR"),
        "«5 FC-H7-MINI Flight controller, H7 1 69.00 Orbis Avionics 21 days» Check: 69",
        [KB],
    ),
    (
        "single",
        "Who supplies the gimbal camera on the KD-4 bill of materials?",
        text("Lumo Optics"),
        "«CAM-4K-G2 Gimbal camera 4K, 2-axis 1 219.00 Lumo Optics» Check: 'Lumo Optics'",
        [KB],
    ),
    (
        "single",
        "KD-4 quadcopter: lead time of the LiPo battery?",
        num(30, "days"),
        "«LiPo battery 6S, 4200 mAh 2 84.90 Helion Cells 30 days» Check: 30",
        [KB],
    ),
    (
        "single",
        "How many individual propellers does one KD-4 airframe take?",
        num(12),
        "«a quantity of 6 means 6 pairs, 12 propellers in all» Check: 12",
        [KB],
    ),
    (
        "chained",
        "Get the unit price of the KD-4 brushless motor and compute what the motors for 3 airframes "
        "cost, 4 motors each.",
        num(294, "EUR"),
        "«Brushless motor 2306, 1750 KV 4 24.50» Check: 24.50 * 3 * 4",
        [KB],
    ),
    (
        "chained",
        "Look up the assembly labour hours per KD-4 airframe and the hourly rate, then compute the "
        "labour cost of one airframe.",
        num(147, "EUR"),
        "«Assembly labour: 3.5 hours per airframe at EUR 42 per hour.» Check: 3.5 * 42",
        [KB],
    ),
    (
        "three_agent",
        "Look up the capacity in mAh of the KD-4's standard battery, multiply it by 2, then run "
        "`print(total / 1000)` with total bound to the product.",
        num(8.4),
        "«BAT-6S-4200 LiPo battery 6S, 4200 mAh» Check: run(total=4200 * 2)",
        [KB],
    ),
    (
        "single",
        "What is the unit cost of the KD-6's flight controller?",
        refused("the KD-6 flight controller's cost"),
        "near miss, another product: the BOM is the KD-4's. Absent: «KD-6»",
        [KB],
    ),
    (
        "chained",
        "Find the unit cost of the KD-4 landing gear and work out the cost of two sets.",
        refused("the cost of the KD-4 landing gear"),
        "no landing gear on the BOM. Absent: «landing gear» «legs»",
        [KB],
    ),
    (
        "single",
        "What did the 4-in-1 ESC cost in KD-4 BOM rev 5?",
        refused("the ESC price of rev 5"),
        "near miss, another revision: only rev 6's ESC price is given. Absent: «rev 5» «revision 5»",
        [KB],
    ),
    # ------------------------------------------------------------------ a league table
    (
        "single",
        "How many points does Dunmere Town have in Fenmoor Division One?",
        num(26),
        "«4 Dunmere Town 18 7 5 6 28 26 +2 26» Check: 26",
        [FL],
    ),
    (
        "single",
        "Who is the top scorer in the Fenmoor Sunday League's Division One?",
        text("Jonah Kessler", "Kessler"),
        "«Top scorer: Jonah Kessler (Carrow Athletic), 17 goals.» Check: 'Jonah Kessler'",
        [FL],
    ),
    (
        "single",
        "How many goals has Old Foundry conceded this season?",
        num(41),
        "«10 Old Foundry 18 2 4 12 16 41 -25 10» Check: 41",
        [FL],
    ),
    (
        "chained",
        "How many points separate Carrow Athletic from Millbeck Rovers in Division One?",
        num(5),
        "«1 Carrow Athletic 18 12 4 2 41 17 +24 40» «2 Millbeck Rovers 18 10 5 3 36 20 +16 35» "
        "Check: 40 - 35",
        [FL],
    ),
    (
        "chained",
        "Find Carrow Athletic's goals scored and games played in the Fenmoor table and compute "
        "their goals per game.",
        num(2.28, "", 0.01),
        "«1 Carrow Athletic 18 12 4 2 41 17» Check: 41 / 18",
        [FL],
    ),
    (
        "chained",
        "Look up Westhope Wanderers' points and the points they were deducted, and add the two.",
        num(19),
        "«8 Westhope Wanderers 18 5 4 9 22 33 -11 16*» «deducted 3 points» Check: 16 + 3",
        [FL],
    ),
    (
        "three_agent",
        "Look up Pellin United's goals scored, divide by 18, then run "
        "`print(round(rate * 22))` with rate bound to the quotient.",
        num(35),
        "«6 Pellin United 18 6 5 7 29 31 -2 23» Check: run(rate=29 / 18)",
        [FL],
    ),
    (
        "single",
        "How many points did Carrow Athletic finish the 2024-25 season with?",
        refused("Carrow Athletic's 2024-25 points"),
        "near miss, another season: the table is 2025-26 after matchday 18. Absent: «2024»",
        [FL],
    ),
    (
        "three_agent",
        "Find Kelby Town's points in Fenmoor Division One, double them, and run "
        "`print(p - 1)` with p bound to the result.",
        refused("Kelby Town's points"),
        "no such club in the table. Absent: «Kelby»",
        [FL],
    ),
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
