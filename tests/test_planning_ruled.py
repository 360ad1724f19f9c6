"""A charge or a count worked out from a document's typed rules (planning/ruled.py), end to end from the
text: the document is read into typed records (adapters/retrieval/docmodel), sent as ``data["records"]``
(docmodel/wire.py), read back by the planner (planning/records.py) and applied to a question.

The documents and questions are made up for these tests (a kayak hire, a storage depot, a photo lab, a
water tariff, a campsite, a hall) and differ from every benchmark document.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import MAX_BYTES, records_data
from ioa_p2p.planning.compared import compared_expression, timetable_duration
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.ruled import counted_expression, ruled_expression
from ioa_p2p.wire import canonical

KAYAK = """\
# Pebblebrook Kayak Hire

All prices in EUR.

Single kayaks cost EUR 14 per hour, with a minimum of 2 hours. Tandem kayaks cost EUR 22 per hour.
Each started hour beyond the first 3 hours on the river is charged at EUR 5 extra per boat as a late fee.
Life jackets cost EUR 2 each.
Children under 12 paddle at half price: their fares are halved.
Groups of 8 or more paddlers get 10 % off the hire.
Weekend hires cost EUR 6 extra per booking.
"""

STORAGE = """\
Kestle Self Storage - tariff

Units are charged per square metre of floor space per week:

  Unit size                Price per m2
  up to 4 m2               9.00
  over 4 m2 up to 10 m2    7.50
  over 10 m2               6.00

The floor space of a unit is rounded up to the next whole square metre.
The minimum charge for a rental is GBP 30.
A padlock costs GBP 8 each.
All prices in GBP, excluding VAT. VAT of 20 % is added to every invoice.
"""

WATER = """\
BROOKMERE WATER - DOMESTIC TARIFF
Prices in EUR, excluding VAT.

Water used is charged per m3 in tiers within each year:

  Water used in the year    Price per m3
  first 50 m3               1.20
  next 100 m3               1.60
  above 150 m3              2.10

Customers on the social tariff get a 25 % discount on the water charge.
"""

CAMPSITE = """\
# Heronsgate Campsite

## Pitches

1. Tent pitches cost EUR 11 per night from May to September and EUR 8 per night from October to April.
2. The minimum charge is EUR 16 per night, whatever the size of the party.
3. Each person beyond the first 2 costs EUR 4 per night.
4. Electric hook-up costs EUR 3.50 per night.
"""

HALL = """\
# Millrace Hall

**Hire.** GBP 40 per hour, with a minimum of 3 hours.

- Trestle tables seat 6 guests each; table hire is GBP 5 per table.
- Tablecloths cost GBP 3 per table.
- Cleaning: GBP 60 per event.

Bookings made at least 3 months ahead get 15 % off the hourly hire.
"""

PAINT = """\
# Fernleaf Floor Varnish

