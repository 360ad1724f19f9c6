"""Probe5 goals over the payroll appendix, the bin calendar and the grant call."""

from goal_kinds import AG, KB, PA, day, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ a payroll allowance appendix
    (
        "single",
        "What is the basic hourly rate of a forklift driver under Varrow's 2026 agreement?",
        num(17.10, "EUR"),
        "«L2 Forklift driver EUR 17.10» Check: 17.10",
        [PA],
    ),
    (
        "single",
        "By what percentage does Varrow Logistics raise the hourly pay for work done on a Sunday?",
        num(50, "%"),
        "«Sunday work 50 % every hour worked on a Sunday» Check: 50",
        [PA],
    ),
    (
        "single",
        "Which Varrow pay grade do HGV drivers with a class C+E licence belong to?",
        text("D2"),
        "«D2 HGV driver (class C+E) EUR 20.30» Check: 'D2'",
        [PA],
    ),
    (
        "single",
        "Under Appendix C of the Varrow collective agreement, how much does pay grade L5 earn an hour?",
        refused("the L5 hourly rate"),
        "the grade table stops at L4 (and D1, D2). Absent: «L5»",
        [PA],
    ),
    (
        "chained",
        "Find the shift supervisor's basic rate and Varrow's night-shift premium, then work out what one "
        "hour on nights pays a supervisor.",
        num(28.25, "EUR"),
        "«L4 Shift supervisor EUR 22.60» «Night shift (22:00-06:00) 25 %» Check: 22.60 * 1.25",
        [PA],
    ),
    (
        "chained",
        "Retrieve the class C HGV driver's hourly rate from Varrow's pay appendix, then execute "
        "`print(round(r * 39 * 52 / 12, 2))` with r equal to that rate.",
        num(3168.75),
        "«D1 HGV driver (class C) EUR 18.75» Check: run(r=18.75)",
        [PA],
    ),
    (
        "chained",
        "What do five days away from the depot of more than 8 hours each, plus 40 hours of standby at "
        "home, bring in allowances at Varrow? Look up both rates and add it up.",
        num(154, "EUR"),
        "«EUR 14.00 when away more than 8 hours» «Standby at home is paid EUR 2.10 per hour.» "
        "Check: 5 * 14.00 + 40 * 2.10",
        [PA],
    ),
    (
        "chained",
        "Look up what a Varrow warehouse operative earned per hour in 2025 and calculate the raise to "
        "this year's rate.",
        refused("the 2025 warehouse operative rate"),
        "near miss, another year: the appendix is valid for 2026 only. Absent: «2025»",
        [PA],
    ),
    (
        "three_agent",
        "From Varrow's grade table take the forklift driver's and the warehouse operative's hourly rates, "
        "subtract the smaller from the larger, and hand the gap to this code as d:\n"
        "```python\nprint(f'{d * 1720:.2f}')\n```",
        num(2924),
        "«L2 Forklift driver EUR 17.10» «L1 Warehouse operative EUR 15.40» Check: run(d=17.10 - 15.40)",
        [PA],
    ),
    (
        "three_agent",
        "Get the Varrow overnight allowance and the yearly protective footwear allowance, compute eleven "
        "nights plus one footwear payment, then run `print(round(total / 7, 2))` where total is that sum.",
        num(45),
        "«Overnight allowance when the company books no hotel: EUR 20.00 per night» «Protective "
        "footwear: EUR 95.00 per calendar year» Check: run(total=11 * 20.00 + 95.00)",
        [PA],
    ),
    (
        "three_agent",
        "Use Varrow's annual bonus percentage and the warehouse operative's hourly rate: work out the "
        "bonus on 1,650 hours of basic pay, and let `print(round(b))` round it, with b that bonus.",
        num(1143),
        "«A bonus of 4.5 % of the basic pay earned in the calendar year» «L1 Warehouse operative "
        "EUR 15.40» Check: run(b=0.045 * 15.40 * 1650)",
        [PA],
    ),
    (
        "three_agent",
        "Look up Varrow's mileage rate for a private motorcycle, multiply it by 800 km and pass the "
        "product as m into `print(m * 2)`.",
        refused("the motorcycle mileage rate"),
        "near miss, another vehicle: mileage is paid for a private car only. "
        "Absent: «motorcycle» «motorbike»",
        [PA],
    ),
    (
        "natural",
        "I'm a warehouse team lead at Varrow and last Tuesday I stayed 3 hours past my rostered shift. "
        "What do those three overtime hours pay me?",
        num(81.385, "EUR"),
        "«L3 Team lead, warehouse EUR 19.85» «Overtime, first 2 hours a day 30 %» «Overtime, further "
        "hours 50 % from the third overtime hour of a day» Check: 2 * 19.85 * 1.30 + 19.85 * 1.50",
        [PA],
    ),
    (
        "natural",
        "This year I've driven 6,200 km on Varrow business in my own car. How much mileage allowance "
        "can I claim?",
        num(2260, "EUR"),
        "«EUR 0.38 per km for the first 5,000 km in a calendar year, EUR 0.30 per km beyond that» "
        "Check: 5000 * 0.38 + (6200 - 5000) * 0.30",
        [PA],
    ),
    (
        "natural",
        "While on standby I was called out to the depot for a 40-minute job; I'm graded as a forklift "
        "driver. What is the call-out itself worth?",
        num(44.46, "EUR"),
        "«L2 Forklift driver EUR 17.10» «paid as worked time with the overtime premium, for a minimum "
        "of 2 hours» «Overtime, first 2 hours a day 30 %» Check: 2 * 17.10 * 1.30",
        [PA],
    ),
    (
        "natural",
        "How much does Varrow contribute each year towards a high-visibility jacket for its drivers?",
        refused("the allowance for a high-visibility jacket"),
        "near miss, another item: only protective footwear has an allowance. "
        "Absent: «jacket» «high-visibility»",
        [PA],
    ),
    # ------------------------------------------------------------------ a bin collection calendar
    (
        "single",
        "What capacity is the green food waste caddy on Kelby collection round 7?",
        num(23, "L"),
        "«Food waste Green 23 L every week» Check: 23",
        [KB],
    ),
    (
        "single",
        "Round 7 bins usually go on a Tuesday. On which day are they emptied in the week of the spring "
        "bank holiday?",
        text("Wednesday 27 May", "27 May"),
        "«Week of the spring bank holiday (25 May): collections move to Wednesday 27 May.» "
        "Check: 'Wednesday 27 May'",
        [KB],
    ),
    (
        "single",
        "What colour is the recycling bin on Kelby round 7?",
        text("Blue"),
        "«Recycling Blue 240 L» Check: 'Blue'",
        [KB],
    ),
    (
        "single",
        "Which weekday does Kelby's round 9 collect on?",
        refused("the collection day of round 9"),
        "the calendar covers round 7 only. Absent: «round 9»",
        [KB],
    ),
    (
        "chained",
        "Look up Kelby's garden waste prices and add up a year's subscription for three brown bins.",
        num(128, "EUR"),
        "«First brown bin ............... EUR 52.00 a year» «Each additional brown bin ..... EUR 38.00 "
        "a year» Check: 52.00 + 2 * 38.00",
        [KB],
    ),
    (
        "chained",
        "Get the price of a replacement grey bin from the round 7 leaflet and run "
        "`print(f'{c * 1.19:.2f}')` with c set to it.",
        num(38.08),
        "«otherwise a replacement grey bin costs EUR 32.00» Check: run(c=32.00)",
        [KB],
    ),
    (
        "chained",
        "Count the recycling collections in the round 7 calendar and, with the blue bin's size, work "
        "out how many litres of recycling capacity they take away in total.",
        num(3120, "L"),
        "«Week B Tuesdays: 14 Apr, 28 Apr, 12 May, 26 May, 9 Jun, 23 Jun, 7 Jul, 21 Jul, 4 Aug, 18 Aug, "
        "1 Sep, 15 Sep, 29 Sep» «Recycling Blue 240 L every other week (Week B)» Check: 13 * 240",
        [KB],
    ),
    (
        "chained",
        "Find what Kelby charged for a garden waste subscription in 2025-26 and work out how much the "
        "first-bin price has gone up since.",
        refused("the 2025-26 garden waste price"),
        "near miss, another season: only the 2026-27 subscription is priced. Absent: «2025-26»",
        [KB],
    ),
    (
        "three_agent",
        "Retrieve Kelby's bulky-item charges (the first three items, then each one after), price a "
        "booking of 7 items, and have `print(fee / 7)` report the cost per item, fee being that price.",
        num(8.5),
        "«Up to 3 items ................. EUR 27.50» «Each further item ............. EUR 8.00» "
        "Check: run(fee=27.50 + 4 * 8.00)",
        [KB],
    ),
    (
        "three_agent",
        "Take the grey and the blue bin sizes from the round 7 calendar, add them, and feed the sum as "
        "vol into:\n```\nprint(vol * 26 / 1000)\n```",
        num(10.92),
        "«General waste Grey 180 L» «Recycling Blue 240 L» Check: run(vol=180 + 240)",
        [KB],
    ),
    (
        "three_agent",
        "Take Kelby's first-bin garden waste price and the price for subscribing after 30 June, compute "
        "the difference, and run `print(round(diff / 52 * 100, 1))` with diff that difference.",
        num(42.3),
        "«First brown bin ............... EUR 52.00 a year» «EUR 30.00 for the first bin for the rest "
        "of the season» Check: run(diff=52.00 - 30.00)",
        [KB],
    ),
    (
        "three_agent",
        "Find the price of a replacement blue recycling bin in Kelby, add 20 % to it, and run "
        "`print(round(p, 2))` with p the result.",
        refused("the price of a replacement blue bin"),
        "near miss, another bin: only a replacement grey bin is priced. Absent: «replacement blue» "
        "«blue bin costs»",
        [KB],
    ),
    (
        "natural",
        "I want four bulky items taken away, plus an old chest freezer. What will the Kelby booking cost?",
        num(56.50, "EUR"),
        "«Up to 3 items ................. EUR 27.50» «Each further item ............. EUR 8.00» "
        "«Fridges and freezers .......... EUR 21.00 each (not counted in the items above)» "
        "Check: 27.50 + 1 * 8.00 + 21.00",
        [KB],
    ),
    (
        "natural",
        "We receive council tax support and would like two brown garden bins. What is our bill for the year?",
        num(45, "EUR"),
        "«First brown bin ............... EUR 52.00 a year» «Each additional brown bin ..... EUR 38.00 "
        "a year» «Households receiving council tax support pay half price.» Check: (52.00 + 38.00) / 2",
        [KB],
    ),
    (
        "natural",
        "Our grey bin was missed on Tuesday 21 April 2026. What is the last day I can still report it?",
        day("2026-04-23"),
        "«Missed collection: report it within 2 working days of your collection day.» "
        "Check: workdays_after(date(2026, 4, 21), 2)",
        [KB],
    ),
    (
        "natural",
        "On which dates will my brown bin be emptied in October 2026?",
        refused("the October 2026 collection dates"),
        "near miss, another month: the calendar runs from April to September 2026. Absent: «Oct»",
        [KB],
    ),
    # ------------------------------------------------------------------ a grant call
    (
        "single",
        "When does call 2026-1 of the Ardent Community Arts Fund close?",
        day("2026-04-13"),
        "«13 April 2026, 12:00 noon» Check: date(2026, 4, 13)",
        [AG],
    ),
    (
        "single",
        "At most what share of the project cost can an Ardent Grow grant cover?",
        num(75, "%"),
        "«| Grow | EUR 10,001 - 40,000 | 75 %» Check: 75",
        [AG],
    ),
    (
        "single",
        "What is the smallest grant the Ardent Seed strand awards?",
        num(2000, "EUR"),
        "«| Seed | EUR 2,000 - 10,000 | 90 %» Check: 2000",
        [AG],
    ),
    (
        "single",
        "How much can an organisation get from Ardent's Flagship strand?",
        refused("the Flagship strand's grant range"),
        "the call has Seed, Grow and Lead strands only. Absent: «Flagship»",
        [AG],
    ),
    (
        "chained",
        "How many days is Ardent's call 2026-1 open? Look up when it opens and when it closes and count "
        "the days from one to the other.",
        num(70, "days"),
        "«**Opens:** 2 February 2026» «13 April 2026, 12:00 noon» "
        "Check: (date(2026, 4, 13) - date(2026, 2, 2)).days",
        [AG],
    ),
    (
        "chained",
        "Look up how many points community reach is worth in the Ardent assessment, then run "
        "`print(p / 100 * 80)` with p set to that number.",
        num(24),
        "«community reach 30» Check: run(p=30)",
        [AG],
    ),
    (
        "chained",
        "Find the top of the Lead and of the Grow grant ranges in the Ardent call and work out how far "
        "apart they are.",
        num(80000, "EUR"),
        "«| Grow | EUR 10,001 - 40,000» «| Lead | EUR 40,001 - 120,000» Check: 120000 - 40000",
        [AG],
    ),
    (
        "chained",
        "Find the closing date of Ardent's call 2026-2 and count the days to it from 1 May 2026.",
        refused("the closing date of call 2026-2"),
        "near miss, another call: the document is call 2026-1. Absent: «2026-2»",
        [AG],
    ),
    (
        "three_agent",
        "Take the Grow strand's maximum share of project cost and its minimum cash match, both in "
        "percent, add them, and pass the total as s to `print(s * 3)`.",
        num(255),
        "«| Grow | EUR 10,001 - 40,000 | 75 % | at least 10 % in cash |» Check: run(s=75 + 10)",
        [AG],
    ),
    (
        "three_agent",
        "Read the Ardent payment stages for larger grants: sum the percentage paid on signing and the "
        "one paid on the interim report, then execute\n"
        "```python\nprint(round(64000 * share / 100))\n```\nwith share bound to that sum.",
        num(57600),
        "«Larger grants are paid 50 % on signing the agreement, 40 % on the interim report» "
        "Check: run(share=50 + 40)",
        [AG],
    ),
    (
        "three_agent",
        "Find the evaluation cap (as a percentage of the grant) and the largest Grow grant, compute the "
        "biggest evaluation budget such a grant allows, and feed it as e to `print(e / 4)`.",
        num(500),
        "«evaluation up to 5 % of the grant» «| Grow | EUR 10,001 - 40,000» Check: run(e=0.05 * 40000)",
        [AG],
    ),
    (
        "three_agent",
        "Get the maximum share of project cost the Seed strand offered in Ardent's 2025 call, double it, "
        "and hand it to `print(x)` as x.",
        refused("the Seed strand's share in the 2025 call"),
        "near miss, another year: only call 2026-1 is described. Absent: «2025»",
        [AG],
    ),
    (
        "natural",
        "Our Grow project costs EUR 48,000 in total and we intend to ask Ardent for EUR 40,000. What "
        "grant should we expect?",
        num(36000, "EUR"),
        "«The grant is the lower of the amount asked for and the strand's maximum share of the eligible "
        "project cost.» «| Grow | EUR 10,001 - 40,000 | 75 %» Check: min(40000, 0.75 * 48000)",
        [AG],
    ),
    (
        "natural",
        "Our project's direct costs come to EUR 22,500. What's the most we can put in the budget for "
        "overheads?",
        num(2700, "EUR"),
        "«Overheads: up to 12 % of the direct costs.» Check: 0.12 * 22500",
        [AG],
    ),
    (
        "natural",
        "The panel gave us 24 for artistic quality, 21 for reach, 18 for feasibility and 11 for value "
        "for money. By how many points did we clear the funding line?",
        num(14),
        "«Applications scoring below 60 are not funded.» Check: 24 + 21 + 18 + 11 - 60",
        [AG],
    ),
    (
        "natural",
        "What value per day does Ardent put on donated equipment when it counts in-kind contributions?",
        refused("the value of donated equipment"),
        "near miss, another contribution: only volunteer time has a rate (donated space none). "
        "Absent: «equipment»",
        [AG],
    ),
]
