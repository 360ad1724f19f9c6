"""Issue 23 (p-compose), class 7: natural questions whose answer needs several rules of a document composed
(planning/rulebook.py, planning/party.py, planning/composer.py). Documents and wordings are made up here
and differ from every suite's."""

from __future__ import annotations

import math

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.composer import composed_charge, composed_rate
from ioa_p2p.planning.party import head_count, party_of
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.rulebook import rulebook

CAMPSITE = """\
Dear camper,

Pitches at Ferncombe Meadow cost EUR 14 per pitch per night. Each person staying pays a site levy of
EUR 1.80 per person per night. Campers under 14 are exempt from it.

Firewood bundles cost EUR 6 each.

Showers are EUR 0.50 per person per day; children under 10 shower for half price.

Stays of 5 nights or more get 15% off the pitch fees (not off the site levy or firewood).
"""

CANAL = """\
CANAL BOAT HIRE - TARIFF
========================

NARROWBOAT (up to 6) ............ EUR 90 for the first 3 hours,
                                  then EUR 20 for every further 30 minutes
DAY CRUISER ..................... EUR 36 per 90 minutes
PEDALO .......................... EUR 12 per hour

  *  Any period you start is charged in full.
  *  Life jackets are free. Fishing rods: EUR 4 per person per hire.
"""

SHIPPING = """\
# Pellworth Freight - parcel prices

| Weight                  | Standard  | Priority  |
|-------------------------|----------:|----------:|
| up to 3 kg              | EUR 5.00  | EUR 8.00  |
| over 3 kg up to 8 kg    | EUR 7.50  | EUR 11.00 |
| over 8 kg up to 25 kg   | EUR 12.00 | EUR 18.00 |

- Remote islands: a surcharge of 40% of the parcel's price, but at least EUR 3.00 per parcel.
- Evening delivery: EUR 2.50 per parcel.
- All prices exclude VAT; VAT at 25% is added to the whole order.
"""


def _records(name: str, text: str) -> DocRecords:
    records = records_from_data(records_data(read_document(name, text)))
    assert records is not None
    return records


def _value(found: tuple[str, str] | None) -> float:
    assert found is not None
    return float(eval(found[0], {"__builtins__": {}, "ceil": math.ceil, "max": max, "min": min}))


def test_people_are_read_with_their_ages() -> None:
    party = party_of("Three adults and two children aged 4 and 11 are coming")
    assert party is not None and head_count(party) == 5
    assert sorted(m.age for m in party if m.age is not None) == [4.0, 11.0]
    assert party_of("a couple wants a room") is not None
    assert party_of("What is the price of a pitch?") is None


def test_rulebook_reads_first_and_further_periods_and_rates_over_a_quantity() -> None:
    book = rulebook(_records("canal.txt", CANAL))
    by_number = {t.number: t for t in book.rates}
    assert by_number[90].first and by_number[90].over == 3 and by_number[90].measure == "h"
    assert by_number[20].beyond == 180 and by_number[20].over == 30 and by_number[20].started
    assert by_number[36].over == 90 and by_number[36].measure == "min"
    assert book.started


def test_a_first_period_then_further_started_periods() -> None:
    found = composed_charge("How much is a narrowboat for 4 hours and 10 minutes?", _records("c.txt", CANAL))
    assert found is not None
    # 250 min: 90 for the first 180, then ceil(70 / 30) = 3 further blocks of 20
    assert _value(found) == 150


def test_per_person_extras_are_added_for_the_party() -> None:
    q = "The three of us want the narrowboat for 3 hours and we all need fishing rods. What will it cost?"
    assert _value(composed_charge(q, _records("c.txt", CANAL))) == 90 + 3 * 4


def test_a_rate_over_ninety_minutes_per_hour_asked() -> None:
    found = composed_rate("What does the day cruiser cost per hour?", _records("c.txt", CANAL))
    assert found is not None and found[1] == "EUR/h" and _value(found) == 24


def test_a_levy_with_an_age_exemption_and_a_discount_whose_condition_fails() -> None:
    q = (
        "Two adults and a 12-year-old camp at Ferncombe on one pitch for 3 nights. What is the total with "
        "the site levy?"
    )
    # 3 nights < 5: no discount; the 12-year-old pays no levy
    assert _value(composed_charge(q, _records("camp.txt", CAMPSITE))) == 14 * 3 + 1.8 * 2 * 3


