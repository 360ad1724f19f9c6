"""Probe11 goals over an MOT history printout and a garage's price board, a granola pack's label and the
maker's trade range sheet, and a tenancy check-out report with proposed deposit deductions."""

from goal_kinds import BG, BR, FL, PB, PM, day, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------ an MOT history and a garage price board
    (
        "single",
        "What was the mileage on WX16 KRT when it passed its MOT in April 2025?",
        num(61004, "miles"),
        "«Date tested 2 April 2025 Test result PASS Mileage 61,004 miles» Check: 61004",
        [PM],
    ),
    (
        "single",
        "Pennard Motors: what's a full service on a car with a 1.8 litre engine?",
        num(259.00, "GBP"),
        "«GBP 259.00 engines over 1.6 litre» Check: 259.00",
        [PB],
    ),
    (
        "chained",
        "How many miles did the silver Astra WX16 KRT cover between its 2025 MOT pass and the pass in "
        "April 2026?",
        num(7408, "miles"),
        "«Date tested 13 April 2026 Test result PASS Mileage 68,412 miles» «Date tested 2 April 2025 Test "
        "result PASS Mileage 61,004 miles» Check: 68412 - 61004",
        [PM],
    ),
    (
        "chained",
        "Going by the MOT history, what's WX16 KRT's average mileage per year between its April 2023 test "
        "and its April 2026 pass?",
        num(7087.33, "miles", tol=1.0),
        "«Date tested 3 April 2023 Test result PASS Mileage 47,150 miles» «Date tested 13 April 2026 Test "
        "result PASS Mileage 68,412 miles» Check: (68412 - 47150) / 3",
        [PM],
    ),
    (
        "chained",
        "How many miles did WX16 KRT do between its 2022 MOT and its 2023 one?",
        refused("the mileage at WX16 KRT's 2022 MOT"),
        "The history's earliest test is «Date tested 3 April 2023»; nothing from 2022. Absent: «2022»",
        [PM],
    ),
    (
        "three_agent",
        "The April 2026 pass had a worn tyre and a worn rear disc as advisories. Put Pennard's 2027 prices "
        "into this and run it:\n```python\n# fixing the 13 April 2026 advisories\n"
        "tyre = 0    # one mid-range 205/55 R16 tyre, fitted\nbrakes = 0  # discs and pads, one axle\n"
        "print(tyre + brakes)\n```",
        num(277.00, "GBP"),
        "«Nearside Front Tyre worn close to legal limit/worn on edge (5.2.3 (e))» «Offside Rear Brake disc "
        "worn, pitted or scored» «205/55 R16 budget GBP 64.00 mid-range GBP 82.00 premium GBP 109.00» "
        "«Brake discs and pads, one axle (pair) GBP 195.00» Check: 82.00 + 195.00",
        [PM, PB],
    ),
    (
        "three_agent",
        "Booking the Astra in at Pennard for its MOT and a full service on the same visit (1.4 litre "
        "engine): "
        "run print(mot + service - off) with mot = their MOT price, service = the full service for engines "
        "up to 1.6 litre and off = the discount for having both done together.",
        num(244.00, "GBP"),
        "«MOT (class 4, cars) GBP 45.00» «Full service (every 12,000 miles / 1 year) GBP 229.00 engines up "
        "to 1.6 litre» «MOT + full service together GBP 30.00 off the total» "
        "Check: run(mot=45.00, service=229.00, off=30.00)",
        [PB],
    ),
    (
        "three_agent",
        "```python\nprint(round(valet * 2, 2))\n```\nvalet = what Pennard Motors charges for a full valet. "
        "I want two done before I sell the car.",
        refused("Pennard Motors' full valet price"),
        "The price board has MOT, servicing, brakes, tyres, alignment and a courtesy car, no cleaning. "
        "Absent: «valet»",
        [PB],
    ),
    (
        "natural",
        "My car fails its MOT at Pennard on Friday 16 April 2027 on headlamp aim. I'll take it away, get it "
        "sorted elsewhere and bring it back for the partial retest. What's the last day I can bring it back "
        "before I'd need a whole new MOT?",
        day("2027-04-30"),
        "«Partial retest: taken away, repaired elsewhere, brought back within 10 working days:» «After 10 "
        "working days: a full MOT again.» Check: workdays_after(date(2027, 4, 16), 10)",
        [PB],
    ),
    (
        "natural",
        "I don't want to lose a day on WX16 KRT's renewal date. What's the earliest date I could take it "
        "for its next MOT?",
        day("2027-03-13"),
        "«MOT valid until 12 April 2027» «You can get your MOT up to a month (minus a day) before it "
        "runs out "
        "and keep the same renewal date.» Check: date(2027, 3, 12) + timedelta(days=1)",
        [PM],
    ),
    # ------------------------------------------------------------------ a granola pack and a trade sheet
    (
        "single",
        "How many grams of sugars are in 100 g of Bracken Mill's hazelnut and apricot granola?",
        num(19.6, "g"),
        "«of which sugars 19.6 g 8.8 g 14.8 g 16%» Check: 19.6",
        [BG],
    ),
    (
        "single",
        "What lot code is printed on the base of my Bracken Mill granola box?",
        text("7042B", "LOT 7042B"),
        "«BEST BEFORE END 08 2027 LOT 7042B 11:06» Check: '7042B'",
        [BG],
    ),
    (
        "single",
        "How much protein is there per 100 g in Bracken Mill's Honey & Almond Granola?",
        refused("the Honey & Almond Granola's protein per 100 g"),
        "The range sheet gives kcal, sugars and fibre per 100 g for each granola («Per 100 g: kcal sugars "
        "fibre»); protein is only on the Hazelnut & Apricot pack. Absent: «protein»",
        [BR],
    ),
    (
        "chained",
        "How many grams of sugar does the 125 ml of semi-skimmed milk add to a 45 g bowl of the hazelnut "
        "granola, going by the label?",
        num(6.0, "g"),
        "«of which sugars 19.6 g 8.8 g 14.8 g 16%» «125 ml semi-skimmed milk» Check: round(14.8 - 8.8, 1)",
        [BG],
    ),
    (
        "chained",
        "At its recommended retail price, what does the 400 g pack of Hazelnut & Apricot Granola work out at "
        "per kilo?",
        num(7.88, "GBP", tol=0.01),
        "«Toasted Hazelnut & Apricot Granola 400 g GBP 12.60 GBP 3.15» Check: round(3.15 / 0.400, 2)",
        [BR],
    ),
    (
        "three_agent",
        "The front of the box says 15% less sugar than the 2025 recipe. Check it: run "
        "print(round((old - new) / old * 100, 1)) with old = the 2025 recipe's sugars per 100 g and new "
        "= the "
        "sugars per 100 g now.",
        num(15.2, "%", tol=0.05),
        "«Our 2025 recipe had 23.1 g sugars and 455 kcal per 100 g.» «of which sugars 19.6 g» "
        "Check: run(old=23.1, new=19.6)",
        [BG],
    ),
    (
        "three_agent",
        "```python\n# what a shop makes on one case of the 750 g Hazelnut & Apricot granola sold at RRP\n"
        "# (food, zero-rated, so no VAT to take off)\nunits = 6\nprint(round(units * rrp - case, 2))\n```\n"
        "rrp is the recommended retail price of one 750 g pack and case the trade price of a case, both from "
        "Bracken Mill's 2027 range sheet.",
        num(9.90, "GBP"),
        "«Toasted Hazelnut & Apricot Granola 750 g GBP 19.80 GBP 4.95» «cases of 6 unless stated» "
        "Check: run(rrp=4.95, case=19.80)",
        [BR],
    ),
    (
        "three_agent",
        "Per-kilo price of the smaller Chocolate Crunch pack: look up the RRP of the 500 g Chocolate Crunch "
        "Granola and run print(round(price / 0.5, 2)) with price set to it.",
        refused("the RRP of a 500 g Chocolate Crunch Granola"),
        "Chocolate Crunch comes in one size, «Chocolate Crunch Granola 750 g»; the 500 g pack is the No "
        "Added "
        "Sugar one. Absent: «Chocolate Crunch Granola 500 g»",
        [BR],
    ),
    (
        "natural",
        "I opened a box of the hazelnut and apricot granola on 20 July 2027 and keep it in a tin. What's the "
        "last day I should eat it?",
        day("2027-08-17"),
        "«Once opened, keep in an airtight container and eat within 4 weeks.» «BEST BEFORE END 08 2027» "
        "Check: min(date(2027, 7, 20) + timedelta(weeks=4), date(2027, 8, 31))",
        [BG],
    ),
    (
        "natural",
        "For the farm shop I'm ordering 24 cases of the 400 g Hazelnut & Apricot granola from Bracken Mill. "
        "What will the invoice come to before VAT, delivery included?",
        num(287.28, "GBP"),
        "«Toasted Hazelnut & Apricot Granola 400 g GBP 12.60» «Orders of 20 cases or more: 5% off.» "
        "«Delivery "
        "free over GBP 150 ex VAT, else GBP 9.50.» Check: round(24 * 12.60 * 0.95, 2)",
        [BR],
    ),
    # ------------------------------------------------------------------ a tenancy check-out report
    (
        "single",
        "How much deposit did the tenants of Flat 3, 27 Orchard Terrace have protected?",
        num(1148.00, "GBP"),
        "«Deposit GBP 1,148.00, protected with the TDS, certificate 2291-4471-08» Check: 1148.00",
        [FL],
    ),
    (
        "single",
        "Which TDS certificate number covers the Orchard Terrace deposit?",
        text("2291-4471-08"),
        "«protected with the TDS, certificate 2291-4471-08» Check: '2291-4471-08'",
        [FL],
    ),
    (
        "chained",
        "Fernlea want the tenants to pay towards a new mattress for bedroom 2. After their apportioning "
        "rule, "
        "how much is that charge?",
        num(165.00, "GBP"),
        "«Tenancy 01/09/2024 to 28/02/2027 (30 months)» «Mattress (new 08/2024, cost GBP 240.00)» "
        "«mattresses "
        "8 years» «taking the length of the tenancy as the item's age» Check: round(240 * (8 - 30 / 12) "
        "/ 8, 2)",
        [FL],
    ),
    (
        "chained",
        "Adding up every charge in the Orchard Terrace check-out report that the tenants are not disputing, "
        "what's the total?",
        num(421.50, "GBP"),
        "«Oven clean GBP 75.00» «Stain removal GBP 60.00» «Fill and touch up, 2 h at GBP 28.00/h» «Replace "
        "tie-back GBP 8.50» «Mattress (new 08/2024, cost GBP 240.00)» «Descale GBP 35.00» «Replace one "
        "key set "
        "GBP 22.00» «Garden tidy GBP 45.00 DISPUTED» Check: 75 + 60 + 2 * 28 + 8.50 + 240 * 5.5 / 8 + 35 "
        "+ 22",
        [FL],
    ),
    (
        "chained",
        "If the lounge carpet at Flat 3 had to be replaced rather than cleaned, what would the tenants pay "
        "for it after apportionment?",
        refused("the cost of the lounge carpet"),
        "The report dates the carpet («Carpet (fitted 08/2024)») and gives carpets an 8-year life, but no "
        "cost for it. Absent: «carpet cost» «Carpet (fitted 08/2024, cost»",
        [FL],
    ),
    (
        "three_agent",
        "Fill in the two zeros from the Fernlea check-out report and run this for me:\n```python\n"
        "deposit = 1148.00\nundisputed = 0.0   # all the proposed charges nobody disputes\n"
        "held = 0.0         # the disputed amount the TDS keeps for now\n"
        "refund_now = deposit - undisputed - held\nprint(round(refund_now / 2, 2))  # each tenant's "
        "share\n```",
        num(340.75, "GBP"),
        "«Garden tidy GBP 45.00 DISPUTED» «The disputed amount is referred to the TDS for adjudication and "
        "held until its decision.» «Oven clean GBP 75.00» «Stain removal GBP 60.00» «2 h at GBP 28.00/h» "
        "«Replace tie-back GBP 8.50» «Descale GBP 35.00» «Replace one key set GBP 22.00» "
        "Check: round((1148.00 - 421.50 - 45.00) / 2, 2)",
        [FL],
    ),
    (
        "three_agent",
        "For the lounge walls and the oven at Flat 3, run print(hours * rate + oven) with hours and rate the "
        "touch-up hours and hourly rate in item 4 and oven the charge proposed for item 1.",
        num(131.00, "GBP"),
        "«Fill and touch up, 2 h at GBP 28.00/h» «Oven clean GBP 75.00» Check: run(hours=2, rate=28.00, "
        "oven=75.00)",
        [FL],
    ),
    (
        "natural",
        "Suppose the TDS agrees with us tenants about the garden. How much of the Orchard Terrace deposit "
        "does Rosa get back altogether, if it's split equally?",
        num(363.25, "GBP"),
        "«GBP 1,148.00» «The repayment is split equally between the tenants unless they tell us otherwise.» "
        "«Garden tidy GBP 45.00 DISPUTED» Check: round((1148.00 - 421.50) / 2, 2)",
        [FL],
    ),
    (
        "natural",
        "Daniel and I both signed our agreement to Fernlea's undisputed deductions on 8 March 2027. By what "
        "date should the money be back with us?",
        day("2027-03-18"),
        "«the undisputed balance of the deposit is repaid within 10 days of both tenants agreeing these "
        "proposals in writing» Check: date(2027, 3, 8) + timedelta(days=10)",
        [FL],
    ),
    (
        "natural",
        "The bathroom extractor fan at Flat 3 was already dead when we moved in. How much is Fernlea "
        "deducting for it?",
        refused("a charge for the bathroom extractor fan"),
        "The bathroom line is the shower screen only («Shower screen Clean Heavy limescale»). "
        "Absent: «extractor» «fan»",
        [FL],
    ),
]
