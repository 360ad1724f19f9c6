"""Probe12 goals over a golf club's score card and competition conditions, an airline e-ticket receipt with
its fare rules, and a dental treatment plan with band charges."""

from goal_kinds import AR, AT, DP, GC, GF, num, refused, text

GOALS_A = [
    # ------------------------------------------------------------------ a golf score card
    (
        "single",
        "Thornfield Park, 13th hole (Mill Race): how many yards is it off the yellow markers?",
        num(396, "yards"),
        "«13 Mill Race 412 396 371» (WHITE, YELLOW, RED columns) Check: 396",
        [GC],
    ),
    (
        "single",
        "Is Heronshaw one of the hard holes for the men at Thornfield Park? Give me its men's stroke index.",
        num(3),
        "«7 Heronshaw 455 431 402 | 4 3 | 5 9» (men's par 4, men's S.I. 3) Check: 3",
        [GC],
    ),
    (
        "single",
        "my mate says Thornfield has blue tees now - what's the Dovecote from the blues?",
        refused("the yardage of the Dovecote hole from blue tees"),
        "The card has WHITE, YELLOW and RED tees only («11 Dovecote 145 132 118»); no blue tee is measured. "
        "Absent: «blue»",
        [GC, GF],
    ),
    (
        "chained",
        "The back of my Thornfield card has the IN yardage left blank. Total the white-tee lengths of holes "
        "10-18 for me.",
        num(3223, "yards"),
        "«10 Kiln Field 367» «11 Dovecote 145» «12 Long Acre 548» «13 Mill Race 412» «14 The Saddle 338» "
        "«15 Ha-Ha 189» «16 Pheasantry 427» «17 Roundel 301» «18 Clubhouse 496» "
        "Check: 367 + 145 + 548 + 412 + 338 + 189 + 427 + 301 + 496",
        [GC],
    ),
    (
        "chained",
        "Handicap index 14.6, men's medal off the whites at Thornfield Park next Saturday. What playing "
        "handicap do I put on the card?",
        num(15),
        "«White (men) 71.2 / 128» «(men 72, ladies 74)» «Individual medal (stroke play) 95%» «rounded to the "
        "nearest whole number (.5 rounds up)» course handicap 14.6 x 128/113 - 0.8 = 15.74 -> 16; 16 x "
        "0.95 = "
        "15.2 -> 15. Check: nearest(nearest(14.6 * 128 / 113 + (71.2 - 72), 1) * 0.95, 1)",
        [GC, GF],
    ),
    (
        "three_agent",
        "I scribbled this to do my Stableford points hole by hole:\n\n"
        "```python\n"
        "strokes = (si <= ph) + (si <= ph - 18)\n"
        "nett = gross - strokes\n"
        "points = max(0, 2 + par - nett)\n"
        "print(points)\n"
        "```\n\n"
        "Run it for Tinker's Gate at Thornfield Park: par and si are that hole's men's par and men's stroke "
        "index from the club card, ph = 22 is my playing handicap and gross = 5 is what I took.",
        num(3),
        "«4 Tinker's Gate 401 377 350 | 4 1 | 4 5» (men's par 4, men's S.I. 1) Check: run(si=1, ph=22, "
        "gross=5, par=4)",
        [GC, GF],
    ),
    (
        "three_agent",
        "How much longer, on average per hole, is Thornfield's front nine from the whites than from the "
        "yellows? run print(round((w - y) / 9, 1)) with w and y the OUT totals for white and yellow tees.",
        num(22.2, "yards"),
        "«OUT 3342 3142 2872» Check: run(w=3342, y=3142)",
        [GC],
    ),
    (
        "natural",
        "I'm a Thornfield member bringing my brother-in-law as my guest to this Sunday's Stableford. He "
        "won't "
        "do the sweep. What will it cost for him to play?",
        num(38, "GBP"),
        "«Guests of members may play in the Sunday Stableford only: entry GBP 3.00 plus the guest green "
        "fee.» "
        "«Guest of a member GBP 28 GBP 35» (Mon-Fri, Sat, Sun & bank holidays) Check: 3 + 35",
        [GF],
    ),
    (
        "natural",
        "Playing Thornfield Park on 20 April 2027 from the yellows - how long will the 6th be that day?",
        num(141, "yards"),
        "«TEMPORARY GREEN on hole 6 until 30 April 2027: the hole plays 141 yards from all tees» (the card's "
        "«6 Old Quarry 198 176 150» does not apply until 1 May) Check: 141",
        [GC],
    ),
    (
        "natural",
        "My wife (index 20.1) wants to play the mixed Stableford at Thornfield from the yellow tees with me. "
        "What course rating and slope does she use for her course handicap from there?",
        refused("a ladies' course rating and slope from the yellow tees"),
        "The card rates «Yellow (men) 69.8 / 124» and «Red (ladies) 73.9 / 131» only; no ladies' rating from "
        "the yellow tees is given. Absent: «Yellow (ladies)» «ladies from the yellow»",
        [GC, GF],
    ),
    # ------------------------------------------------------------------ an airline e-ticket receipt
    (
        "single",
        "Booking QX7RTM: what time does the flight back from Lisbon take off?",
        text("19:55", "1955"),
        "«21APR SK 417 LISBON T1 / MANCHESTER T2 1955 2240» Check: '19:55'",
        [AT],
    ),
    (
        "single",
        "which fare basis is Ms Okafor's outbound Manchester-Lisbon sector ticketed on?",
        text("VLOWGB"),
        "«14APR SK 412 MANCHESTER T2 / LISBON T1 0640 0925 V VLOWGB» Check: 'VLOWGB'",
        [AT],
    ),
    (
        "chained",
        "Adaeze Okafor may have to cancel her Lisbon trip (ticket 742 2318867045) completely. If she asks, "
        "how much does Skylark refund?",
        num(26.06, "GBP"),
        "«TAX GBP 13.00GB» «TAX GBP 19.34UB» «TAX GBP 8.72YP» «Fare and carrier charge (YR) non-refundable.» "
        "«less an administration fee of GBP 15.00 per ticket» Check: round(13.00 + 19.34 + 8.72 - 15.00, 2)",
        [AT, AR],
    ),
    (
        "chained",
        "All in, what did the QX7RTM booking cost - the ticket plus the seat she paid for?",
        num(184.56, "GBP"),
        "«TOTAL GBP 175.56» «PAID SEAT 22A GBP 9.00» Check: round(175.56 + 9.00, 2)",
        [AT],
    ),
    (
        "chained",
        "Price up an upgrade of the SK 417 return to business class on booking QX7RTM, fee plus fare.",
        refused("a business class fare or upgrade fee for SK 417"),
        "The receipt and rules cover the economy fare bases VLOWGB and LSAVGB only («SKYLARK AIRWAYS - FARE "
        "RULES (economy, UK point of sale)»); no upgrade or business fare is priced. Absent: «business» "
        "«upgrade»",
        [AT, AR],
    ),
    (
        "three_agent",
        "```\n"
        "total = out_fee + back_fee + 12.00 + 7.50\n"
        'print(f"GBP {total:.2f}")\n'
        "```\n"
        "That's my sum for moving both flights on booking QX7RTM (the fare differences are 12.00 and 7.50). "
        "out_fee is the change charge for the VLOWGB fare, back_fee the one for LSAVGB, both for tickets "
        "issued "
        "after 1 Feb 2027, and ignore any Silver waiver. What does it print?",
        num(114.50, "GBP"),
        "«VLOWGB: charge GBP 55.00 per change per direction» «LSAVGB: charge GBP 40.00 per change per "
        "direction» «DATE OF ISSUE: 03MAR27» Check: run(out_fee=55.00, back_fee=40.00)",
        [AT, AR],
    ),
    (
        "three_agent",
        "For my baby on the same Skylark booking: evaluate `print(round(infant_pct / 100 * 110.50, 2))` "
        "where infant_pct is the percentage of the adult fare Skylark charges for an infant on a lap.",
        refused("the infant fare percentage"),
        "The fare rules price «Child 2-11 years: 75% of the adult fare» only; nothing for a child under "
        "two on "
        "a lap. Absent: «infant» «under 2» «lap»",
        [AT, AR],
    ),
    (
        "natural",
        "I'm Skylark Silver and I already moved my outbound on booking QX7RTM once. Now I want to push the "
        "Lisbon-Manchester flight back two days; the new fare is GBP 6 more. What do I pay for this change?",
        num(46, "GBP"),
        "«the change charge is waived for the FIRST change on a booking; further changes are charged as "
        "above. "
        "The fare difference is always payable.» «LSAVGB: charge GBP 40.00 per change per direction» "
        "Check: 40.00 + 6",
        [AT, AR],
    ),
    (
        "natural",
        "Ms Okafor (Silver) is checking in three 20 kg suitcases on each flight of her return trip, all "
        "added "
        "online. What do the bags cost her on top of the fare?",
        num(90, "GBP"),
        "«1PC = one checked bag of up to 23 kg» «SILVER members: one extra checked bag of up to 23 kg free "
        "on "
        "every flight.» «Extra checked bag: GBP 45 per bag per flight booked online» one paid bag on each of "
        "two flights. Check: (3 - 1 - 1) * 45 * 2",
        [AT],
    ),
    (
        "natural",
        "I'm on the 06:40 to Lisbon on the 14th. What's the latest I can check in?",
        text("06:00", "6:00", "0600", "6am", "6 am"),
        "«14APR SK 412 MANCHESTER T2 / LISBON T1 0640» «Check-in closes 40 minutes before departure» "
        "Check: clock('06:40', -40)",
        [AT],
    ),
    # ------------------------------------------------------------------ a dental treatment plan
    (
        "single",
        "On Tomasz Wieczorek's Larchmont treatment plan, which tooth is getting the root canal?",
        text("LR4", "lower right 4"),
        "«Root canal treatment (1 canal) LR4 2» Check: 'LR4'",
        [DP],
    ),
    (
        "single",
        "Larchmont Dental - what's their price for a single dental implant?",
        refused("the fee for a dental implant"),
        "The plan prices scheme bands and a few private items (hygienist, whitening, a composite filling); "
        "no implant. Absent: «implant»",
        [DP],
    ),
    (
        "chained",
        "How much more is a Band 3 course at Larchmont after the April 2027 rise than before it?",
        num(7.60, "GBP"),
        "«Band 3 GBP 319.10 GBP 326.70» (until 31 March 2027, from 1 April 2027) Check: round(326.70 - "
        "319.10, 2)",
        [DP],
    ),
    (
        "chained",
        "I've booked two 45-minute private hygienist sessions and one half-hour one at Larchmont. Total?",
        num(232, "GBP"),
        "«Hygienist appointment, 45 min - GBP 85.00» «Hygienist appointment, 30 min - GBP 62.00» "
        "Check: 2 * 85.00 + 62.00",
        [DP],
    ),
    (
        "chained",
        "A course with a crown starting after 1 April 2027 - what's the half Larchmont wants up front before "
        "the lab work?",
        num(163.35, "GBP"),
        "«half of the charge is payable before the laboratory work is ordered» «Band 3 GBP 319.10 GBP "
        "326.70» "
        "Check: round(326.70 / 2, 2)",
        [DP],
    ),
    (
        "three_agent",
        "Here's a helper I wrote for dental estimates:\n\n"
        "```python\n"
        "def course_charge(bands, charges):\n"
        "    return charges[max(bands)]\n"
        "```\n\n"
        "With charges = {1: b1, 2: b2, 3: b3} holding Larchmont's band charges from 1 April 2027, what would "
        "course_charge([1, 2, 2], charges) give?",
        num(75.30, "GBP"),
        "«Band 1 GBP 26.80 GBP 27.40» «Band 2 GBP 73.50 GBP 75.30» «Band 3 GBP 319.10 GBP 326.70» the "
        "highest "
        "band is 2. Check: 75.30",
        [DP],
    ),
    (
        "three_agent",
        "Fill in the zeros from the Larchmont treatment plan and tell me what this prints:\n\n"
        "```python\n"
        "band_1_old = 0.00   # Band 1 charge until 31 March 2027\n"
        "urgent_new = 0.00   # urgent treatment charge from 1 April 2027\n"
        "print(round(urgent_new - band_1_old, 2))\n"
        "```",
        num(0.60, "GBP"),
        "«Band 1 GBP 26.80 GBP 27.40» «Urgent treatment GBP 26.80 GBP 27.40» Check: round(27.40 - 26.80, 2)",
        [DP],
    ),
    (
        "three_agent",
        "run print(ortho + 62.00) with ortho the Band 4 orthodontic charge Larchmont lists",
        refused("a Band 4 (orthodontic) charge"),
        "The plan lists «Band 1», «Band 2», «Band 3» and «Urgent treatment» only. Absent: «Band 4» «ortho»",
        [DP],
    ),
    (
        "natural",
        "I'm Mr Wieczorek (plan TP-22417). My crown fit isn't until 20 April, after the April price rise. "
        "What "
        "will the whole course cost me?",
        num(319.10, "GBP"),
        "«a course of treatment is charged ONCE, at the highest band of any item in it» «The charge that "
        "applies is the one in force on the date the course of treatment began (the examination date "
        "above).» "
        "«Examination date: 12/03/2027» «Porcelain-fused-to-metal crown LR4 3» «Band 3 GBP 319.10 GBP "
        "326.70» "
        "(20 April is within «2 months of the examination») Check: 319.10",
        [DP],
    ),
    (
        "natural",
        "Same plan TP-22417, but I've decided to pay for the tooth-coloured filling on LL7 rather than the "
        "standard one. Once it's all done, what will I have paid Larchmont altogether?",
        num(414.10, "GBP"),
        "«Tooth-coloured (composite) filling on a back tooth, instead of amalgam LL7 GBP 95.00 (replaces the "
        "scheme item)» the course still has the Band 3 crown, charged at the examination date: «Band 3 GBP "
        "319.10 GBP 326.70» «Examination date: 12/03/2027» Check: 319.10 + 95.00",
        [DP],
    ),
]
