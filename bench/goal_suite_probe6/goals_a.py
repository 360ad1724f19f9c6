"""Probe6 goals: the driving school, the translation rate card, the tower hire rates and the livery letter."""

from goal_kinds import DS, KH, ML, TR, num, refused

GOALS_A = [
    # ------------------------------------------------------------------ a driving school (AsciiDoc)
    (
        "single",
        "How much does Tamsin Driving School charge for a 90-minute motorway lesson?",
        num(84, "EUR"),
        "«|Motorway lesson (manual; full licence holders only) |90 min |84.00» Check: 84",
        [DS],
    ),
    (
        "single",
        "Once I start using a Tamsin lesson package, how long do I have to use it up?",
        num(9, "months"),
        "«Packages are paid in advance and are valid for 9 months from the first lesson.» Check: 9",
        [DS],
    ),
    (
        "single",
        "what does one motorcycle lesson cost at tamsin driving school",
        refused("the price of a motorcycle lesson"),
        "the school lists car lessons only. Absent: «motorcycle» «motorbike»",
        [DS],
    ),
    (
        "chained",
        "Find the price of Tamsin's Automatic 10 package and of one automatic standard lesson. How much "
        "does the package save compared with booking ten such lessons one at a time?",
        num(45, "EUR"),
        "«*Automatic 10*: ten standard lessons (automatic), EUR 515.00» "
        "«|Standard lesson, automatic car |60 min |56.00» Check: 10 * 56 - 515",
        [DS],
    ),
    (
        "chained",
        "Retrieve the practical test fee Tamsin lists, then execute `print(fee * 3 + 0.5)` with fee set "
        "to that amount.",
        num(276.5),
        "«|Practical test fee (paid to the testing authority) |EUR 92.00» Check: run(fee=92.00)",
        [DS],
    ),
    (
        "chained",
        "Look up the price of the Starter 20 package at Tamsin and divide it by its number of lessons to "
        "get the price per lesson.",
        refused("the Starter 20 package price"),
        "the packages are Starter 5, Starter 10, Automatic 10, Intensive Week and Refresher 3. "
        "Absent: «Starter 20»",
        [DS],
    ),
    (
        "three_agent",
        "Take Tamsin's Intensive Week price, subtract the practical test fee and the charge for the school "
        "car on test day, and pass what is left to this code as t:\n```python\nprint(round(t / 25, 2))\n```",
        num(49),
        "«the car for the test, EUR 1,395.00» «|Practical test fee (paid to the testing authority) |EUR "
        "92.00» "
        "«|School car for the practical test, with a 60-minute warm-up lesson |EUR 78.00» "
        "Check: run(t=1395 - 92 - 78)",
        [DS],
    ),
    (
        "three_agent",
        "Look up the Refresher 3 price and what one manual double lesson costs, compute how much dearer "
        "three separate double lessons would be than the package, and run `print(d * 7)` with d bound to "
        "that difference.",
        num(105),
        "«*Refresher 3*: three double lessons for licence holders, EUR 279.00» "
        "«|Double lesson, manual car |120 min |98.00» Check: run(d=3 * 98 - 279)",
        [DS],
    ),
    (
        "three_agent",
        "Find the Weekend Intensive package price at Tamsin, take off the theory test booking fee, and "
        "hand the result as w to `print(w / 2)`.",
        refused("the Weekend Intensive package price"),
        "only an Intensive Week over five weekdays is offered. Absent: «Weekend Intensive»",
        [DS],
    ),
    (
        "natural",
        "I'm a student with a valid card. What will four single automatic lessons on weekdays cost me "
        "at Tamsin?",
        num(206.08, "EUR"),
        "«|Standard lesson, automatic car |60 min |56.00» "
        "«Students with a valid student card get 8 % off single lessons (not on packages).» "
        "Check: 4 * 56 * (1 - 0.08)",
        [DS],
    ),
    (
        "natural",
        "My son has bought the Starter 5 package. He'll take two of its lessons on Saturdays and wants to "
        "be picked up at home, 5 km from the office, for every lesson. What do we pay altogether?",
        num(279.5, "EUR"),
        "«*Starter 5*: five standard lessons (manual), EUR 245.00.» "
        "«Lessons booked for a Saturday cost EUR 6.00 more per lesson.» "
        "«for a pick-up fee of EUR 4.50 per lesson, from the pupil's home if it is within 8 km of the "
        "office» "
        "«A package lesson taken on a Saturday still carries the Saturday supplement.» "
        "Check: 245 + 2 * 6.00 + 5 * 4.50",
        [DS],
    ),
    (
        "natural",
        "We live 12 km from the Tamsin office. What is the pick-up fee for a lesson starting at our house?",
        refused("the pick-up fee for a home 12 km from the office"),
        "pick-up is offered only within 8 km of the office; no fee is given beyond that. Absent: «12 km»",
        [DS],
    ),
    # ------------------------------------------------------------------ a translation rate card (XML)
    (
        "single",
        "What is Orlo's standard per-word rate for translating Japanese into English?",
        num(0.21, "EUR", 0.001),
        '«source="Japanese" target="English" standard="0.21"» Check: 0.21',
        [TR],
    ),
    (
        "single",
        "By how many percent does Orlo Language Services raise its price when the source text is a scan "
        "or handwritten?",
        num(15, "%"),
        '«<surcharge name="Scanned or handwritten source" percent="15"/>» Check: 15',
        [TR],
    ),
    (
        "single",
        "Orlo: per-word rate, English > Spanish?",
        refused("the English to Spanish word rate"),
        "the rate card has six language pairs, none with Spanish. Absent: «Spanish»",
        [TR],
    ),
    (
        "chained",
        "Find Orlo's specialist rate for German to English and work out the price of translating a "
        "3,200-word medical report.",
        num(608, "EUR"),
        '«source="German" target="English" standard="0.15" specialist="0.19"» '
        "«legal, medical, patents, financial statements» Check: 3200 * 0.19",
        [TR],
    ),
    (
        "chained",
        "Look up how many words a working day of Orlo's standard delivery covers, then calculate how many "
        "working days a 12,000-word manual takes.",
        num(5, "days"),
        "«Standard delivery takes one working day per 2,500 words or part of it» Check: ceil(12000 / 2500)",
        [TR],
    ),
    (
        "chained",
        "Retrieve Orlo's hourly rate for simultaneous interpreting and multiply it by 6 hours.",
        refused("the hourly rate for simultaneous interpreting"),
        "the only hourly service is transcreation. Absent: «interpreting» «interpreter»",
        [TR],
    ),
    (
        "three_agent",
        "Get the English-to-French standard word rate and the per-word proofreading price, add them, and "
        "pass the sum as r to `print(round(r * 8000, 2))`.",
        num(1440),
        '«source="English" target="French" standard="0.13"» '
        '«<service name="Proofreading by a second linguist" price="0.05" per="word"/>» '
        "Check: run(r=0.13 + 0.05)",
        [TR],
    ),
    (
        "three_agent",
        "A 12-page brochure needs desktop publishing on every page and one certification stamp. Find both "
        "prices at Orlo, compute the cost, and run\n```python\nprint(f'{cost * 1.24:.2f}')\n```\n"
        "with cost bound to it.",
        num(596.44),
        '«<service name="Certified translation stamp" price="25.00" per="document"/>» '
        '«<service name="Desktop publishing" price="38.00" per="page"/>» Check: run(cost=12 * 38 + 25)',
        [TR],
    ),
    (
        "three_agent",
        "Look up Orlo's 2025 standard rate for English to Polish, multiply it by 10,000 words and give the "
        "product to `print(x)` as x.",
        refused("the 2025 English to Polish rate"),
        "the card is valid from 1 March 2026 to 28 February 2027 only. Absent: «2025»",
        [TR],
    ),
    (
        "natural",
        "What will Orlo charge to translate a 280-word English product leaflet into German with a "
        "certified translation stamp?",
        num(70, "EUR"),
        '«source="English" target="German" standard="0.14" specialist="0.18" minimum="45.00"» '
        "«The minimum charge applies per language pair and order when the words come to less.» "
        '«<service name="Certified translation stamp" price="25.00" per="document"/>» '
        "Check: max(280 * 0.14, 45.00) + 25.00",
        [TR],
    ),
    (
        "natural",
        "We need a 1,500-word English legal contract in Finnish, delivered within 24 hours. What is the "
        "price before VAT?",
        num(483, "EUR"),
        '«source="English" target="Finnish" standard="0.19" specialist="0.23"» '
        "«legal, medical, patents, financial statements» "
        '«<surcharge name="Rush (delivery within 24 hours)" percent="40"/>» Check: 1500 * 0.23 * 1.40',
        [TR],
    ),
    (
        "natural",
        "A 900-word English brochure has to go into French at the standard rate and be delivered within "
        "24 hours on a Saturday. What's the bill?",
        num(163.8, "EUR"),
        '«source="English" target="French" standard="0.13"» '
        '«<surcharge name="Rush (delivery within 24 hours)" percent="40"/>» '
        '«<surcharge name="Weekend delivery" percent="25"/>» '
        "«The rush and weekend surcharges are never combined: only the higher one applies.» "
        "Check: 900 * 0.13 * 1.40",
        [TR],
    ),
    (
        "natural",
        "How much does Orlo ask for subtitling a ten-minute video into German?",
        refused("the price of subtitling"),
        "the services are translation, certification, proofreading, transcreation and DTP. Absent: «subtitl»",
        [TR],
    ),
    # ------------------------------------------------------------------ tower hire rates (CSV, decimal comma)
    (
        "single",
        "What is the platform height of Kestle's KT-6 tower?",
        num(6.2, "m"),
        "«KT-6;Aluminium tower, wide 1,45 m;6,2;239,00;19,50;250,00;161» Check: 6.2",
        [KH],
    ),
    (
        "single",
        "How big a deposit does Kestle Access Hire take for its fibreglass tower?",
        num(300, "EUR"),
        "«FB-5;Fibreglass tower (for electrical work);5,0;265,00;22,00;300,00;143» Check: 300",
        [KH],
    ),
    (
        "single",
        "What is the first-week hire rate of Kestle's KT-10 tower?",
        refused("the KT-10 first-week rate"),
        "the towers are KT-2 to KT-8 and FB-5. Absent: «KT-10»",
        [KH],
    ),
    (
        "chained",
        "Find the first-week and the extra-day rates of the KT-4 and calculate the hire charge for 10 days.",
        num(223, "EUR"),
        "«KT-4;Aluminium tower, narrow 0,85 m;4,2;178,00;15,00;200,00;104» "
        "«every further day is charged at the extra-day rate» Check: 178 + (10 - 7) * 15",
        [KH],
    ),
    (
        "chained",
        "Retrieve the weight in kg of a KT-8 tower, then run `print(w * 3 / 1000)` with w set to it.",
        num(0.621, "", 0.001),
        "«KT-8;Aluminium tower, wide 1,45 m;8,2;298,00;24,00;300,00;207» Check: run(w=207)",
        [KH],
    ),
    (
        "chained",
        "Look up Kestle's delivery charge for zone E and double it to cover delivery and collection.",
        refused("the zone E delivery charge"),
        "the delivery zones are A to D. Absent: «zone E»",
        [KH],
    ),
    (
        "three_agent",
        "Look up how much a KT-2 tower and a podium step each weigh, total one KT-2 plus two podium steps, "
        "and pass the total w to `print(f'{w / 2.2:.0f} lb')`.",
        num(48, "lb"),
        "«KT-2;Aluminium tower, narrow 0,85 m;2,2;129,00;11,50;150,00;68» "
        "«PS-1;Podium step, 0,6 m platform;0,6;42,00;3,80;50,00;19» Check: run(w=68 + 2 * 19)",
        [KH],
    ),
    (
        "three_agent",
        "Retrieve the KT-6 first-week rate and the damage waiver percentage, work out the waiver on one "
        "week's hire, and give it to `print(round(x * 2, 2))` as x.",
        num(38.24),
        "«KT-6;Aluminium tower, wide 1,45 m;6,2;239,00;19,50;250,00;161» "
        "«damage waiver (optional, % of the hire charge);8 %» Check: run(x=239 * 0.08)",
        [KH],
    ),
    (
        "three_agent",
        "What is the zone F delivery charge at Kestle? Add the zone A charge to it and feed the sum s into "
        "`print(s * 2)`.",
        refused("the zone F delivery charge"),
        "the delivery zones are A to D. Absent: «zone F»",
        [KH],
    ),
    (
        "natural",
        "I need a KT-6 tower for 12 days, delivered and collected in zone B, with the damage waiver. What "
        "is the total before VAT?",
        num(473.42, "EUR"),
        "«KT-6;Aluminium tower, wide 1,45 m;6,2;239,00;19,50;250,00;161» "
        "«every further day is charged at the extra-day rate» «B;10-25 km;55,00» "
        "«delivery zones (one way; collection is charged the same)» "
        "«damage waiver (optional, % of the hire charge);8 %» "
        "Check: (239 + 5 * 19.5) * 1.08 + 2 * 55",
        [KH],
    ),
    (
        "natural",
        "Your crew puts a KT-8 up for us and moves it once during a one-week hire, so it is erected twice. "
        "Delivery and collection are in zone A. What do we pay?",
        num(648, "EUR"),
        "«KT-8;Aluminium tower, wide 1,45 m;8,2;298,00;24,00;300,00;207» "
        "«erection by our crew, towers above 6,2 m;140,00 per erection» «A;up to 10 km;35,00» "
        "«delivery zones (one way; collection is charged the same)» Check: 298 + 2 * 140 + 2 * 35",
        [KH],
    ),
    (
        "natural",
        "We brought a KT-2 back a day late after a week's hire and didn't warn anyone. What is the hire "
        "bill now?",
        num(150.5, "EUR"),
        "«KT-2;Aluminium tower, narrow 0,85 m;2,2;129,00;11,50;150,00;68» "
        "«late return without notice;one extra day's rate plus 10,00» Check: 129 + 11.50 + 10",
        [KH],
    ),
    (
        "natural",
        "What does Kestle charge for a one-way delivery to a site 70 km from its depot?",
        refused("the delivery charge for a site 70 km away"),
        "zone D (over 50 km) is quoted on request: no amount is given. Absent: «70 km»",
        [KH],
    ),
    # ------------------------------------------------------------------ a livery yard's letter (prose, GBP)
    (
        "single",
        "What will full livery cost per week at Mossgiel from May 2026?",
        num(178, "GBP"),
        "«will go up from £165 to £178 a week» Check: 178",
        [ML],
    ),
    (
        "single",
        "Within how many days must a Mossgiel livery invoice be paid?",
        num(10, "days"),
        "«are due within 10 days» Check: 10",
        [ML],
    ),
    (
        "single",
        "What does Mossgiel Livery Yard charge a week for working livery?",
        refused("the working livery price"),
        "the types are full, part, DIY and grass livery. Absent: «working livery»",
        [ML],
    ),
    (
        "chained",
        "Find Mossgiel's old and new part-livery prices and work out the rise as a percentage.",
        num(8.04, "%"),
        "«Part livery (we do the mornings» «rises from £112 to £121» Check: (121 - 112) / 112 * 100",
        [ML],
    ),
    (
        "chained",
        "Look up the new weekly price of DIY livery at Mossgiel, then run `print(p * 52)` with p bound "
        "to it.",
        num(3328),
        "«DIY livery (stable, grazing and use of the arena only) goes from £58 to £64» Check: run(p=64)",
        [ML],
    ),
    (
        "chained",
        "Look up Mossgiel's weekly price for a mare with a foal at foot and multiply it by 4.",
        refused("the weekly price for a mare and foal"),
        "the letter prices horses and ponies by livery type; nothing for foals. Absent: «foal»",
        [ML],
    ),
    (
        "three_agent",
        "Retrieve the new full-livery weekly price and the price of a full clip at Mossgiel. Work out four "
        "weeks of full livery plus one full clip, then hand that total to `print(round(total / 4.33, 2))`.",
        num(177.14),
        "«will go up from £165 to £178 a week» «full clip: £55» Check: run(total=4 * 178 + 55)",
        [ML],
    ),
    (
        "three_agent",
        "Get Mossgiel's daily holiday-cover charge and its price for one exercise session, add the two, "
        "and feed the sum d into `print(d * 14)`.",
        num(406),
        "«holiday cover for DIY and part liveries: £14 per day» "
        "«exercise (30 minutes lunging or hacking): £15 per session» Check: run(d=14 + 15)",
        [ML],
    ),
    (
        "natural",
        "My pony measures 14.0 hh and is on part livery. What will a four-week month cost from May?",
        num(411.4, "GBP"),
        "«rises from £112 to £121» "
        "«Ponies of 14.2 hh and under pay 85 % of the livery price of their type.» Check: 4 * 121 * 0.85",
        [ML],
    ),
    (
        "natural",
        "My retired mare lives out on grass livery all year. What will a five-week month cost, with the "
        "farrier's visits twice in it, for which she has to be held?",
        num(187, "GBP"),
        "«Grass livery for horses living out all year stays at £40.» "
        "«Retired horses on grass livery get £5 off a week.» «holding for the farrier or vet: £6 per visit» "
        "Check: 5 * (40 - 5) + 2 * 6",
        [ML],
    ),
    (
        "natural",
        "I don't keep my horse at Mossgiel. What would three hours in the arena cost me?",
        num(48, "GBP"),
        "«Arena hire for non-liveries: £12 for 45 minutes.» Check: ceil(3 * 60 / 45) * 12",
        [ML],
    ),
    (
        "natural",
        "How much is a riding lesson with an instructor at Mossgiel?",
        refused("the price of a riding lesson"),
        "the yard offers livery, extras and arena hire, no lessons. Absent: «instructor» «riding lesson»",
        [ML],
    ),
]
