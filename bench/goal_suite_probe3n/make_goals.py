"""Writes heldout.json: the natural composition probe (issue 23, class 7). Run: python make_goals.py

Every goal is naturally worded and needs several rules of its folder chained (a rate times people times
nights plus a tax, blocks of a tariff then a share then VAT, a train then the next ferry, a weight band then a
surcharge with a minimum, a rate stated over a quantity other than one, started periods charged in full).
Each goal's ``why`` quotes its facts in «guillemets» and ends with ``Check: <expression>``; a goal that must
be refused lists ``Absent: «...»`` instead. check_answers.py recomputes every answer from the documents.
"""

import json
import sys
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script: the kinds live in bench/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import goals_probe_kinds  # noqa: E402
from goals_probe_kinds import refused  # noqa: E402

GH = "n-gullhaven-hostel/reply-from-reception.txt"
TW = "n-tessaline-water/tariff-2027.toml"
MC = "n-marrowby-crossing/summer-connections.txt"
KC = "n-kiln-couriers/rate-card.md"
BB = "n-brackenfold-boats/hire-board.txt"


def num(value, unit="EUR", tol=0.01):
    """A number answer; this probe's answers are in EUR unless said."""
    return goals_probe_kinds.num(value, unit, tol)


def clock_time(value):
    return {"type": "text", "value": value, "accept": [value.lstrip("0")]}


