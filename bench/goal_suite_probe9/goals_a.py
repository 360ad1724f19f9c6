"""Probe9 goals over the electricity bill, the railway engineering notice and the school newsletter."""

from goal_kinds import AR, BP, WP, day, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ an electricity bill
    (
        "single",
        "On my Wendle Power bill, what am I paying per kWh for night-time electricity at the moment?",
        num(13.08, "p/kWh"),
        "«Night units 432 kWh x 13.08p per kWh» Check: 13.08",
        [WP],
    ),
    (
        "single",
        "When does the Fells Fixed Economy 7 deal at 14 Wren Close come to an end?",
        day("2027-03-31"),
        "«Tariff ends 31 March 2027» Check: date(2027, 3, 31)",
        [WP],
    ),
    (
        "chained",
        "How many kilowatt-hours did 14 Wren Close get through in total over the September to October "
        "bill period, day and night together?",
        num(1094, "kWh"),
        "«Day 31,204 (A) 31,866 (E) 662 kWh» «Night 12,877 (A) 13,309 (A) 432 kWh» Check: 662 + 432",
        [WP],
    ),
    (
        "chained",
        "Had this bill's day units still been charged at the old Fells Flex day rate, what would they "
        "have cost? Pounds, to the penny.",
        num(197.28, "GBP"),
        "«Day units 662 kWh x 27.41p per kWh» «Fells Flex (ended 01 Sep 2026), charged 29.80p per kWh "
        "for day units» Check: round(662 * 29.80 / 100, 2)",
        [WP],
    ),
    (
        "three_agent",
        "Work out my average daily electricity use for this Wendle bill. Find the day units, the night "
        "units and the number of days in the period, then run\n```python\nprint(round((day + night) / "
        "days, 1))\n```",
        num(17.9, "kWh"),
        "«Day units 662 kWh» «Night units 432 kWh» «Days in period 61» Check: run(day=662, night=432, "
        "days=61)",
        [WP],
    ),
    (
        "three_agent",
        "What would the Wendle standing charge add up to over a whole year? Get the daily standing "
        "charge in pence and run `print(round(p * 365 / 100, 2))` with p set to it.",
        num(193.89, "GBP"),
        "«Standing charge 61 days x 53.12p per day» Check: run(p=53.12)",
        [WP],
    ),
    (
        "natural",
        "My bill is dated 3 November and I'm sure the estimated day reading is too high. What is the last "
        "day I can send my own reading in and still have the bill redone?",
        day("2026-11-13"),
        "«Bill date 03 November 2026» «send us a meter reading within 10 days of the bill date and we "
        "will re-issue the bill» Check: date(2026, 11, 3) + timedelta(days=10)",
        [WP],
    ),
    (
        "natural",
        "We're thinking of switching supplier in January, before the fixed deal runs out. Leaving usage "
        "aside, what one-off charge would Wendle hit us with?",
        num(75, "GBP"),
        "«Tariff ends 31 March 2027» «Leaving the fixed tariff before its end date costs GBP 75 (exit "
        "fee).» Check: 75",
        [WP],
    ),
    (
        "single",
        "What unit rate am I paying for gas on the Wren Close account?",
        refused("the gas unit rate"),
        "the bill is electricity only; gas is supplied by another company and no gas rate is given. "
        "Absent: «gas unit rate» «per kWh for gas»",
        [WP],
    ),
    (
        "chained",
        "Our solar panels sent 140 kWh back to the grid over the bill period. At Wendle's export payment "
        "rate, what are we owed for that?",
        refused("Wendle's export payment rate"),
        "no export or feed-in rate is on the bill. Absent: «export» «feed-in»",
        [WP],
    ),
    # ------------------------------------------------------------------ a railway engineering notice
    (
        "single",
        "During the Aldern viaduct works, where do I catch the replacement bus at Marlow Cross?",
        text("Station Road, stop C", "stop C", "Station Road stop C"),
        "«At Marlow Cross, buses leave from Station Road, stop C» Check: 'Station Road, stop C'",
        [AR],
    ),
    (
        "single",
        "How much is an Anytime Day Return between Marlow Cross and Heddon Bay?",
        num(14.60, "GBP"),
        "«Anytime Day Return ............ GBP 14.60» Check: 14.60",
        [AR],
    ),
    (
        "chained",
        "Going by replacement bus from Marlow Cross to Heddon Bay on a Sunday morning during the works, "
        "how many minutes should I allow for the trip?",
        num(63, "min"),
        "«The train normally takes 28 minutes from Marlow Cross to Heddon Bay. Allow an extra 35 minutes "
        "by bus» Check: 28 + 35",
        [AR],
    ),
    (
        "chained",
        "What does a child pay for an Off-Peak Day Return from Marlow Cross to Heddon Bay?",
        num(4.85, "GBP"),
        "«Off-Peak Day Return ........... GBP 9.70» «Child fares are half the adult fare, rounded down to "
        "the nearest 5p.» Check: floor(9.70 / 2 * 20 + 1e-9) / 20",
        [AR],
    ),
    (
        "three_agent",
        "I hold an annual Marlow Cross to Heddon Bay season ticket. Find what it costs and run "
        "`print(round(price / 365 * 3, 2))` with price bound, to get the credit the works notice promises.",
        num(17.46, "GBP"),
        "«Annual season ticket .......... GBP 2,124.00» «3 days' value will be credited at your next "
        "renewal. One day's value is the price of your annual season ticket divided by 365.» Check: "
        "run(price=2124.00)",
        [AR],
    ),
    (
        "three_agent",
        "For a Saturday during the viaduct works, look up how long the train normally takes to Heddon Bay "
        "and the extra time the bus needs that day, then run print(train + extra) with train and extra "
        "bound to those minutes.",
        num(78, "min"),
        "«The train normally takes 28 minutes from Marlow Cross to Heddon Bay.» «on Saturdays allow an "
        "extra 50 minutes» Check: run(train=28, extra=50)",
        [AR],
    ),
    (
        "natural",
        "We paid £18.50 each for two advance tickets on the 10:40 to Heddon Bay on Saturday 24 October. "
        "Now it's a bus we'd rather not bother. If we ask for our money back, how much do we get?",
        num(37, "GBP"),
        "«Saturdays 24 October, 31 October and 7 November ........ all day» «Advance tickets for a train "
        "that is replaced by a bus can be refunded in full; the usual GBP 10 refund admin fee is waived.» "
        "Check: 2 * 18.50",
        [AR],
    ),
    (
        "natural",
        "I've got a railcard and I'm doing an off-peak day trip from Marlow Cross to Heddon Bay and back. "
        "What will the ticket cost me?",
        num(6.45, "GBP"),
        "«Off-Peak Day Return ........... GBP 9.70» «Railcard holders get one third off Off-Peak fares "
        "(not Anytime fares), rounded down to the nearest 5p.» Check: floor(9.70 * 2 / 3 * 20) / 20",
        [AR],
    ),
    (
        "single",
        "What does a first class Anytime Day Return from Marlow Cross to Heddon Bay cost?",
        refused("the first class Anytime Day Return fare"),
        "the notice lists standard fares only. Absent: «first class» «1st class»",
        [AR],
    ),
    (
        "natural",
        "I'm heading to Pell Halt from Marlow Cross on 31 October. What's the rail fare for that journey?",
        refused("the fare from Marlow Cross to Pell Halt"),
        "Pell Halt is named only for the free taxi; fares are given for Marlow Cross - Heddon Bay only. "
        "Absent: «to Pell Halt» «Pell Halt fare»",
        [AR],
    ),
    # ------------------------------------------------------------------ a school newsletter
    (
        "single",
        "What's the price of the Year 5 Castle Ardley trip now?",
        num(14.75, "GBP"),
        "«the trip now costs £14.75 per child» Check: 14.75",
        [BP],
    ),
    (
        "single",
        "Which house is top of the Brockhurst house points this half term?",
        text("Cedar"),
        "«Ash 412 Birch 398 Cedar 455 Rowan 430» Check: 'Cedar'",
        [BP],
    ),
    (
        "chained",
        "What does a full week of hot dinners, five days, come to for a Year 4 child at Brockhurst?",
        num(13.25, "GBP"),
        "«A hot dinner is £2.65 a day for Years 3 to 6.» Check: 2.65 * 5",
        [BP],
    ),
    (
        "chained",
        "I need four polo shirts from the PTA uniform sale. What's the cheapest way to pay for them, in "
        "pounds?",
        num(7, "GBP"),
        "«polo shirts £2 each or 3 for £5» Check: 5 + 2",
        [BP],
    ),
    (
        "three_agent",
        "How far ahead of Birch is Cedar in the house points? Pull both totals from the newsletter and run "
        "`print(cedar - birch)`.",
        num(57),
        "«Birch 398 Cedar 455» Check: run(cedar=455, birch=398)",
        [BP],
    ),
    (
        "three_agent",
        "By how many percentage points does Brockhurst's attendance fall short of its target? Fetch both "
        "figures and run:\n```\nprint(round(target - actual, 1))\n```",
        num(0.8, "%"),
        "«Attendance since September is 96.2%, still a little under our 97% target.» Check: "
        "run(target=97, actual=96.2)",
        [BP],
    ),
    (
        "natural",
        "Both my kids (Year 2 and Year 5) will be going to breakfast club every morning next week, Monday "
        "to Friday. What will I owe?",
        num(30, "GBP"),
        "«£3.50 a session for the first child, £2.50 a session for each brother or sister.» Check: "
        "3.50 * 5 + 2.50 * 5",
        [BP],
    ),
    (
        "natural",
        "Traffic was awful and I didn't get to after-school club until 5.52pm to pick up my son. What will "
        "that session cost altogether?",
        num(24, "GBP"),
        "«After-school club runs until 5.30pm and costs £9.00 a session.» «Late collection is charged at "
        "£5 for every started 10 minutes after 5.30pm.» Check: 9 + 5 * ceil(22 / 10)",
        [BP],
    ),
    (
        "single",
        "How much are the individual school photographs at Brockhurst this year?",
        refused("the price of school photographs"),
        "the newsletter mentions no photographs. Absent: «photo»",
        [BP],
    ),
    (
        "chained",
        "The Year 6 residential can be paid in three equal instalments. How much is each one?",
        refused("the cost of the Year 6 residential"),
        "only the Year 5 day trip is priced; no Year 6 trip or residential is mentioned. Absent: "
        "«residential» «Year 6 trip»",
        [BP],
    ),
]
