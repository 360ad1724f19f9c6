"""Probe8 goals over the allotment AGM minutes, the pottery .ics calendar and the call transcript."""

from goal_kinds import AC, MP, QP, day, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ AGM minutes with action items
    (
        "single",
        "What will a half plot cost a year at Ashcombe Road from 2026-27?",
        num(38, "GBP"),
        "«half plot: GBP 38.00 a year, was GBP 34.00» Check: 38",
        [AC],
    ),
    (
        "single",
        "According to the Ashcombe allotment AGM action list, who is supposed to fix the trough on path C?",
        text("D. Hume", "Hume", "D Hume"),
        "«2 | repair the trough on path C | D. Hume | 30 April 2026» Check: 'D. Hume'",
        [AC],
    ),
    (
        "chained",
        "For a full 250 sq m plot at Ashcombe Road, what is the 2026-27 rent once the water charge is "
        "added on?",
        num(78, "GBP"),
        "«full plot (250 sq m): GBP 68.00 a year» «water charge: GBP 0.04 per sq m per year, added to "
        "every plot rent (raised beds exempt)» Check: 68 + 0.04 * 250",
        [AC],
    ),
    (
        "chained",
        "The allotment society's water bill rose compared with last year. By what percentage? Two decimals.",
        num(19.56, "%"),
        "«water GBP 1,318.40 (up from GBP 1,102.75 last year)» Check: round((1318.40 - 1102.75) / "
        "1102.75 * 100, 2)",
        [AC],
    ),
    (
        "three_agent",
        "How many members over the quorum turned up to the Ashcombe AGM? Look up attendance and the "
        "quorum, then run `print(present - quorum)` with both bound.",
        num(11),
        "«Present: 31 members (quorum is 20).» Check: run(present=31, quorum=20)",
        [AC],
    ),
    (
        "three_agent",
        "From the treasurer's report, take the balance brought forward and the balance carried forward, "
        "work out the change and run `print(f'{change:.2f}')` with change set to it.",
        num(480.40, "GBP"),
        "«Balance brought forward GBP 2,184.60.» «Balance carried forward GBP 2,665.00.» Check: "
        "run(change=2665.00 - 2184.60)",
        [AC],
    ),
    (
        "natural",
        "I turned 67 last year and I rent a full plot at Ashcombe Road. Ignoring the water charge, what "
        "is my rent for the coming year?",
        num(62, "GBP"),
        "«full plot (250 sq m): GBP 68.00 a year, was GBP 62.00» «Members aged 65 or over keep the 2025 "
        "rent for one more year» Check: 62",
        [AC],
    ),
    (
        "natural",
        "My half plot is 125 square metres and I won't get round to paying until 5 November. With water, "
        "how much will I owe the society?",
        num(48, "GBP"),
        "«half plot: GBP 38.00 a year» «water charge: GBP 0.04 per sq m per year» «Rents are due by 1 "
        "October; a late fee of GBP 5.00 applies after 31 October.» Check: 38 + 0.04 * 125 + 5",
        [AC],
    ),
    (
        "single",
        "What's the yearly rent for a quarter plot at the Ashcombe Road allotments?",
        refused("the rent of a quarter plot"),
        "the minutes give full plot, half plot and raised bed rents only. Absent: «quarter plot»",
        [AC],
    ),
    (
        "chained",
        "How much did the society spend on stock for the trading hut, and what fraction of all spending "
        "was it?",
        refused("the trading hut stock spending"),
        "only the trading hut's income (GBP 640.25) is given, not what was spent on its stock. Absent: "
        "«stock»",
        [AC],
    ),
    # ------------------------------------------------------------------ an .ics workshop calendar
    (
        "single",
        "On Quillan's wheel throwing taster day, how much is extra clay per kilo?",
        num(4.5, "GBP"),
        "«Extra clay GBP 4.50 per kg.» Check: 4.5",
        [QP],
    ),
    (
        "single",
        "Which date is the glaze chemistry day at Quillan Clay Studio?",
        day("2026-11-07"),
        "«DTSTART;TZID=Europe/London:20261107T100000» «SUMMARY:Glaze chemistry day» Check: date(2026, 11, 7)",
        [QP],
    ),
    (
        "chained",
        "Quillan's evening throwing course meets once a week for six weeks. When is its final session?",
        day("2026-11-05"),
        "«RRULE:FREQ=WEEKLY;COUNT=6» «DTSTART;TZID=Europe/London:20261001T183000» Check: date(2026, 10, "
        "1) + timedelta(weeks=5)",
        [QP],
    ),
    (
        "chained",
        "How many hours does the Quillan family handbuilding afternoon last?",
        num(2.5, "h"),
        "«DTSTART;TZID=Europe/London:20260919T140000» «DTEND;TZID=Europe/London:20260919T163000» Check: "
        "mins('14:00', '16:30') / 60",
        [QP],
    ),
    (
        "three_agent",
        "A newcomer reserves a place on the six-week evening throwing course with the deposit. Find what "
        "is left to pay at the first session and run `print(due)` with due bound to that amount.",
        num(160, "GBP"),
        "«Course fee GBP 210 for all 6 sessions» «A place is held with a GBP 50 deposit, the rest due at "
        "the first session.» Check: run(due=210 - 50)",
        [QP],
    ),
    (
        "three_agent",
        "Two adults and three children aged 7, 9 and 12 are booking the family handbuilding afternoon. "
        "Total the tickets, then run this with total set to it:\n```python\nprint(total / 5)\n```",
        num(17.2, "GBP"),
        "«GBP 22 per adult, GBP 14 per child (6-15).» Check: run(total=2 * 22 + 3 * 14)",
        [QP],
    ),
    (
        "natural",
        "I did Quillan's taster day back in the spring. What would the evening throwing course cost me?",
        num(189, "GBP"),
        "«Returning students (any earlier Quillan course) pay GBP 189.» Check: 189",
        [QP],
    ),
    (
        "natural",
        "I'm going to the taster day, I'd like to throw with 5 kg of clay in total and get four pots "
        "fired and glazed. What will I be charged altogether?",
        num(106, "GBP"),
        "«Price GBP 85 per person including 3 kg of clay. Extra clay GBP 4.50 per kg.» «Firing and "
        "glazing of up to 2 pieces included\\; further pieces GBP 6 each.» Check: 85 + (5 - 3) * 4.5 + "
        "(4 - 2) * 6",
        [QP],
    ),
    (
        "single",
        "What does a private one-to-one lesson at Quillan Clay Studio cost?",
        refused("the price of a private lesson"),
        "the calendar lists group workshops and courses only. Absent: «one-to-one» «private»",
        [QP],
    ),
    (
        "three_agent",
        "Get the price of Quillan's porcelain masterclass and run `print(p * 2)` with p set to it.",
        refused("the price of a porcelain masterclass"),
        "no porcelain masterclass in the calendar. Absent: «porcelain» «masterclass»",
        [QP],
    ),
    # ------------------------------------------------------------------ a phone call transcript
    (
        "single",
        "What's Merrow & Daughters' standard call-out charge on a weekday?",
        num(75, "GBP"),
        "«So our call-out charge is 75 pounds, which includes the first half hour on site.» Check: 75",
        [MP],
    ),
    (
        "single",
        "What booking reference did the office give Mr Edgerley?",
        text("MD-26-4471"),
        "«Booked. Reference MD-26-4471.» Check: 'MD-26-4471'",
        [MP],
    ),
    (
        "chained",
        "Before VAT, what would Merrow charge for a new pressure relief valve once their parts handling "
        "is added?",
        num(43.70, "GBP"),
        "«Parts at cost plus 15 percent handling. A new pressure relief valve is usually 38 pounds at "
        "cost» Check: 38 * 1.15",
        [MP],
    ),
    (
        "chained",
        "Over a year, what does a customer on Merrow's cover plan pay in total for the plan plus the "
        "annual boiler service?",
        num(229, "GBP"),
        "«Annual boiler service is 95 pounds fixed, or 85 if you join our cover plan at 12 pounds a "
        "month.» Check: 85 + 12 * 12",
        [MP],
    ),
    (
        "three_agent",
        "A weekday job takes the call-out plus 45 more minutes of labour after the included half hour. "
        "Work out the total before VAT and run `print(round(x * 1.2, 2))` with x bound to it.",
        num(176.4, "GBP"),
        "«our call-out charge is 75 pounds, which includes the first half hour on site.» «After that "
        "it's 24 pounds per quarter hour, or part of one.» Check: run(x=75 + 3 * 24)",
        [MP],
    ),
    (
        "three_agent",
        "How much does the cover plan knock off the annual service price? Bind the saving to s and run "
        "`print(s * 10)`.",
        num(100),
        "«Annual boiler service is 95 pounds fixed, or 85 if you join our cover plan» Check: run(s=95 - 85)",
        [MP],
    ),
    (
        "natural",
        "Dan spent 1 hour 10 minutes at my mother's on the Wednesday (she's 72) and fitted a new "
        "pressure relief valve. What should the bill come to with VAT?",
        num(220.20, "GBP"),
        "«our call-out charge is 75 pounds, which includes the first half hour on site.» «After that "
        "it's 24 pounds per quarter hour, or part of one.» «over-70s get 10 percent off labour. Not the "
        "call-out, not parts.» «Parts at cost plus 15 percent handling. A new pressure relief valve is "
        "usually 38 pounds at cost» «everything is plus VAT at 20 percent.» Check: (75 + ceil(40 / 15) * "
        "24 * 0.9 + 38 * 1.15) * 1.2",
        [MP],
    ),
    (
        "natural",
        "Something came up and Mr Edgerley wants to cancel on the Wednesday morning itself. What will it "
        "cost him?",
        num(30, "GBP"),
        "«If you cancel less than 24 hours before, there's a 30 pound late-cancellation fee.» Check: 30",
        [MP],
    ),
    (
        "single",
        "How much do Merrow & Daughters charge to power-flush a central heating system?",
        refused("the price of a power flush"),
        "the call covers call-out, labour, parts and servicing only. Absent: «power-flush» «powerflush» "
        "«flush»",
        [MP],
    ),
    (
        "natural",
        "I'm a landlord and need the yearly gas safety certificate for a flat. What would Merrow charge?",
        refused("the price of a gas safety certificate"),
        "no certificate price is quoted in the call. Absent: «gas safety» «landlord» «certificate»",
        [MP],
    ),
]
