"""Probe10 goals over the product datasheet with footnote markers, the PDF-to-text hall hire leaflet and
the menu with allergen columns."""

from goal_kinds import MH, QA, SS, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------------ a product datasheet with footnotes
    (
        "single",
        "How much water does the Quenby DH-24P's tank hold?",
        num(5.5, "L"),
        "«Water tank 5.5 L 5.5 L (or continuous drain)» Check: 5.5",
        [QA],
    ),
    (
        "single",
        "In a typical damp UK home, how much water will the Quenby DH-24 actually pull out per day?",
        num(12.8, "L"),
        "«Extraction rate at 27 °C / 60 % RH² 12.8 L/day» «² The condition of a typical damp UK home» "
        "Check: 12.8",
        [QA],
    ),
    (
        "chained",
        "Running a DH-24 for 10 hours a day in a typical damp home (27 °C, 60 % RH), how many kWh "
        "does it use "
        "a day?",
        num(4.2, "kWh"),
        "«Rated power input³ 420 W 445 W» «³ At 27 °C / 60 % RH.» Check: 420 / 1000 * 10",
        [QA],
    ),
    (
        "chained",
        "How much has Quenby's recommended price for the DH-24P gone up since the Rev. B datasheet?",
        num(20.00, "GBP"),
        "«RRP including VAT* £289.00 £349.00» «Rev. B listed the DH-24 at £269.00 and the DH-24P at £329.00» "
        "Check: 349.00 - 329.00",
        [QA],
    ),
    (
        "chained",
        "What does the DH-24 draw at 20 °C, and what would a whole day at that draw cost at 30p per kWh?",
        refused("the DH-24's power input at 20 °C"),
        "Power input is given at two conditions only («At 30 °C / 80 % RH the input rises to 480 W»). "
        "Absent: «at 20 °C»",
        [QA],
    ),
    (
        "three_agent",
        "Let P be the DH-24's power input in watts at 30 °C / 80 % RH (footnote 3 of the datasheet). What "
        "does `print(round(P / 1000 * 8 * 0.28, 2))` print?",
        num(1.08, "GBP"),
        "«At 30 °C / 80 % RH the input rises to 480 W (DH-24) and 505 W (DH-24P)» Check: run(P=480)",
        [QA],
    ),
    (
        "three_agent",
        "run print(round(w24p - w24, 1)) with w24 = the Quenby DH-24's net weight in kg and w24p = the "
        "DH-24P's",
        num(1.3, "kg"),
        "«Net weight 14.6 kg 15.9 kg» Check: run(w24=14.6, w24p=15.9)",
        [QA],
    ),
    (
        "natural",
        "I bought a Quenby DH-24 on 2 February 2027 and registered it on their website on 20 February. How "
        "many years of warranty do I have?",
        num(5, "years"),
        "«Warranty⁵ 2 years 2 years» «⁵ Extended to 5 years when the product is registered at "
        "quenby.example/register within 28 days of purchase.» Check: 5",
        [QA],
    ),
    (
        "natural",
        "My DH-24P was registered the week I bought it. If its condensate pump packs up, for how many years "
        "from purchase is the pump covered?",
        num(2, "years"),
        "«The extension does not cover the condensate pump of the DH-24P, which stays at 2 years.» Check: 2",
        [QA],
    ),
    (
        "natural",
        "My garage is unheated and sits around 8 °C, so the Quenby datasheet points me to their desiccant "
        "model instead. What does that one cost?",
        refused("the DD-10's price"),
        "The DD-10 is only named («use a desiccant model (our DD-10, separate datasheet)»). "
        "Absent: «DD-10 RRP» «DD-10 price»",
        [QA],
    ),
    # ------------------------------------------------------------------ a PDF-to-text hire leaflet
    (
        "single",
        "What does the Committee Room at Marlpit Village Hall cost per hour for a local group?",
        num(8.00, "GBP"),
        "«Committee Room (12) £8.00 £12.00 £15.00» «Local hirers*» Check: 8.00",
        [MH],
    ),
    (
        "single",
        "What's Marlpit Village Hall's flat rate for an all-day Saturday wedding if we don't live in the "
        "parish?",
        num(560, "GBP"),
        "«flat rate of £420 (local) or £560 (others)» Check: 560",
        [MH],
    ),
    (
        "single",
        "What's the hourly rate for the sports hall at Marlpit Village Hall?",
        refused("a sports hall rate"),
        "The rooms are the Main Hall, Small Hall, Committee Room and kitchen («Whole building»). "
        "Absent: «sports hall»",
        [MH],
    ),
    (
        "chained",
        "Our knitting club, based in Marlpit, wants the Main Hall for 3 hours on a July evening. How much "
        "will that be?",
        num(52.50, "GBP"),
        "«Main Hall (120 seated) £17.50 £26.00 £38.00» «Local hirers: residents of Marlpit parish, and clubs "
        "or charities based in the parish.» Check: 3 * 17.50",
        [MH],
    ),
    (
        "chained",
        "We're from outside the parish and want the whole Marlpit building for 5 hours on a Saturday in "
        "November. With the winter heating, what's the hire charge?",
        num(252.50, "GBP"),
        "«Whole building £32.00 £48.00 £70.00» «Heating surcharge: from 1 October to 31 March, "
        "£2.50 per hour "
        "on the Main Hall and the whole building» Check: 5 * (48.00 + 2.50)",
        [MH],
    ),
    (
        "three_agent",
        "```python\nprint(round(hours * (hall + kitchen) * 0.85, 2))\n```\nUse hours = 2, hall = the Small "
        "Hall's hourly rate for local hirers at Marlpit and kitchen = the kitchen's local hourly rate.",
        num(28.90, "GBP"),
        "«Small Hall (40 seated) £11.00 £16.50 £24.00» «Kitchen (with a hall £6.00 £9.00 £9.00» "
        "Check: run(hours=2, hall=11.00, kitchen=6.00)",
        [MH],
    ),
    (
        "three_agent",
        "Bind old to the Main Hall's local hourly rate in Marlpit's 2026/27 leaflet and new to its 2027/28 "
        "rate, then run `print(round((new - old) / old * 100, 1))`.",
        num(9.4, "%"),
        "«main hall £16.00 an hour local, £24.00 other» «Main Hall (120 seated) £17.50 £26.00 £38.00» "
        "Check: run(old=16.00, new=17.50)",
        [MH],
    ),
    (
        "natural",
        "We're a small charity based in Marlpit and only need the Small Hall for one hour on a Tuesday "
        "afternoon. What will we be charged?",
        num(22.00, "GBP"),
        "«Table 1. Hourly rates (minimum hire 2 hours; 3 hours on Saturdays)» «Small Hall (40 seated) £11.00 "
        "£16.50 £24.00» Check: 2 * 11.00",
        [MH],
    ),
    (
        "natural",
        "Our ticketed folk concert in Marlpit's Main Hall on a Friday in December runs 4 hours and needs the "
        "stage lighting rig with its operator. Leaving the deposit aside, what's the bill?",
        num(187.00, "GBP"),
        "«Main Hall (120 seated) £17.50 £26.00 £38.00» «Heating surcharge: from 1 October to 31 March, £2.50 "
        "per hour on the Main Hall» «Stage lighting rig (with a trained operator only) ........ £25 per "
        "event» Check: 4 * (38.00 + 2.50) + 25",
        [MH],
    ),
    (
        "natural",
        "For our summer fete we'd like to hire Marlpit's marquee for the green. What's the charge?",
        refused("a marquee hire charge"),
        "Nothing is hired out for use outside («Tables and chairs for use outside the hall "
        "............... not available»). Absent: «marquee»",
        [MH],
    ),
    # ------------------------------------------------------------------ a menu with allergen columns
    (
        "single",
        "What does the pan-roast hake cost at Saffron & Salt?",
        num(21.00, "GBP"),
        "«Pan-roast hake, mussels, saffron broth 21.00» Check: 21.00",
        [SS],
    ),
    (
        "single",
        "Which pudding on Saffron & Salt's winter menu has none of the listed allergens?",
        text("Blood orange sorbet", "orange sorbet"),
        "«Blood orange sorbet (vegan) 5.95» «blank = not in the recipe» Check: 'Blood orange sorbet'",
        [SS],
    ),
    (
        "single",
        "How much is the Sunday roast at Saffron & Salt?",
        refused("a Sunday roast price"),
        "The kitchen opens Tuesday to Saturday («Tue-Sat 12:00-14:30 and 17:30-21:30»). "
        "Absent: «Sunday roast»",
        [SS],
    ),
    (
        "chained",
        "Table for four at Saffron & Salt: two braised beef shins and two seabass. What's the food total?",
        num(86.00, "GBP"),
        "«Braised beef shin, mustard mash, red wine 19.50» «Seabass, brown shrimp butter, samphire 23.50» "
        "Check: 2 * 19.50 + 2 * 23.50",
        [SS],
    ),
    (
        "chained",
        "By how much did Saffron & Salt's sticky toffee pudding go up on the winter menu?",
        num(0.30, "GBP"),
        "«Sticky toffee pudding, custard 7.25» «the sticky toffee pudding was £6.95» Check: 7.25 - 6.95",
        [SS],
    ),
    (
        "chained",
        "What did Saffron & Salt charge for the hake before the winter menu, and how much has it gone up?",
        refused("the hake's price before the winter menu"),
        "Only the pudding's old price is given («the sticky toffee pudding was £6.95»). Absent: «hake was»",
        [SS],
    ),
    (
        "three_agent",
        "Bind soup = Saffron & Salt's squash soup price and pie = its mushroom & chestnut pie price, then "
        "run `print(round(2 * soup + 2 * pie, 2))`.",
        num(46.50, "GBP"),
        "«Roast squash & sage soup, sourdough 6.50» «Mushroom & chestnut pie, greens 16.75» "
        "Check: run(soup=6.50, pie=16.75)",
        [SS],
    ),
    (
        "three_agent",
        "run print(round(6 * hake * (1 + sc / 100), 2)) with hake = the pan-roast hake price at Saffron & "
        "Salt and sc = the service charge percentage it adds for tables of six or more",
        num(141.75, "GBP"),
        "«Pan-roast hake, mussels, saffron broth 21.00» «A discretionary service charge of 12.5% is added to "
        "the bill for tables of six or more.» Check: run(hake=21.00, sc=12.5)",
        [SS],
    ),
    (
        "natural",
        "My daughter is 9 and wants the chicken thigh with harissa from the large plates. What will her dish "
        "cost at Saffron & Salt?",
        num(8.63, "GBP"),
        "«Chicken thigh, harissa, chickpea stew 17.25» «Children's menu (under 12s): any large plate at half "
        "price» Check: 17.25 / 2",
        [SS],
    ),
    (
        "natural",
        "I can't eat sesame or celery, and I don't eat fish. Which of Saffron & Salt's large plates can I "
        "order?",
        text("Mushroom & chestnut pie", "mushroom and chestnut pie"),
        "«Braised beef shin, mustard mash, red wine 19.50 x x x x» «Pan-roast hake, mussels, saffron broth "
        "21.00 x x x x x» «Mushroom & chestnut pie, greens 16.75 x x x x x» «Chicken thigh, harissa, "
        "chickpea stew 17.25 x x» «Seabass, brown shrimp butter, samphire 23.50 x x x» «Aubergine katsu "
        "curry, pickled slaw 15.50 x x x x» Check: 'Mushroom & chestnut pie'",
        [SS],
    ),
]
