"""Probe5 goals over the lift pass prices, the tile adhesive data sheet, the council tax leaflet and the
roaming guide."""

from goal_kinds import BL, DC, GT, PR, day, num, refused, text

GOALS_B = [
    # ------------------------------------------------------------------ a lift pass price grid
    (
        "single",
        "How much is a 1-day child lift pass at Brannock Valley in mid season?",
        num(27, "EUR"),
        "«1 day Mid 54 43 27 48» Check: 27",
        [BL],
    ),
    (
        "single",
        "Brannock Valley Lifts, winter 2026/27: what does a senior season pass cost?",
        num(600, "EUR"),
        "«Season 690 520 310 600» «SENIOR (65+)» Check: 600",
        [BL],
    ),
    (
        "single",
        "On what date does the low season start at Brannock Valley this winter?",
        day("2026-12-05"),
        "«Low 5 Dec 2026 - 18 Dec 2026» Check: date(2026, 12, 5)",
        [BL],
    ),
    (
        "single",
        "What does a 3-day adult pass cost at Brannock Valley in high season?",
        refused("the price of a 3-day adult pass"),
        "near miss, another length: passes are sold for 1 day, 6 days and the season. "
        "Absent: «3 days» «3-day»",
        [BL],
    ),
    (
        "chained",
        "Look up the adult 6-day pass in high and in low season and work out what choosing low season saves.",
        num(77, "EUR"),
        "«6 days High 305» «6 days Low 228» Check: 305 - 228",
        [BL],
    ),
    (
        "chained",
        "Find the price of an adult season pass at Brannock, then run `print(round(p / 20, 2))` with p "
        "set to it.",
        num(34.5),
        "«Season 690 520 310 600» Check: run(p=690)",
        [BL],
    ),
    (
        "chained",
        "Get the high-season 1-day youth price at Brannock and calculate what passes for four "
        "teenagers cost.",
        num(196, "EUR"),
        "«1 day High 61 49 31 55» «YOUTH (13-17)» Check: 4 * 49",
        [BL],
    ),
    (
        "chained",
        "Get the Brannock adult 1-day price for summer 2027 and multiply it by three.",
        refused("the summer 2027 1-day price"),
        "near miss, another season: the grid is for winter 2026/27 only. Absent: «summer»",
        [BL],
    ),
    (
        "three_agent",
        "Retrieve the adult and the child 1-day prices for high season, sum them, and feed the sum s "
        "into `print(s * 5 - 10)`.",
        num(450),
        "«1 day High 61 49 31 55» Check: run(s=61 + 31)",
        [BL],
    ),
    (
        "three_agent",
        "What are the keycard deposit and the fee for replacing a lost season pass? Add them and let "
        "this code print the result for a group, with x the sum:\n```python\nprint(x * 4)\n```",
        num(100),
        "«Keycard deposit: EUR 5 per pass» «A lost season pass is replaced for EUR 20» Check: run(x=5 + 20)",
        [BL],
    ),
    (
        "three_agent",
        "Look up the high-season 6-day child pass and the high-season 1-day child price, compute how "
        "much more six separate days would cost than the 6-day pass, and pass that as extra to "
        "`print(extra * 3)`.",
        num(102),
        "«1 day High 61 49 31 55» «6 days High 305 244 152 274» Check: run(extra=6 * 31 - 152)",
        [BL],
    ),
    (
        "three_agent",
        "Find the price of a pedestrian gondola ticket at Brannock, triple it, and pass it as g to "
        "`print(g)`.",
        refused("the pedestrian ticket price"),
        "the grid prices ski lift passes only. Absent: «pedestrian» «gondola»",
        [BL],
    ),
    (
        "natural",
        "What will an adult afternoon pass at Brannock cost me on 12 December 2026?",
        num(35, "EUR"),
        "«Low 5 Dec 2026 - 18 Dec 2026» «1 day Low 46» «Afternoon pass (valid from 12:30): 75 % of the "
        "1-day price of the season, rounded up to the next whole euro.» Check: ceil(46 * 0.75)",
        [BL],
    ),
    (
        "natural",
        "We're two adults with kids aged 8 and 14, all buying 6-day passes that start on 2 January 2027. "
        "What's the bill, leaving out keycard deposits?",
        num(854, "EUR"),
        "«High 25 Dec 2026 - 3 Jan 2027» «6 days High 305 244 152 274» «the youngest child's pass is "
        "free» «A multi-day pass is priced by the season of its first day.» Check: 2 * 305 + 244",
        [BL],
    ),
    (
        "natural",
        "If I buy an adult season pass online on 20 November 2026, how much do I pay?",
        num(586.5, "EUR"),
        "«Season 690» «Early booking: season passes bought online by 30 November 2026 cost 15 % less.» "
        "Check: 690 * 0.85",
        [BL],
    ),
    (
        "natural",
        "How much did an adult 1-day pass at Brannock cost in the winter 2025/26?",
        refused("the 2025/26 adult 1-day price"),
        "near miss, another season: only winter 2026/27 is priced. Absent: «2025/26»",
        [BL],
    ),
    # ------------------------------------------------------------------ a tile adhesive data sheet
    (
        "single",
        "What's the pot life of Grivel Flex S1 once mixed?",
        num(4, "h"),
        "«Pot life .................. 4 hours at +20 °C» Check: 4",
        [GT],
    ),
    (
        "single",
        "How much Grivel Flex S1 powder per square metre does a 10 mm notch trowel use?",
        num(3.5, "kg/m²"),
        "«Notch trowel 10 mm ....... 3.5» Check: 3.5",
        [GT],
    ),
    (
        "single",
        "According to the Grivel data sheet, what is the consumption with a 15 mm notched trowel?",
        refused("the consumption with a 15 mm trowel"),
        "near miss, another trowel: 6, 8, 10 and 12 mm only. Absent: «15 mm»",
        [GT],
    ),
    (
        "chained",
        "Find the Grivel Flex S1 consumption for an 8 mm trowel and work out the powder for 18 m².",
        num(50.4, "kg"),
        "«Notch trowel 8 mm ........ 2.8» Check: 2.8 * 18",
        [GT],
    ),
    (
        "chained",
        "Get the 12 mm trowel consumption from the Grivel data sheet, then execute "
        "`import math; print(math.ceil(c * 52 / 5))` with c set to it.",
        num(43),
        "«Notch trowel 12 mm ....... 4.1» Check: run(c=4.1)",
        [GT],
    ),
    (
        "chained",
        "Look up the pot life of Grivel Flex S2 and convert it to minutes.",
        refused("the pot life of Grivel Flex S2"),
        "near miss, another product: the data sheet is for Flex S1. Absent: «Flex S2»",
        [GT],
    ),
    (
        "three_agent",
        "Take the 6 mm and the 10 mm consumption figures for Grivel Flex S1, work out the difference per "
        "m², and pass it as d to `print(f'{d * 75:.1f} kg')`.",
        num(97.5, "kg"),
        "«Notch trowel 6 mm ........ 2.2» «Notch trowel 10 mm ....... 3.5» Check: run(d=3.5 - 2.2)",
        [GT],
    ),
    (
        "three_agent",
        "Retrieve the open time and the adjustability time of Grivel Flex S1, both in minutes, add them "
        "up, and run\n```python\nprint(total * 60)\n```\nwith total bound to that sum.",
        num(4500),
        "«Open time ................. at least 30 minutes» «Adjustability ............. 45 minutes» "
        "Check: run(total=30 + 45)",
        [GT],
    ),
    (
        "three_agent",
        "Find what a 25 kg bag of Grivel Flex S1 costs, work out the price of 6 bags, and pass it as "
        "cost to `print(cost * 1.2)`.",
        refused("the price of a bag"),
        "the data sheet states no price. Absent: «price» «EUR»",
        [GT],
    ),
    (
        "natural",
        "I'm laying 31 m² of 80 x 80 cm floor tiles over underfloor heating with a 10 mm trowel. How "
        "many kilograms of Grivel Flex S1 powder do I need?",
        num(139.5, "kg"),
        "«Notch trowel 10 mm ....... 3.5» «Back-buttering adds 1.0 kg/m²; it is required for tiles larger "
        "than 60 x 60 cm, outdoors and on floors with underfloor heating.» Check: (3.5 + 1.0) * 31",
        [GT],
    ),
    (
        "natural",
        "It's 8 °C on site. How many hours after fixing the wall tiles can I start grouting?",
        num(48, "h"),
        "«Grouting .................. after 24 hours on walls» «Below +10 °C every time given above is "
        "doubled.» Check: 24 * 2",
        [GT],
    ),
    (
        "natural",
        "I finished tiling a kitchen floor on Monday 2 March 2026 at about 20 °C. From which date can it "
        "take full load?",
        day("2026-03-16"),
        "«Full load ................. after 14 days» Check: date(2026, 3, 2) + timedelta(days=14)",
        [GT],
    ),
    (
        "natural",
        "On a hot day at +30 °C, how long can I keep using a mixed batch of Grivel Flex S1?",
        refused("the pot life at +30 °C"),
        "near miss, another temperature: the pot life is given at +20 °C (and doubled below +10 °C). "
        "Absent: «pot life at +30»",
        [GT],
    ),
    # ------------------------------------------------------------------ a council tax leaflet
    (
        "single",
        "What is the Band F council tax in Dunmere for 2026/27?",
        num(3060.20, "GBP"),
        "«F | £120,001 to £160,000 | 13/9 | £3,060.20» Check: 3060.20",
        [DC],
    ),
    (
        "single",
        "How much of a Dunmere Band D bill goes to the police?",
        num(256.40, "GBP"),
        "«Police and Crime Commissioner: £256.40» Check: 256.40",
        [DC],
    ),
    (
        "single",
        "At what ratio to Band D is a Dunmere Band G home charged?",
        text("15/9"),
        "«G | £160,001 to £320,000 | 15/9 | £3,531.00» Check: '15/9'",
        [DC],
    ),
    (
        "single",
        "What does a Band I home pay in council tax in Dunmere?",
        refused("the Band I charge"),
        "the bands run from A to H. Absent: «Band I»",
        [DC],
    ),
    (
        "chained",
        "Look up Dunmere's Band D charge for 2026/27 and for the year before, then work out the rise.",
        num(100.20, "GBP"),
        "«D | £68,001 to £88,000 | 9/9 | £2,118.60» «Last year (2025/26) the Band D charge was £2,018.40.» "
        "Check: 2118.60 - 2018.40",
        [DC],
    ),
    (
        "chained",
        "Look up the Dunmere Band B charge and run `print(round(b * 0.75, 2))` with b set to it.",
        num(1235.85),
        "«B | £40,001 to £52,000 | 7/9 | £1,647.80» Check: run(b=1647.80)",
        [DC],
    ),
    (
        "chained",
        "Get the Dunmere Band E charge and work out each of the ten usual monthly instalments.",
        num(258.94, "GBP"),
        "«E | £88,001 to £120,000 | 11/9 | £2,589.40» «Bills are paid in 10 monthly instalments» "
        "Check: 2589.40 / 10",
        [DC],
    ),
    (
        "chained",
        "Find the Dunmere Band C charge for 2024/25 and compare it with this year's: by how much did it "
        "change?",
        refused("the 2024/25 Band C charge"),
        "near miss, another year: the leaflet gives 2026/27 bands and the 2025/26 Band D only. "
        "Absent: «2024/25»",
        [DC],
    ),
    (
        "three_agent",
        "Take the Band H and Band A charges in Dunmere, compute their difference, and give it as gap to "
        "`print(round(gap / 12, 2))`.",
        num(235.4),
        "«H | over £320,000 | 18/9 | £4,237.20» «A | up to £40,000 | 6/9 | £1,412.40» "
        "Check: run(gap=4237.20 - 1412.40)",
        [DC],
    ),
    (
        "three_agent",
        "Add up the fire authority's and the parish councils' parts of a Dunmere Band D bill, then run "
        "this with part set to that sum:\n"
        "```python\nshare = part / 2118.60 * 100\nprint(round(share, 1))\n```",
        num(20.8),
        "«County Fire Authority: £98.70» «Parish councils (average): £342.20» "
        "Check: run(part=98.70 + 342.20)",
        [DC],
    ),
    (
        "three_agent",
        "What share of a Band D bill goes to Dunmere Borough Council itself? Take its part and the "
        "Band D total, compute the percentage, and pass it as pct to `print(f'{pct:.1f}%')`.",
        num(67.1, "%", tol=0.05),
        "«Dunmere Borough Council: £1,421.30» «D | £68,001 to £88,000 | 9/9 | £2,118.60» "
        "Check: run(pct=1421.30 / 2118.60 * 100)",
        [DC],
    ),
    (
        "three_agent",
        "Get Dunmere's student exemption amount for a Band C house, halve it, and pass it to `print(x)` "
        "as x.",
        refused("the student exemption amount"),
        "the leaflet has no student exemption. Absent: «student»",
        [DC],
    ),
    (
        "natural",
        "I live on my own in a Band E house in Dunmere. What will my council tax be this year?",
        num(1942.05, "GBP"),
        "«E | £88,001 to £120,000 | 11/9 | £2,589.40» «If only one adult (18 or over) lives in the home, "
        "the bill is reduced by 25 %.» Check: 2589.40 * 0.75",
        [DC],
    ),
    (
        "natural",
        "Our Band B house has stood empty and unfurnished for six years now. What's this year's bill?",
        num(4943.40, "GBP"),
        "«B | £40,001 to £52,000 | 7/9 | £1,647.80» «after more than 5 years the premium is 200 % (three "
        "times the charge)» Check: 1647.80 * 3",
        [DC],
    ),
    (
        "natural",
        "My Band F home in Dunmere has adaptations my disability needs. What annual charge applies to it?",
        num(2589.40, "GBP"),
        "«A home with features needed by a disabled resident is charged at the band below its own» "
        "«E | £88,001 to £120,000 | 11/9 | £2,589.40» Check: 2589.40",
        [DC],
    ),
    (
        "natural",
        "What council tax does Dunmere charge on a houseboat mooring?",
        refused("the charge for a houseboat mooring"),
        "the leaflet covers homes in bands A to H only. Absent: «houseboat» «mooring»",
        [DC],
    ),
    # ------------------------------------------------------------------ a roaming guide
    (
        "single",
        "How much is a Pelorus Day Pass in Zone 3?",
        num(7.99, "EUR"),
        "«3 EUR 7.99 EUR 0.99» Check: 7.99",
        [PR],
    ),
    (
        "single",
        "Which Pelorus roaming zone is Serbia in?",
        text("Zone 2"),
        "«**Zone 2**: Switzerland, United Kingdom, Turkey, Serbia, Albania.» Check: 'Zone 2'",
        [PR],
    ),
    (
        "single",
        "What does a Day Pass cost in Pelorus Zone 5?",
        refused("the Zone 5 Day Pass price"),
        "the guide has zones 1 to 4. Absent: «Zone 5»",
        [PR],
    ),
    (
        "chained",
        "Find Pelorus's per-minute call prices in Zone 2 and Zone 3 and calculate the difference.",
        num(0.70, "EUR"),
        "«2 EUR 3.99 EUR 0.29» «3 EUR 7.99 EUR 0.99» Check: 0.99 - 0.29",
        [PR],
    ),
    (
        "chained",
        "Retrieve the Zone 4 Day Pass price, then run `print(round(d * 10, 2))` with d set to it.",
        num(129.9),
        "«4 EUR 12.99 EUR 1.99» Check: run(d=12.99)",
        [PR],
    ),
    (
        "chained",
        "Look up the Zone 3 Day Pass price on Pelorus business plans and multiply it by 5.",
        refused("the business-plan Day Pass price"),
        "near miss, another plan type: the guide covers pay-monthly plans. Absent: «business»",
        [PR],
    ),
    (
        "three_agent",
        "Fetch the Zone 3 Day Pass price and the Travel Pack 7 price, compute what seven single Day Passes "
        "cost minus the pack, and pass that as saving to `print(f'saves {saving:.2f}')`.",
        num(16.93),
        "«3 EUR 7.99» «Travel Pack 7: seven consecutive Day Passes in Zone 3 for EUR 39.00.» "
        "Check: run(saving=7 * 7.99 - 39.00)",
        [PR],
    ),
    (
        "three_agent",
        "Get the Zone 2 and the Zone 4 SMS prices, find how many times dearer a text is in Zone 4, and "
        "print it with `print(round(k, 2))` where k is that factor.",
        num(5.44),
        "«2 EUR 3.99 EUR 0.29 EUR 0.09» «4 EUR 12.99 EUR 1.99 EUR 0.49» Check: run(k=0.49 / 0.09)",
        [PR],
    ),
    (
        "three_agent",
        "Find Pelorus's in-flight pass price, add the Zone 1 fair-use charge for one GB, and run "
        "`print(p)` with p that total.",
        refused("the in-flight pass price"),
        "in-flight networks are in no zone and have no price. Absent: «in-flight pass»",
        [PR],
    ),
    (
        "natural",
        "I'm in Canada without a pass. I make a 14-minute call and then take a 10-minute incoming call. "
        "What will the calls cost?",
        num(18.81, "EUR"),
        "«**Zone 3**: USA, Canada» «3 EUR 7.99 EUR 0.99» «Receiving a call in Zones 3 and 4 costs half "
        "the outgoing call price per minute» Check: 14 * 0.99 + 10 * 0.99 / 2",
        [PR],
    ),
    (
        "natural",
        "I'll be using my phone in Mexico on 9 days in a row. What's the cheapest I can pay with passes?",
        num(54.98, "EUR"),
        "«**Zone 3**: USA, Canada, Mexico» «Travel Pack 7: seven consecutive Day Passes in Zone 3 for "
        "EUR 39.00.» «3 EUR 7.99» Check: min(9 * 7.99, 39.00 + 2 * 7.99)",
        [PR],
    ),
    (
        "natural",
        "Without a pass I used 45 MB of data in Thailand this month and never texted UNCAP. What is "
        "charged for it?",
        num(60, "EUR"),
        "«**Zone 4**: the rest of the world.» «4 EUR 12.99 EUR 1.99 EUR 0.49 EUR 2.00» «data used abroad "
        "without a pass stops once it has cost EUR 60.00 in a month» Check: min(45 * 2.00, 60.00)",
        [PR],
    ),
    (
        "natural",
        "What does Pelorus charge per MB on a cruise ship's network?",
        refused("the price per MB on a ship's network"),
        "maritime networks are in no zone and have no price. Absent: «cruise» «ship»",
        [PR],
    ),
]
