"""Probe12 goals over an irrigation controller's program report with a committee's water note, a knitting
pattern with sizes in brackets and a yarn shop's price list, and a bureau de change rate board with a
receipt."""

from goal_kinds import EB, ER, IR, IW, KP, KS, day, num, refused, text

GOALS_B = [
    # ------------------------------------------------------------------ an irrigation controller report
    (
        "single",
        "How many minutes is the orchard drip line set to run on the Greenrow controller (before any "
        "seasonal adjustment)?",
        num(40, "min"),
        "«05 ORCHARD DRIP LINE 40 4.8» Check: 40",
        [IR],
    ),
    (
        "single",
        "Greenrow orchard's RX-8 report - what flow in litres a minute does the meadow strip zone show?",
        num(22.0, "L/min"),
        "«04 MEADOW STRIP 25 22.0» (RUN MIN, FLOW L/MIN) Check: 22.0",
        [IR],
    ),
    (
        "single",
        "According to the controller printout, on what date does Program B next water at Greenrow?",
        day("2027-06-03"),
        "«PGM B INTERVAL: EVERY 3 DAYS NEXT: 03-JUN» «Printed: 02-JUN-2027 07:12 (WED)» Check: date(2027, "
        "6, 3)",
        [IR],
    ),
    (
        "chained",
        "With the 120% seasonal adjustment in force, how many litres does the meadow strip get each time "
        "Program B runs?",
        num(660, "L"),
        "«SEASONAL ADJ : 120 % (applies to PGM A and PGM B only)» «04 MEADOW STRIP 25 22.0» 25 x 1.2 = 30 "
        "min. "
        "Check: nearest(25 * 1.2, 1) * 22.0",
        [IR],
    ),
    (
        "chained",
        "Work out what the orchard's water for the week of 24 May 2027 cost at the volumetric rate, from "
        "that "
        "week's meter readings.",
        refused("the meter readings for the week of 24 May 2027"),
        "The note gives monthly readings only («Meter readings (m3): 1 May 1841.6 | 1 June 1868.9»); no "
        "reading for that week. Absent: «24 May» «24-MAY» «weekly reading»",
        [IR, IW],
    ),
    (
        "three_agent",
        "The RX-8's export names its settings SEASONAL_ADJ (a percentage) and RUN_MIN (per zone). Set them "
        "from the Greenrow report for zone 01; what does `print(round(RUN_MIN * SEASONAL_ADJ / 100))` show?",
        num(14, "min"),
        "«SEASONAL ADJ : 120 %» «01 ESPALIER WALL 12 9.5» 12 x 1.2 = 14.4 -> 14. Check: run(RUN_MIN=12, "
        "SEASONAL_ADJ=120)",
        [IR],
    ),
    (
        "three_agent",
        "Greenrow zones 01 and 03 water together under Program A. With `use = lambda minutes, lpm: minutes * "
        "lpm`, what is `use(a, f1) + use(b, f3)` when a and b are those zones' run times after the seasonal "
        "adjustment (rounded as the report says) and f1, f3 their flows in L/min?",
        num(195.0, "L"),
        "«01 ESPALIER WALL 12 9.5» «03 NURSERY BED 8 6.2» «SEASONAL ADJ : 120 %» «the result is rounded to "
        "the "
        "nearest whole minute» 12 x 1.2 = 14.4 -> 14, 8 x 1.2 = 9.6 -> 10. Check: 14 * 9.5 + 10 * 6.2",
        [IR],
    ),
    (
        "natural",
        "Friday morning at Greenrow: Program A kicks off at its first start time. When does the nursery bed "
        "finish? (Nobody has touched the valves since the report.)",
        text("05:54", "5:54"),
        "«PGM A DAYS: MON WED FRI STARTS: 05:30 21:00» «SEASONAL ADJ : 120 %» «01 ESPALIER WALL 12» «02 SOFT "
        "FRUIT CAGE 18 14.0 ** VALVE OFF 20-MAY (FRAME REPAIR) **» «A zone whose valve is off is skipped and "
        "takes no time.» «03 NURSERY BED 8» 14 + 10 minutes. Check: clock('05:30', nearest(12 * 1.2, 1) + "
        "nearest(8 * 1.2, 1))",
        [IR],
    ),
    (
        "natural",
        "First week of June we got through 6,800 litres at the orchard, hosepipe included. What do the "
        "litres "
        "over the drought allowance cost us for that week?",
        num(3.63, "GBP"),
        "«6,000 litres a week June to August» «Anything over that in a week is charged at the volumetric "
        "rate "
        "x 2» «Hosepipe use outside the controller counts towards the same allowance.» «GBP 2.27 per m3 "
        "from 1 "
        "April 2027» 800 L = 0.8 m3. Check: round(0.8 * 2.27 * 2, 2)",
        [IW],
    ),
    (
        "natural",
        "We want to add the new herb spiral as zone 08 on Program A for 15 minutes each start. How much "
        "water "
        "does that add a week?",
        refused("the flow rate of zone 08 (the herb spiral)"),
        "The report lists zones 01 to 07 with their flows; no zone 08 or herb spiral, so its flow is "
        "unknown. "
        "Absent: «zone 08» «herb spiral»",
        [IR, IW],
    ),
    # ------------------------------------------------------------------ a knitting pattern
    (
        "single",
        "Harbour Gansey (TY118), the size that fits a 107 cm chest: how many balls of Fathom?",
        num(12, "balls"),
        "«To fit chest 86 (91, 97, 102, 107, 112) cm» «Main colour, Fathom 8 (9, 9, 10, 12, 13) balls» the "
        "fifth figure; «Second printing, March 2027: the yarn amounts for the two largest sizes were "
        "corrected "
        "(first printing said 11 and 12 balls).» Check: 12",
        [KP],
    ),
    (
        "single",
        "How many stitches do I cast on for the child's 6-7 years size of the Harbour Gansey?",
        refused("a child's size in pattern TY118"),
        "The pattern is «adult unisex pullover»: sizes «To fit chest 86 (91, 97, 102, 107, 112) cm» only. "
        "Absent: «years» «child»",
        [KP],
    ),
    (
        "chained",
        "Yarn for the smallest Harbour Gansey in Fathom, balls bought singly at this spring's prices - how "
        "much?",
        num(67.20, "GBP"),
        "«Main colour, Fathom 8 (9, 9, 10, 12, 13) balls» «Tallis Aran Wool, heathers (incl. Fathom, Sea "
        "Pink) 8.40 7.90» Check: round(8 * 8.40, 2)",
        [KP, KS],
    ),
    (
        "chained",
        "TY118: how many more stitches go on the needle at the cast-on for the biggest size than for the "
        "smallest?",
        num(48, "sts"),
        "«cast on 172 (180, 192, 200, 210, 220) sts» Check: 220 - 172",
        [KP],
    ),
    (
        "chained",
        "In the Harbour Gansey, how much ease does the 102 cm size have - actual chest minus the chest it's "
        "meant to fit?",
        num(10, "cm"),
        "«To fit chest 86 (91, 97, 102, 107, 112) cm» «Actual chest 96 (101, 107, 112, 117, 122) cm» Check: "
        "112 - 102",
        [KP],
    ),
    (
        "three_agent",
        "Quick tension sanity check for my gansey: what does `print(round(sts / 18 * 10, 1))` give if sts is "
        "the number of stitches TY118 has you cast on for the 91 cm size? (Body circumference in cm at 18 "
        "stitches per 10 cm.)",
        num(100.0, "cm"),
        "«cast on 172 (180, 192, 200, 210, 220) sts» second size 180. «18 sts and 24 rows to 10 cm» Check: "
        "run(sts=180)",
        [KP],
    ),
    (
        "three_agent",
        "```python\n"
        "m_per_ball = 0      # metres in a 50 g ball of Tallis Aran Wool\n"
        "balls = 0           # Fathom balls for the 97 cm Harbour Gansey\n"
        "print(m_per_ball * balls)\n"
        "```\n"
        "Fill both in and run it.",
        refused("the metres in a 50 g ball of Tallis Aran Wool"),
        "Tallis Aran is sold as «100 g, approx 180 m per ball» only; there is no 50 g ball. Absent: «50 g "
        "ball of» "
        "«50g»",
        [KP, KS],
    ),
    (
        "natural",
        "My chest is 100 cm. I'd like the Harbour Gansey kit in Fathom (no contrast), sent by post. What's "
        "the "
        "total to pay Tallis?",
        num(75.60, "GBP"),
        '«Choose the size by the "to fit" chest; between two sizes, take the larger one.» «To fit chest 86 '
        "(91, 97, 102, 107, 112) cm» -> 102 «Main colour, Fathom 8 (9, 9, 10, 12, 13) balls» -> 10 «Tallis "
        "Aran Wool, heathers (incl. Fathom, Sea Pink) 8.40» «the pattern is free and the yarn is 10% off» "
        "«Orders of GBP 40 or more (after discounts): free.» Check: round(10 * 8.40 * 0.9, 2)",
        [KP, KS],
    ),
    (
        "natural",
        "I always knit loose - 20 stitches to 10 cm on 5 mm needles. Going for the 112 cm Harbour Gansey, "
        "how "
        "many balls of the main colour should I get?",
        num(14, "balls"),
        "«A knitter who works 20 sts to 10 cm will need one ball more than stated.» «Main colour, Fathom 8 "
        "(9, "
        "9, 10, 12, 13) balls» «To fit chest 86 (91, 97, 102, 107, 112) cm» Check: 13 + 1",
        [KP],
    ),
    (
        "natural",
        "I only need the Sea Pink contrast for the 91 cm gansey, plus the PDF pattern, posted to me. What "
        "does "
        "that come to?",
        num(15.85, "GBP"),
        "«Contrast, Sea Pink (optional, for the yoke stripes) 1 (1, 1, 1, 2, 2) balls» «Tallis Aran Wool, "
        "heathers (incl. Fathom, Sea Pink) 8.40» «PDF pattern 3.50» «Under GBP 40: GBP 3.95.» "
        "Check: round(8.40 + 3.50 + 3.95, 2)",
        [KP, KS],
    ),
    # ------------------------------------------------------------------ a bureau de change
    (
        "single",
        "Harbourgate on 10 May 2027 - their 'we sell' rate for Norwegian krone?",
        num(12.64),
        "«Norwegian Krone NOK 12.6400 14.2100» Check: 12.64",
        [EB],
    ),
    (
        "single",
        "Receipt HG-0551873: until what date can the euros be sold back under the guarantee?",
        day("2027-06-09"),
        "«Buy Back Guarantee ref BBG-77410: valid until 09/06/2027» Check: date(2027, 6, 9)",
        [ER],
    ),
    (
        "single",
        "How many pounds did the 200 US dollars on Harbourgate receipt HG-0551873 cost?",
        num(164.74, "GBP"),
        "«USD 200.00 @ 1.2140 GBP 164.74» Check: 164.74",
        [ER],
    ),
    (
        "chained",
        "If I hand over GBP 300 at the Quay Street Harbourgate on 10 May 2027, how many euros do I walk "
        "away with? (Commission comes on top, not out of the euros.)",
        num(333.60, "EUR"),
        '«Euro EUR 1.1120 1.2210» «"We sell": the foreign currency you receive for each GBP 1 you hand '
        "over.» Check: round(300 * 1.1120, 2)",
        [EB],
    ),
    (
        "chained",
        "What would GBP 250 buy in Danish kroner at Harbourgate's 10 May board?",
        refused("a Danish krone rate"),
        "The board lists EUR, USD, CHF, NOK, PLN, TRY and JPY («Norwegian Krone NOK 12.6400 14.2100» is the "
        "only krone). Absent: «Danish» «DKK»",
        [EB],
    ),
    (
        "three_agent",
        "```python\n"
        "gbp = 1200\n"
        "rate = board * (1.01 if gbp >= 1000 else 1)\n"
        "print(round(gbp * rate, 2))\n"
        "```\n"
        "board should be Harbourgate's euro 'we sell' rate for Monday 10 May 2027. Euros out?",
        num(1347.74, "EUR"),
        "«Euro EUR 1.1120 1.2210» «Orders of GBP 1,000 or more get 1% more currency than the board rate» "
        "Check: run(board=1.1120)",
        [EB],
    ),
    (
        "three_agent",
        "Selling my leftover dollars back to Harbourgate on 10 May, no guarantee bought:\n\n"
        "```python\n"
        "def back_to_pounds(notes, rate, fee):\n"
        "    return round(notes / rate - fee, 2)\n\n"
        "print(back_to_pounds(notes, rate, fee))\n"
        "```\n\n"
        "notes = 90 (USD); rate is the board's US dollar 'we buy' figure and fee the commission for selling "
        "currency back. What comes out?",
        num(64.22, "GBP"),
        "«US Dollar USD 1.2140 1.3390» «Selling currency back to us: GBP 2.99 per transaction, waived with a "
        "Buy Back Guarantee.» Check: run(notes=90, rate=1.3390, fee=2.99)",
        [EB],
    ),
    (
        "three_agent",
        "Let x be Harbourgate's yen 'we sell' rate on 10 May 2027 and y its euro one. Have Python compute "
        "round(x / y, 4) - the yen per euro those two rates imply.",
        num(158.4532, tol=0.0001),
        "«Japanese Yen JPY 176.2000 199.4000» «Euro EUR 1.1120 1.2210» Check: round(176.2 / 1.1120, 4)",
        [EB],
    ),
    (
        "natural",
        "This is L. Achebe - I bought euros and dollars at Harbourgate on 10 May with the buy-back "
        "guarantee. "
        "On 2 June I'm back with EUR 120 of unspent notes. How many pounds do I get for them?",
        num(107.91, "GBP"),
        "«Within 30 days of the purchase we buy back your unused notes (up to the amount you bought) at the "
        "SAME rate you bought them at, with no commission.» «EUR 650.00 @ 1.1120 GBP 584.53» «valid until "
        "09/06/2027, covers the EUR on this receipt only» Check: round(120 / 1.1120, 2)",
        [EB, ER],
    ),
    (
        "natural",
        "Off to Budapest next week and want GBP 250 worth of forint from Harbourgate - how many forint is "
        "that "
        "at today's board (10 May 2027)?",
        refused("a Hungarian forint rate"),
        "The board's currencies are EUR, USD, CHF, NOK, PLN, TRY and JPY («Polish Zloty PLN 4.6100 5.3200»); "
        "no forint. Absent: «forint» «HUF»",
        [EB],
    ),
]
