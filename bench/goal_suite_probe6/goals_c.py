"""Probe6 goals: the dive centre's wiki page, the piano tuner's rates and the studio invoice with terms."""

from goal_kinds import AS, BD, QP, num, refused, text

GOALS_C = [
    # ------------------------------------------------------------------ a dive centre (MediaWiki tables)
    (
        "single",
        "What is the maximum depth for an Advanced Open Water diver at Brisa Dive Centre?",
        num(30, "m"),
        "«| Advanced Open Water || 30 m» Check: 30",
        [BD],
    ),
    (
        "single",
        "How old must you be to start the Rescue Diver course at Brisa?",
        num(12, "years"),
        "«| Rescue Diver (needs a first-aid certificate) || 3 || 4 || 430 || 12» Check: 12",
        [BD],
    ),
    (
        "single",
        "What does Brisa charge for its Divemaster course?",
        refused("the Divemaster course price"),
        "the courses go up to Rescue Diver and Nitrox. Absent: «Divemaster»",
        [BD],
    ),
    (
        "chained",
        "Look up the price of 10 guided dives and of a single boat dive at Brisa, and work out how much "
        "the package saves per dive.",
        num(11.5, "EUR"),
        "«| 10 dives (boat or shore, any mix) || 405» «| 1 boat dive || 52» Check: 52 - 405 / 10",
        [BD],
    ),
    (
        "chained",
        "Retrieve the price of the Advanced Open Water course and run `print(p * 1.6)` with p bound to it.",
        num(632),
        "«| Advanced Open Water || 2 || 5 || 395 || 12» Check: run(p=395)",
        [BD],
    ),
    (
        "chained",
        "Look up Brisa's price for a Nitrox fill with a 40 % mix and multiply it by 3 tanks.",
        refused("the price of a 40 % Nitrox fill"),
        "the centre fills 32 % Nitrox only. Absent: «40 %»",
        [BD],
    ),
    (
        "three_agent",
        "Find the daily full-set rental and the 6-dive package price at Brisa, compute 6 dives with 3 days "
        "of full-set rental, and pass the result as t to `print(f'{t / 6:.2f} per dive')`.",
        num(56),
        "«Full set (BCD, regulator, wetsuit, mask, fins, computer): 24» "
        "«| 6 dives (boat or shore, any mix) || 264» Check: run(t=264 + 3 * 24)",
        [BD],
    ),
    (
        "three_agent",
        "Get the Try Dive price and the Open Water Diver course price, add them, then run\n"
        "```python\nprint(total * 0.9)\n```\nwith total set to the sum.",
        num(504),
        "«| Try Dive (pool and one shore dive, max. 6 m) || 1 || 1 || 95 || 10» "
        "«| Open Water Diver || 4 || 4 || 465 || 10» Check: run(total=95 + 465)",
        [BD],
    ),
    (
        "three_agent",
        "Look up the daily drysuit rental at Brisa, multiply it by 5 days and pass the product as d to "
        "`print(d)`.",
        refused("the drysuit rental price"),
        "the rental list has wetsuits in the full set only. Absent: «drysuit» «dry suit»",
        [BD],
    ),
    (
        "natural",
        "Four of us, all certified, book two boat dives each at Brisa together. What do we pay in total?",
        num(374.4, "EUR"),
        "«| 1 boat dive || 52» «Groups of 4 or more certified divers who book together get 10 % off guided "
        "dives» Check: 4 * 2 * 52 * 0.9",
        [BD],
    ),
    (
        "natural",
        "I'd like to do the Open Water course with private tuition, and rent a torch for two of the days. "
        "What's the total?",
        num(756, "EUR"),
        "«| Open Water Diver || 4 || 4 || 465 || 10» «Private tuition: the course price plus 60 %.» "
        "«Torch: 6» Check: 465 * 1.6 + 2 * 6",
        [BD],
    ),
    (
        "natural",
        "My last dive was 14 months ago. What do I pay at Brisa for one guided shore dive, renting a full "
        "set for that day?",
        num(107, "EUR"),
        "«A diver who has not dived for 12 months or more first takes a pool refresher (45 euros)» "
        "«| 1 shore dive || 38» «Full set (BCD, regulator, wetsuit, mask, fins, computer): 24» "
        "Check: 45 + 38 + 24",
        [BD],
    ),
    (
        "natural",
        "How much is a snorkelling trip with Brisa Dive Centre?",
        refused("the price of a snorkelling trip"),
        "the centre sells courses, guided dives and rental only. Absent: «snorkel»",
        [BD],
    ),
    # ------------------------------------------------------------------ a piano tuner's rates (TSV)
    (
        "single",
        "How much does Quarrel Piano Services charge for a pitch raise with tuning?",
        num(130, "GBP"),
        "«Pitch raise and tuning per visit 130» Check: 130",
        [QP],
    ),
    (
        "single",
        "Roughly how many hours does Quarrel reckon regulating a grand piano's action takes?",
        num(7, "h"),
        "«Regulation (action) per hour 48 upright about 4 hours, grand about 7 hours» Check: 7",
        [QP],
    ),
    (
        "single",
        "What does Quarrel charge to tune a harpsichord?",
        refused("the price of tuning a harpsichord"),
        "the rates are for pianos only. Absent: «harpsichord»",
        [QP],
    ),
    (
        "chained",
        "Find Quarrel's hourly rate for regulation and the usual number of hours for an upright, then "
        "compute what regulating an upright costs.",
        num(192, "GBP"),
        "«Regulation (action) per hour 48 upright about 4 hours» Check: 4 * 48",
        [QP],
    ),
    (
        "chained",
        "Look up Quarrel's zone 3 travel charge and the standard tuning price, and add them up.",
        num(107, "GBP"),
        "«zone 3 25-40 miles 22» «Standard tuning (A440) per visit 85» Check: 22 + 85",
        [QP],
    ),
    (
        "chained",
        "Find Quarrel's price for tuning a piano to A442 and add the grand piano supplement to it.",
        refused("the price of tuning to A442"),
        "the standard tuning is to A440. Absent: «A442»",
        [QP],
    ),
    (
        "three_agent",
        "Retrieve Quarrel's standard tuning price and the grand piano supplement, sum them, and run "
        "`print(s * 2 - 15)` with s as that sum.",
        num(195),
        "«Standard tuning (A440) per visit 85» «Grand piano supplement per visit 20 added to any tuning» "
        "Check: run(s=85 + 20)",
        [QP],
    ),
    (
        "three_agent",
        "Find the price per key-top and the per-key price for repairing sticking keys; compute 12 key-tops "
        "plus 3 sticking keys and pass it as k to `print(round(k / 15, 2))`.",
        num(8.8, "", 0.001),
        "«Key-top replacement per key 9.5 minimum 12 keys» «Sticking key repair per key 6» "
        "Check: run(k=12 * 9.5 + 3 * 6)",
        [QP],
    ),
    (
        "three_agent",
        "Look up what Quarrel charges to restring an upright piano, halve it, and feed it as h into "
        "`print(h)`.",
        refused("the restringing price"),
        "the rates list no restringing. Absent: «restring»",
        [QP],
    ),
    (
        "natural",
        "Five key-tops on my upright need replacing. What will Quarrel charge, travel aside?",
        num(114, "GBP"),
        "«Key-top replacement per key 9.5 minimum 12 keys» Check: max(5, 12) * 9.5",
        [QP],
    ),
    (
        "natural",
        "A church 52 miles from Quarrel's workshop wants its upright tuned; it was last tuned 8 months ago. "
        "What's the bill with travel?",
        num(106.3, "GBP"),
        "«Standard tuning (A440) per visit 85 piano tuned within the last 12 months» "
        "«Schools and churches per tuning -10 %» «zone 3 25-40 miles 22» "
        "«the zone 3 charge plus 0.65 per mile beyond 40» Check: 85 * 0.9 + 22 + (52 - 40) * 0.65",
        [QP],
    ),
    (
        "natural",
        "I want my upright tuned on a Saturday; it was last tuned 18 months ago and I live 14 miles from the "
        "workshop. What will that come to?",
        num(130.75, "GBP"),
        "«Tuning after 12-24 months per visit 95» «zone 2 10-25 miles 12» "
        "«Saturday visits per visit +25 % on the service charge, not on travel» Check: 95 * 1.25 + 12",
        [QP],
    ),
    (
        "natural",
        "What does Quarrel charge for moving an upright piano to a new house?",
        refused("the price of moving a piano"),
        "the rates cover tuning, repairs and travel, not piano moving. Absent: «moving» «removal»",
        [QP],
    ),
    # ------------------------------------------------------------------ a studio invoice with its terms
    (
        "single",
        "What is the total of invoice AS-2026-0147, VAT included?",
        num(1503.6, "EUR"),
        "«Total EUR 1,503.60» Check: 1503.60",
        [AS],
    ),
    (
        "single",
        "Which colour was the backdrop paper billed on Ambersley invoice AS-2026-0147?",
        text("Thunder Grey"),
        "«Backdrop paper roll 2.72 m, colour Thunder Grey» Check: 'Thunder Grey'",
        [AS],
    ),
    (
        "single",
        "How many square metres is Ambersley's daylight loft studio?",
        num(65, "m²"),
        "«Studio 2 (daylight loft, 65 m²)» Check: 65",
        [AS],
    ),
    (
        "single",
        "What's Ambersley Studios' hourly rate for Studio 3?",
        refused("the Studio 3 hourly rate"),
        "Ambersley has Studio 1 and Studio 2 only. Absent: «Studio 3»",
        [AS],
    ),
    (
        "chained",
        "Look up Studio 2's hourly rate and its minimum number of hours, then compute the least an hourly "
        "booking of it can cost.",
        num(90, "EUR"),
        "«Studio 2 (daylight loft, 65 m²): EUR 45 per hour (minimum 2 hours)» Check: 2 * 45",
        [AS],
    ),
    (
        "chained",
        "Find the Studio 1 full-day and half-day rates at Ambersley. How much more would two half days cost "
        "than one full day?",
        num(80, "EUR"),
        "«half day (4 hours) EUR 250, full day (9 hours) EUR 420» Check: 2 * 250 - 420",
        [AS],
    ),
    (
        "chained",
        "Find the price of a 3.55 m backdrop roll at Ambersley and multiply it by 2 rolls.",
        refused("the price of a 3.55 m backdrop roll"),
        "the rolls are 2.72 m and 1.35 m wide. Absent: «3.55»",
        [AS],
    ),
    (
        "three_agent",
        "Retrieve Studio 2's full-day and half-day prices, add them, and hand the sum to `print(x * 1.2)` "
        "as x.",
        num(540),
        "«half day (4 hours) EUR 160, full day (9 hours) EUR 290» Check: run(x=290 + 160)",
        [AS],
    ),
    (
        "three_agent",
        "Look up the daily prices of the teleprompter and the fog machine, work out three days of both, "
        "and pass the total as e to `print(f'EUR {e:.2f}')`.",
        num(180, "EUR"),
        "«fog machine EUR 25, teleprompter EUR 35» Check: run(e=3 * (35 + 25))",
        [AS],
    ),
    (
        "three_agent",
        "Look up Ambersley's daily price for a wind machine, double it, and pass it to `print(w)` as w.",
        refused("the wind machine price"),
        "the equipment is a Profoto kit, LED panels, a fog machine and a teleprompter. "
        "Absent: «wind machine»",
        [AS],
    ),
    (
        "natural",
        "We booked Studio 1 for a full Saturday at Ambersley and cancelled ten days before. What do we owe?",
        num(252, "EUR"),
        "«full day (9 hours) EUR 420» «Saturdays and Sundays: half days and full days cost 20 % more than "
        "on weekdays.» «7 to 14 days before, 50 % of the studio hire» Check: 420 * 1.2 * 0.5",
        [AS],
    ),
    (
        "natural",
        "If Fenwick & Rowe pay invoice AS-2026-0147 forty days after its due date, how much interest is "
        "added?",
        num(45.11, "EUR"),
        "«Total EUR 1,503.60» «Late payment: 1.5 % interest per started month.» "
        "Check: 1503.60 * 0.015 * ceil(40 / 30)",
        [AS],
    ),
    (
        "natural",
        "A weekday Studio 2 shoot booked as a full day runs on until 21:00. What does the studio time cost "
        "in all?",
        num(416, "EUR"),
        "«full day (9 hours) EUR 290» «Evening hours (after 18:00): EUR 65 per hour in Studio 1, EUR 42 per "
        "hour in Studio 2.» Check: 290 + mins('18:00', '21:00') / 60 * 42",
        [AS],
    ),
    (
        "natural",
        "What does Ambersley charge for a make-up artist for the day?",
        refused("the price of a make-up artist"),
        "the studio hires rooms and equipment only. Absent: «make-up artist»",
        [AS],
    ),
]
