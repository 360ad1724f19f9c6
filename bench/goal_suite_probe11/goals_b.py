"""Probe11 goals over a hill walking route card, a booking app's .env file with prices in pence, and a
local paper's classified ads page."""

from goal_kinds import EC, MG, SR, num, refused, text

GOALS_B = [
    # ------------------------------------------------------------------ a hill walking route card
    (
        "single",
        "Scarth Fell Ramblers walk 2027/19: what grid reference does the card give for Scarth Tarn?",
        text("SD 8350 4688"),
        "«2 Gill Foot bridge -> Scarth Tarn SD 8350 4688 028 2.00 240 48» Check: 'SD 8350 4688'",
        [SR],
    ),
    (
        "single",
        "Which pub do the Scarth Fell Ramblers finish at on 15 May?",
        refused("the pub the walk finishes at"),
        "The walk starts and ends at «Low Scarth car park»; the card names no pub or inn. "
        "Absent: «pub» «tavern» «arms»",
        [SR],
    ),
    (
        "chained",
        "How many minutes of walking are on the 15 May route card once you add up every leg?",
        num(198, "min"),
        "«1 Low Scarth CP -> Gill Foot bridge SD 8226 4517 062 1.50 60 24» «2 Gill Foot bridge -> Scarth "
        "Tarn SD 8350 4688 028 2.00 240 48» «3 Scarth Tarn -> Scarth Pike trig SD 8391 4795 021 1.25 210 36» "
        "«4 Scarth Pike -> Crag End col SD 8519 4861 064 1.50 20 20» «5 Crag End col -> Blea Beck ford SD "
        "8488 4642 188 2.50 0 30» «6 Blea Beck ford -> Low Scarth CP SD 8121 4463 245 3.00 35 40» "
        "Check: 24 + 48 + 36 + 20 + 30 + 40",
        [SR],
    ),
    (
        "chained",
        "How far is walk 2027/19 in total, in kilometres?",
        num(11.75, "km"),
        "«Gill Foot bridge SD 8226 4517 062 1.50» «Scarth Tarn SD 8350 4688 028 2.00» «Scarth Pike trig SD "
        "8391 4795 021 1.25» «Crag End col SD 8519 4861 064 1.50» «Blea Beck ford SD 8488 4642 188 2.50» "
        "«Low Scarth CP SD 8121 4463 245 3.00» Check: 1.50 + 2.00 + 1.25 + 1.50 + 2.50 + 3.00",
        [SR],
    ),
    (
        "chained",
        "Setting off from Low Scarth at 09:30 sharp and walking to the card's leg times, when should the "
        "group be at the Scarth Pike trig point? (Under two hours of walking, so no short stop.)",
        text("11:18"),
        "«Meet 09:15 for a 09:30 start.» «Low Scarth CP -> Gill Foot bridge SD 8226 4517 062 1.50 60 24» "
        "«Gill Foot bridge -> Scarth Tarn SD 8350 4688 028 2.00 240 48» «Scarth Tarn -> Scarth Pike trig SD "
        "8391 4795 021 1.25 210 36» Check: clock('09:30', 24 + 48 + 36)",
        [SR],
    ),
    (
        "three_agent",
        "Before the rockfall leg 3 went over the North Ridge. How long would the card's rule have made it? "
        "Use\n```python\ndef naismith(km, ascent_m):\n    return round(12 * km + ascent_m / 10)\n\n"
        "print(naismith(km, up))\n```\nwith km and up the North Ridge's distance and ascent from the card.",
        num(45, "min"),
        "«leg 3 used to go by the North Ridge (1.60 km, 260 m ascent)» Check: run(km=1.60, up=260)",
        [SR],
    ),
    (
        "three_agent",
        "Our finishing time, worked out the card's way - fill in the zeros from route card 2027/19 and run "
        "it:\n```python\nstart = 9 * 60 + 30   # 09:30\nwalk = 0    # all six leg times added up, minutes\n"
        "lunch = 0   # the lunch stop, minutes\nstops = 0   # short stops: 10 min for every full 2 hours of "
        "walking\nend = start + walk + lunch + stops\nprint(f'{end // 60:02d}:{end % 60:02d}')\n```",
        text("13:28"),
        "«1.50 60 24» «240 48» «210 36» «20 20» «0 30» «35 40» «Lunch stop at Scarth Pike trig (702 m): "
        "30 minutes.» «allow 10 minutes for every 2 hours of walking time» "
        "Check: clock('09:30', 198 + 30 + 10 * (198 // 120))",
        [SR],
    ),
    (
        "three_agent",
        "Time the escape route from Blea Beck ford back to the car park: run print(round(km * 12 + up / 10)) "
        "with km and up set to that escape route's distance and ascent.",
        refused("an escape route from Blea Beck ford"),
        "The card lists escapes «from Scarth Tarn» and «from Crag End col» only; Blea Beck ford is on leg 6 "
        "itself. Absent: «from Blea Beck ford:» «Blea Beck escape»",
        [SR],
    ),
    (
        "natural",
        "We've fallen behind and only get to Scarth Tarn at 12:10. If leg 3 takes its card time and we keep "
        "to the leader's rules, how many more kilometres do we walk to get back to the car?",
        num(2.2, "km"),
        "«3 Scarth Tarn -> Scarth Pike trig SD 8391 4795 021 1.25 210 36» «TURN-BACK TIME: if the group has "
        "not reached Scarth Pike trig by 12:30, take the Tarn Beck escape.» «from Scarth Tarn: Tarn Beck "
        "path "
        "back to Low Scarth CP, 2.2 km, no ascent.» Check: 2.2 if clock('12:10', 36) > '12:30' else 9.25",
        [SR],
    ),
    (
        "natural",
        "If we do walk 2027/19 exactly as planned - 09:30 start, leg times, lunch and the short stops the "
        "card allows - how many minutes of daylight will be left when we get back to the car park?",
        num(450, "min"),
        "«Meet 09:15 for a 09:30 start.» «Lunch stop at Scarth Pike trig (702 m): 30 minutes.» «allow 10 "
        "minutes for every 2 hours of walking time» «Sunset 20:58.» "
        "Check: mins(clock('09:30', 198 + 30 + 10), '20:58')",
        [SR],
    ),
    # ------------------------------------------------------------------ a booking app's .env file
    (
        "single",
        "In pounds, what does Muddy Paws charge now for a full groom on a large dog?",
        num(58.00, "GBP"),
        "«ALL PRICES ARE IN PENCE» «PRICE_FULL_GROOM_LARGE=5800 # over 25 kg, up to 40 kg» Check: 5800 / 100",
        [MG],
    ),
    (
        "single",
        "What's the latest I can drop my dog off at Muddy Paws?",
        text("14:30"),
        "«LAST_DROP_OFF=14:30» Check: '14:30'",
        [MG],
    ),
    (
        "single",
        "How long a slot does Muddy Paws book for a full groom on a medium-sized dog?",
        num(120, "min"),
        "«SLOT_FULL_GROOM_MEDIUM=120» «# --- Slots (minutes)» Check: 120",
        [MG],
    ),
    (
        "chained",
        "How many pounds more is a large dog's full groom at Muddy Paws this year than it was in 2026?",
        num(4.00, "GBP"),
        "«PRICE_FULL_GROOM_LARGE=5800» «# PRICE_FULL_GROOM_LARGE=5400 # 2026» «ALL PRICES ARE IN PENCE» "
        "Check: (5800 - 5400) / 100",
        [MG],
    ),
    (
        "chained",
        "By how much did Muddy Paws put up the medium full groom for 2027, compared with 2026?",
        refused("the 2026 price of a medium full groom"),
        "Only the small and large 2026 prices are kept («# PRICE_FULL_GROOM_SMALL=3500 # 2026», "
        "«# PRICE_FULL_GROOM_LARGE=5400 # 2026»). Absent: «# PRICE_FULL_GROOM_MEDIUM»",
        [MG],
    ),
    (
        "three_agent",
        "```python\nbase = LARGE / 100\nprint(round(base * (1 + PCT / 100), 2))\n```\n"
        "LARGE is the full-groom price for a large dog exactly as the Muddy Paws booking config stores it, "
        "and PCT is its double-coat surcharge percentage. What does the snippet print?",
        num(66.70, "GBP"),
        "«PRICE_FULL_GROOM_LARGE=5800» «SURCHARGE_DOUBLE_COAT_PCT=15» Check: run(LARGE=5800, PCT=15)",
        [MG],
    ),
    (
        "three_agent",
        "Two of our dogs go in together: the terrier for a small full groom and the spaniel for a medium "
        "bath "
        "and brush. Evaluate `print((a + b - min(a, b) * d / 100) / 100)` where a and b are those two prices "
        "from the Muddy Paws config (in its own units) and d is the second-dog discount percentage.",
        num(65.0, "GBP"),
        "«PRICE_FULL_GROOM_SMALL=3800» «PRICE_BATH_BRUSH_MEDIUM=3000» «DISCOUNT_SECOND_DOG_PCT=10» "
        "Check: run(a=3800, b=3000, d=10)",
        [MG],
    ),
    (
        "natural",
        "My husky weighs 28 kg and is badly matted - the groomer reckons 40 minutes of de-matting on top of "
        "a full groom. What's my bill at Muddy Paws going to be?",
        num(96.70, "GBP"),
        "«PRICE_FULL_GROOM_LARGE=5800 # over 25 kg, up to 40 kg» «SURCHARGE_DOUBLE_COAT_PCT=15 # huskies, "
        "malamutes, collies...: % on the full groom price only» «SURCHARGE_DEMATTING_PER_15MIN=1000 # "
        "charged "
        "per started 15 minutes» Check: round(5800 * 1.15 / 100 + ceil(40 / 15) * 10, 2)",
        [MG],
    ),
    (
        "natural",
        "I booked a full groom at Muddy Paws for my 12 kg cocker spaniel but have to cancel, 30 hours before "
        "the appointment. What fee do they charge me?",
        num(23.00, "GBP"),
        "«PRICE_FULL_GROOM_MEDIUM=4600 # over 10 kg, up to 25 kg» «CANCEL_FREE_HOURS=48» "
        "«LATE_CANCEL_FEE_PCT=50 # of the booked price, less than CANCEL_FREE_HOURS notice» "
        "Check: 4600 * 50 / 100 / 100 if 30 < 48 else 0",
        [MG],
    ),
    (
        "natural",
        "We live 12 miles out of Ellesby. If Muddy Paws came to us in their mobile van, what would the "
        "call-out "
        "be?",
        refused("the mobile van call-out charge beyond 8 miles"),
        "The call-out is priced «within 8 miles» only (and the van is not live: «FEATURE_MOBILE_VAN=false»). "
        "Absent: «per mile» «beyond 8 miles» «over 8 miles»",
        [MG],
    ),
    # ------------------------------------------------------------------ a local paper's classified ads
    (
        "single",
        "What's the greenhouse going for in this week's Courier smalls?",
        num(60, "GBP"),
        "«GREENHOUSE, 8 x 6 ft, aluminium» «Now GBP 60 (was GBP 95).» Check: 60",
        [EC],
    ),
    (
        "single",
        "Replies to the navy sofa bed ad go via which box number?",
        text("4471", "Box 4471"),
        "«S-1105 SOFA BED, 2-seater, navy, pull-out mattress as new. GBP 90, or GBP 150 with the matching "
        "armchair. Box 4471.» Check: '4471'",
        [EC],
    ),
    (
        "single",
        "Is there a dishwasher for sale in the Ellesby Courier this week, and how much?",
        refused("a dishwasher's price"),
        "The only appliance is «WASHING MACHINE, Bosch Serie 4». Absent: «dishwasher»",
        [EC],
    ),
    (
        "chained",
        "The winter tyres in ad S-1108 - how much do I save taking all four as a set instead of buying them "
        "one at a time?",
        num(20, "GBP"),
        "«GBP 180 the set, or GBP 50 each» Check: 4 * 50 - 180",
        [EC],
    ),
    (
        "chained",
        "We're 12 miles from Ellesby. What would one load of the seasoned logs cost us delivered?",
        num(89.20, "GBP"),
        "«GBP 85 a load (approx 1.2 cubic metres), free delivery within 5 miles of Ellesby, 60p a mile after "
        "that» Check: round(85 + (12 - 5) * 0.60, 2)",
        [EC],
    ),
    (
        "three_agent",
        "Price my private ad for the Courier:\n```python\nwords = 18\n"
        "cost = max(words, minimum) * rate + bold\nprint(round(cost, 2))\n```\n"
        "rate is the private per-word rate in pounds, minimum the private minimum number of words, and bold "
        "what a bold heading adds.",
        num(9.20, "GBP"),
        "«private ads 40p a word, minimum 12 words» «Bold heading +GBP 2.00.» "
        "Check: run(rate=0.40, minimum=12, bold=2.00)",
        [EC],
    ),
    (
        "three_agent",
        "Is the half-dozen deal on the hens worth it? Find the point-of-lay prices in the Courier and run "
        "`print(6 * single - six)` with single the price of one hen and six the price for six.",
        num(9, "GBP"),
        "«POINT OF LAY HENS, GBP 14 each or 6 for GBP 75.» Check: run(single=14, six=75)",
        [EC],
    ),
    (
        "natural",
        "I want a 9-word private ad in the Courier for three weeks running, with a box number so people "
        "don't "
        "get my phone number. What do I pay?",
        num(16.60, "GBP"),
        "«private ads 40p a word, minimum 12 words» «Box number +GBP 3.50» «Three weeks for the price of two "
        "(private ads only).» Check: round(2 * (max(9, 12) * 0.40 + 3.50), 2)",
        [EC],
    ),
    (
        "natural",
        "We'd like two of the Labrador puppies - one yellow dog and one black bitch. What's the total?",
        num(2000, "GBP"),
        "«3 yellow dogs, 2 black bitches» «GBP 950 each (bitches GBP 1,050).» Check: 950 + 1050",
        [EC],
    ),
    (
        "natural",
        "I run a trade business and want a 20-word ad in the Courier's Saturday edition. What's the "
        "Saturday rate per word?",
        refused("the Courier's Saturday edition rate"),
        "The smalls run in «Thursday's paper» with one trade rate («trade ads 65p a word»); there is no "
        "Saturday edition. Absent: «Saturday edition» «Saturday's paper»",
        [EC],
    ),
]
