"""Probe6 goals: the campsite tariff, the mountain hut, the chess congress and the pest control charges."""

from goal_kinds import CH, FP, HC, PC, day, num, refused, text

GOALS_B = [
    # ------------------------------------------------------------------ a campsite tariff (org-mode tables)
    (
        "single",
        "What does a lakeside pitch cost per night in mid season at Pennock Sands?",
        num(60, "CHF"),
        "«| Lakeside pitch | 48 | 60 | 77 |» «| Mid | 22 May - 9 July; 31 Aug - 13 Sept |» Check: 60",
        [PC],
    ),
    (
        "single",
        "On which date does the 2026 high season end at Pennock Sands Camping?",
        day("2026-08-30"),
        "«| High | 10 July - 30 Aug |» «Dates without a year are in 2026.» Check: date(2026, 8, 30)",
        [PC],
    ),
    (
        "single",
        "Per night, how much is a glamping pod at Pennock Sands?",
        refused("the price of a glamping pod"),
        "the site has tent, touring, comfort and lakeside pitches only. Absent: «glamping» «pod»",
        [PC],
    ),
    (
        "chained",
        "Find the high-season price of a comfort pitch and the price of an electric hook-up at Pennock "
        "Sands, then calculate seven nights with electricity.",
        num(504, "CHF"),
        "«| Comfort pitch (hardstanding, water, drain) | 43 | 51 | 66 |» «| Electric hook-up (10 A) | 6 |» "
        "Check: 7 * (66 + 6)",
        [PC],
    ),
    (
        "chained",
        "Look up when the high season at Pennock Sands starts and ends, and count how many days it lasts, "
        "first and last day included.",
        num(52, "days"),
        "«| High | 10 July - 30 Aug |» «Dates without a year are in 2026.» "
        "Check: (date(2026, 8, 30) - date(2026, 7, 10)).days + 1",
        [PC],
    ),
    (
        "chained",
        "Look up the nightly price of a 16 A electric hook-up at Pennock Sands and multiply it by 5 nights.",
        refused("the price of a 16 A hook-up"),
        "the tariff lists a 10 A hook-up only. Absent: «16 A»",
        [PC],
    ),
    (
        "three_agent",
        "Retrieve the tourist tax per adult per night and the price of an additional adult at Pennock "
        "Sands, compute what one extra adult costs for a night with the tax, and pass it as a to "
        "`print(a * 10)`.",
        num(123),
        "«| Additional adult (16+) | 9.5 |» «Tourist tax: CHF 2.80 per person aged 16 or over per night» "
        "Check: run(a=9.5 + 2.80)",
        [PC],
    ),
    (
        "three_agent",
        "Get the low-season and the high-season prices of a touring pitch, take the difference, and run\n"
        "```python\nprint(diff * 14)\n```\nwith diff bound to it.",
        num(308),
        "«| Touring pitch (grass) | 32 | 41 | 54 |» Check: run(diff=54 - 32)",
        [PC],
    ),
    (
        "three_agent",
        "Find the 2027 high-season price of a tent pitch at Pennock Sands, add the dog charge, and pass the "
        "sum to `print(p * 3)` as p.",
        refused("the 2027 tent pitch price"),
        "the tariff is for 2026; for 2027 it only gives the closing dates. Absent: «Tariff 2027» "
        "«prices 2027»",
        [PC],
    ),
    (
        "natural",
        "We're two adults with children aged 7 and 2 and a dog, on a small tent pitch for 3 nights from "
        "15 June. What's the bill including tourist tax?",
        num(138.3, "CHF"),
        "«| Mid | 22 May - 9 July; 31 Aug - 13 Sept |» «| Tent pitch (small, up to 3 x 3 m) | 24 | 31 | "
        "39 |» "
        "«Prices include the pitch, one vehicle and two adults.» «| Child 4-15 | 5.5 |» "
        "«| Child under 4 | free |» «| Dog (max. 2 per pitch) | 4 |» "
        "«Tourist tax: CHF 2.80 per person aged 16 or over per night» "
        "Check: 3 * (31 + 5.5 + 4) + 3 * 2 * 2.80",
        [PC],
    ),
    (
        "natural",
        "Two of us want a touring pitch with a hook-up for 16 nights from 1 October. What do we pay, "
        "tourist tax included?",
        num(595.2, "CHF"),
        "«| Low | 20 March - 21 May; 14 Sept - 1 Nov |» «| Touring pitch (grass) | 32 | 41 | 54 |» "
        "«| Electric hook-up (10 A) | 6 |» "
        "«Stays of 14 nights or more in low season get 20 % off the pitch price (not the extras, not "
        "the tax).» "
        "«Tourist tax: CHF 2.80 per person aged 16 or over per night» "
        "Check: 16 * 32 * 0.8 + 16 * 6 + 16 * 2 * 2.80",
        [PC],
    ),
    (
        "natural",
        "We paid CHF 380 for our stay and had to cancel it 40 days before arrival. How much do we get back?",
        num(355, "CHF"),
        "«Cancellations up to 30 days before arrival are refunded minus CHF 25» Check: 380 - 25",
        [PC],
    ),
    (
        "natural",
        "What will a touring pitch at Pennock Sands cost us on the night of 20 December 2026?",
        refused("a pitch price for 20 December"),
        "the site is closed from 2 November 2026 to 18 March 2027; no price is given then. "
        "Absent: «December»",
        [PC],
    ),
    # ------------------------------------------------------------------ a mountain hut (recfile records)
    (
        "single",
        "How much does half board cost a youth at the Cairnbeg Hut?",
        num(38, "CHF"),
        "«Item: Half board (dinner and breakfast) Adult: 54.00 Youth 7-17: 38.00» Check: 38",
        [CH],
    ),
    (
        "single",
        "At what altitude does the Cairnbeg Hut stand?",
        num(2418, "m"),
        "«Cairnbeg Hut (2,418 m)» Check: 2418",
        [CH],
    ),
    (
        "single",
        "What is the nightly price of a private double room at the Cairnbeg Hut?",
        refused("the price of a private double room"),
        "the hut prices places per person; it has no private rooms. Absent: «double room» «private»",
        [CH],
    ),
    (
        "chained",
        "Find the non-member adult overnight price and the adult half-board price at Cairnbeg, then work "
        "out what two non-member adults pay for two nights with half board.",
        num(384, "CHF"),
        "«Category: Adult Member: 28.00 Non-member: 42.00» «Item: Half board (dinner and breakfast) "
        "Adult: 54.00» "
        "Check: 2 * 2 * (42 + 54)",
        [CH],
    ),
    (
        "chained",
        "Look up the euro exchange rate the Cairnbeg Hut uses and run `print(round(96 / rate, 2))` with "
        "rate set to it.",
        num(103.23),
        "«EUR at a rate of 1 EUR = 0.93 CHF» Check: run(rate=0.93)",
        [CH],
    ),
    (
        "chained",
        "Look up what a hot shower costs at the Cairnbeg Hut and multiply it by three people.",
        refused("the price of a shower"),
        "the hut sells overnights, meals, tea and water; no showers. Absent: «shower»",
        [CH],
    ),
    (
        "three_agent",
        "Get the member and the non-member overnight prices for an adult at Cairnbeg, compute what a member "
        "saves per night, and pass it as s to `print(s * 6)`.",
        num(84),
        "«Category: Adult Member: 28.00 Non-member: 42.00» Check: run(s=42 - 28)",
        [CH],
    ),
    (
        "three_agent",
        "Find the price of a packed lunch and of a litre of hut tea, work out 3 packed lunches plus 2 litres "
        "of tea, and run `print(f'CHF {c:.2f}')` with c bound to that cost.",
        num(54.5),
        "«Item: Packed lunch Price: 13.50» «Item: Hut tea, 1 litre Price: 7.00» Check: run(c=3 * 13.50 "
        "+ 2 * 7)",
        [CH],
    ),
    (
        "three_agent",
        "Find what the Cairnbeg Hut charges to rent a sleeping-bag liner, multiply it by 4 and pass the "
        "result as x to `print(x)`.",
        refused("the sleeping-bag liner rental price"),
        "the hut lists no rentals. Absent: «liner» «sleeping bag» «sleeping-bag»",
        [CH],
    ),
    (
        "natural",
        "We're 14 adults, none of us Alpine Club members, staying one night at Cairnbeg without meals; "
        "our leader is one of the 14. What does the group pay?",
        num(546, "CHF"),
        "«Category: Adult Member: 28.00 Non-member: 42.00» "
        "«group leader stays free if the group has at least 12 paying adults.» Check: (14 - 1) * 42",
        [CH],
    ),
    (
        "natural",
        "Two adult members booked one night with half board at Cairnbeg and cancelled 2 days before "
        "arrival. What do they owe the hut?",
        num(82, "CHF"),
        "«Category: Adult Member: 28.00» «Item: Half board (dinner and breakfast) Adult: 54.00» "
        "«2 days or less before arrival: 50 % of the overnight and half» Check: 0.5 * 2 * (28 + 54)",
        [CH],
    ),
    (
        "natural",
        "Our family of four, all Alpine Club members (two adults, children aged 5 and 9), sleeps two nights "
        "at the hut without meals. What is the bill?",
        num(140, "CHF"),
        "«Category: Adult Member: 28.00» «Category: Youth 7-17 Member: 14.00» "
        "«Category: Child under 7 (with parents) Member: 0.00» Check: 2 * (2 * 28 + 14 + 0)",
        [CH],
    ),
    (
        "natural",
        "How much does the Cairnbeg Hut charge for a mountain guide for a day?",
        refused("the price of a mountain guide"),
        "the hut offers beds and meals only. Absent: «guide»",
        [CH],
    ),
    # ------------------------------------------------------------------ a chess congress entry form (GBP)
    (
        "single",
        "What time control is used in the Minor section of the Haddow Chess Congress?",
        text("75 minutes plus 15 seconds per move", "75 minutes plus 15 seconds", "75 min + 15 s"),
        "«Major and Minor: 75 minutes plus 15 seconds per move.» Check: '75 minutes plus 15 seconds per "
        "move'",
        [HC],
    ),
    (
        "single",
        "When does round 4 begin at the Haddow congress?",
        text("09:30", "9:30"),
        "«Round 4 Sun 09:30» Check: '09:30'",
        [HC],
    ),
    (
        "single",
        "haddow congress 2026 - minor section, second prize?",
        num(80, "GBP"),
        "«Minor: 1st £150 2nd £80 3rd £45» Check: 80",
        [HC],
    ),
    (
        "single",
        "What is the entry fee for the under-12 section at the Haddow Chess Congress?",
        refused("the under-12 section entry fee"),
        "the sections are Open, Major and Minor. Absent: «under-12» «under 12 section»",
        [HC],
    ),
    (
        "chained",
        "Find the Open entry fee and the game fee for players who aren't ECF Gold members, then work out "
        "what such a player pays to enter the Open on time.",
        num(47, "GBP"),
        "«OPEN - any rating ........................................... £38» "
        "«Not an ECF Gold member: game fee ............................. £9» Check: 38 + 9",
        [HC],
    ),
    (
        "chained",
        "Look up the closing date for entries and the date of round 1 at Haddow, and calculate how many "
        "days lie between them.",
        num(4, "days"),
        "«Entries close on 12 October 2026.» «Friday 16 - Sunday 18 October 2026» «Round 1 Fri 19:00» "
        "Check: (date(2026, 10, 16) - date(2026, 10, 12)).days",
        [HC],
    ),
    (
        "chained",
        "Look up the entry fee of the Haddow Rapidplay and add the late-entry surcharge to it.",
        refused("the Rapidplay entry fee"),
        "the congress has no rapid event. Absent: «rapidplay» «rapid»",
        [HC],
    ),
    (
        "three_agent",
        "Retrieve the 1st, 2nd and 3rd prizes of the Open at Haddow, add them, and feed the total p into "
        "`print(p / 5)`.",
        num(140),
        "«Open: 1st £400 2nd £200 3rd £100» Check: run(p=400 + 200 + 100)",
        [HC],
    ),
    (
        "three_agent",
        "Find the Major entry fee and the late-entry surcharge, compute what a junior entering the Major "
        "late pays, bind it to f and run\n```python\nprint(f'{f + 0.75:.2f}')\n```",
        num(25.75),
        "«MAJOR - ECF rating under 1900 ................................ £34» "
        "«Late-entry surcharge for entries received after 30 September . £8» "
        "«Juniors (under 18 on 1 September 2026) and players aged 65 or over pay half the entry fee (the "
        "late-entry surcharge and the game fee are not reduced).» Check: run(f=34 / 2 + 8)",
        [HC],
    ),
    (
        "three_agent",
        "Look up the Open entry fee of the 2025 Haddow Congress, double it and pass it as v to `print(v)`.",
        refused("the 2025 Open entry fee"),
        "the form is for the 2026 congress only. Absent: «2025»",
        [HC],
    ),
    (
        "natural",
        "I'm 67 and not an ECF Gold member. I'll post my entry for the Major in mid-September. What do "
        "I pay?",
        num(26, "GBP"),
        "«MAJOR - ECF rating under 1900 ................................ £34» "
        "«players aged 65 or over pay half the entry fee» "
        "«Not an ECF Gold member: game fee ............................. £9» Check: 34 / 2 + 9",
        [HC],
    ),
    (
        "natural",
        "Three players tie for first place in the Open at Haddow, sharing 1st to 3rd. What does each get?",
        num(233.33, "GBP"),
        "«Open: 1st £400 2nd £200 3rd £100» «Tied players share the prizes for their places equally.» "
        "Check: (400 + 200 + 100) / 3",
        [HC],
    ),
    (
        "natural",
        "Round 3 at Haddow starts on time and my opponent hasn't turned up. After what clock time does my "
        "opponent lose by default?",
        text("16:00"),
        "«Round 3 Sat 15:30» «a player who arrives more than 30 minutes after the start of the round loses "
        "the game» Check: clock('15:30', 30)",
        [HC],
    ),
    (
        "natural",
        "How much is a ticket for the Saturday dinner at the Haddow Chess Congress?",
        refused("the price of the congress dinner"),
        "the form prices entries only. Absent: «dinner»",
        [HC],
    ),
    # ---------------------------------------- pest control charges (a contract schedule)
    (
        "single",
        "How long does Felgate guarantee a cockroach treatment?",
        num(60, "days"),
        "«Cockroaches: 60 days.» Check: 60",
        [FP],
    ),
    (
        "single",
        "What does Felgate Pest Solutions charge to heat-treat one room for bed bugs?",
        num(410, "EUR"),
        "«Bed bugs, heat treatment per room ............... EUR 410.00» Check: 410",
        [FP],
    ),
    (
        "single",
        "What is Felgate's price for treating clothes moths?",
        refused("the price of a moth treatment"),
        "the treatments are wasps, bed bugs, cockroaches, birds and flies. Absent: «moth»",
        [FP],
    ),
    (
        "chained",
        "How big is each quarterly invoice for Felgate's rodent and insect contract? Look up the yearly "
        "charge and work it out.",
        num(195, "EUR"),
        "«Rodent and insect control, 8 visits a year ...... EUR 780.00 a year per site» "
        "«Contract charges are invoiced quarterly in advance.» Check: 780 / 4",
        [FP],
    ),
    (
        "chained",
        "Find Felgate's price for the first wasp nest and for each further nest, then calculate a visit "
        "that removes four nests.",
        num(175, "EUR"),
        "«Wasp or hornet nest, first nest .................. EUR 85.00» "
        "«each further nest at the same visit ............. EUR 30.00» Check: 85 + 3 * 30",
        [FP],
    ),
    (
        "chained",
        "Look up the rodent-only contract price in revision B of Felgate's charges and compute the "
        "quarterly invoice from it.",
        refused("the revision B rodent contract price"),
        "the schedule is revision C. Absent: «revision B»",
        [FP],
    ),
    (
        "three_agent",
        "Retrieve Felgate's cockroach gel rate per 100 m², compute the charge for 250 m² of floor, and "
        "pass it as c to `print(round(c * 1.2, 2))`.",
        num(360),
        "«Cockroach gel treatment, per 100 m² of floor .... EUR 120.00 (minimum charge EUR 180.00)» "
        "Check: run(c=max(250 / 100 * 120, 180))",
        [FP],
    ),
    (
        "three_agent",
        "Look up the bird-proofing net price per m², work out 18 m² installed, and run "
        "`print(f'{n * 1.2:.2f}')` with n set to that charge.",
        num(594),
        "«Bird-proofing net, per m² installed ............. EUR 27.50» Check: run(n=18 * 27.50)",
        [FP],
    ),
    (
        "three_agent",
        "Find Felgate's charge for a termite inspection, add 20 % VAT, and pass the result to "
        "`print(t)` as t.",
        refused("the termite inspection charge"),
        "the schedule has no termite work. Absent: «termite»",
        [FP],
    ),
    (
        "natural",
        "A Sunday call-out from Felgate lasts 1 hour 40 minutes. What is the charge before VAT?",
        num(342, "EUR"),
        "«Weekdays 07:00-18:00: EUR 95.00 for the first hour, then EUR 38.00 per started half hour.» "
        "«Sundays and public holidays: the weekday charge doubled.» Check: 2 * (95 + ceil(40 / 30) * 38)",
        [FP],
    ),
    (
        "natural",
        "Our 2,000 m² warehouse is on Felgate's rodent-only contract and needs 10 routine visits this year. "
        "What's the yearly cost excluding VAT?",
        num(819, "EUR"),
        "«Rodent control, 8 visits a year ................. EUR 540.00 a year per site» "
        "«Each routine visit beyond the contracted 8 ...... EUR 72.00» "
        "«Sites larger than 1,500 m² add 25 % to (i) and (ii).» Check: 540 * 1.25 + (10 - 8) * 72",
        [FP],
    ),
    (
        "natural",
        "What will a cockroach gel treatment of our 120 m² kitchen cost, VAT included?",
        num(216, "EUR"),
        "«Cockroach gel treatment, per 100 m² of floor .... EUR 120.00 (minimum charge EUR 180.00)» "
        "«All prices exclude VAT at 20 %.» Check: max(120 / 100 * 120, 180) * 1.20",
        [FP],
    ),
]
