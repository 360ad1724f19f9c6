"""The probe3 goals over the first four folders (a man page, minutes, a bill of materials, a league table)."""

from goal_kinds import BR, FL, KB, MB, OG, QE, SH, TS, day, num, refused, text  # noqa: F401

GOALS_FIRST = [
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
]
