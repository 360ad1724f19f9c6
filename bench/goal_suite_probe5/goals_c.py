"""Probe5 goals over the boiler manual, the tunnel toll order, the herbicide label and the angling permits."""

from goal_kinds import CH, LA, ST, TB, day, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------------ a boiler service manual
    (
        "single",
        "Which fault code does a Thermaline CX boiler show when it fails to ignite?",
        text("F28"),
        "«F28 No ignition (5 attempts)» Check: 'F28'",
        [TB],
    ),
    (
        "single",
        "What's the longest 60/100 flue the Thermaline CX 35 allows?",
        num(8, "m"),
        "«Flue length max (60/100 mm) 10 m 8 m» Check: 8",
        [TB],
    ),
    (
        "single",
        "What does fault F41 mean on a Thermaline CX boiler?",
        refused("the meaning of fault F41"),
        "the fault table lists F22, F28, F29, F33, F61, F75 and A01. Absent: «F41»",
        [TB],
    ),
    (
        "single",
        "What is the maximum central heating output of the Thermaline CX 42?",
        refused("the CX 42's heat output"),
        "near miss, another model: the manual covers the CX 28 and CX 35. Absent: «CX 42»",
        [TB],
    ),
    (
        "chained",
        "Look up the maximum natural-gas rate of both Thermaline CX models and calculate the difference.",
        num(0.74, "m³/h"),
        "«Gas rate, natural gas G20 (max) 2.96 m3/h 3.70 m3/h» Check: 3.70 - 2.96",
        [TB],
    ),
    (
        "chained",
        "Find the CX 35's hot water flow rate and work out how many litres a six-minute shower draws.",
        num(85.8, "L"),
        "«Hot water flow rate (35 K rise) 11.5 l/min 14.3 l/min» Check: 14.3 * 6",
        [TB],
    ),
    (
        "chained",
        "Get the empty weight of the CX 35 from the service manual and run "
        "`print(round(w * 2.2046, 1))` with w bound to it.",
        num(75.0),
        "«Weight (empty) 31 kg 34 kg» Check: run(w=34)",
        [TB],
    ),
    (
        "three_agent",
        "Take the CX 28's central-heating output and its hot-water output, divide the first by the "
        "second, and have `print(round(r, 3))` show it, r being the ratio.",
        num(0.857, tol=0.001),
        "«Max. heat output (central heating) 24.0 kW» «Max. hot water output 28.0 kW» "
        "Check: run(r=24.0 / 28.0)",
        [TB],
    ),
    (
        "three_agent",
        "From the Thermaline manual find how long the boiler blocks after repeated resets and the "
        "window those resets must fall in (both in minutes), add the two, and execute\n"
        "```python\nprint(f'{t / 60:.2f} h')\n```\nwith t set to the total.",
        num(1.25, "h"),
        "«After 3 resets within 15 minutes the boiler blocks for 60 minutes.» Check: run(t=60 + 15)",
        [TB],
    ),
    (
        "three_agent",
        "Get the empty weight of the Thermaline CX 24, add the 8 litres of the expansion vessel as kg, "
        "and pass the sum as w to `print(w * 2)`.",
        refused("the CX 24's weight"),
        "near miss, another model: only the CX 28 and CX 35 are listed. Absent: «CX 24»",
        [TB],
    ),
    (
        "natural",
        "My CX 28's flue run has two 90° bends and one 45° bend. How many metres of straight flue can "
        "I still fit?",
        num(7.5, "m"),
        "«Flue length max (60/100 mm) 10 m» «Each 90° bend counts as 1.0 m» «Each 45° bend counts as "
        "0.5 m» Check: 10 - 2 * 1.0 - 0.5",
        [TB],
    ),
    (
        "natural",
        "The gauge on my CX 35 reads 0.8 bar. How much pressure do I have to add to get to the level "
        "the low-pressure fault instructions ask for?",
        num(0.4, "bar"),
        "«F22 Low water pressure Re-pressurise to 1.2 bar via the filling loop» Check: 1.2 - 0.8",
        [TB],
    ),
    (
        "natural",
        "I pressed RESET three times in ten minutes and the boiler blocked at 14:05. From what time may "
        "I try again?",
        text("15:05"),
        "«After 3 resets within 15 minutes the boiler blocks for 60 minutes.» Check: clock('14:05', 60)",
        [TB],
    ),
    (
        "natural",
        "What hot water flow can I expect from a CX 28 when the water has to be heated by 40 K?",
        refused("the CX 28 flow rate for a 40 K rise"),
        "near miss, another condition: the flow rate is given for a 35 K rise only. Absent: «40 K»",
        [TB],
    ),
    # ------------------------------------------------------------------ a tunnel toll order
    (
        "single",
        "How much is an off-peak trip through the Skelder tunnel for a 2-axle lorry over 3.5 t?",
        num(7.40, "EUR"),
        "«Class 3 Goods vehicles over 3.5 t with 2 axles» «Class 3 9.20 7.40 4.00» Check: 7.40",
        [ST],
    ),
    (
        "single",
        "From what time of the evening do the Skelder tunnel's night tolls apply?",
        text("21:00"),
        "«Night (21:00-06:00)» Check: '21:00'",
        [ST],
    ),
    (
        "single",
        "What toll does a Class 5 vehicle pay at the Skelder Estuary Tunnel?",
        refused("the Class 5 toll"),
        "the toll order has classes 1 to 4. Absent: «Class 5»",
        [ST],
    ),
    (
        "chained",
        "Find the Class 4 peak and night tolls and work out how much a haulier saves by crossing at night.",
        num(7.30, "EUR"),
        "«Class 4 13.80 11.10 6.50» Check: 13.80 - 6.50",
        [ST],
    ),
    (
        "chained",
        "Find the escort charge for an abnormal load in the Skelder toll order, then run "
        "`print(e * 4 + 20)` with e set to it.",
        num(360),
        "«cross only with an escort, EUR 85.00 per crossing» Check: run(e=85.00)",
        [ST],
    ),
    (
        "chained",
        "Look up the 2025 peak toll for a car at the Skelder tunnel and work out the increase to the "
        "current toll.",
        refused("the 2025 peak car toll"),
        "near miss, another year: the order is the 2026 one. Absent: «2025»",
        [ST],
    ),
    (
        "three_agent",
        "Take the motorcycle peak and off-peak tolls, compute the difference, and give it as d to "
        "`print(round(d * 230, 2))`.",
        num(138),
        "«Class 1 Motorcycles and mopeds» «Class 1 1.80 1.20 free» Check: run(d=1.80 - 1.20)",
        [ST],
    ),
    (
        "three_agent",
        "Retrieve the Class 3 and the Class 2 night tolls, add them, and pass the total as n into:\n"
        "```python\nweekly = n * 2 * 5\nprint(weekly)\n```",
        num(55),
        "«Class 2 4.60 3.10 1.50» «Class 3 9.20 7.40 4.00» Check: run(n=4.00 + 1.50)",
        [ST],
    ),
    (
        "three_agent",
        "Find the monthly season ticket price for a car through the Skelder tunnel, divide it by 30 and "
        "run `print(round(s, 2))` on it as s.",
        refused("the monthly season ticket price"),
        "the order has per-crossing tolls and tag discounts, no season ticket. Absent: «season ticket»",
        [ST],
    ),
    (
        "natural",
        "I drive a car with a SkelderTag but I don't live locally. What does a crossing at 08:15 on a "
        "Wednesday cost me?",
        num(3.68, "EUR"),
        "«Peak: Monday to Friday, 06:00-09:30 and 15:30-19:00.» «Class 2 4.60» «Crossings paid from a "
        "SkelderTag account: 20 % off every toll.» Check: 4.60 * 0.8",
        [ST],
    ),
    (
        "natural",
        "I drove my car through the Skelder tunnel off-peak without paying and only settled it three days "
        "later. What do I owe altogether?",
        num(38.10, "EUR"),
        "«Class 2 4.60 3.10 1.50» «a penalty of EUR 35.00 is charged on top of the toll» Check: 35.00 + 3.10",
        [ST],
    ),
    (
        "natural",
        "With my SkelderTag (I'm not a resident), what will my van's 45th crossing this month cost in "
        "the morning rush hour?",
        num(1.84, "EUR"),
        "«Class 2 4.60» «20 % off every toll» «from the 41st SkelderTag crossing in a calendar month, "
        "Class 2 and Class 3 tolls are halved (after the 20 % discount of 3.1)» Check: 4.60 * 0.8 / 2",
        [ST],
    ),
    (
        "natural",
        "What's the toll for a car towing a caravan over the Holm Bridge?",
        refused("the Holm Bridge toll"),
        "the order covers the tunnel only (Holm is a postcode area). Absent: «Holm Bridge»",
        [ST],
    ),
    # ------------------------------------------------------------------ a herbicide label
    (
        "single",
        "What dose of Corrin 480 SL does the label give against couch grass on stubble?",
        num(4.0, "L/ha"),
        "«Stubble, before sowing Couch grass 4.0 L/ha» Check: 4.0",
        [CH],
    ),
    (
        "single",
        "How strong is the glyphosate in Corrin's soluble concentrate, in grams per litre?",
        num(480, "g/L"),
        "«soluble concentrate containing 480 g/L glyphosate» Check: 480",
        [CH],
    ),
    (
        "single",
        "What rate of Corrin should be used in vineyards?",
        refused("the vineyard dose"),
        "the label lists stubble, orchards, field margins and paths. Absent: «vineyard»",
        [CH],
    ),
    (
        "chained",
        "Find the Corrin dose for orchards and work out how much product 3.5 hectares of orchard need.",
        num(17.5, "L"),
        "«Orchards, under trees Perennial weeds 5.0 L/ha» Check: 5.0 * 3.5",
        [CH],
    ),
    (
        "chained",
        "Look up the glyphosate content of Corrin and its couch grass dose, then calculate the grams "
        "of glyphosate applied per hectare.",
        num(1920, "g/ha"),
        "«containing 480 g/L glyphosate» «Couch grass 4.0 L/ha» Check: 480 * 4.0",
        [CH],
    ),
    (
        "chained",
        "Get the width of the unsprayed strip next to surface water from the Corrin label and run "
        "`print(b * 350)` with b bound to it.",
        num(1750),
        "«Leave an unsprayed buffer zone of 5 m next to surface water.» Check: run(b=5)",
        [CH],
    ),
    (
        "chained",
        "Find the stubble dose of Corrin 360 SL and work out the amount for 4 ha.",
        refused("the Corrin 360 SL dose"),
        "near miss, another product: the label is for Corrin 480 SL. Absent: «360 SL»",
        [CH],
    ),
    (
        "three_agent",
        "Take the Corrin dose for annual weeds on stubble and the contents of one container, work out how "
        "many hectares a container treats, and pass it as ha to `print(f'{ha:.1f} ha per can')`.",
        num(2.5, "ha"),
        "«Annual grasses and broadleaves 2.0 L/ha» «Contents: 5 L» Check: run(ha=5 / 2.0)",
        [CH],
    ),
    (
        "three_agent",
        "Retrieve the yearly maximum total dose and the orchard dose, subtract one orchard application "
        "from the maximum, and run `print(left * 1000)` with left set to the remainder.",
        num(4000),
        "«Maximum total dose on the same land: 9.0 L/ha per year.» «Orchards, under trees Perennial "
        "weeds 5.0 L/ha» Check: run(left=9.0 - 5.0)",
        [CH],
    ),
    (
        "three_agent",
        "From the knapsack instructions take the millilitres of product and the litres of water, work "
        "out the product per litre of water, and give it as m to this:\n```python\nprint(m * 15)\n```",
        num(105),
        "«knapsack: 70 mL of product in 10 L of water treats 200 m²» Check: run(m=70 / 10)",
        [CH],
    ),
    (
        "natural",
        "I'm spraying 13 ha of stubble against couch grass. How many of the Corrin cans do I need?",
        num(11, "cans"),
        "«Couch grass 4.0 L/ha» «Contents: 5 L» Check: ceil(13 * 4.0 / 5)",
        [CH],
    ),
    (
        "natural",
        "I sprayed the orchard with Corrin on 3 June 2026. What's the earliest date for the second spray?",
        day("2026-07-18"),
        "«In orchards leave at least 45 days between the two applications.» "
        "Check: date(2026, 6, 3) + timedelta(days=45)",
        [CH],
    ),
    (
        "natural",
        "How many millilitres of Corrin go in the knapsack to treat a 340 m² gravel drive?",
        num(119, "ml"),
        "«knapsack: 70 mL of product in 10 L of water treats 200 m²» Check: 70 * 340 / 200",
        [CH],
    ),
    (
        "natural",
        "What rate of Corrin should I use on Japanese knotweed?",
        refused("the knotweed dose"),
        "the label names no knotweed. Absent: «knotweed»",
        [CH],
    ),
    # ------------------------------------------------------------------ an angling permit table and byelaws
    (
        "single",
        "What does a junior week permit cost on the Loweth?",
        num(20, "EUR"),
        "«| Week (7 consecutive days) | EUR 75 | EUR 50 | EUR 20 |» Check: 20",
        [LA],
    ),
    (
        "single",
        "What's the smallest grayling an angler may keep on the Loweth?",
        num(30, "cm"),
        "«grayling 30 cm» Check: 30",
        [LA],
    ),
    (
        "single",
        "When does brown trout fishing open on the Loweth?",
        text("15 March"),
        "«Brown trout: 15 March to 30 September» Check: '15 March'",
        [LA],
    ),
    (
        "single",
        "What's the minimum size for a rainbow trout on the Loweth?",
        refused("the rainbow trout minimum size"),
        "near miss, another species: brown trout, grayling and sea trout only. Absent: «rainbow»",
        [LA],
    ),
    (
        "chained",
        "Look up the Loweth adult day and week permit prices and work out how much a week permit saves "
        "over seven day permits.",
        num(51, "EUR"),
        "«| Day (one beat) | EUR 18 |» «| Week (7 consecutive days) | EUR 75 |» Check: 7 * 18 - 75",
        [LA],
    ),
    (
        "chained",
        "Get the brown trout minimum size, then run `print(round(s / 2.54, 1))` with s set to it.",
        num(9.8),
        "«brown trout 25 cm» Check: run(s=25)",
        [LA],
    ),
    (
        "chained",
        "Look up the Loweth junior day permit price for 2025 and work out how it changed for this year.",
        refused("the 2025 junior day permit price"),
        "near miss, another year: the table is for 2026. Absent: «2025»",
        [LA],
    ),
    (
        "three_agent",
        "Take the junior season and the junior day permit prices, divide the season price by the day "
        "price, and pass the result as n to `print(int(n) + 1)`.",
        num(13),
        "«| Season (all beats) | EUR 290 | EUR 195 | EUR 60 |» «| Day (one beat) | EUR 18 | EUR 12 | "
        "EUR 5 |» Check: run(n=60 / 5)",
        [LA],
    ),
    (
        "three_agent",
        "Add the adult week permit and the concession week permit on the Loweth, then execute\n"
        "```python\nprint(f'{cost / 7:.2f} per day')\n```\nwhere cost is that sum.",
        num(17.86),
        "«| Week (7 consecutive days) | EUR 75 | EUR 50 | EUR 20 |» Check: run(cost=75 + 50)",
        [LA],
    ),
    (
        "three_agent",
        "Find the price of a Loweth 2-day adult permit, multiply it by 3, and pass it as t into `print(t)`.",
        refused("the 2-day permit price"),
        "near miss, another length: day, week and season permits only. Absent: «2-day» «two-day»",
        [LA],
    ),
    (
        "natural",
        "I'm 67 and want to fish three separate days on the Loweth, one beat each day. What will my "
        "permits cost?",
        num(36, "EUR"),
        "«Concession: anglers aged 65 and over» «| Day (one beat) | EUR 18 | EUR 12 |» Check: 3 * 12",
        [LA],
    ),
    (
        "natural",
        "On an adult day permit I'll fish beat 2 in the morning and move to beat 5 after lunch. What do "
        "I pay in total?",
        num(24, "EUR"),
        "«| Day (one beat) | EUR 18 |» «moving to another beat on the same day costs EUR 6 per extra "
        "beat» Check: 18 + 6",
        [LA],
    ),
    (
        "natural",
        "A friend who holds a season permit is taking me along as his guest on five days. What do I pay?",
        num(45, "EUR"),
        "«Guests of a season permit holder fish at half the adult day price» «| Day (one beat) | EUR 18 |» "
        "Check: 5 * 18 / 2",
        [LA],
    ),
    (
        "natural",
        "How much is a day ticket for the Loweth trust's carp lake?",
        refused("the carp lake day ticket price"),
        "near miss, another water: the permits are for river beats. Absent: «carp»",
        [LA],
    ),
]
