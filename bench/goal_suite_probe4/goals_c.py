"""Probe4 goals over the sowing chart, the weather log and the dosing chart (see make_goals.py)."""

from goal_kinds import BW, CD, TS, day, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------------ a seed sowing chart
    (
        "single",
        "How deep should Crimson Globe beetroot be sown, in cm?",
        num(2.5),
        "«| Beetroot | Crimson Globe | Mar | Apr-Jul | 2.5 | 10 | 30 | 60 | 60 |» Check: 2.5",
        [TS],
    ),
    (
        "single",
        "Which parsnip variety is on the Tollerby sowing chart?",
        text("Tender and True"),
        "«| Parsnip | Tender and True |» Check: 'Tender and True'",
        [TS],
    ),
    (
        "single",
        "What spacing does the Tollerby chart give for leeks?",
        refused("the leek spacing"),
        "no leeks on the chart. Absent: «leek»",
        [TS],
    ),
    (
        "chained",
        "Find the days to harvest for the Sturon onion sets and for the carrot on the Tollerby chart, then "
        "give the difference.",
        num(65, "days"),
        "«| Onion (sets) | Sturon | - | Mar-Apr | 2 | 10 | 30 | 140 | - |» "
        "«| Carrot | Nantes Amber | - | Apr-Jul | 1 | 5 | 30 | 75 | 800 |» Check: 140 - 75",
        [TS],
    ),
    (
        "chained",
        "Look up the runner bean and broad bean row gaps and convert their sum from centimetres to metres.",
        num(1.05),
        "«| Runner bean | Scarlet Emperor | Apr-May | late May-Jun | 5 | 15 | 60 |» "
        "«| Broad bean | Aquadulce Claudia | Feb | Mar-Apr, Nov | 5 | 20 | 45 |» Check: (60 + 45) / 100",
        [TS],
    ),
    (
        "chained",
        "Look up how many lettuce seeds there are per gram and run `print(s * 2)` with s bound to it.",
        num(1800),
        "«| Lettuce | Marvel of Four Seasons | Feb-Mar | Apr-Aug | 1 | 25 | 30 | 55 | 900 |» Check: "
        "run(s=900)",
        [TS],
    ),
    (
        "three_agent",
        "Get the beetroot seeds per gram, multiply by the grams in a standard packet, then run "
        "`print(n * 5)` with n bound to the product.",
        num(600),
        "«| Beetroot | Crimson Globe | Mar | Apr-Jul | 2.5 | 10 | 30 | 60 | 60 |» «A packet holds 2 "
        "g of seed» "
        "Check: run(n=60 * 2)",
        [TS],
    ),
    (
        "three_agent",
        "Read the days to harvest of the carrot and of the lettuce, add them, and turn the sum into whole "
        "weeks with `print(d // 7)` (d is the sum).",
        num(18),
        "«| Carrot | Nantes Amber | - | Apr-Jul | 1 | 5 | 30 | 75 | 800 |» "
        "«| Lettuce | Marvel of Four Seasons | Feb-Mar | Apr-Aug | 1 | 25 | 30 | 55 | 900 |» "
        "Check: run(d=75 + 55)",
        [TS],
    ),
    (
        "three_agent",
        "Sturon onions grown from seed: look up their seeds per gram, multiply by 3 and print it with "
        "`print(k)` where k is the product.",
        refused("seeds per gram for Sturon onion seed"),
        "near miss, a condition: Sturon is sold as sets only and the chart gives no seed figure. "
        "Absent: «onion seed» «Sturon seed»",
        [TS],
    ),
    (
        "natural",
        "I sowed a row of Nantes Amber carrots on 10 April 2026. Around which date should they be ready?",
        day("2026-06-24"),
        "«| Carrot | Nantes Amber | - | Apr-Jul | 1 | 5 | 30 | 75 | 800 |» "
        "Check: date(2026, 4, 10) + timedelta(days=75)",
        [TS],
    ),
    (
        "natural",
        "How many parsnip stations can I sow from two Tollerby packets?",
        num(440),
        "«| Parsnip | Tender and True | - | Mar-May | 1.5 | 15 | 30 | 130 | 220 |» «A packet holds 2 g of "
        "seed» «Parsnip and beetroot: sow 2 seeds per station» Check: 2 * 2 * 220 / 2",
        [TS],
    ),
    (
        "natural",
        "I'd like to end up with 100 carrot plants. How many seeds should I sow, going by the expected "
        "germination?",
        num(143),
        "«Expected germination: carrot 70 %» Check: ceil(100 / 0.70 - 1e-9)",
        [TS],
    ),
    (
        "natural",
        "My allotment is 260 m up. How many days will Crimson Globe beetroot take to harvest there?",
        num(66, "days"),
        "«| Beetroot | Crimson Globe | Mar | Apr-Jul | 2.5 | 10 | 30 | 60 | 60 |» «Upland gardens (above "
        "200 m): sow outdoors 2 weeks later than shown; days to harvest add 10 %.» Check: 60 * 1.1",
        [TS],
    ),
    # ------------------------------------------------------------------ a weather station daily log
    (
        "single",
        "What was the highest gust at Brackley Hill on 3 May 2026?",
        num(63),
        "«03 12.1 8.0 11.6 0.7 63 SW» Check: 63",
        [BW],
    ),
    (
        "single",
        "Brackley Hill, day 6 of the May log: what was the minimum temperature?",
        num(4.4, "°C"),
        "«06 16.4 4.4 0.0 12.6 18 NE» Check: 4.4",
        [BW],
    ),
    (
        "single",
        "What is the long-term average rain for 1 to 14 May at Brackley Hill?",
        num(28.0),
        "«Long-term average rain for 1 to 14 May (1991-2020): 28.0 mm.» Check: 28.0",
        [BW],
    ),
    (
        "single",
        "How much rain fell at Brackley Hill on 20 May 2026?",
        refused("the rain on 20 May"),
        "near miss, another date: the log covers 1 to 14 May. Absent: «20 May» «20 to»",
        [BW],
    ),
    (
        "chained",
        "Find the Brackley Hill rain total for 1-14 May 2026 and the long-term average, then work out what "
        "percentage of the average fell.",
        num(138.93, "%"),
        "«Total rain: 38.9 mm» «Long-term average rain for 1 to 14 May (1991-2020): 28.0 mm.» "
        "Check: 38.9 / 28.0 * 100",
        [BW],
    ),
    (
        "chained",
        "Read the maximum and minimum temperature of 7 May at Brackley Hill and compute that day's range.",
        num(11.9),
        "«07 18.7 6.8 0.0 13.1 20 E» Check: 18.7 - 6.8",
        [BW],
    ),
    (
        "chained",
        "Look up the total sunshine logged at Brackley Hill and run `print(round(h / 14, 2))` with h bound "
        "to it.",
        num(8.06),
        "«Total sunshine: 112.9 hours.» Check: run(h=112.9)",
        [BW],
    ),
    (
        "three_agent",
        "Take the maximum temperatures of 11 and 12 May at Brackley Hill, average them, and convert with "
        "`print(t * 9 / 5 + 32)`, t being the mean.",
        num(68.72),
        "«11 19.2 7.5 0.0 12.2 24 S» «12 21.6 11.3 0.0 13.4 27 SE» Check: run(t=(19.2 + 21.6) / 2)",
        [BW],
    ),
    (
        "three_agent",
        "Look up the Brackley Hill rain days and total rain, get the mean rain per rain day, and print it "
        "rounded with this snippet (m is the mean):\n```python\nprint(round(m, 1))\n```",
        num(4.9),
        "«Total rain: 38.9 mm on 8 rain days» Check: run(m=38.9 / 8)",
        [BW],
    ),
    (
        "three_agent",
        "Find the gust at Brackley Hill on 15 May, convert it to metres per second and output it with "
        "`print(round(g / 3.6, 1))` where g is the gust.",
        refused("the 15 May gust"),
        "near miss, another date: the log ends on day 14. Absent: «15 May» «day 15»",
        [BW],
    ),
    (
        "natural",
        "On how many of the logged days did the minimum temperature at Brackley Hill drop below 5 degrees?",
        num(4, "days"),
        "«05 13.9 3.9 0.0 11.8 22 N» «06 16.4 4.4 0.0 12.6 18 NE» «13 16.0 2.8 9.7 4.5 47 NW» "
        "«14 13.3 4.6 3.1 7.9 41 N» Check: (3.9 < 5) + (4.4 < 5) + (2.8 < 5) + (4.6 < 5)",
        [BW],
    ),
    (
        "natural",
        "From which direction did the strongest gust of the fortnight blow at Brackley Hill?",
        text("SW", "south-west", "southwest"),
        "«03 12.1 8.0 11.6 0.7 63 SW» Check: 'SW'",
        [BW],
    ),
    (
        "natural",
        "What was the strongest gust at Brackley Hill in June 2026?",
        refused("a June gust"),
        "near miss, another month: the log is for May. Absent: «June»",
        [BW],
    ),
    # ------------------------------------------------------------------ a dosing chart
    (
        "single",
        "What single dose of Calmadol suspension does the chart give for a child of 18 kg?",
        num(10.0, "ml"),
        "«| 16 to 21.9 kg | 4 to 6 years | 10.0 mL |» Check: 10.0",
        [CD],
    ),
    (
        "single",
        "What is the minimum gap between two doses of Calmadol?",
        num(6, "h"),
        "«Leave at least 6 hours between doses.» Check: 6",
        [CD],
    ),
    (
        "single",
        "What is the adult dose of Calmadol suspension?",
        refused("the adult dose"),
        "near miss, another group: the chart is for children only. Absent: «adult»",
        [CD],
    ),
    (
        "chained",
        "Look up the Calmadol dose for a 9 kg child and compute the most it may have in 24 hours.",
        num(20, "ml"),
        "«| 8 to 10.9 kg | 6 to 24 months | 5.0 mL |» «Do not give more than 4 doses in any 24 hours.» "
        "Check: 4 * 5.0",
        [CD],
    ),
    (
        "chained",
        "How many mg of calmadol are in a 12.5 mL dose? Take the strength from the chart.",
        num(400),
        "«160 mg of calmadol in every 5 mL» Check: 12.5 * 160 / 5",
        [CD],
    ),
    (
        "chained",
        "Find how many mL a Calmadol bottle holds, then run `print(v // 7)` with v bound to that volume.",
        num(14),
        "«The bottle holds 100 mL.» Check: run(v=100)",
        [CD],
    ),
    (
        "chained",
        "Look up the Calmadol dose for a 45 kg child and double it.",
        refused("a dose for 45 kg"),
        "near miss, a condition: the table stops at 39.9 kg; from 40 kg ask a pharmacist. Absent: «45 kg»",
        [CD],
    ),
    (
        "three_agent",
        "Find the Calmadol dose for a 25 kg child, work out how many full doses one bottle gives, then run "
        "`print(int(n))` with n bound to that.",
        num(8),
        "«| 22 to 29.9 kg | 6 to 8 years | 12.5 mL |» «The bottle holds 100 mL.» Check: run(n=100 / 12.5)",
        [CD],
    ),
    (
        "three_agent",
        "For a 35 kg child, find the Calmadol dose in mL, convert it to milligrams with the suspension's "
        "strength, and output it via `print(f'{mg:.0f} mg')` with mg bound to the amount.",
        num(480),
        "«| 30 to 39.9 kg | 8 to 10 years | 15.0 mL |» «160 mg of calmadol in every 5 mL» "
        "Check: run(mg=15.0 * 160 / 5)",
        [CD],
    ),
    (
        "natural",
        "My son weighs 12 kg. How many milligrams of calmadol is one dose for him?",
        num(224),
        "«| 11 to 15.9 kg | 2 to 4 years | 7.0 mL |» «160 mg of calmadol in every 5 mL» Check: 7.0 * 160 / 5",
        [CD],
    ),
    (
        "natural",
        "A 9 kg toddler gets Calmadol every 6 hours around the clock. How many days will one bottle last?",
        num(5, "days"),
        "«| 8 to 10.9 kg | 6 to 24 months | 5.0 mL |» «The bottle holds 100 mL.» Check: 100 / (5.0 * 24 / 6)",
        [CD],
    ),
    (
        "natural",
        "How much of the 250 mg/5 mL Calmadol should a 14 kg child take?",
        refused("the 250 mg/5 mL strength's dose"),
        "near miss, another strength: the chart is for 160 mg/5 mL. Absent: «250 mg»",
        [CD],
    ),
]
