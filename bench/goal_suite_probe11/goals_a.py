"""Probe11 goals over a till receipt and shelf-edge labels, a payslip and its pay handbook, a penalty
charge notice and car park tariffs, and a sewing pattern envelope with a fabric counter's prices."""

from goal_kinds import CP, CT, HR, HS, TE, TF, WH, WP, day, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ a thermal till receipt
    (
        "single",
        "I've got my Hobbs & Daughter receipt 0412-88213 in front of me - after the price match, what was I "
        "charged for the 5-piece masonry bit set?",
        num(14.50, "GBP"),
        "«MASONRY BIT SET 5PC 14.50 A *PRICE MATCH (WAS 16.50)» Check: 14.50",
        [HR],
    ),
    (
        "single",
        "The faulty 5 m extension lead refunded on receipt 0412-88213 - which receipt number was it "
        "bought on "
        "in the first place?",
        text("0409-87710"),
        "«RFND EXT LEAD 5M 13A -12.49 A ORIG RCPT 0409-87710 28/02/27» Check: '0409-87710'",
        [HR],
    ),
    (
        "single",
        "What does Hobbs & Daughter charge per metre for 8 mm galvanised chain?",
        refused("the price per metre of 8 mm galvanised chain"),
        "The counter sells only «galvanised chain 6mm GBP 4.80/m»; no other gauge is priced. "
        "Absent: «chain 8mm» «8mm» «8 mm»",
        [HS, HR],
    ),
    (
        "chained",
        "On my Hobbs receipt the four 2-inch paint brushes carry VAT code A. How much of what I paid for "
        "them was VAT?",
        num(2.13, "GBP"),
        "«PAINT BRUSH 2IN SYNTH @ 3.20 12.80 A» «VAT A = 20.00% (included)» Check: round(12.80 * 20 / "
        "120, 2)",
        [HR],
    ),
    (
        "chained",
        "After the 6 March shop my Hobbs points balance is on the receipt. What is that balance worth off a "
        "future shop, in pounds?",
        num(12.84, "GBP"),
        "«Balance ....................... 1,284» «100 points = GBP 1 off a future shop» Check: 1284 / 100",
        [HR],
    ),
    (
        "three_agent",
        "I want the pre-VAT value of the standard-rated part of receipt 0412-88213. Please run\n"
        "```python\na_gross = total - zero_rated\nprint(round(a_gross / 1.2, 2))\n```\n"
        "where total is the receipt's TOTAL and zero_rated is what the kids' wellies (code Z) cost.",
        num(44.46, "GBP"),
        "«ITEMS 12 TOTAL 63.34» «KIDS WELLIES GRN SZ11 9.99 Z» Check: run(total=63.34, zero_rated=9.99)",
        [HR],
    ),
    (
        "three_agent",
        "How much more is the 25 m cable reel than the lead I bought? Look up the reel's shelf-edge price in "
        "aisle 4 and the 10 m lead's price on receipt 0412-88213, then run print(round(reel - lead, 2)) with "
        "reel and lead set to those two prices.",
        num(15.01, "GBP"),
        "«CABLE REEL 25M 13A 4WAY | GBP 34.00» «EXT LEAD 10M 13A 4WAY 18.99 A» Check: run(reel=34.00, "
        "lead=18.99)",
        [HS, HR],
    ),
    (
        "three_agent",
        "Price per metre of Hobbs & Daughter's 50 m cable reel: get its shelf price and run "
        "`print(round(price / 50, 2))` with price set to it.",
        refused("the price of the 50 m cable reel"),
        "The aisle 4 label for the 50 m reel reads «DISCONTINUED, ask staff» and gives no price; only "
        "the 25 m "
        "reel is priced. Absent: «50M 13A 4WAY | GBP»",
        [HS, HR],
    ),
    (
        "natural",
        "My daughter's wellies on receipt 0412-88213 don't fit and she hasn't worn them. Up to what date can "
        "I take them back for a proper refund rather than an exchange or credit note?",
        day("2027-04-03"),
        "«06/03/2027 11:42 Rcpt 0412-88213» «may be returned within 28 days of purchase with this "
        "receipt for "
        "a refund to the original payment method» Check: date(2027, 3, 6) + timedelta(days=28)",
        [HR],
    ),
    (
        "natural",
        "Annoyingly the 2-inch brushes went on a deal two days after I bought my four on 6 March. Had I "
        "bought the same four on 10 March, how much less would I have paid?",
        num(1.10, "GBP"),
        "«4 PAINT BRUSH 2IN SYNTH @ 3.20 12.80 A» «PAINT BRUSH 2IN SYNTH | GBP 3.20 | 3 FOR GBP 8.50 FROM "
        "08/03/2027» Check: round(12.80 - (8.50 + 3.20), 2)",
        [HR, HS],
    ),
    # ------------------------------------------------------------------ a payslip and the pay handbook
    (
        "single",
        "What tax code was Tomasz Ilic paid under in February 2027?",
        text("1257L"),
        "«Tax code : 1257L (cumulative)» Check: '1257L'",
        [WP],
    ),
    (
        "single",
        "Once a Wrenfield employee has done 10,000 business miles in the tax year, how many pence a mile do "
        "they get for driving their own car?",
        num(25, "p"),
        "«45p a mile for the first 10,000 business miles in the tax year, 25p a mile after that» Check: 25",
        [WH],
    ),
    (
        "chained",
        "Add up all the overtime on Tomasz's February 2027 payslip - weekday and Sunday together. What "
        "does it "
        "come to?",
        num(251.60, "GBP"),
        "«Overtime T1.5 (Mon-Sat) 6.00 22.20 133.20» «Overtime T2.0 (Sun/BH) 4.00 29.60 118.40» "
        "Check: 133.20 + 118.40",
        [WP],
    ),
    (
        "chained",
        "By how much an hour did the 2027 pay award lift Tomasz Ilic's basic rate?",
        num(0.45, "GBP"),
        "«Basic rate : 14.80 per hour from 01/02/2027 (was 14.35)» Check: round(14.80 - 14.35, 2)",
        [WP],
    ),
    (
        "chained",
        "How much higher was Tomasz's net pay in February 2027 than in January 2027?",
        refused("Tomasz Ilic's net pay for January 2027"),
        "Only the Month 11 payslip is here («NET PAY 2052.22»); no January payslip or net figure. "
        "Absent: «Month 10» «January 2027»",
        [WP, WH],
    ),
    (
        "three_agent",
        "Fill in the two basic rates from Tomasz Ilic's February payslip and tell me what this prints:\n"
        "```python\n# basic hours paid this month\nhours = 162.5\n# hourly rate before the award, and "
        "after it\n"
        "old_rate = 0.00\nnew_rate = 0.00\nprint(round(hours * (new_rate - old_rate), 2))\n```",
        num(73.13, "GBP"),
        "«Basic rate : 14.80 per hour from 01/02/2027 (was 14.35)» «Basic pay 162.50 14.80 2405.00» "
        "Check: round(162.5 * (14.80 - 14.35), 2)",
        [WP],
    ),
    (
        "three_agent",
        "I wrote\n```python\ndef take_home_per_hour(net, basic_hours, ot_hours):\n"
        "    return round(net / (basic_hours + ot_hours), 2)\n```\n"
        "Call it for Tomasz's February 2027 payslip: net is his net pay, basic_hours the units of basic pay, "
        "and ot_hours the hours of both overtime lines added together. What does it return?",
        num(11.90, "GBP"),
        "«NET PAY 2052.22» «Basic pay 162.50» «Overtime T1.5 (Mon-Sat) 6.00» «Overtime T2.0 (Sun/BH) 4.00» "
        "Check: round(2052.22 / (162.50 + 6.00 + 4.00), 2)",
        [WP],
    ),
    (
        "natural",
        "Tomasz got called out to a burst pipe at a site on Sunday 7 March 2027 and was there from 19:00 to "
        "20:30. He's a qualified joiner on GBP 14.80 basic. What should Wrenfield pay him for that call-out?",
        num(94.20, "GBP"),
        "«a flat call-out payment of GBP 35.00 per call-out plus the hours at the overtime rate that "
        "applies, "
        "with a minimum of 2 hours paid per call-out» «Any hours on a Sunday or a bank holiday: double time "
        "(T2.0).» «Overtime T2.0 (Sun/BH) 4.00 29.60» Check: 35.00 + max(1.5, 2) * 29.60",
        [WH, WP],
    ),
    (
        "natural",
        "I've clocked up 9,900 business miles in my own van this tax year. Next week I drive 180 miles to a "
        "Wrenfield job and back, with the apprentice riding with me the whole way. What do I claim?",
        num(74.00, "GBP"),
        "«45p a mile for the first 10,000 business miles in the tax year, 25p a mile after that» "
        "«Passengers who are employees: 5p a mile each.» Check: round(100 * 0.45 + 80 * 0.25 + 180 * "
        "0.05, 2)",
        [WH],
    ),
    (
        "natural",
        "Wrenfield is sending me to a site 60 miles away for three days and I'll stay over. What's the "
        "overnight hotel allowance?",
        refused("Wrenfield's overnight hotel allowance"),
        "Section 4.8 gives meal subsistence only («GBP 8.50 a day (meal), GBP 17.00 if away more than 10 "
        "hours»); no accommodation rate. Absent: «overnight» «hotel» «accommodation»",
        [WH, WP],
    ),
    # ------------------------------------------------------------------ a penalty charge notice and tariffs
    (
        "single",
        "What contravention code is on penalty charge notice CV40418872?",
        text("83"),
        "«Contravention code: 83 - Parked in a car park without clearly displaying a valid pay & display "
        "ticket» Check: '83'",
        [CP],
    ),
    (
        "single",
        "If I buy my Quay Road parking by the quarter rather than monthly, what does Calder Vale charge?",
        num(130.00, "GBP"),
        "«season ticket ........... GBP 48.00 a calendar month (GBP 130.00 a quarter)» Check: 130.00",
        [CT],
    ),
    (
        "single",
        "What's the Calder Vale charge for two hours at the Station Yard car park?",
        refused("the Station Yard car park's 2-hour charge"),
        "The tariff order lists Harbour Street, Quay Road and Market Hall only. Absent: «Station Yard»",
        [CT, CP],
    ),
    (
        "chained",
        "The PCN on my Skoda (CV40418872) - what's the last day I can pay it at the reduced rate?",
        day("2027-01-27"),
        "«Date of notice: 14/01/2027» «If it is paid within 14 days beginning with the date of this notice, "
        "the charge is reduced by 50%» Check: date(2027, 1, 14) + timedelta(days=13)",
        [CP],
    ),
    (
        "chained",
        "By what percentage did two hours in Harbour Street car park go up when the April 2026 tariffs "
        "came in?",
        num(15.0, "%"),
        "«up to 2 hours ........... GBP 2.30 (2.00)» Check: round((2.30 - 2.00) / 2.00 * 100, 1)",
        [CT],
    ),
    (
        "three_agent",
        "```\nimport math\nprint(math.ceil(penalty / ticket))\n```\nThat's how many parking tickets my fine "
        "would have bought. Set penalty to the full (undiscounted) charge on PCN CV40418872 and ticket to "
        "the Harbour Street price for up to 2 hours, and give me the result.",
        num(22, ""),
        "«PENALTY CHARGE: GBP 50.00» «up to 2 hours ........... GBP 2.30 (2.00)» "
        "Check: run(penalty=50.00, ticket=2.30)",
        [CP, CT],
    ),
    (
        "three_agent",
        "Work out what getting a clamped car back for 3 days would cost in Calder Vale: "
        "`print(round(release + days * daily, 2))` with release the clamp release fee, days = 3 and daily "
        "the clamp's daily charge.",
        refused("Calder Vale's clamp release fee"),
        "The notice gives a vehicle removal release fee and storage («GBP 105.00 release fee plus GBP 12.00 "
        "a day storage»), nothing for clamping. Absent: «clamp»",
        [CP, CT],
    ),
    (
        "natural",
        "My PCN (CV40418872) is dated 14 January 2027. I'm going to post a cheque on Monday 25 January. "
        "How much should I make it out for so it settles the charge?",
        num(50.00, "GBP"),
        "«If it is paid within 14 days beginning with the date of this notice, the charge is reduced by 50%, "
        "to GBP 25.00.» «allow 3 working days for delivery - the date we receive the payment counts» "
        "«PENALTY CHARGE: GBP 50.00» Check: 25.00 if workdays_after(date(2027, 1, 25), 3) <= date(2027, "
        "1, 14) "
        "+ timedelta(days=13) else 50.00",
        [CP],
    ),
    (
        "natural",
        "I challenged PCN CV40418872 in writing and the council got my letter on 20 January. They turned it "
        "down in a reply dated 9 February 2027. Until what date can I still pay the discounted amount?",
        day("2027-02-23"),
        "«If it reaches us within the 14-day discount period and is rejected, we will re-offer the discount "
        "for a further 14 days from the date of our reply.» «Date of notice: 14/01/2027» "
        "Check: date(2027, 2, 9) + timedelta(days=14)",
        [CP],
    ),
    (
        "natural",
        "I'll leave my EV in one of the charging bays at Quay Road for 3 hours and expect to take about 21 "
        "kWh, paying for everything through the app. What will the visit cost me?",
        num(12.85, "GBP"),
        "«up to 4 hours ........... GBP 3.20 (2.90)» «the car park tariff plus 45p per kWh at the charger» "
        "«20p convenience fee per session on the app» Check: round(3.20 + 21 * 0.45 + 0.20, 2)",
        [CT],
    ),
    # ------------------------------------------------------------------ a sewing pattern envelope
    (
        "single",
        "Tamarisk T2214, View B in size 16 - how much 150 cm wide fabric is needed?",
        num(1.7, "m"),
        "«150 cm with or without nap 1.5 1.5 1.6 1.7 1.7 1.8 1.9» Check: 1.7",
        [TE],
    ),
    (
        "single",
        "What bust measurement does the finished Harbour shirt dress have in a size 14?",
        num(108, "cm"),
        "«Bust 94 98 103 108 113 118 123» Check: 108",
        [TE],
    ),
    (
        "chained",
        "I'm making View A of T2214 in size 12 with the tie belt, in the washed linen from Threadneedle's "
        "counter (150 cm). What will the linen cost me?",
        num(45.63, "GBP"),
        "«150 cm with or without nap 2.2 2.3 2.3 2.4 2.6 2.7 2.8» «Tie belt, 150 cm (all sizes) add 0.4» "
        "«Linen, washed, 150 cm ............................ GBP 16.90» Check: round((2.3 + 0.4) * 16.90, 2)",
        [TE, TF],
    ),
    (
        "chained",
        "In 115 cm fabric, how much longer a length does the dress (View A) take than the shirt (View B) "
        "for a size 18?",
        num(1.2, "m"),
        "«115 cm without nap 3.1 3.2 3.3 3.5 3.6 3.7 3.9» «115 cm without nap 2.0 2.1 2.1 2.2 2.4 2.5 2.5» "
        "Check: round(3.7 - 2.5, 2)",
        [TE],
    ),
    (
        "chained",
        "Threadneedle's needlecord is 140 cm wide. How many metres does View A in size 10 need in a 140 cm "
        "width, and what would that cost?",
        refused("View A's fabric quantity for 140 cm wide fabric"),
        "The envelope gives quantities for «115 cm» and «150 cm» widths only (needlecord is listed as "
        "«Needlecord, 150 cm (has nap)»). Absent: «140 cm»",
        [TE, TF],
    ),
    (
        "three_agent",
        "Cotton lawn from Threadneedle for View A, size 14 - it's a one-way print. Work it out with this:\n"
        "```python\n# metres to ask for, rounded up to the shop's 10 cm steps\nimport math\n"
        "metres = math.ceil((length + nap) * 10) / 10\nprint(round(metres * price, 2))\n```\n"
        "length is the 115 cm quantity for my size, nap the extra the envelope says to add for a one-way "
        "print, price the lawn's price a metre.",
        num(37.24, "GBP"),
        "«115 cm without nap 3.1 3.2 3.3 3.5 3.6 3.7 3.9» «115 cm fabric with nap, pile or a one-way print: "
        "add 0.3 m» «Cotton lawn, printed, 115 cm ...................... GBP 9.80» "
        "Check: run(length=3.5, nap=0.3, price=9.80)",
        [TE, TF],
    ),
    (
        "three_agent",
        "Buttons for the short-sleeved shirt: run print(round(min(n * each, card), 2)) with n = the number "
        "of 15 mm buttons View B takes, each = Threadneedle's price for one 15 mm button and card = their "
        "price for a card of 10.",
        num(3.15, "GBP"),
        "«View B: 7 buttons 15 mm» «Buttons 15 mm (shell effect) ...................... GBP 0.45 each, or a "
        "card of 10 for GBP 3.60» Check: run(n=7, each=0.45, card=3.60)",
        [TE, TF],
    ),
    (
        "three_agent",
        "View B, size 10, in chambray. I jotted `print(round(2.0 * 8.60 + 0.5 * 3.20, 2))` but guessed "
        "the fabric length: replace 2.0 with the real 115 cm quantity for size 10, check the interfacing "
        "metres and both prices against the envelope and Threadneedle's list, and run it.",
        num(19.66, "GBP"),
        "«115 cm without nap 2.0 2.1 2.1 2.2 2.4 2.5 2.5» «View B 0.5 all sizes» «Chambray, 115 cm» «GBP "
        "8.60» "
        "«Interfacing, lightweight fusible, 90 cm» «GBP 3.20» Check: round(2.1 * 8.60 + 0.5 * 3.20, 2)",
        [TE, TF],
    ),
    (
        "natural",
        "My bust is 97 cm but my hips are 112 cm. Following the T2214 envelope's advice, which size should I "
        "cut for the skirt part of View A, from the waist down?",
        num(18, ""),
        "«Bust 83 87 92 97 102 107 112» «Hip 88 92 97 102 107 112 117» «Choose the size by bust; if your hip "
        "is two or more sizes larger, use the larger size from the waist down.» "
        "Check: 18 if (18 - 14) / 2 >= 2 else 14",
        [TE],
    ),
    (
        "natural",
        "I'd like the Harbour shirt dress sleeveless for summer. How much 150 cm linen does that version "
        "need in a size 12?",
        refused("the fabric quantity for a sleeveless version"),
        "T2214 has View A (long sleeves) and View B (short sleeves) only. Absent: «sleeveless» «View C»",
        [TE, TF],
    ),
]