GOALS = [
    # --- a hostel's e-mail reply: per person per night, per room, once per stay, half price, long stays
    (
        "What do three friends pay altogether for dorm beds at Gullhaven for 4 nights in June, with the "
        "tourist tax?",
        num(400.80),
        "«EUR 31 per person per night» «tourist tax of EUR 2.40 per person per night» "
        "Check: 3*4*31 + 3*4*2.40",
        GH,
    ),
    (
        "We're two adults and our 9-year-old, taking the family room at Gullhaven for 3 nights in July. "
        "What's the bill, tourist tax included?",
        num(368.40),
        "«the family room sleeps up to four for EUR 118 per night» «EUR 2.40 per person per night» "
        "«Guests under 16 don't pay it» Check: 3*118 + 2*3*2.40",
        GH,
    ),
    (
        "A couple books a private twin at Gullhaven for 8 nights in September. What do they pay for the room "
        "after the long-stay discount, plus the tourist tax?",
        num(643.20),
        "«EUR 84 per room per night» «If you stay 7 nights or longer, we take 10% off the accommodation» "
        "«EUR 2.40 per person per night» Check: 8*84*0.9 + 2*8*2.40",
        GH,
    ),
    (
        "What does breakfast at Gullhaven come to for two adults and two kids aged 7 and 10 on 5 mornings?",
        num(133.50),
        "«Breakfast in our cafe is EUR 8.90 per person per morning; children under 12 eat for half price» "
        "Check: 5 * (2*8.90 + 2*8.90/2)",
        GH,
    ),
    (
        "I'm staying alone in a Gullhaven dorm for 2 nights in May and need a linen set. What's my total "
        "with the tourist tax?",
        num(72.30),
        "«EUR 31 per person per night» «hiring a set costs EUR 5.50 per person, once for the whole stay» "
        "«EUR 2.40 per person per night» Check: 2*31 + 5.50 + 2*2.40",
        GH,
    ),
    (
        "What would Gullhaven charge me to park a car for 3 nights?",
        refused("the parking charge at Gullhaven"),
        "the reply names no parking. Absent: «parking» «park»",
        GH,
    ),
    (
        "How much is a dorm bed at Gullhaven for 2 nights in December?",
        refused("the dorm price in December (the prices cover 1 April to 31 October)"),
        "the season's prices run from 1 April to 31 October. Absent: «December» «winter»",
        GH,
    ),
    # --- a water tariff in TOML: blocks, a standing charge, a share of the volume, VAT on the whole bill
    (
        "How much is the water itself, leaving out the standing charge and wastewater, for 32 m³ used in a "
        "quarter at Tessaline?",
        num(46.05),
        "«to_m3 = 15» «eur_per_m3 = 1.20» «to_m3 = 40» «eur_per_m3 = 1.65» Check: 15*1.20 + 17*1.65",
        TW,
    ),
    (
        "With a standard meter, what is a Tessaline household's whole quarterly bill including VAT when it "
        "used 32 m³ of water?",
        num(109.11, tol=0.02),
        "«eur_per_quarter = 18.00» «eur_per_m3 = 1.20» «eur_per_m3 = 1.65» «share_of_water_pct = 90» "
        "«eur_per_m3 = 1.35» «vat_pct = 6» Check: (18 + 15*1.20 + 17*1.65 + 0.9*32*1.35) * 1.06",
        TW,
    ),
    (
        "A house with a large meter used 50 m³ of water in one quarter. What is its Tessaline bill before "
        "VAT?",
        num(182.00),
        "«large_meter_eur_per_quarter = 41.00» «eur_per_m3 = 1.20» «eur_per_m3 = 1.65» «eur_per_m3 = 2.10» "
        "«share_of_water_pct = 90» «eur_per_m3 = 1.35» Check: 41 + 15*1.20 + 25*1.65 + 10*2.10 + 0.9*50*1.35",
        TW,
    ),
    (
        "What wastewater charge does Tessaline add for a quarter in which 20 m³ of water was used?",
        num(24.30),
        "«share_of_water_pct = 90» «eur_per_m3 = 1.35» Check: 0.9*20*1.35",
        TW,
    ),
    (
        "What does Tessaline charge a restaurant for 100 m³ of water in a quarter?",
        refused("a business (non-household) water tariff"),
        "the tariff is for households only. Absent: «business» «commercial» «restaurant»",
        TW,
    ),
    # --- a printed timetable leaflet: a train, a walk and a gate rule, then the next ferry; fares by kind
    (
        "If I catch the 07:35 train from Marrowby, when do I get to Holm Island?",
        clock_time("09:55"),
        "«every journey takes 38 minutes» «The walk from the station to the pier takes 8 minutes» «The ferry "
        "gate closes 5 minutes before each departure» «07:45 09:00» «every crossing takes 55 minutes» "
        "Check: clock('09:00', 55) if '07:45' < clock('07:35', 38 + 8 + 5) <= '09:00' else None",
        MC,
    ),
    (
        "Taking the 11:05 train out of Marrowby, what time will I reach Holm Island?",
        clock_time("13:10"),
        "«every journey takes 38 minutes» «The walk from the station to the pier takes 8 minutes» «5 minutes "
        "before each departure» «10:30 12:15» «every crossing takes 55 minutes» "
        "Check: clock('12:15', 55) if '10:30' < clock('11:05', 38 + 8 + 5) <= '12:15' else None",
        MC,
    ),
    (
        "What's the latest train from Marrowby that still gets me onto the 14:00 ferry?",
        clock_time("12:30"),
        "«12:30 14:10» «every journey takes 38 minutes» «takes 8 minutes» «5 minutes before each departure» "
        "Check: '12:30' if clock('12:30', 38 + 8 + 5) <= '14:00' < clock('14:10', 38 + 8 + 5) else None",
        MC,
    ),
    (
        "Two adults and a 10-year-old take their car on the ferry to Holm Island. What's the one-way fare?",
        num(59.00),
        "«Ferry, car with driver .......... EUR 38.00 each way, other passengers pay the foot fare» "
        "«EUR 14.00 per adult each way» «EUR 7.00 per child (5-15) each way» Check: 38 + 14 + 7",
        MC,
    ),
    (
        "How much do two adults save by buying Rail & Sail tickets instead of a train return each and the "
        "ferry both ways?",
        num(17.40),
        "«return EUR 10.20» «EUR 14.00 per adult each way» «EUR 29.50 per person» "
        "Check: 2 * (10.20 + 2*14.00 - 29.50)",
        MC,
    ),
    (
        "When does the first Sunday train leave Marrowby?",
        refused("the Sunday timetable (trains run Mondays to Saturdays only)"),
        "the leaflet is for Mondays to Saturdays only. Absent: «Sunday»",
        MC,
    ),
    # --- a rate card with footnotes: weight bands with both bounds, a surcharge with a minimum, a cap, VAT
    (
        "What does Kiln charge, VAT included, to send a 4.2 kg parcel next-day?",
        num(11.28),
        "«over 2 kg up to 5 kg | EUR 9.40» «VAT at 20% is added to the total of each order» "
        "Check: 9.40 * 1.2",
        KC,
    ),
    (
        "I'm sending a 7 kg parcel economy to an island postcode with Kiln Couriers. What's the price before "
        "VAT?",
        num(12.90),
        "«over 5 kg up to 10 kg | EUR 13.80 | EUR 8.90» «a surcharge of 35% of the parcel's rate, but at "
        "least EUR 4.00 per parcel» Check: 8.90 + max(0.35*8.90, 4.00)",
        KC,
    ),
    (
        "A 15 kg parcel goes next-day to a highland address with Saturday delivery. What's the Kiln price "
        "with VAT?",
        num(38.19),
        "«over 10 kg up to 20 kg | EUR 19.50» «a surcharge of 35% of the parcel's rate» «EUR 5.50 per "
        "parcel» «VAT at 20%» Check: (19.50 + max(0.35*19.50, 4.00) + 5.50) * 1.2",
        KC,
    ),
    (
        "What does Kiln's extra cover cost for a parcel declared at EUR 460?",
        num(6.00),
        "«the first EUR 100 of declared value is covered free» «EUR 1.50 for every EUR 100 (or part of EUR "
        "100) of value over the first EUR 100» Check: min(ceil((460 - 100) / 100) * 1.50, 30.00)",
        KC,
    ),
    (
        "How much is extra cover at Kiln for a parcel worth EUR 2,600?",
        num(30.00),
        "«EUR 1.50 for every EUR 100» «never more than EUR 30.00 per parcel» "
        "Check: min(ceil((2600 - 100) / 100) * 1.50, 30.00)",
        KC,
    ),
    (
        "One order: three 1.5 kg parcels by economy and one 12 kg parcel next-day. What's the total with VAT "
        "at Kiln?",
        num(40.68),
        "«up to 2 kg | EUR 6.90 | EUR 4.80» «over 10 kg up to 20 kg | EUR 19.50» «VAT at 20% is added to "
        "the total of each order» Check: (3*4.80 + 19.50) * 1.2",
        KC,
    ),
    (
        "What does Kiln charge to send a 35 kg parcel next-day?",
        refused("a rate for parcels over 30 kg (not accepted)"),
        "parcels over 30 kg are not accepted. Absent: «35 kg» «over 30 kg up to»",
        KC,
    ),
    # --- a hire board: a first period then further periods, a rate over 45 minutes, started periods in full
    (
        "What does a sit-on-top kayak cost at Brackenfold for an hour and a quarter?",
        num(45.00),
        "«EUR 24 for the first 30 minutes, then EUR 7 for every further 15 minutes» "
        "Check: 24 + (75 - 30) / 15 * 7",
        BB,
    ),
    (
        "What is a stand-up paddleboard at Brackenfold per minute?",
        num(0.40, "EUR/min"),
        "«STAND-UP PADDLEBOARD .............. EUR 18 per 45 minutes» Check: 18 / 45",
        BB,
    ),
    (
        "Two of us want a double kayak at Brackenfold for 2 hours, and we both need wetsuits. What will it "
        "cost?",
        num(72.00),
        "«EUR 38 for the first hour, then EUR 11 for every further 30 minutes» «Wetsuits: EUR 6 per person "
        "per hire» Check: 38 + (120 - 60) / 30 * 11 + 2*6",
        BB,
    ),
    (
        "Eight friends each hire a paddleboard at Brackenfold for 90 minutes. What do they pay altogether?",
        num(259.20),
        "«EUR 18 per 45 minutes» «Groups taking 6 boats or more get 10% off the boat hire» "
        "Check: 8 * ceil(90 / 45) * 18 * 0.9",
        BB,
    ),
    (
        "What does a rowing boat at Brackenfold cost for two and a half hours?",
        num(135.00),
        "«ROWING BOAT (up to 4 people) ...... EUR 45 per hour» «Every period you start is charged in full» "
        "Check: ceil(2.5) * 45",
        BB,
    ),
    (
        "How much is a canoe from Brackenfold for an hour?",
        refused("the canoe hire price"),
        "the board lists kayaks, paddleboards and rowing boats. Absent: «canoe»",
        BB,
    ),
]


def main() -> None:
    goals = [
        {"id": f"n-{i:03d}", "kind": "natural", "goal": goal, "expected": exp, "why": why, "sources": [src]}
        for i, (goal, exp, why, src) in enumerate(GOALS, 1)
    ]
    out = {
        "writer": "p-compose probe (written before the planner was changed)",
        "docs": "docs",
        "goals": goals,
    }
    path = Path(__file__).resolve().parent / "heldout.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(goals)} goals -> {path.name}")


if __name__ == "__main__":
    main()