One litre covers about 10 m² of boards per coat.
Sold in 2.5 L and 5 L tins.
"""


def records(text: str, path: str = "doc.md") -> DocRecords:
    data = records_data(read_document(path, text))
    parsed = records_from_data(json.loads(json.dumps(data)))  # as it crosses the wire
    assert parsed is not None
    return parsed


def value(expression: str) -> float:
    calculations = calculate(expression)
    return float(Fraction(calculations[-1].value))


def charge(question: str, text: str) -> float:
    found = ruled_expression(question, records(text))
    assert found is not None, question
    return value(found[0])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does a single kayak cost for 3 hours at Pebblebrook?", 42),
        ("What does a single kayak cost for one hour at Pebblebrook?", 28),  # minimum 2 hours
        ("What does a tandem kayak cost for 5 hours?", 110),
        ("What does a tandem kayak for 4.5 hours cost, late fee included?", 109),  # 99 + 2 started h x 5
        ("What does a tandem kayak cost for 2 hours for a group of 9 adults?", 39.6),  # 10 % off
        ("What does a 10-year-old pay for a single kayak for 2 hours?", 14),  # halved
        ("What does a single kayak cost for 2 hours on a weekend?", 34),  # + 6
    ],
)
def test_rates_minimums_percentages_and_surcharges(question: str, expected: float) -> None:
    assert charge(question, KAYAK) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What does a 3 m² unit cost per week at Kestle, before VAT?", 30),  # 27 < minimum 30
        ("What does a unit of 2 m by 3 m cost for a week at Kestle, before VAT?", 45),  # band 4-10: 7.50
        ("What does a 12.4 square metre unit cost for a week, before VAT?", 78),  # rounded to 13 m² x 6
        ("What does a 6 m² unit cost for a week at Kestle, VAT included?", 54),
    ],
)
def test_bands_rounding_and_vat(question: str, expected: float) -> None:
    assert charge(question, STORAGE) == pytest.approx(expected)


def test_tiers_each_at_their_own_rate_and_a_discount_by_its_subject() -> None:
    assert charge("What is the water charge for 120 m³ in a year?", WATER) == pytest.approx(172)
    assert charge("What is the water charge for 200 m3 a year?", WATER) == pytest.approx(325)
    social = "What is the water charge for 40 m³ a year for a customer on the social tariff?"
    assert charge(social, WATER) == pytest.approx(36)


def test_seasons_per_item_minimums_and_named_extras() -> None:
    assert charge("What does a tent pitch cost for 3 nights in July at Heronsgate?", CAMPSITE) == 48
    assert charge("What does a tent pitch cost for 2 nights in November?", CAMPSITE) == 32  # minimum 16
    hooked = "What does a tent pitch cost for 2 nights in June with electric hook-up?"
    assert charge(hooked, CAMPSITE) == pytest.approx(39)  # 2 x max(11, 16) + 2 x 3.50


def test_capacities_give_counts_of_containers() -> None:
    assert charge("What does table hire cost at Millrace Hall for 40 guests?", HALL) == 35  # 7 tables
    linen = "What does table hire with tablecloths cost at Millrace Hall for 40 guests?"
    assert charge(linen, HALL) == 56
    assert charge("What is the hire at Millrace Hall for a 2-hour meeting?", HALL) == 120  # minimum 3 h
    early = "What is the hire at Millrace Hall for 4 hours, booked 5 months ahead?"
    assert charge(early, HALL) == pytest.approx(136)
    counted = counted_expression(
        "How many trestle tables does Millrace Hall need for 40 guests?", records(HALL)
    )
    assert counted is not None and value(counted[0]) == 7


def test_packs_are_rounded_up() -> None:
    found = counted_expression("How many 2.5 L tins of varnish do I need for 60 m² of boards, two coats?",
                               records(PAINT))  # fmt: skip
    assert found is not None and value(found[0]) == 5  # 12 L / 2.5
    litres = counted_expression("How many litres of varnish does one coat on 35 m² take?", records(PAINT))
    assert litres is not None and value(litres[0]) == pytest.approx(3.5) and litres[1] == "L"


def test_no_rule_fits_gives_none() -> None:
    assert ruled_expression("Who founded Pebblebrook Kayak Hire?", records(KAYAK)) is None
    assert ruled_expression("What does a canoe trip to the moon cost?", records(PAINT)) is None
    assert ruled_expression("What does a single kayak cost for 3 hours?", None) is None


def test_records_from_data_skips_what_it_cannot_trust() -> None:
    assert records_from_data(None) is None
    assert records_from_data({"version": 2, "records": []}) is None
    assert records_from_data({"version": 1, "records": "x"}) is None
    bad = {
        "version": 1,
        "path": 7,
        "records": [
            "junk",
            {"text": 5},
            {"text": "ok", "rules": [["rate", "NaN", "EUR", [], 1, False, 0, "", None, False]]},
            {"text": "ok", "rules": [["rate", 1e309, "EUR", [], 1, False, 0, "", None, False]]},
            {"text": "ok", "rules": [["rate", 3, "EUR", [], 0, False, 0, "", None, False]]},  # step 0
            {"text": "ok", "rules": [["nonsense", 3, "EUR", [], 1, False, 0, "", None, False]]},
            {"text": "fine", "rules": [["rate", 3, "EUR", ["h"], 1, False, 0, "x", [0, None, 0, 0, ""], 0]]},
        ],
    }
    parsed = records_from_data(bad)
    assert parsed is not None and parsed.path == ""
    assert [r.text for r in parsed.records] == ["ok", "ok", "ok", "ok", "fine"]
    assert len(parsed.rules) == 1 and parsed.rules[0].band is not None


def test_the_wire_form_is_bounded() -> None:
    big = "\n".join(f"Item {i} costs EUR {i}.50 per hour, unless booked before noon." for i in range(5000))
    data = records_data(read_document("big.md", big))
    assert data["version"] == 1
    assert len(canonical.encode(data)) <= MAX_BYTES  # the bound is in the wire's own encoding
    assert len(data["records"]) <= 300  # type: ignore[arg-type]


FERRY = """\
# Gullholm Ferries

