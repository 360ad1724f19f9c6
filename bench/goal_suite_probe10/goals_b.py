"""Probe10 goals over the taxi fare table, the quoted e-mail thread, the Jupyter notebook and the GitHub
issue."""

from goal_kinds import CT, OO, PC, TM, day, num, refused

GOALS_B = [
    # ------------------------------------------------------------------ a hackney carriage table of fares
    (
        "single",
        "Under Corran's new fare table, what does each extra tenth of a mile cost at night?",
        num(0.30, "GBP"),
        "«TARIFF 2 Monday to Saturday, 20:00 to 06:00, and at any time on Sunday» «176 yards is a tenth of a "
        "mile» «For each further 176 yards, or part of it ................................... £0.30» "
        "Check: 0.30",
        [CT],
    ),
    (
        "single",
        "From what date does Corran's hackney carriage Table of Fares No. 14 apply?",
        day("2027-04-05"),
        "«In force from 00:01 on Monday 5 April 2027» Check: date(2027, 4, 5)",
        [CT],
    ),
    (
        "single",
        "What's the fixed hackney fare from Corran Airfield to the railway station?",
        refused("a fixed fare from the airfield to the station"),
        "Airfield trips are metered with an extra («journeys starting at or ending at Corran Airfield "
        "terminal forecourt»). Absent: «fixed fare» «railway station»",
        [CT],
    ),
    (
        "chained",
        "A daytime cab on a Tuesday, 3 miles door to door, no waiting: what should the Corran meter show?",
        num(9.85, "GBP"),
        "«TARIFF 1 Monday to Saturday, 06:00 to 20:00» «For the first 880 yards, or part of it "
        "...................................... £3.60» «For each further 176 yards, or part of it "
        "................................... £0.25» «1,760 yards = 1 mile» "
        "Check: 3.60 + ceil((3 * 1760 - 880) / 176) * 0.25",
        [CT],
    ),
    (
        "chained",
        "By how much did the Tariff 1 charge for the first 880 yards rise from Corran's Table No. 13 to "
        "Table No. 14?",
        num(0.40, "GBP"),
        "«Table No. 13 (2025) for comparison: Tariff 1 first 880 yards £3.20» «For the first 880 yards, or "
        "part of it ...................................... £3.60» Check: 3.60 - 3.20",
        [CT],
    ),
    (
        "chained",
        "Under Corran's old 2025 fare table, what would 15 minutes of waiting have cost on Tariff 1?",
        refused("the 2025 Tariff 1 waiting rate"),
        "The comparison note gives only the 2025 distance rates («Tariff 1 first 880 yards £3.20, each "
        "further 176 yards £0.22»). Absent: «Table No. 13 waiting»",
        [CT],
    ),
    (
        "three_agent",
        "Read Corran's Tariff 2 charge for the first 880 yards (flag) and its charge for each further 176 "
        "yards (step), then run\n```python\ntenths = 27\nprint(round(flag + tenths * step, 2))\n```",
        num(12.50, "GBP"),
        "«For the first 880 yards, or part of it ...................................... £4.40» «For each "
        "further 176 yards, or part of it ................................... £0.30» "
        "Check: run(flag=4.40, step=0.30)",
        [CT],
    ),
    (
        "three_agent",
        "run print(round(first + 12 * wait, 2)) with first = Corran's Tariff 1 charge for the first "
        "880 yards "
        "and wait = the Tariff 1 waiting charge per 40 seconds",
        num(6.60, "GBP"),
        "«For the first 880 yards, or part of it ...................................... £3.60» «Waiting "
        "time, for each 40 seconds or part of it ............................. £0.25» "
        "Check: run(first=3.60, wait=0.25)",
        [CT],
    ),
    (
        "natural",
        "Two of us are taking a hackney from the town centre at 23:30 on a Saturday to the Corran Airfield "
        "terminal, 4.5 miles, no waiting. What will the meter plus any extras come to?",
        num(20.90, "GBP"),
        "«TARIFF 2 Monday to Saturday, 20:00 to 06:00» «For the first 880 yards, or part of it "
        "...................................... £4.40» «For each further 176 yards, or part of it "
        "................................... £0.30» «journeys starting at or ending at Corran Airfield "
        "terminal forecourt ...... £4.50» «1,760 yards = 1 mile» "
        "Check: 4.40 + ceil((4.5 * 1760 - 880) / 176) * 0.30 + 4.50",
        [CT],
    ),
    (
        "natural",
        "I need a Corran taxi at 2pm on Boxing Day for a 2 mile trip, no waiting. What's the fare?",
        num(11.40, "GBP"),
        "«TARIFF 3 18:00 on 24 December to 06:00 on 27 December» «For the first 880 yards, or part of it "
        "...................................... £5.40» «For each further 176 yards, or part of it "
        "................................... £0.40» Check: 5.40 + ceil((2 * 1760 - 880) / 176) * 0.40",
        [CT],
    ),
    # ------------------------------------------------------------------ a quoted e-mail thread
    (
        "single",
        "For the Ruiz/Achebe wedding, what is Pellwick Kitchen's canapé price per guest now?",
        num(7.80, "GBP"),
        "«Canapes (4 per guest) ................. £7.80 per guest (not £6.90 as in my first email)» "
        "Check: 7.80",
        [PC],
    ),
    (
        "single",
        "How much extra per guest does Pellwick charge for a gluten-free dessert?",
        num(2.00, "GBP"),
        "«a gluten-free dessert is £2.00» Check: 2.00",
        [PC],
    ),
    (
        "chained",
        "What will the wedding breakfast itself cost Hanna and Femi for their confirmed numbers, before VAT?",
        num(4131.50, "GBP"),
        "«Confirmed: 86 adults and 9 children» «Three-course wedding breakfast ....... £46.00 per adult, "
        "£19.50 per child (under 12)» Check: 86 * 46.00 + 9 * 19.50",
        [PC],
    ),
    (
        "chained",
        "Tom says the wedding needs 7 waiters. For the minimum hours, what does the staffing come to "
        "before VAT?",
        num(777.00, "GBP"),
        "«£18.50 per waiter per hour» «that is 7 waiters (one per 15 guests, rounded up), 6 hours minimum» "
        "Check: 7 * 18.50 * 6",
        [PC],
    ),
    (
        "three_agent",
        "Bind adult = Pellwick's revised per-adult price for the wedding breakfast and child = its per-child "
        "price, then run `print(round((86 * adult + 9 * child) * 1.2, 2))`.",
        num(4957.80, "GBP"),
        "«Three-course wedding breakfast ....... £46.00 per adult, £19.50 per child (under 12)» "
        "Check: run(adult=46.00, child=19.50)",
        [PC],
    ),
    (
        "three_agent",
        "```\nheads = 95\nprint(round(max(heads, minimum) * buffet, 2))\n```\nHere buffet is the evening "
        "buffet price per head in Pellwick's revised quote and minimum is the smallest number of heads it is "
        "charged for. What's the output?",
        num(1353.75, "GBP"),
        "«Evening buffet ........................ £14.25 per head, minimum 60 heads» "
        "Check: run(buffet=14.25, minimum=60)",
        [PC],
    ),
    (
        "three_agent",
        "With rolls = Pellwick's late-night bacon roll price per head and buffet = the evening buffet price "
        "per head, run `print(round(95 * (rolls + buffet), 2))`.",
        refused("a bacon roll price"),
        "The quotes list a wedding breakfast, canapes, an evening buffet, staffing, cake cutting and "
        "corkage («Corkage (your own wine)»). Absent: «bacon»",
        [PC],
    ),
    (
        "natural",
        "Femi's aunt is making our wedding cake. What will Pellwick charge us for cutting and plating it?",
        num(0.00, "GBP"),
        "«Cake cutting and plating (own cake) ... £1.50 per guest» «cake cutting is free for you (it is free "
        "on every booking of 80 adults or more)» «Confirmed: 86 adults and 9 children» Check: 0",
        [PC],
    ),
    (
        "natural",
        "Only 45 of our wedding guests will stay on for the evening buffet after all. What will "
        "Pellwick bill "
        "for the buffet, before VAT?",
        num(855.00, "GBP"),
        "«Evening buffet ........................ £14.25 per head, minimum 60 heads» "
        "Check: max(45, 60) * 14.25",
        [PC],
    ),
    (
        "natural",
        "We'd love a chocolate fountain during the evening. What would Pellwick add to the bill for that?",
        refused("a chocolate fountain price"),
        "Extras quoted are cake cutting and corkage («Cake cutting and plating (own cake)»). "
        "Absent: «chocolate fountain»",
        [PC],
    ),
    # ------------------------------------------------------------------ a Jupyter notebook (.ipynb JSON)
    (
        "single",
        "In 2027, what does the Ossory orchard charge a non-member per kilo for pressing?",
        num(0.55, "GBP"),
        "«| pressing, per kg of apples brought | £0.35 | £0.55 |» Check: 0.55",
        [OO],
    ),
    (
        "single",
        "When is the Ossory Community Orchard's pressing day this year?",
        day("2027-10-09"),
        "«Pressing day: **Saturday 9 October 2027**» Check: date(2027, 10, 9)",
        [OO],
    ),
    (
        "chained",
        "Going by the orchard's own juice yield figure, how many full 75cl bottles should 50 kg of sorted "
        "apples fill?",
        num(40, "bottles"),
        "«YIELD_L_PER_KG = 0.6 # litres of juice per kg of sorted apples (our 2026 average)» "
        "«return math.floor(kg * YIELD_L_PER_KG / 0.75)» Check: floor(50 * 0.6 / 0.75)",
        [OO],
    ),
    (
        "chained",
        "At last year's members' pressing rate, what would pressing 60 kg of apples have cost?",
        num(18.00, "GBP"),
        "«# 2026 rates, for last year's accounts only» «PRESS_MEMBER_2026 = 0.30» Check: 60 * 0.30",
        [OO],
    ),
    (
        "chained",
        "What did the orchard charge for a new bottle in 2026, and what would 40 of them have cost?",
        refused("the 2026 bottle price"),
        "The 2026 rates cell holds pressing and pasteurising only («PASTEURISE_2026 = 0.35»). "
        "Absent: «BOTTLE_NEW_2026»",
        [OO],
    ),
    (
        "three_agent",
        "Bind rate = the orchard's 2027 members' pressing rate per kg, bottle = the price of a new "
        "75cl bottle "
        "and past = pasteurising per bottle, then run:\n```python\nkg = 30\nn = int(kg * 0.6 / 0.75)\n"
        "print(round(kg * rate + n * (bottle + past), 2))\n```",
        num(41.70, "GBP"),
        "«| pressing, per kg of apples brought | £0.35 | £0.55 |» «| pasteurising, per bottle | £0.40 | "
        "£0.40 |» «| new 75cl glass bottle with cap | £0.90 | £0.90 |» "
        "Check: run(rate=0.35, bottle=0.90, past=0.40)",
        [OO],
    ),
    (
        "three_agent",
        "`print(round(b / p * 100, 1))` - p and b being the orchard's 2026 takings from pressing and from "
        "bottles. What comes out?",
        num(47.7, "%"),
        "«# 2026 takings (for the AGM report)» «842.10» «401.40» Check: run(p=842.10, b=401.40)",
        [OO],
    ),
    (
        "natural",
        "I'm an orchard member but I've only got 6 kg of apples this year. I'll bring my own bottles and "
        "skip pasteurising. What will I pay?",
        num(5.00, "GBP"),
        "«| pressing, per kg of apples brought | £0.35 | £0.55 |» «caps are £0.10 each» «| minimum charge "
        "per grower | £5.00 | £5.00 |» Check: max(6 * 0.35 + floor(6 * 0.6 / 0.75) * 0.10, 5.00)",
        [OO],
    ),
    (
        "natural",
        "I'm not an Ossory member yet. I'm bringing 50 kg of sorted apples and want new bottles, "
        "pasteurised. If I join at the gate before booking my slot, what do I pay altogether, membership "
        "included?",
        num(81.50, "GBP"),
        "«Membership for the rest of 2027 can be bought on the day: £12 per household, and the member rate "
        "applies at once.» «Slots are free for members» «| pressing, per kg of apples brought | £0.35 | "
        "£0.55 |» «| new 75cl glass bottle with cap | £0.90 | £0.90 |» «| pasteurising, per bottle | £0.40 "
        "| £0.40 |» «YIELD_L_PER_KG = 0.6» Check: 12 + 50 * 0.35 + floor(50 * 0.6 / 0.75) * (0.90 + 0.40)",
        [OO],
    ),
    (
        "natural",
        "Our neighbour's tree is loaded with quinces. As members, what would pressing 10 kg of them cost us?",
        refused("a pressing rate for quinces"),
        "Only apples and pears are pressed («Pears are pressed at the same rate as apples»). "
        "Absent: «quince»",
        [OO],
    ),
    # ------------------------------------------------------------------ a GitHub issue with comments
    (
        "single",
        "At Tidewell, what does a day-pass holder pay per minute on the small laser?",
        num(0.50, "GBP"),
        "«| Epilog Zing 24 (small laser) | £0.30/min | £0.50/min |» Check: 0.50",
        [TM],
    ),
    (
        "single",
        "What's the concession rate for a Tidewell monthly membership?",
        num(18, "GBP"),
        "«Monthly membership stays at £28 (£18 concessions).» Check: 18",
        [TM],
    ),
    (
        "chained",
        "I'm a Tidewell member. The big laser's job timer read 23 min 20 s for my job - what will I be "
        "charged?",
        num(10.80, "GBP"),
        "«| Trotec Speedy 400 laser (big laser) | £0.45/min | £0.75/min |» «rounded up to the next whole "
        "minute» Check: ceil(23 + 20 / 60) * 0.45",
        [TM],
    ),
    (
        "chained",
        "By what percentage does the Tidewell day pass go up on 1 March 2027?",
        num(16.67, "%"),
        "«the day pass goes up from £12 to £14» Check: (14 - 12) / 12 * 100",
        [TM],
    ),
    (
        "three_agent",
        "Look up what members and day-pass holders pay per gram on Tidewell's Prusa printers, bind them to "
        "member and guest, and run `print(round(350 * (guest - member), 2))`.",
        num(7.00, "GBP"),
        "«| Prusa MK4 3D printers | £0.04 per gram | £0.06 per gram |» Check: run(member=0.04, guest=0.06)",
        [TM],
    ),
    (
        "three_agent",
        "```python\nprint(round(4 * ply + 2 * acrylic, 2))\n```\nply: the current shelf price of a 600x400 "
        "sheet of 3 mm birch ply at Tidewell; acrylic: the same size in coloured 3 mm cast acrylic.",
        num(41.20, "GBP"),
        "«3 mm birch ply 600x400 at £4.80» «£9.50 (clear) / £11.00 (colours)» "
        "Check: run(ply=4.80, acrylic=11.00)",
        [TM],
    ),
    (
        "three_agent",
        "Bind cnc = Tidewell's members' rate per minute on the CNC router and zing = the members' "
        "rate on the "
        "Epilog Zing, then run `print(round(30 * cnc + 10 * zing, 2))`.",
        refused("a CNC router rate"),
        "The rates table has two lasers, the 3D printers, the vinyl cutter and the woodshop («Woodshop "
        "(table saw, bandsaw)»). Absent: «CNC»",
        [TM],
    ),
    (
        "three_agent",
        "Run `print(glow * 20)` where glow is what Tidewell members pay per minute on the Glowforge.",
        refused("a Glowforge rate"),
        "The lasers are a Trotec and an Epilog («Trotec Speedy 400 laser (big laser)»). Absent: «Glowforge»",
        [TM],
    ),
    (
        "natural",
        "I joined Tidewell as a member in November 2026. I want the laser induction and then a 15-minute job "
        "on the big laser. What's the total?",
        num(21.75, "GBP"),
        "«It's £15 for the laser induction» «waived for members who joined after 1 December 2026» "
        "«| Trotec Speedy 400 laser (big laser) | £0.45/min | £0.75/min |» Check: 15 + 15 * 0.45",
        [TM],
    ),
    (
        "natural",
        "I'm coming to Tidewell on a day pass on Saturday 6 March 2027 and want one session on the vinyl "
        "cutter. What will I spend in all?",
        num(17.00, "GBP"),
        "«from **1 March 2027** the day pass goes up from £12 to £14» «| Roland vinyl cutter | free | £3.00 "
        "per session |» Check: 14 + 3.00",
        [TM],
    ),
]
