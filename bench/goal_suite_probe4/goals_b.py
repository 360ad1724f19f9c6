"""Probe4 goals over the warranty terms, the rowing club tariff and the election result."""

from goal_kinds import KW, PE, WR, num, refused, text

GOALS_B = [
    # ------------------------------------------------------------------ a warranty terms sheet
    (
        "single",
        "How long is the parts warranty on a Korvane dishwasher?",
        num(3, "years"),
        "«| Dishwashers | 3 years | 2 years | +2 years for EUR 79 |» Check: 3",
        [KW],
    ),
    (
        "single",
        "Price of Korvane's extended option for a fridge or freezer?",
        num(119, "EUR"),
        "«| Fridges and freezers | 2 years | 2 years | +3 years for EUR 119 |» Check: 119",
        [KW],
    ),
    (
        "single",
        "Above what water hardness does Korvane exclude limescale damage when no softener is fitted?",
        num(14),
        "«Limescale damage where the water hardness exceeds 14 °dH and no softener is fitted.» Check: 14",
        [KW],
    ),
    (
        "single",
        "How long was the labour warranty on dryers under the 2025-2 edition of Korvane's terms?",
        refused("the 2025-2 labour period"),
        "near miss, another edition: the sheet is edition 2026-1. Absent: «2025-2»",
        [KW],
    ),
    (
        "chained",
        "Convert the Korvane compressor parts warranty into months.",
        num(120),
        "«| Compressor (fridges only) | 10 years | 2 years | not available |» Check: 10 * 12",
        [KW],
    ),
    (
        "chained",
        "Find the extended-option prices for a Korvane washing machine and for a Korvane dishwasher and add "
        "them together.",
        num(168, "EUR"),
        "«+2 years for EUR 89» «+2 years for EUR 79» Check: 89 + 79",
        [KW],
    ),
    (
        "chained",
        "Look up the hourly labour rate Korvane charges outside the labour period and run `print(r * 7.5)` "
        "with r set to it.",
        num(360),
        "«the call-out fee is EUR 65 plus EUR 48 per hour of labour» Check: run(r=48)",
        [KW],
    ),
    (
        "three_agent",
        "Look up Korvane's call-out fee and its hourly labour rate, compute the charge for a call-out with "
        "3 hours of labour, then run `print(f'EUR {c:.2f}')` with c bound to that charge.",
        num(209, "EUR"),
        "«the call-out fee is EUR 65 plus EUR 48 per hour of labour» Check: run(c=65 + 3 * 48)",
        [KW],
    ),
    (
        "three_agent",
        "From Korvane's refund rule, take the monthly deduction and the floor, work out after how many full "
        "months the floor is reached, and have `print(f'{m / 12:.1f} years')` show it in years with m bound "
        "to that.",
        num(3.3, "years", 0.06),
        "«we refund the purchase price less 1.5 % for each full month since delivery, but never less than "
        "40 % of the purchase price» Check: run(m=(100 - 40) / 1.5)",
        [KW],
    ),
    (
        "three_agent",
        "Get the Korvane cooker hood extended-option price, add the late-registration surcharge, and hand "
        "the total to this code as total:\n```python\nprint(total * 4)\n```",
        num(236),
        "«| Cooker hoods | 2 years | 1 year | +1 year for EUR 39 |» «registering later adds EUR 20 to that "
        "price» Check: run(total=39 + 20)",
        [KW],
    ),
    (
        "three_agent",
        "Take the Korvane extended option price for a vacuum cleaner, double it, and run `print(v)` with v "
        "bound to that.",
        refused("the vacuum cleaner extended option"),
        "no such product group on the sheet. Absent: «vacuum»",
        [KW],
    ),
    (
        "natural",
        "My Korvane washing machine was delivered 20 months ago, cost EUR 640, and the engineer says it "
        "can't be repaired. How much do I get back?",
        num(448, "EUR"),
        "«we refund the purchase price less 1.5 % for each full month since delivery, but never less than "
        "40 % of the purchase price» «| Washing machines, dryers | 3 years |» "
        "Check: 640 * max(1 - 0.015 * 20, 0.40)",
        [KW],
    ),
    (
        "natural",
        "An engineer spent 1 hour 10 minutes fixing my Korvane cooker hood 18 months after it was "
        "delivered. What is the bill?",
        num(137, "EUR"),
        "«| Cooker hoods | 2 years | 1 year |» «the call-out fee is EUR 65 plus EUR 48 per hour of labour, "
        "charged in half-hour steps (a started half hour counts in full)» Check: 65 + 48 * ceil(70 / 30) / 2",
        [KW],
    ),
    (
        "natural",
        "I only got round to registering my new Korvane cooker hood 35 days after delivery. What does the "
        "extended option cost me now?",
        num(59, "EUR"),
        "«Register within 28 days of delivery» «registering later adds EUR 20 to that price» "
        "«+1 year for EUR 39» Check: 39 + 20",
        [KW],
    ),
    # ------------------------------------------------------------------ a sports club membership tariff
    (
        "single",
        "What is the annual fee for a Masters member at Wyndle Rowing Club?",
        num(460, "EUR"),
        "«| Masters (over 55) | 460 | 75 | 41 |» Check: 460",
        [WR],
    ),
    (
        "single",
        "Wyndle's student monthly option - how much is it?",
        num(24, "EUR"),
        "«| Student (full-time) | 270 | 30 | 24 |» Check: 24",
        [WR],
    ),
    (
        "single",
        "What is the annual fee for an Honorary member of Wyndle Rowing Club?",
        refused("the Honorary class fee"),
        "no such class on the tariff. Absent: «Honorary»",
        [WR],
    ),
    (
        "chained",
        "Find what a Senior rower paid Wyndle for the 2025/26 season and compute the increase to "
        "this season.",
        refused("the 2025/26 Senior fee"),
        "near miss, another season: the tariff is for 2026/27. Absent: «2025/26»",
        [WR],
    ),
    (
        "chained",
        "Look up the Senior monthly option at Wyndle, compute a year of it, and say how much more that is "
        "than the Senior annual fee.",
        num(36, "EUR"),
        "«| Senior rowing | 540 | 75 | 48 |» «paid by direct debit for 12 months» Check: 12 * 48 - 540",
        [WR],
    ),
    (
        "chained",
        "What do the Junior and the Coxswain annual fees at Wyndle come to together?",
        num(310, "EUR"),
        "«| Junior (under 18) | 190 | 0 | - |» «| Coxswain | 120 | 0 | - |» Check: 190 + 120",
        [WR],
    ),
    (
        "chained",
        "Find the Masters joining fee at Wyndle and run `print(j * 1.2)` with j bound to it.",
        num(90),
        "«| Masters (over 55) | 460 | 75 | 41 |» Check: run(j=75)",
        [WR],
    ),
    (
        "three_agent",
        "Find the Wyndle Social annual fee and its joining fee, add them, then run `print(total * 3)` with "
        "total bound to the sum.",
        num(315),
        "«| Social (non-rowing) | 85 | 20 | - |» Check: run(total=85 + 20)",
        [WR],
    ),
    (
        "three_agent",
        "Take the Wyndle Junior annual fee, apply the family discount a second rower in a household gets, "
        "and print it with `print(f'{d:.2f}')` where d is the discounted fee.",
        num(161.50, "EUR"),
        "«| Junior (under 18) | 190 | 0 | - |» «gets 15 % off the annual fee» Check: run(d=190 * 0.85)",
        [WR],
    ),
    (
        "three_agent",
        "Look up how much the Wyndle learn-to-row course costs and how many sessions it has, divide to get "
        "the price of one session, and let `print(f'{per * 5:.2f} for five sessions')` show it with per "
        "bound to it.",
        num(100, "EUR"),
        "«Learn-to-row course: 8 sessions for EUR 160.» Check: run(per=160 / 8)",
        [WR],
    ),
    (
        "natural",
        "Two senior rowers from the same household join Wyndle in May. What do we pay for the first season, "
        "joining fees included?",
        num(1149, "EUR"),
        "«| Senior rowing | 540 | 75 | 48 |» «the second and every further rowing member of one household "
        "gets 15 % off the annual fee. Joining fees are never discounted.» Check: 540 + 540 * 0.85 + 2 * 75",
        [WR],
    ),
    (
        "natural",
        "What will Wyndle charge me to store my 6.5 m single scull for the season?",
        num(112, "EUR"),
        "«EUR 14 per metre of hull length per season; a boat shorter than 8 m is charged as 8 m» "
        "Check: 14 * max(6.5, 8)",
        [WR],
    ),
    (
        "natural",
        "A full-time student joins Wyndle on 15 November. How much is the first bill, fee plus joining fee?",
        num(192, "EUR"),
        "«| Student (full-time) | 270 | 30 | 24 |» «members joining on or after 1 October pay 60 % of the "
        "annual fee for the rest of the season; the joining fee is paid in full» Check: 270 * 0.6 + 30",
        [WR],
    ),
    (
        "natural",
        "As a Social member, what would the erg room cost me for July?",
        refused("a July erg room price"),
        "near miss, a condition: the erg room is open to Social members from November to February only. "
        "Absent: «July» «summer»",
        [WR],
    ),
    # ------------------------------------------------------------------ an election declaration
    (
        "single",
        "How many votes did the Labour Party candidate get in Saltings Ward?",
        num(1388),
        "«OYELARAN, Tunde Labour Party 1,388» Check: 1388",
        [PE],
    ),
    (
        "single",
        "Who won the Saltings Ward seat on Pellam borough council?",
        text("Fiona Drummond", "DRUMMOND, Fiona", "Drummond"),
        "«DRUMMOND, Fiona is duly elected» Check: 'Fiona Drummond'",
        [PE],
    ),
    (
        "single",
        "Name the Returning Officer at the Saltings Ward election.",
        text("Marian Okafor-Leigh"),
        "«I, Marian Okafor-Leigh, being the Returning Officer» Check: 'Marian Okafor-Leigh'",
        [PE],
    ),
    (
        "single",
        "How many votes did the Reform candidate receive in Saltings Ward?",
        refused("the Reform candidate's votes"),
        "no such candidate. Absent: «Reform»",
        [PE],
    ),
    (
        "chained",
        "Work out the winning majority in Saltings Ward from the two highest vote counts.",
        num(19),
        "«DRUMMOND, Fiona Independent 1,407» «OYELARAN, Tunde Labour Party 1,388» Check: 1407 - 1388",
        [PE],
    ),
    (
        "chained",
        "From the Pellam declaration, take the ballot papers issued and the total rejected and compute the "
        "number of valid votes.",
        num(5196),
        "«Ballot papers issued: 5,262» «Total 66» Check: 5262 - 66",
        [PE],
    ),
    (
        "chained",
        "Look up the Green Party candidate's votes in Saltings Ward and run `print(v / 5196 * 100)` with v "
        "bound to them.",
        num(15.63),
        "«ABERNETHY, Colm Green Party 812» Check: run(v=812)",
        [PE],
    ),
    (
        "three_agent",
        "Add the Green and the Liberal Democrat votes in Saltings Ward, then run `print(f'{s:,}')` with s "
        "bound to the total.",
        num(1467),
        "«ABERNETHY, Colm Green Party 812» «HALLORAN, Peter Liberal Democrats 655» Check: run(s=812 + 655)",
        [PE],
    ),
    (
        "three_agent",
        "Add up the papers rejected for voting for too many candidates and those unmarked or void, then run "
        "`print(round(r / 5262 * 100, 2))` with r as that sum.",
        num(1.22),
        "«(b) voting for more candidates than entitled to 23» «(d) unmarked or wholly void for "
        "uncertainty 41» "
        "Check: run(r=23 + 41)",
        [PE],
    ),
    (
        "three_agent",
        "Read the votes for the winner in Harbour Ward from the Pellam declaration, double them and show the "
        "result with `print(n)` where n is the doubled figure.",
        refused("the Harbour Ward winner's votes"),
        "near miss, another ward: the declaration is for Saltings Ward. Absent: «Harbour Ward»",
        [PE],
    ),
    (
        "natural",
        "What share of the valid votes did the winning candidate in Saltings Ward take, in percent?",
        num(27.08, "%"),
        "«DRUMMOND, Fiona Independent 1,407» «Ballot papers issued: 5,262» «Total 66» "
        "Check: 1407 / (5262 - 66) * 100",
        [PE],
    ),
    (
        "natural",
        "What was the deposit threshold in Saltings Ward, in votes?",
        num(259.8, "", 0.25),
        "«less than 5 % of the valid votes forfeits the EUR 150 deposit» «Ballot papers issued: 5,262» "
        "«Total 66» Check: 0.05 * (5262 - 66)",
        [PE],
    ),
    (
        "natural",
        "What was the turnout in Saltings Ward at the 2022 election?",
        refused("the 2022 turnout"),
        "near miss, another year: the declaration is for the 7 May 2026 poll. Absent: «2022»",
        [PE],
    ),
]
