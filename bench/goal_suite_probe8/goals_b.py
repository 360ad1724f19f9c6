"""Probe8 goals over the library's reStructuredText charges, the water co-op's fixed-width report, the
bike share terms and the choir's chat export."""

from goal_kinds import BW, CB, PC, TL, day, num, refused

GOALS_B = [
    # ------------------------------------------------------------------ a reStructuredText charges list
    (
        "single",
        "For how many days can you borrow a board game from Tolland library?",
        num(14, "days"),
        "«| Board games | 14 days | 1 | EUR 2.00 |» Check: 14",
        [TL],
    ),
    (
        "single",
        "I live outside Tolland district. What's the yearly library fee for me these days?",
        num(18, "EUR"),
        "«Non-residents pay an annual fee of **EUR 18.00** (was EUR 15.00 until 31 March 2026).» Check: 18",
        [TL],
    ),
    (
        "chained",
        "An adult's novel goes back to Tolland library 40 opening days late. What is the fine?",
        num(6, "EUR"),
        "«Books and audiobooks: EUR 0.20 per item per day, capped at EUR 6.00 per item.» Check: min(0.20 "
        "* 40, 6)",
        [TL],
    ),
    (
        "chained",
        "At the library I print 12 A4 sheets in colour on both sides and 30 single-sided black A4 pages. "
        "What do I pay?",
        num(16.5, "EUR"),
        "«A4 one side EUR 0.15 EUR 0.60» «A4 two sides EUR 0.25 EUR 1.00» Check: 12 * 1.00 + 30 * 0.15",
        [TL],
    ),
    (
        "three_agent",
        "Look up the Reading Room's commercial hourly rate and its minimum booking length, then run "
        "`print(rate * hours)` with those two bound.",
        num(90, "EUR"),
        "«EUR 45.00 per hour for commercial bookings, minimum 2 hours.» Check: run(rate=45.00, hours=2)",
        [TL],
    ),
    (
        "three_agent",
        "After how many overdue days does a DVD's fine stop growing? Take the daily DVD fine and its cap "
        "and run `print(cap // fine)` with them bound.",
        num(10, "days"),
        "«DVDs, Blu-ray and board games: EUR 1.00 per item per day, capped at EUR 10.00 per item.» "
        "Check: run(cap=10.00, fine=1.00)",
        [TL],
    ),
    (
        "natural",
        "My 12-year-old took out two DVDs on his card and brought them back five days late. What do we "
        "owe the library?",
        num(0, "EUR"),
        "«Children under 16 pay no loan charges and no overdue fines.» Check: 0",
        [TL],
    ),
    (
        "natural",
        "I paid for a lost book whose catalogue replacement cost was EUR 24.90. A month later it turned "
        "up under the sofa and I returned it. How much of what I paid do I not get back?",
        num(4, "EUR"),
        "«The replacement cost shown in the catalogue is charged, plus a processing fee of EUR 4.00.» "
        "«If a lost item is found and returned within 60 days of payment, the replacement cost is "
        "refunded but the processing fee is not.» Check: (24.90 + 4.00) - 24.90",
        [TL],
    ),
    (
        "single",
        "What's the daily overdue fine on a library e-reader?",
        refused("the overdue fine for an e-reader"),
        "the loans table has books, DVDs, board games and museum passes; no e-readers. Absent: «e-reader»",
        [TL],
    ),
    (
        "chained",
        "What's the weekend rate for the Tolland Reading Room, and what would a 5-hour booking come to?",
        refused("a weekend rate for the Reading Room"),
        "the Reading Room has a community and a commercial rate, none for weekends. Absent: «weekend» "
        "«Saturday»",
        [TL],
    ),
    # ------------------------------------------------------------------ a fixed-width usage report
    (
        "single",
        "How much water did Beaufort Farm use in the second quarter of 2026, in cubic metres?",
        num(1225, "m3"),
        "«100219 BEAUFORT FARM LTD BW-60388 91,430 92,655 1225 AGR» Check: 1225",
        [BW],
    ),
    (
        "single",
        "What is Brenwick's current domestic volume rate per cubic metre?",
        num(1.72, "GBP"),
        "«DOM 18.50 1.72 / M3» Check: 1.72",
        [BW],
    ),
    (
        "chained",
        "What will Elmstead Village Hall's Q2 water invoice come to once VAT is added?",
        num(194.28, "GBP"),
        "«ELMSTEAD VILLAGE HALL BW-71190 6,320 6,391 71 COM 27.00 134.90 161.90» «COM AND AGR INVOICES "
        "ADD VAT AT 20 PCT TO TOTAL.» Check: 161.90 * 1.2",
        [BW],
    ),
    (
        "chained",
        "Had J. Farrier's Q2 usage been billed on the old domestic tariff, what would the volume part "
        "have cost?",
        num(113.76, "GBP"),
        "«100263 FARRIER, J BW-77913 3,388 3,460 72 DOM» «PREVIOUS TARIFF (TO 31 MAR 2026): DOM 17.00 + "
        "1.58 / M3» Check: 72 * 1.58",
        [BW],
    ),
    (
        "three_agent",
        "Add up the TOTAL column for the domestic accounts that actually used water this quarter, then "
        "run `print(round(t / 3, 2))` with t bound to that sum.",
        num(111.38, "GBP"),
        "«57 DOM 18.50 98.04 116.54» «33 DOM 18.50 56.76 75.26» «72 DOM 18.50 123.84 142.34» Check: "
        "run(t=116.54 + 75.26 + 142.34)",
        [BW],
    ),
    (
        "three_agent",
        "Read M. Aldridge's previous and current meter readings off the report and run `print((curr - "
        "prev) * 1000)` to get litres.",
        num(57000, "l"),
        "«100214 ALDRIDGE, M BW-77120 4,812 4,869 57 DOM» Check: run(curr=4869, prev=4812)",
        [BW],
    ),
    (
        "natural",
        "We're on a domestic account and our meter says we used 130 m3 last quarter. What will the "
        "quarter's bill be?",
        num(252, "GBP"),
        "«DOM 18.50 1.72 / M3» «DOMESTIC ACCOUNTS USING OVER 100 M3 IN A QUARTER PAY 2.05 / M3 ON THE "
        "PART ABOVE 100 M3.» «NO VAT ON DOMESTIC SUPPLY.» Check: 18.50 + 100 * 1.72 + 30 * 2.05",
        [BW],
    ),
    (
        "natural",
        "If Mr Aldridge wants to pay his Q2 water invoice as late as he can without being late, on what "
        "date must he pay?",
        day("2026-08-07"),
        "«PAYMENT DUE 28 DAYS FROM INVOICE DATE. INVOICES DATED 2026-07-10.» Check: date(2026, 7, 10) + "
        "timedelta(days=28)",
        [BW],
    ),
    (
        "single",
        "What does the Brenwick co-operative charge per cubic metre for sewerage?",
        refused("a sewerage charge"),
        "the report has water standing and volume charges only. Absent: «sewerage» «sewage»",
        [BW],
    ),
    (
        "three_agent",
        "Get Beaufort Farm's first-quarter 2026 usage and run `print(q1 + 1225)` with q1 set to it.",
        refused("Beaufort Farm's Q1 2026 usage"),
        "the report covers April to June only; Q1 is not there. Absent: «Q1» «JAN-MAR»",
        [BW],
    ),
    # ------------------------------------------------------------------ terms and conditions with exceptions
    (
        "single",
        "What does a Corvel day pass cost?",
        num(14, "CHF"),
        "«Day pass: CHF 14.00 for unlimited rides of up to 45 minutes each on classic bikes» Check: 14",
        [CB],
    ),
    (
        "chained",
        "Without a membership, what does a 22-minute e-bike ride cost on Corvel City Bikes?",
        num(10.90, "CHF"),
        "«Pay-as-you-go: unlocking costs CHF 1.00, then CHF 0.25 per minute on a classic bike and CHF "
        "0.45 per minute on an e-bike.» Check: 1 + 0.45 * 22",
        [CB],
    ),
    (
        "chained",
        "An annual Corvel member rides a classic bike for 48 minutes. What is that ride charged?",
        num(1.80, "CHF"),
        "«Members ride classic bikes free for the first 30 minutes of each ride and pay CHF 0.10 per "
        "minute after that» Check: (48 - 30) * 0.10",
        [CB],
    ),
    (
        "three_agent",
        "Price a 35-minute pay-as-you-go ride on a classic Corvel bike and run `print(round(c * 4, 2))` "
        "with c bound to it.",
        num(39, "CHF"),
        "«unlocking costs CHF 1.00, then CHF 0.25 per minute on a classic bike» Check: run(c=1 + 0.25 * 35)",
        [CB],
    ),
    (
        "three_agent",
        "Take Corvel's lost-bike charges for a classic bike (c) and an e-bike (e) and run `print(e - c)`.",
        num(1600, "CHF"),
        "«CHF 800 for a classic bike, CHF 2,400 for an e-bike.» Check: run(e=2400, c=800)",
        [CB],
    ),
    (
        "natural",
        "I'm studying at Corvel University and have my student card. How much is a year's membership for me?",
        num(60, "CHF"),
        "«students with a valid Corvel University card pay CHF 60.00 for annual membership.» Check: 60",
        [CB],
    ),
    (
        "natural",
        "Someone stole the e-bike I'd hired; I gave the police a report the next morning. What will "
        "Corvel charge me?",
        num(150, "CHF"),
        "«If a police report is given within 48 hours of theft, the charge under 6.1 is reduced to CHF "
        "150.» Check: 150",
        [CB],
    ),
    (
        "natural",
        "On my day pass I rode a classic bike for an hour in one go. How much extra does that ride cost?",
        num(3.75, "CHF"),
        "«minutes beyond 45 in one ride are charged at the rate in 3.1 (no unlocking fee).» «CHF 0.25 "
        "per minute on a classic bike» Check: (60 - 45) * 0.25",
        [CB],
    ),
    (
        "single",
        "How much per minute is a cargo bike on Corvel City Bikes?",
        refused("a cargo bike rate"),
        "the terms price classic bikes and e-bikes only. Absent: «cargo»",
        [CB],
    ),
    (
        "chained",
        "What did the Corvel day pass cost under the old version 3.0 terms, and how much has it gone up "
        "since?",
        refused("the day pass price under version 3.0"),
        "version 3.1 says 3.0 no longer applies but quotes none of its prices. Absent: «was CHF» «previous»",
        [CB],
    ),
    # ------------------------------------------------------------------ a group chat export
    (
        "single",
        "When is the choir's dress rehearsal for the December concert?",
        day("2026-12-11"),
        "«Sorry!! Dress rehearsal is FRIDAY 11 Dec, not Thursday.» Check: date(2026, 12, 11)",
        [PC],
    ),
    (
        "single",
        "What are the Pinefold Choir autumn subs for students?",
        num(40, "GBP"),
        "«subs are now £70 (students/unwaged stay £40)» Check: 40",
        [PC],
    ),
    (
        "chained",
        "How many tenors and basses has Pinefold Choir got between them this term?",
        num(13),
        "«14 sopranos, 11 altos, 5 tenors, 8 basses» Check: 5 + 8",
        [PC],
    ),
    (
        "chained",
        "A waged singer pays this term's subs and hires a Messiah score. What's that in total?",
        num(78, "GBP"),
        "«Update: hall rent went up so subs are now £70» «Messiah scores are £8 each to hire for the "
        "term» Check: 70 + 8",
        [PC],
    ),
    (
        "three_agent",
        "What share of the upper voices are sopranos? Take the soprano and alto counts as s and a and "
        "run `print(round(100 * s / (s + a), 1))`.",
        num(56.0, "%"),
        "«14 sopranos, 11 altos» Check: run(s=14, a=11)",
        [PC],
    ),
    (
        "three_agent",
        "A member only managed to sell one full-price concert ticket. Work out what they owe for the "
        "unsold ones and run `print(owed)` with owed bound to it.",
        num(45, "GBP"),
        "«Each member has to sell at least 4 tickets or pay for the unsold ones» «Yes, counts at £15 "
        "each» Check: run(owed=(4 - 1) * 15)",
        [PC],
    ),
    (
        "natural",
        "I'm unwaged and I'll only get my choir subs paid on 25 September. How much should I send?",
        num(45, "GBP"),
        "«students/unwaged stay £40» «Reminder: subs due by the 3rd rehearsal (22 Sept). After that £5 "
        "late fee» Check: 40 + 5",
        [PC],
    ),
    (
        "natural",
        "My husband and I are both going to the retreat day. I'll take a packed lunch, he wants theirs. "
        "What do we pay between us?",
        num(43, "GBP"),
        "«£25 incl lunch, £18 if you bring your own lunch» Check: 25 + 18",
        [PC],
    ),
    (
        "single",
        "How much are the Pinefold Choir subs for the spring term?",
        refused("the spring term subs"),
        "the chat gives autumn subs (and says they were the same as summer); nothing about spring. "
        "Absent: «spring»",
        [PC],
    ),
    (
        "natural",
        "We're coming to the December concert. How much will a programme be?",
        refused("the price of a concert programme"),
        "tickets are priced, programmes are never mentioned. Absent: «programme»",
        [PC],
    ),
]