def test_a_discount_whose_condition_holds_is_off_the_base_only() -> None:
    q = "A couple pitches one tent at Ferncombe for 6 nights. What do they pay, with the site levy?"
    assert math.isclose(
        _value(composed_charge(q, _records("camp.txt", CAMPSITE))), 14 * 6 * 0.85 + 1.8 * 2 * 6
    )


def test_a_half_price_by_age_within_a_per_person_rate() -> None:
    q = "What will showers cost us for 4 days at Ferncombe: two adults and two kids aged 6 and 12?"
    assert math.isclose(_value(composed_charge(q, _records("camp.txt", CAMPSITE))), 0.5 * (2 + 0.5 + 1) * 4)


def test_a_band_with_both_bounds_a_surcharge_with_a_minimum_and_vat() -> None:
    records = _records("ship.md", SHIPPING)
    q = "A 6 kg parcel goes standard to a remote island. What is the Pellworth price before VAT?"
    assert math.isclose(_value(composed_charge(q, records)), 7.5 + 3.0)  # 40% of 7.50 is under 3.00
    q = "What is the Pellworth price with VAT for a 10 kg parcel sent priority with evening delivery?"
    assert math.isclose(_value(composed_charge(q, records)), (18 + 2.5) * 1.25)


def test_no_composition_when_a_quantity_is_unused_or_the_lookup_found_another_price() -> None:
    records = _records("camp.txt", CAMPSITE)
    q = "Two adults camp at Ferncombe on one pitch for 3 nights with 4 bikes. What is the total with the levy"
    assert composed_charge(q, records) is None  # the 4 bikes are used by no rule
    q = "Two adults camp at Ferncombe on one pitch for 3 nights. What is the total with the site levy?"
    assert composed_charge(q, records, looked=(99.0,)) is None  # the base must be the price looked up
    assert composed_charge(q, records, looked=(14.0,)) is not None


def test_a_single_rule_is_left_to_the_single_rule_readings() -> None:
    assert composed_charge("What does a pedalo cost for 2 hours?", _records("c.txt", CANAL)) is None


def test_a_rule_the_question_names_but_the_chain_leaves_out_stops_it() -> None:
    q = "Two adults camp at Ferncombe on one pitch for 3 nights and buy firewood. Total with the levy?"
    assert composed_charge(q, _records("camp.txt", CAMPSITE)) is None  # firewood: no count given


STANDBY = """\
## Standby pay

Technicians on standby receive EUR 30 per day on standby and EUR 50 per hour worked on a callout.
"""


def test_the_chain_whose_base_uses_the_question_s_hours_wins() -> None:
    q = "A technician works 2 hours on a callout on Sunday. Pay for that day, standby allowance included?"
    records = _records("policy.md", STANDBY)
    assert _value(composed_charge(q, records, looked=(30.0,))) == 50 * 2 + 30  # not 30 * 2 / 24


def test_a_band_cell_with_both_bounds_keeps_both() -> None:
    from ioa_p2p.planning.banded import band_in

    band = band_in("over 4 litres up to 9 litres")
    assert band is not None and (band.low, band.high, band.low_open, band.high_open) == (4, 9, True, False)
    band = band_in("more than 2 up to 7 days")
    assert band is not None and (band.low, band.high, band.low_open) == (2, 7, True)


def test_a_rate_asked_per_unit_is_derived_not_only_looked_up() -> None:
    from ioa_p2p.planning import plan_request
    from ioa_p2p.planning.derive import DERIVE

    plan = plan_request("What is the day cruiser at the canal per minute?")
    assert [s.template for s in plan.steps][-1] == DERIVE


def test_a_season_s_name_is_no_party_and_a_free_allowance_is_left_to_the_single_rule_reading() -> None:
    assert party_of("What was the winter 2025/26 adult return fare?") is None
    waiting = _records(
        "rates.txt", "Waiting beyond the first 10 minutes costs EUR 2 per started 5 minutes.\n"
    )
    book = rulebook(waiting)
    assert book.rates[0].beyond == 10  # never a base of its own here: planning/ruled.py applies it
    assert composed_charge("A driver waited 23 minutes. What is the waiting charge?", waiting) is None
