"""Probe8 goals over the fair's flyer, the vets' SQL fee dump and the sailing club's LaTeX fee sheet."""

from goal_kinds import MF, OV, SS, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------------ a flyer read by OCR, lines scattered
    (
        "single",
        "How much does it cost a team to enter the tug of war at the Hesketh Green fair?",
        num(16, "GBP"),
        "«tug of war - teams of 8, £16 a team» Check: 16",
        [MF],
    ),
    (
        "single",
        "What time is the dog show at the Midsummer Fair?",
        text("2pm", "14:00", "2 pm"),
        "«DOG SHOW 2pm» Check: '2pm'",
        [MF],
    ),
    (
        "chained",
        "Two grown-ups and two children aged 6 and 10 pay on the gate with single tickets. What does "
        "that come to?",
        num(11, "GBP"),
        "«adults £4 children (5-15) £1.50» Check: 2 * 4 + 2 * 1.50",
        [MF],
    ),
    (
        "chained",
        "At the Pimm's tent, how much do you save buying a jug rather than four glasses?",
        num(4, "GBP"),
        "«glass £6» «jug (4 glasses) £20» Check: 4 * 6 - 20",
        [MF],
    ),
    (
        "three_agent",
        "Work out how much the family ticket saves over paying for 2 adults and 3 children one by one, "
        "and run `print(round(saving * 100))` with saving bound to it, to get pence.",
        num(250),
        "«adults £4 children (5-15) £1.50» «FAMILY TICKET (2 ad + 3 ch) £10» Check: run(saving=2 * 4 + 3 "
        "* 1.50 - 10)",
        [MF],
    ),
    (
        "three_agent",
        "A charity books a stall pitch at the fair and enters its dog in 3 classes of the dog show. "
        "Total the fees and run `print(t)` with t set to the total.",
        num(17, "GBP"),
        "«pitch for a stall: £15 (charities £8)» «(entries £3 a class,» Check: run(t=8 + 3 * 3)",
        [MF],
    ),
    (
        "natural",
        "We're two adults with three kids aged 4, 8 and 11 and we'll drive there. What's the least we "
        "can pay to get in and park?",
        num(12, "GBP"),
        "«adults £4 children (5-15) £1.50» «under 5s free» «FAMILY TICKET (2 ad + 3 ch) £10» «CAR PARK "
        "£2 per car» Check: min(2 * 4 + 2 * 1.50, 10) + 2",
        [MF],
    ),
    (
        "natural",
        "Both my kids want half an hour each on the bouncy castle. How much should I bring for that?",
        num(12, "GBP"),
        "«BOUNCY CASTLE £2 / 10 mins» Check: 2 * (30 / 10) * 2",
        [MF],
    ),
    (
        "single",
        "Is there a cheaper entry price for pensioners at the Hesketh Green fair, and how much is it?",
        refused("a pensioner entry price"),
        "the flyer prices adults, children, under 5s and a family ticket only. Absent: «pensioner» "
        "«senior» «OAP» «concession»",
        [MF],
    ),
    (
        "chained",
        "What will three hot dogs from the fair barbecue cost?",
        refused("the price of a hot dog"),
        "the barbecue sells burgers and veggie burgers. Absent: «hot dog»",
        [MF],
    ),
    # ------------------------------------------------------------------ an SQL fee table dump
    (
        "single",
        "What does Oakridge vets charge for a cat's annual booster?",
        num(54, "GBP"),
        "«('VAC-CAT-BST', 'Cat annual booster', 'cat', 54.00, true, '2026-01-01', NULL);» Check: 54",
        [OV],
    ),
    (
        "single",
        "How much is a standard consultation at Oakridge now?",
        num(52, "GBP"),
        "«('CONS-STD', 'Standard consultation (15 min)', NULL, 52.00, true, '2026-01-01', NULL);» Check: 52",
        [OV],
    ),
    (
        "chained",
        "What does Oakridge's animal health certificate for travel cost once VAT is on it?",
        num(216, "GBP"),
        "«('CERT-TRV', 'Animal health certificate for travel', 'dog', 180.00, false, '2026-01-01', "
        "NULL);» «-- VAT rate for rows with vat_included = false: 20 %» Check: 180 * 1.2",
        [OV],
    ),
    (
        "chained",
        "A dog on the Oakridge Care Dog plan needs a dental scale and polish. What's the price with the "
        "plan discount?",
        num(279, "GBP"),
        "«'Dental scale and polish under anaesthetic', NULL, 310.00» «'Oakridge Care Dog', 'dog', 16.50, "
        "'annual booster, 2 consultations, flea and worm treatment', 10» Check: 310 * (1 - 0.10)",
        [OV],
    ),
    (
        "three_agent",
        "Find the monthly price of the Oakridge Care Cat plan and run `print(m * 12)` with m bound to it.",
        num(156, "GBP"),
        "«('Oakridge Care Cat', 'cat', 13.00,» Check: run(m=13.00)",
        [OV],
    ),
    (
        "three_agent",
        "Add the cat spay and the microchip fees for a cat not on a plan, then run `print(round(t / 2, "
        "2))` with t bound to the total.",
        num(71, "GBP"),
        "«'Cat spay', 'cat', 118.00» «'Microchip implant and registration', NULL, 24.00» Check: "
        "run(t=118 + 24)",
        [OV],
    ),
    (
        "natural",
        "Our labrador weighs 25 kg and needs castrating; he isn't on a health plan. How much will "
        "Oakridge charge?",
        num(340, "GBP"),
        "«'Dog castrate (20 kg and over)', 'dog', 340.00» Check: 340",
        [OV],
    ),
    (
        "natural",
        "Our cat is on the Oakridge Care Cat plan and is booked in for a nail clip and a microchip. What "
        "will we pay?",
        num(32.85, "GBP"),
        "«'Nail clip (nurse clinic)', NULL, 12.50» «'Microchip implant and registration', NULL, 24.00» "
        "«'Oakridge Care Cat', 'cat', 13.00, 'annual booster, 2 consultations, flea and worm treatment', "
        "10» «-- discount_pct applies to all other fees in this table for animals on a plan (not to "
        "certificates)» Check: (12.50 + 24.00) * 0.9",
        [OV],
    ),
    (
        "single",
        "What does Oakridge charge to vaccinate a ferret?",
        refused("a ferret vaccination price"),
        "vaccinations are listed for dogs, cats and rabbits. Absent: «ferret»",
        [OV],
    ),
    (
        "three_agent",
        "Get Oakridge's hydrotherapy session price and run `print(h * 6)` with h set to it.",
        refused("a hydrotherapy session price"),
        "no hydrotherapy row in the fee table. Absent: «hydrotherapy»",
        [OV],
    ),
    # ------------------------------------------------------------------ a LaTeX fee sheet
    (
        "single",
        "How many days does Saltmarsh's Seamanship Skills course take?",
        num(1, "days"),
        "«Seamanship Skills & 1 & 110 & 145 \\\\» Check: 1",
        [SS],
    ),
    (
        "single",
        "What's the 2026 non-member fee for Better Sailing at Saltmarsh Sailing Club?",
        num(250, "GBP"),
        "«Better Sailing & 2 & 190 & 250 \\\\» Check: 250",
        [SS],
    ),
    (
        "chained",
        "A club member books Start Sailing and Better Sailing together. What's the total after the "
        "two-course discount?",
        num(347.5, "GBP"),
        "«Start Sailing (Level 1) & 2 & 175 & 230 \\\\» «Better Sailing & 2 & 190 & 250 \\\\» «Book two "
        "courses for the same person at the same time: 10\\% off the cheaper one.» Check: 175 + 190 - "
        "0.10 * 175",
        [SS],
    ),
    (
        "chained",
        "For a non-member, what does Powerboat Level 2 cost without the RYA certificate fee?",
        num(295, "GBP"),
        "«or \\pounds 320 (non-members), including the RYA certificate fee of \\pounds 25.» Check: 320 - 25",
        [SS],
    ),
    (
        "three_agent",
        "Find how much more a non-member pays than a member for Start Sailing, and run `print(d * 4)` "
        "with d bound to the difference.",
        num(220, "GBP"),
        "«Start Sailing (Level 1) & 2 & 175 & 230 \\\\» Check: run(d=230 - 175)",
        [SS],
    ),
    (
        "three_agent",
        "Take the length in days (d) and the members' price (p) of Youth Stage 1-2 and run "
        "`print(round(p / d, 2))`.",
        num(46.67, "GBP"),
        "«Youth Stage 1--2 (8--15) & 3 & 140 & 185 \\\\» Check: run(p=140, d=3)",
        [SS],
    ),
    (
        "natural",
        "We're club members and all three of our children want to do Youth Stage 1-2 in August. What's "
        "the bill?",
        num(380, "GBP"),
        "«Youth Stage 1--2 (8--15) & 3 & 140 & 185 \\\\» «Siblings on Youth courses: the second and "
        "further child pay \\pounds 120 each (members' rate only).» Check: 140 + 2 * 120",
        [SS],
    ),
    (
        "natural",
        "I'm not a member; I'd booked Basic Skills and cancelled a month before it started. What refund "
        "do I get?",
        num(200, "GBP"),
        "«Basic Skills (Level 2) & 2 & 175 & 230 \\\\» «Cancel more than 21 days before the course: full "
        "refund less \\pounds 30.» Check: 230 - 30",
        [SS],
    ),
    (
        "single",
        "What does the Saltmarsh keelboat course cost?",
        refused("the price of a keelboat course"),
        "the club runs dinghy and powerboat courses only. Absent: «keelboat»",
        [SS],
    ),
    (
        "natural",
        "I'm not a club member but I'd like to do the Safety Boat course. What would I pay?",
        refused("a non-member price for the Safety Boat course"),
        "the Safety Boat course is priced for members only (\\pounds 295); there is no non-member fee. "
        "Absent: «Safety Boat course (two days) costs \\pounds 295 for non»",
        [SS],
    ),
]
