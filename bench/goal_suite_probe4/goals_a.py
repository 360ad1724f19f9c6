"""Probe4 goals over the insurance schedule, the firmware changelog and the fare matrix."""

from goal_kinds import CF, HP, VF, day, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ an insurance policy schedule
    (
        "single",
        "What excess applies to a claim under the Contents section of Harrowgate policy HM-2026-118430?",
        num(150, "EUR"),
        "«B Contents EUR 62,000 EUR 150» Check: 150",
        [HP],
    ),
    (
        "single",
        "Under the Harrowgate home policy, which endorsement deals with home office equipment?",
        text("E19"),
        "«E19 Home office equipment is covered up to EUR 5,000 under Section B.» Check: 'E19'",
        [HP],
    ),
    (
        "chained",
        "Look up the Harrowgate home policy's total annual premium for the 2024 period and work out how much "
        "it has risen since.",
        refused("the 2024 total annual premium"),
        "near miss, another year: the schedule gives the 2026-27 and 2025-26 periods only. Absent: «2024»",
        [HP],
    ),
    (
        "chained",
        "Find the escape of water excess and the ordinary Contents excess on the Harrowgate schedule, then "
        "work out how much bigger the first is.",
        num(450, "EUR"),
        "«Escape of water excess (Sections A and B): EUR 600» «B Contents EUR 62,000 EUR 150» "
        "Check: 600 - 150",
        [HP],
    ),
    (
        "chained",
        "Total up the values of every specified item listed on policy HM-2026-118430.",
        num(7430, "EUR"),
        "«Engagement ring, platinum EUR 3,200» «Road bicycle, Corvale Strada 9 EUR 2,450» "
        "«Camera, Halden M4 with 35 mm lens EUR 1,780» Check: 3200 + 2450 + 1780",
        [HP],
    ),
    (
        "chained",
        "Look up the Harrowgate premium before tax, then run `print(round(p * 1.12 / 12, 2))` with p set "
        "to it.",
        num(57.16),
        "«Annual premium before tax ............. EUR 612.40» Check: run(p=612.40)",
        [HP],
    ),
    (
        "three_agent",
        "From the Harrowgate schedule take this year's and last year's buildings sums insured, compute the "
        "rise, and pass it as rise to `print(round(rise / 1000, 1))`.",
        num(25.0),
        "«A Buildings EUR 385,000 EUR 250» «Buildings sum insured EUR 360,000» "
        "Check: run(rise=385000 - 360000)",
        [HP],
    ),
    (
        "three_agent",
        "Find the Harrowgate monthly instalment and the total annual premium, compute how much more twelve "
        "instalments cost than paying in one go, and give that to `print(f'{extra * 100:.0f} cents')` as "
        "extra.",
        num(2403),
        "«12 instalments of EUR 59.16» «Total annual premium .................. EUR 685.89» "
        "Check: run(extra=12 * 59.16 - 685.89)",
        [HP],
    ),
    (
        "three_agent",
        "On my home policy, subtract the Section B single article limit from the home office equipment "
        "cover; the difference k then goes into `print(k // 500)`.",
        num(6),
        "«Single article limit (Section B): EUR 2,000» «Home office equipment is covered up to EUR 5,000 "
        "under Section B.» Check: run(k=5000 - 2000)",
        [HP],
    ),
    (
        "three_agent",
        "Get the sum insured under Section F of the Harrowgate policy, halve it, and execute `print(x)` "
        "where x holds the half.",
        refused("the Section F sum insured"),
        "the schedule has sections A to E only. Absent: «Section F»",
        [HP],
    ),
    (
        "natural",
        "Thieves took my Corvale Strada 9 road bike from outside a cafe. What will Harrowgate pay me once "
        "the excess is taken off?",
        num(2450 - 100, "EUR"),
        "«Road bicycle, Corvale Strada 9 EUR 2,450» «C Personal possessions (away) EUR 4,500 EUR 100» "
        "Check: 2450 - 100",
        [HP],
    ),
    (
        "natural",
        "A burst pipe ruined EUR 3,900 worth of furniture in my house. After the excess, how much should "
        "I get back from my home insurer?",
        num(3300, "EUR"),
        "«Escape of water excess (Sections A and B): EUR 600, in place of the section excess.» "
        "Check: 3900 - 600",
        [HP],
    ),
    (
        "natural",
        "If Harrowgate pays one claim on my policy this period, what no-claims discount will I get at the "
        "next renewal?",
        num(20, "%"),
        "«Claim-free years at this renewal: 5» «reduces the claim-free years by 2» «3 years 20 %» "
        "Check: {1: 10, 2: 15, 3: 20, 4: 25}[5 - 2]",
        [HP],
    ),
    (
        "natural",
        "How much would I have to bear myself on a flood claim for the building under my Harrowgate cover?",
        refused("the flood excess"),
        "near miss, another peril: the schedule gives escape of water and subsidence excesses, no flood "
        "excess. Absent: «flood»",
        [HP],
    ),
    # ------------------------------------------------------------------ a firmware changelog
    (
        "single",
        "In Vexa R7 firmware 4.3.1, what is the default DHCP lease time?",
        num(12, "h"),
        "«Default DHCP lease time is now 12 hours (was 24 hours).» Check: 12",
        [VF],
    ),
    (
        "single",
        "Which CVE identifier did the Vexa R7 4.3.0 release fix?",
        text("CVE-2026-31842"),
        "«CVE-2026-31842 fixed (UPnP buffer overflow)» Check: 'CVE-2026-31842'",
        [VF],
    ),
    (
        "single",
        "Oldest hardware revision the Vexa R7 4.x firmware still supports?",
        text("B2"),
        "«Minimum supported hardware revision: B2.» Check: 'B2'",
        [VF],
    ),
    (
        "single",
        "On what date was Vexa R7 firmware 4.1.0 released?",
        refused("the 4.1.0 release date"),
        "near miss, another version: the changelog lists 4.0.0, 4.2.0, 4.2.2, 4.3.0 and 4.3.1. "
        "Absent: «4.1.0»",
        [VF],
    ),
    (
        "chained",
        "How many MB bigger is the Vexa 4.3.0 image than the 4.2.0 image? Read both sizes and subtract.",
        num(2.5),
        "«Image size 38.6 MB.» «Image size 36.1 MB.» Check: 38.6 - 36.1",
        [VF],
    ),
    (
        "chained",
        "Count the days between the Vexa R7 4.2.2 release and the 4.3.0 release.",
        num(72, "days"),
        "«## [4.2.2] - 2026-04-21» «## [4.3.0] - 2026-07-02» Check: (date(2026, 7, 2) - date(2026, "
        "4, 21)).days",
        [VF],
    ),
    (
        "chained",
        "Look up the default admin session timeout Vexa introduced in 4.2.2 (in minutes), then run "
        "`print(t * 60)` with t set to that number.",
        num(900),
        "«Default admin session timeout 15 minutes (was 30 minutes).» Check: run(t=15)",
        [VF],
    ),
    (
        "chained",
        "Look up the image size of Vexa R7 firmware 4.3.2 and express it in kilobytes.",
        refused("the 4.3.2 image size"),
        "near miss, another version: the newest release is 4.3.1, which states no image size. "
        "Absent: «4.3.2»",
        [VF],
    ),
    (
        "three_agent",
        "Get the client limit per radio from the Vexa 4.2.0 notes, take three quarters of it, and feed the "
        "result as q into `print(int(q))`.",
        num(96),
        "«Client limit per radio: 128.» Check: run(q=128 * 0.75)",
        [VF],
    ),
    (
        "three_agent",
        "Using the Vexa changelog, take how many minutes the 3.x to 4.0.0 upgrade lasts and how many reboots "
        "it needs, compute the minutes per reboot, and pass it as m to:\n```python\nprint(round(m, 2))\n```",
        num(5.5, "min"),
        "«upgrading from 3.x takes about 11 minutes and needs 2 reboots» Check: run(m=11 / 2)",
        [VF],
    ),
    (
        "three_agent",
        "What CVSS score did the UPnP flaw fixed in Vexa 4.3.0 have? Divide it by the maximum score of 10 "
        "and format it as a percentage by running `print(f'{s:.0%}')` with s set to the fraction.",
        num(81, "%"),
        "«CVE-2026-31842 fixed (UPnP buffer overflow), CVSS 8.1.» Check: run(s=8.1 / 10)",
        [VF],
    ),
    (
        "three_agent",
        "The 4.3.1 notes give an old and a new guest portal password limit. Work out how many more "
        "characters "
        "are allowed now and then run `print(n * 8)` with n bound to that difference.",
        num(248),
        "«The guest portal accepts passwords of up to 63 characters (was 32).» Check: run(n=63 - 32)",
        [VF],
    ),
    (
        "natural",
        "With the new default lease on Vexa 4.3.1, how many leases does a phone that stays connected use up "
        "over a whole week?",
        num(14),
        "«Default DHCP lease time is now 12 hours» Check: 7 * 24 / 12",
        [VF],
    ),
    (
        "natural",
        "Until what date will the Vexa 4.3 line get security fixes?",
        day("2028-01-02"),
        "«Each release line receives security fixes for 18 months after its first release (the 4.3 line "
        "counts from 4.3.0).» «## [4.3.0] - 2026-07-02» Check: date(2026 + (7 + 18 - 1) // 12, (7 + 18 - 1) "
        "% 12 + 1, 2)",
        [VF],
    ),
    (
        "natural",
        "When did the Vexa R5 router get the shorter DHCP lease default?",
        refused("the R5's lease change"),
        "near miss, another product: the changelog is the R7's. Absent: «R5»",
        [VF],
    ),
    # ------------------------------------------------------------------ a train fare matrix
    (
        "single",
        "What is the adult anytime single from Brenlow to Dunstry on the Caldmoor Valley Railway?",
        num(5.30, "EUR"),
        "«Brenlow | 3.40 - 2.90 5.30 7.70» Check: 5.30",
        [CF],
    ),
    (
        "single",
        "How much does a Valley Railcard cost for a year?",
        num(30, "EUR"),
        "«The card costs EUR 30 a year.» Check: 30",
        [CF],
    ),
    (
        "single",
        "Caldmoor Valley Railway: what is the charge to take a bike on one single journey?",
        num(1.50, "EUR"),
        "«Bicycles: EUR 1.50 per single journey» Check: 1.50",
        [CF],
    ),
    (
        "chained",
        "Get the first class anytime single from Ashby to Caldmoor and compute a day return from it.",
        refused("the first class fare"),
        "near miss, another class: the matrix is standard class only. Absent: «first class»",
        [CF],
    ),
    (
        "chained",
        "Look up the Caldmoor to Elmsett anytime single and work out what ten of them cost.",
        num(55, "EUR"),
        "«Caldmoor | 5.80 2.90 - 3.10 5.50» Check: 10 * 5.50",
        [CF],
    ),
    (
        "chained",
        "Find the singles Ashby to Brenlow and Brenlow to Elmsett; how much more do the two cost together "
        "than the through single from Ashby to Elmsett?",
        num(0.50, "EUR"),
        "«Ashby | - 3.40 5.80 8.20 10.60» «Brenlow | 3.40 - 2.90 5.30 7.70» Check: 3.40 + 7.70 - 10.60",
        [CF],
    ),
    (
        "chained",
        "Look up the single fare from Dunstry to Ashby and run `print(round(f * 1.9, 2))` with f "
        "bound to it.",
        num(15.58),
        "«Dunstry | 8.20 5.30 3.10 - 2.80» Check: run(f=8.20)",
        [CF],
    ),
    (
        "three_agent",
        "Take the Elmsett to Caldmoor single, compute the day return price with the multiplier in the fare "
        "rules, then run `print(int(x * 20 + 1e-6) / 20)` with x holding that price.",
        num(8.80, "EUR"),
        "«Elmsett | 10.60 7.70 5.50 2.80 -» «A day return costs 1.6 times the single fare» "
        "Check: run(x=5.50 * 1.6)",
        [CF],
    ),
    (
        "three_agent",
        "Look up the Brenlow to Elmsett single, take the Valley Railcard discount off it, then round it down "
        "to 5 cents with `print(int(p * 20 + 1e-6) / 20)`, p being the discounted fare.",
        num(5.10, "EUR"),
        "«Brenlow | 3.40 - 2.90 5.30 7.70» «Valley Railcard: one third off adult fares» "
        "Check: run(p=7.70 * 2 / 3)",
        [CF],
    ),
    (
        "three_agent",
        "What will the Brenlow to Caldmoor single cost in 2027? Look it up, add 10 %, and print it with "
        "`print(round(x, 2))` where x is the result.",
        refused("the 2027 fare"),
        "near miss, another year: the matrix is valid for 2026 only. Absent: «2027»",
        [CF],
    ),
    (
        "natural",
        "Two adults and a nine-year-old go one way from Ashby to Dunstry on a Saturday morning. What do the "
        "three tickets cost altogether?",
        num(15.35, "EUR"),
        "«Ashby | - 3.40 5.80 8.20 10.60» «at any time on Saturdays and Sundays, are 25 % off» "
        "«Children aged "
        "5 to 15 pay half the adult fare (after any off-peak discount)» «rounded down to the nearest 5 cents "
        "after each discount» Check: 2 * floor(8.20 * 0.75 * 20 + 1e-6) / 20 + floor(floor(8.20 * 0.75 * 20 "
        "+ 1e-6) / 20 / 2 * 20 + 1e-6) / 20",
        [CF],
    ),
    (
        "natural",
        "I'm travelling Elmsett to Brenlow at 08:15 on a Tuesday and I hold a Valley Railcard. What fare do "
        "I pay?",
        num(7.70, "EUR"),
        "«Elmsett | 10.60 7.70 5.50 2.80 -» «not valid for journeys starting before 09:30 on weekdays» "
        "Check: 7.70",
        [CF],
    ),
    (
        "natural",
        "A guard finds me without a ticket after I boarded at Dunstry, going towards Caldmoor. What penalty "
        "fare am I charged?",
        num(25, "EUR"),
        "«Penalty fare: EUR 25 or twice the anytime single to the next station, whichever is greater.» "
        "«Dunstry | 8.20 5.30 3.10 - 2.80» Check: max(25, 2 * 3.10)",
        [CF],
    ),
    (
        "natural",
        "How much is an adult single from Ashby out to Fallowby on the valley line?",
        refused("the fare to Fallowby"),
        "no such station: Ashby, Brenlow, Caldmoor, Dunstry and Elmsett only. Absent: «Fallowby»",
        [CF],
    ),
]
