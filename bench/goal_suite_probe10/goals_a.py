"""Probe10 goals over the hotel folio and house charges card, the nursery tag sheet and the gym grid."""

from goal_kinds import BN, KF, KH, LL, day, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ a hotel folio with a voided line
    (
        "single",
        "Looking at the Kettlewell Inn folio for room 12, how much was the hot stone massage?",
        num(72.00, "GBP"),
        "«Spa - hot stone massage, 60 min 1 72.00» Check: 72.00",
        [KF],
    ),
    (
        "single",
        "Which card did the Oyelarans pay their Kettlewell Inn deposit with? Just the last four digits.",
        text("4471"),
        "«Deposit rec'd 02/12/2026, card ending 4471» Check: '4471'",
        [KF],
    ),
    (
        "single",
        "What does the Kettlewell Inn charge to park a motorhome overnight?",
        refused("an overnight motorhome parking charge"),
        "The house card prices residents' car permits («£6.00 per 24 hours») and an EV bay only. "
        "Absent: «motorhome»",
        [KH, KF],
    ),
    (
        "chained",
        "The Oyelarans ate once in the Riverside Room, but their folio shows two dinner lines and a void. "
        "What did the dinner that stands come to per person?",
        num(28.00, "GBP"),
        "«DN01V ** VOID ** DN01 posted in error (was rm 21)» «DN02 Dinner - Riverside Room, 3 "
        "covers 1 84.00» "
        "Check: 84.00 / 3",
        [KF],
    ),
    (
        "chained",
        "Add up every visitor levy line on folio 40817 - how much levy has the stay been charged so far?",
        num(15.00, "GBP"),
        "«VL01 Wharredale visitor levy (adults, per night) 2 5.00» «VL02» «VL03» Check: 3 * 5.00",
        [KF],
    ),
    (
        "chained",
        "The Kettlewell Inn's house card says some late check-out prices went up this year. How much dearer "
        "is keeping the room until 4pm than it was on the 2026 card?",
        refused("the 2026 price of late check-out until 16:00"),
        "Only the 13:00 price of 2026 is given («The 2026 card said late check-out until 13:00 was £15»). "
        "Absent: «late check-out until 16:00 was»",
        [KH],
    ),
    (
        "three_agent",
        "On folio 40817 find the interim balance due and the deposit received. Then run "
        "`print(round(balance + deposit, 2))` with balance = the balance due and deposit = the deposit as a "
        "positive amount, to get what the stay has run up so far.",
        num(676.65, "GBP"),
        "«BALANCE DUE (INTERIM) 526.65» «Deposit rec'd 02/12/2026, card ending 4471 1 -150.00» "
        "Check: run(balance=526.65, deposit=150.00)",
        [KF],
    ),
    (
        "three_agent",
        "```python\nnights = 3\nprint(nights * (room + 2 * levy))\n```\nRun that for room 12 at the "
        "Kettlewell Inn: room is the nightly BB-FLEX room charge on the folio and levy is the visitor levy "
        "per adult per night.",
        num(459.00, "GBP"),
        "«Room 12 BB-FLEX 1 148.00» «The visitor levy is £2.50 per adult per night» "
        "Check: run(room=148.00, levy=2.50)",
        [KF],
    ),
    (
        "natural",
        "We're the Oyelarans in room 12 and we leave on Sunday, but our train isn't until late afternoon. "
        "If we keep the room until 4pm, what will that add to the bill?",
        num(74.00, "GBP"),
        "«Late check-out until 16:00 ........ half the night's room rate» «no late check-out on Saturdays» "
        "«Room 12 BB-FLEX 1 148.00» Check: 148.00 / 2",
        [KH, KF],
    ),
    # ------------------------------------------------------------------ a nursery price tag sheet
    (
        "single",
        "How much is Salvia 'Caradonna' in the big 2 litre pot at Bramblecote now?",
        num(9.95, "GBP"),
        "«SALVIA nemorosa 'Caradonna'» «2 litre pot .... £9.95 (was £8.95)» Check: 9.95",
        [BN],
    ),
    (
        "single",
        "Bramblecote has sold out of Echinacea 'Magnus'. When is the next batch ready?",
        day("2027-05-03"),
        "«Prices from Mon 1 March 2027» «** SOLD OUT - next batch ready 3 May **» Check: date(2027, 5, 3)",
        [BN],
    ),
    (
        "single",
        "What does Bramblecote Nursery want for a 9cm pot of mint?",
        refused("the price of mint"),
        "The herb tags are thyme and rosemary («THYMUS vulgaris (common thyme) HERB»); catmint is Nepeta, "
        "not a mint. Absent: «pot of mint» «Mentha»",
        [BN],
    ),
    (
        "chained",
        "I'm after eighteen Nepeta 'Six Hills Giant' in the small pots for a long border edge. Buying them "
        "by the tray, what do I pay?",
        num(63.00, "GBP"),
        "«NEPETA x faassenii 'Six Hills Giant'» «9cm pot ..... £3.95 each / tray of 6 £21» Check: "
        "18 / 6 * 21",
        [BN],
    ),
    (
        "chained",
        "How much cheaper is a tray of 'Hidcote' lavender than buying the same six 9cm pots one at a time?",
        num(3.00, "GBP"),
        "«LAVANDULA angustifolia 'Hidcote'» «9cm pot ..... £3.50 each / tray of 6 £18» Check: 6 * 3.50 - 18",
        [BN],
    ),
    (
        "three_agent",
        "From the Alchemilla mollis tag, bind each = the 9cm single-pot price and tray = the tray-of-6 "
        "price, then run `print(round(6 * each - tray, 2))`.",
        num(2.50, "GBP"),
        "«ALCHEMILLA mollis» «9cm pot ..... £3.25 each / tray of 6 £17» Check: run(each=3.25, tray=17)",
        [BN],
    ),
    (
        "three_agent",
        "```\ntotal = 2 * big + 3 * small\nprint(round(total, 2))\n```\nbig is what Bramblecote charges for "
        "Hosta 'June' in a 3 litre pot and small is its 1 litre price. What does this print?",
        num(51.65, "GBP"),
        "«HOSTA 'June'» «1 litre pot ............... £7.25» «3 litre pot ............... £14.95» "
        "Check: run(big=14.95, small=7.25)",
        [BN],
    ),
    (
        "natural",
        "It's Tuesday, I've got my Greenfinger card with me, and I'm buying a single Geranium 'Rozanne'. "
        "What will the till ask for?",
        num(11.66, "GBP"),
        "«2 litre pot ONLY ......... £12.95» «Greenfinger loyalty card: 10% off single pots on Tuesdays; not "
        "on trays and not on hedging» Check: 12.95 * 0.9",
        [BN],
    ),
    (
        "natural",
        "Can I fill one tray with three common thymes and three of the upright rosemary, small pots? "
        "What would that tray cost me?",
        num(14.00, "GBP"),
        "«MIX: any 6 herbs from this sheet for £14» «MIX herb trays: see thyme tag» Check: 14",
        [BN],
    ),
    (
        "natural",
        "I live about 12 miles from Bramblecote. If I order £60 of perennials, how much will delivery be?",
        refused("a delivery charge for addresses more than 8 miles away"),
        "Delivery is priced only nearby («Local delivery (within 8 miles of the nursery): £7.50»). "
        "Absent: «12 miles» «more than 8 miles»",
        [BN],
    ),
    # ------------------------------------------------------------------ a gym timetable grid, days as columns
    (
        "single",
        "Who takes the Pilates classes at Larkhill Leisure Centre?",
        text("Ines"),
        "«Pilates - Ines» Check: 'Ines'",
        [LL],
    ),
    (
        "single",
        "What time does Tuesday evening's Boxfit start at Larkhill?",
        text("19:30"),
        "«19:30 | Yoga 60 (A) | Boxfit 50 (H)» Check: '19:30'",
        [LL],
    ),
    (
        "chained",
        "If I go to Larkhill's Wednesday 18:30 class, what time will I be done?",
        text("19:15"),
        "«18:30 | Spin 45 (B) | Aqua Zumba | Pilates 45 (A)» Check: clock('18:30', 45)",
        [LL],
    ),
    (
        "chained",
        "I don't have a Larkhill membership. What would Monday's 06:30 class and Monday's 19:30 class cost "
        "me together?",
        num(15.00, "GBP"),
        "«06:30 | Spin 45 (B)» «19:30 | Yoga 60 (A)» «Land classes (studio and hall) ....... free "
        "£7.20 £5.40» "
        "«Spin ................................. free £7.80 £5.90» Check: 7.80 + 7.20",
        [LL],
    ),
    (
        "three_agent",
        "Larkhill, pay as you go: let spin be the price of one Spin class and aqua the price of one Aqua Fit "
        "class. What does `print(round(4 * spin + 4 * aqua, 2))` print?",
        num(55.60, "GBP"),
        "«Spin ................................. free £7.80 £5.90» «Aqua Fit, Aqua Zumba ................. "
        "free £6.10 £4.60» Check: run(spin=7.80, aqua=6.10)",
        [LL],
    ),
    (
        "three_agent",
        "run print(round(3 * land + 2 * spin, 2)) with land = Larkhill's concession pay-as-you-go price for "
        "a land class and spin = the concession pay-as-you-go price for Spin",
        num(28.00, "GBP"),
        "«Land classes (studio and hall) ....... free £7.20 £5.40» «Spin ................................. "
        "free £7.80 £5.90» Check: run(land=5.40, spin=5.90)",
        [LL],
    ),
    (
        "three_agent",
        "Bind family = what Larkhill charges one family for the Sunday Family Swim and aqua = the "
        "pay-as-you-go Aqua Fit price, then run `print(round(family - aqua, 2))`.",
        refused("the Family Swim price"),
        "Family Swim is on the grid («Family Swim») but the price list has land classes, aqua classes, Spin "
        "and 60+ classes only. Absent: «Family Swim price» «per family»",
        [LL],
    ),
    (
        "three_agent",
        "With lesson = the cost of a 30-minute swimming lesson at Larkhill and spin = the pay-as-you-go "
        "Spin price, run `print(lesson + spin)`.",
        refused("a swimming lesson price"),
        "The pool holds Aqua Fit, Aqua Zumba and Family Swim («(P) learner pool»); no lessons are priced. "
        "Absent: «swimming lesson»",
        [LL],
    ),
    (
        "natural",
        "I'm 70 and I pay as I go. This week I'd like Chair Yoga on Thursday and Zumba on Tuesday morning. "
        "What's my total?",
        num(9.40, "GBP"),
        "«Silver Circuit, Chair Yoga (60+ only) free £4.00 £4.00» «concession: over-65s, full-time students, "
        "Leisure Card holders» «Land classes (studio and hall) ....... free £7.20 £5.40» Check: 4.00 + 5.40",
        [LL],
    ),
    (
        "natural",
        "I've booked the 12:15 Yoga on Friday 12 February at Larkhill. What time will my class finish that "
        "day?",
        text("12:45"),
        "«Friday 12 February: the 12:15 Yoga is replaced by a 30-minute Stretch» Check: clock('12:15', 30)",
        [LL],
    ),
    (
        "natural",
        "I'm not a member. I want the Spin class at 09:15 on Saturday 13 February 2027 - what's the "
        "earliest day I can book it?",
        day("2027-02-10"),
        "«09:15 | Aqua Fit 45 (P) | Zumba 60 (A) | Aqua Fit 45 (P) | Body Pump 55 (A)| Aqua Fit 45 (P) | "
        "Spin 60 (B)» «pay-as-you-go 3 days ahead from 07:00» Check: date(2027, 2, 13) - timedelta(days=3)",
        [LL],
    ),
]