## Fares (EUR)

| Ticket        | Adult | Child |
|---------------|-------|-------|
| Single        | 9.00  | 4.50  |
| Day return    | 15.00 | 7.50  |
| Island pass   | 32.00 | 16.00 |

## Timetable

| Harbour dep. | Gull Rock arr. | Holm Quay arr. |
|--------------|----------------|----------------|
| 07:10        | 07:35          | 08:05          |
| 12:40        | 13:05          | 13:35          |
"""


def test_two_prices_compared_and_a_timetable_duration() -> None:
    docs = records(FERRY)
    more = compared_expression("How much more is an adult island pass than an adult day return?", docs)
    assert more is not None and value(more[0]) == 17 and more[1] == "EUR"
    save = "How much does a child save with a day return instead of two singles?"
    saved = compared_expression(save, docs)
    assert saved is not None and value(saved[0]) == 1.5
    pct = compared_expression("By what percentage is the child single cheaper than the adult single?", docs)
    assert pct is not None and value(pct[0]) == 50 and pct[1] == "%"
    took = timetable_duration("How long does the ferry take from Gull Rock to Holm Quay?", docs)
    assert took == ("30", "min")
    assert compared_expression("What does an adult single cost?", docs) is None


def test_the_prices_own_terms_join_its_rules_only_for_the_price_looked_up() -> None:
    docs = records(HALL)
    question = "What is the hire at Millrace Hall for 4 hours 10 minutes?"
    plain = ruled_expression(question, docs)
    assert plain is not None and value(plain[0]) == pytest.approx(40 * (4 + 1 / 6))
    stepped = ruled_expression(question, docs, (("per", "h"), ("step", "30 min")), 40.0)
    assert stepped is not None and value(stepped[0]) == pytest.approx(180)  # 4.5 h
    off = ruled_expression(question, docs, (("step", "30 min"), ("discount", "10")), 40.0)
    assert off is not None and value(off[0]) == pytest.approx(162)
    assert ruled_expression(question, docs, (("step", "30 min"),), 55.0) is None  # another price


def test_what_a_discount_saves() -> None:
    saved = ruled_expression(
        "How much does a 10-year-old save on a single kayak for 2 hours?", records(KAYAK)
    )
    assert saved is not None and value(saved[0]) == 14  # half of 2 x 14
    hall = "How much does a booking made 4 months ahead save on the hire each hour at Millrace Hall?"
    each = ruled_expression(hall, records(HALL))
    assert each is not None and value(each[0]) == 6  # 15 % of GBP 40


def test_a_discount_term_whose_condition_the_document_states_is_checked_here() -> None:
    docs = records(HALL)
    question = "What is the hire at Millrace Hall for 4 hours 10 minutes?"
    terms = (("step", "30 min"), ("discount", "15"))  # the early-booking discount, read without its condition
    plain = ruled_expression(question, docs, terms, 40.0)
    assert plain is not None and value(plain[0]) == pytest.approx(180)
    early = ruled_expression(question.replace("?", ", booked 5 months ahead?"), docs, terms, 40.0)
    assert early is not None and value(early[0]) == pytest.approx(153)
