"""Probe7 goals: the skip hire rates, the charging tariff e-mail, the escape rooms FAQ and the honey show."""

from goal_kinds import HH, LE, TS, VE, day, num, refused

GOALS_B = [
    # ------------------------------------------------------------------ skip hire rates (INI)
    (
        "single",
        "How much is a midi skip from TipRight?",
        num(230, "GBP"),
        "«[skip.midi] size_cubic_yards = 4 holds_bin_bags = 40 price = 230.00» Check: 230",
        [TS],
    ),
    (
        "single",
        "tipright large builders skip: roughly how many bin bags does it take?",
        num(80, "bags"),
        "«[skip.large_builders] size_cubic_yards = 8 holds_bin_bags = 80» Check: 80",
        [TS],
    ),
    (
        "single",
        "What does TipRight charge for a 12 yard skip?",
        refused("the price of a 12-yard skip"),
        "the sizes are 2, 4, 6, 8 and 20 cubic yards. Absent: «12 yard» «size_cubic_yards = 12»",
        [TS],
    ),
    (
        "chained",
        "A TipRight builders skip filled only with soil and rubble is priced differently from a normal one. "
        "Look up both prices and give the difference.",
        num(45, "GBP"),
        "«price = 285.00 inert_only_price = 240.00 ; soil, rubble, bricks, concrete only» Check: 285 - 240",
        [TS],
    ),
    (
        "chained",
        "Look up TipRight's trade (business account) price for an 8-yard skip and add 20% VAT to it.",
        refused("the trade price of an 8-yard skip"),
        "the sheet gives domestic rates only, VAT included; no trade or business-account price. "
        "Absent: «trade» «business account»",
        [TS],
    ),
    (
        "three_agent",
        "Take TipRight's mini skip price and the council road permit, add them, and give the sum as p to "
        "`print(round(p - p / 1.2, 2))` so I can see the VAT inside it.",
        num(35.5, "GBP"),
        "«[skip.mini] size_cubic_yards = 2 holds_bin_bags = 20 price = 165.00» «council_road_permit = 48.00» "
        "Check: run(p=165 + 48)",
        [TS],
    ),
    (
        "three_agent",
        "Look up what a midi skip costs and how many bin bags it holds, work out the price per bag, then "
        "run\n```python\nprint(round(per_bag, 3))\n```\nwith per_bag set to it.",
        num(5.75, "GBP"),
        "«[skip.midi] size_cubic_yards = 4 holds_bin_bags = 40 price = 230.00» Check: run(per_bag=230 / 40)",
        [TS],
    ),
    (
        "natural",
        "I want to keep a TipRight midi skip on my drive for 19 days. What will the hire come to?",
        num(262.5, "GBP"),
        "«price = 230.00» «hire_period_days = 14 extra_day = 6.50» Check: 230 + (19 - 14) * 6.50",
        [TS],
    ),
    (
        "natural",
        "My builders skip will stand on the road outside the house for two weeks, and going into it are one "
        "old sofa and two mattresses. What's the total I'll pay TipRight?",
        num(457, "GBP"),
        "«[skip.builders] size_cubic_yards = 6 holds_bin_bags = 60 price = 285.00» "
        "«council_road_permit = 48.00 permit_period_days = 14» "
        "«lights_and_cones_per_week = 12.00 ; required whenever the skip stands on the road» "
        "«mattress = 35.00 sofa = 30.00» Check: 285 + 48 + 2 * 12 + 30 + 2 * 35",
        [TS],
    ),
    (
        "natural",
        "We're 27 miles from TipRight's yard. What's the delivery charge for a skip out to us?",
        num(41.8, "GBP"),
        "«beyond_20_miles = 25.00 plus 2.40 per mile over 20» Check: 25 + (27 - 20) * 2.40",
        [TS],
    ),
    # ------------------------------------------------------------------ a charging tariff e-mail (.eml)
    (
        "single",
        "On Voltway Plus, what is the DC ultra price per kWh from May 2026?",
        num(0.59, "EUR/kWh", 0.001),
        "«DC ultra (150 kW+) 0.79 €/kWh 0.59 €/kWh» Check: 0.59",
        [VE],
    ),
    (
        "single",
        "What does Voltway charge to replace a lost charging card?",
        num(8, "EUR"),
        "«Charging card replacement: 8 € (first card free).» Check: 8",
        [VE],
    ),
    (
        "chained",
        "By what percentage does the Voltway Plus DC fast price go up on 1 May 2026?",
        num(6.12, "%"),
        "«DC fast (50 kW) 0.65 €/kWh 0.52 €/kWh» «Old prices (until 30 April 2026), for your records: "
        "Voltway Plus AC 0.36 €/kWh, DC fast 0.49 €/kWh» Check: (0.52 - 0.49) / 0.49 * 100",
        [VE],
    ),
    (
        "chained",
        "Find Voltway's pay-as-you-go AC price and its session fee; what does one 30 kWh AC session cost "
        "without a subscription?",
        num(15.05, "EUR"),
        "«AC (up to 22 kW) 0.49 €/kWh 0.39 €/kWh» «Session fee 0.35 €» Check: 30 * 0.49 + 0.35",
        [VE],
    ),
    (
        "chained",
        "Look up the DC ultra price on the Voltway Business tariff and work out a 40 kWh session.",
        refused("the Voltway Business DC ultra price"),
        "the e-mail compares pay-as-you-go and Voltway Plus only. Absent: «Voltway Business» «Business»",
        [VE],
    ),
    (
        "three_agent",
        "Get the Voltway Plus monthly fee and its DC ultra price; cost a month of four 45 kWh ultra "
        "sessions plus the fee, and pass it as m to `print(round(m, 1))`.",
        num(112.2, "EUR"),
        "«DC ultra (150 kW+) 0.79 €/kWh 0.59 €/kWh» «Monthly fee none 5.99 €» "
        "Check: run(m=4 * 45 * 0.59 + 5.99)",
        [VE],
    ),
    (
        "three_agent",
        "Work out how many kWh of AC charging a month make the Voltway Plus fee pay for itself against "
        "pay-as-you-go (ignore session fees), then run:\n```python\nimport math\nprint(math.ceil(k))\n```\n"
        "with k that break-even amount.",
        num(60, "kWh"),
        "«AC (up to 22 kW) 0.49 €/kWh 0.39 €/kWh» «Monthly fee none 5.99 €» "
        "Check: run(k=5.99 / (0.49 - 0.39))",
        [VE],
    ),
    (
        "three_agent",
        "Retrieve what Voltway Plus charged per kWh on AC in 2025, subtract it from the May 2026 price and "
        "run `print(d * 100)` with d that difference.",
        refused("the 2025 Voltway Plus AC price"),
        "the old prices given are those until 30 April 2026, not a 2025 price list. Absent: «2025»",
        [VE],
    ),
    (
        "natural",
        "I'm pay-as-you-go and left the car on a 50 kW charger for 1 hour 20 minutes, taking 38 kWh. "
        "What will Voltway bill me?",
        num(28.55, "EUR"),
        "«DC fast (50 kW) 0.65 €/kWh» «Session fee 0.35 €» «after 45 minutes on DC, we charge 0.10 € per "
        "minute, capped at 12.00 € per session» Check: 38 * 0.65 + 0.35 + (80 - 45) * 0.10",
        [VE],
    ),
    (
        "natural",
        "With Voltway Plus I'm charging 25 kWh on AC at a GridLoop station. How much will it cost me?",
        refused("GridLoop's own charging price"),
        "roaming costs the partner's price plus EUR 0.50; GridLoop's price is not given. "
        "Absent: «GridLoop price» «GridLoop's price» «GridLoop AC»",
        [VE],
    ),
    # ------------------------------------------------------------------ an escape rooms FAQ (plain text)
    (
        "single",
        "How long is a game in Lanternlock's Signal Lost room?",
        num(75, "minutes"),
        "«Signal Lost (submarine) - 3 to 8 players, 75 minutes» Check: 75",
        [LE],
    ),
    (
        "single",
        "lanternlock vault job max players?",
        num(10, "players"),
        "«The Vault Job - 4 to 10 players» Check: 10",
        [LE],
    ),
    (
        "single",
        "What's Lanternlock's per-player price for a group of 12?",
        refused("a per-player price for 12 players"),
        "the price table stops at 9-10 players and the largest room takes 10. Absent: «12 players» «11-12»",
        [LE],
    ),
    (
        "chained",
        "Look up the weekend per-player price for a group of four at Lanternlock and work out what the "
        "group pays altogether.",
        num(108, "GBP"),
        "«4-5 £24 £27» Check: 4 * 27",
        [LE],
    ),
    (
        "chained",
        "Find the price of Lanternlock's Haunted Manor room and multiply it by 5 players.",
        refused("the price of the Haunted Manor room"),
        "the four rooms are The Alchemist's Cellar, Signal Lost, Grandma's Attic and The Vault Job. "
        "Absent: «Haunted Manor»",
        [LE],
    ),
    (
        "three_agent",
        "Six of us are playing at Lanternlock on a Tuesday and then hiring the private party room. Look up "
        "the per-player price and the room charge, add the room to the game total, and pass it as total to "
        "`print(total / 6)` for each person's share.",
        num(27.667, "GBP"),
        "«6-8 £21 £24» «Private party room after your game: £40 for 45 minutes» "
        "Check: run(total=6 * 21 + 40)",
        [LE],
    ),
    (
        "three_agent",
        "Three students booking Lanternlock on a Wednesday: get the weekday per-player price for 3 and the "
        "student discount, compute the discounted total and run\n```python\nprint(f'{t:.2f}')\n```\n"
        "with t that total.",
        num(71.4, "GBP"),
        "«3 £28 £31» «Students and NHS staff: 15% off Mon-Thu bookings» Check: run(t=3 * 28 * (1 - 0.15))",
        [LE],
    ),
    (
        "natural",
        "Five of us want to do The Vault Job on a Saturday. How much is that in total?",
        num(155, "GBP"),
        "«4-5 £24 £27» «The Vault Job is £4 per player more than the table» Check: 5 * (27 + 4)",
        [LE],
    ),
    (
        "natural",
        "I paid in full for The Alchemist's Cellar for 6 people on a Thursday and now have to cancel, 5 days "
        "before. How much do I get back?",
        num(63, "GBP"),
        "«The Alchemist's Cellar - 2 to 6 players» «6-8 £21 £24» «Within 7 days: 50% refund.» "
        "Check: 6 * 21 * 0.50",
        [LE],
    ),
    (
        "natural",
        "It's just the two of us on a Sunday at Lanternlock, and we'd like a photo print at the end. "
        "What's the bill?",
        num(77, "GBP"),
        "«2 £32 £36» «Photo print £5.» Check: 2 * 36 + 5",
        [LE],
    ),
    # ------------------------------------------------------------------ a honey show schedule (Markdown)
    (
        "single",
        "When do entries close for the Hivewell honey show?",
        day("2026-08-28"),
        "«**Entries close:** Friday 28 August 2026 (postmarked)» Check: date(2026, 8, 28)",
        [HH],
    ),
    (
        "single",
        "What's first prize in class 8 at Hivewell?",
        num(7, "GBP"),
        "«| 8 | One block of beeswax, 1 lb, unadorned | £7 | £5 | £3 |» Check: 7",
        [HH],
    ),
    (
        "chained",
        "Look up the Hivewell non-member entry fee and say what four entries would cost.",
        num(4.8, "GBP"),
        "«| Non-members | £1.20 per entry |» Check: 4 * 1.20",
        [HH],
    ),
    (
        "chained",
        "How much honey goes into the class 12 fruit cake, in grams? Take 1 oz as 28.35 g.",
        num(170.1, "g"),
        "«| 12 | Honey fruit cake (recipe in rule 4) |» «6 oz honey» Check: 6 * 28.35",
        [HH],
    ),
    (
        "chained",
        "Find the first prize for class 15 (honey cookery) at Hivewell and double it.",
        refused("the first prize of class 15"),
        "the classes are 1-13 and 19-23; there is no class 15. Absent: «| 15 |» «honey cookery»",
        [HH],
    ),
    (
        "three_agent",
        "Get the Alder Cup points for a first, a second and a third. An exhibitor won two firsts and one "
        "third in classes 1-5; work out her points and pass them as p to `print(p * 10)`.",
        num(110),
        "«most points in classes 1-5 (1st = 5 points, 2nd = 3, 3rd = 1)» Check: run(p=2 * 5 + 1)",
        [HH],
    ),
    (
        "three_agent",
        "Look up the three prizes of class 6 and of class 7, add all six into those classes' prize money, "
        "and run:\n"
        "```python\nprint(f'total: £{money}')\n```\nwith money being that total.",
        num(32, "GBP"),
        "«| 6 | One frame of comb honey for extraction | £8 | £5 | £3 |» "
        "«| 7 | Cut comb, two containers, 8-12 oz each | £8 | £5 | £3 |» Check: run(money=2 * (8 + 5 + 3))",
        [HH],
    ),
    (
        "three_agent",
        "Retrieve the members' entry fee for the 2025 Hivewell show, subtract it from the 2026 fee and feed "
        "the change into `print(change * 100)`.",
        refused("the 2025 members' entry fee"),
        "only the 2026 schedule is given. Absent: «2025»",
        [HH],
    ),
    (
        "natural",
        "I'm a member. I'm entering classes 1, 2 and 4, the novice set-honey class and mead class 10. What "
        "are my entry fees?",
        num(2.4, "GBP"),
        "«| Members | 60p per entry |» «| Novice classes (19-21) | free for members |» "
        "«| 20 | Novice: one jar set honey |» Check: 4 * 0.60",
        [HH],
    ),
    (
        "natural",
        "I sold 40 jars at £6.50 each on the Hivewell show sales table. What does the association pay me?",
        num(221, "GBP"),
        "«the association keeps 15% commission.» Check: 40 * 6.50 * (1 - 0.15)",
        [HH],
    ),
]
