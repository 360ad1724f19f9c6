"""Issue 23 (p-derive): a right lookup is not rewritten by the derive step (planning/kept_lookup.py).

A plain "what is X" keeps the value looked up and its unit; a discount or a surcharge of another sentence
applies only when the question names its case; a number that only labels or selects the thing asked
("Zone 4", "Flat 4B", "an 80-minute massage", "a pack of 10 sessions", "within 7 days") is no quantity to
apply. The documents and wordings are made up here and differ from every suite's. The tests through
``describe`` and ``refusal`` (the path every driver takes) failed before the module existed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.compose import describe
from ioa_p2p.planning.derive import DERIVE
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.refusal import refusal
from ioa_p2p.planning.types import CALC, LOOKUP, PlanStep
from ioa_p2p.planning.values import Value

RACE = """\
# Brackmoor Fell Race 2028: entry terms

## Entry fees

| Race       | Early entry (to 31 Jan) | Standard entry (Feb-Apr) | Late entry (May) |
|------------|-------------------------|--------------------------|------------------|
| Fell 30K   | EUR 41.00               | EUR 49.00                | EUR 57.00        |
| Fell 12K   | EUR 22.00               | EUR 26.00                | EUR 30.00        |

A timing-chip fee of EUR 3.00 is added to every entry. Members of a registered running club pay
EUR 4.00 less on any entry. Members receive a finisher's mug worth EUR 8.00 once a year.
"""

PARCELS = """\
Ostrel Couriers - tariff 2028

Zone 4 (overseas): EUR 19.00 per parcel plus EUR 5.40 per kg of chargeable weight.
Collections: EUR 3.50 per collection for fewer than 6 parcels, free from 6 parcels.
A discount of 3 % applies to invoices paid within 10 days.
Weekend collections cost 50 % more.
"""

SPA = """\
Larchside Lodge - spa and gym

Treatments
  Hot stone massage, 75 minutes: EUR 96.00
  Facial, 45 minutes: EUR 58.00

Personal training
  Single session              EUR 45.00
  Pack of 8 sessions          EUR 330.00

Resident guests get 10 % off every spa treatment.
Clay: EUR 0.04 per gram of mixed clay (resident guests).
"""


def _found(number: float, unit: str, doc: str, name: str = "terms.md") -> Value:
    records = records_from_data(records_data(read_document(name, doc)))
    assert isinstance(records, DocRecords)
    return replace(Value.of_number(number, unit), evidence=(doc,), records=records)


def _calc(question: str, template: str = DERIVE) -> PlanStep:
    return PlanStep(2, CALC, question, template, (1,))


def _values(found: Value) -> dict[int, Value]:
    return {1: found}


@pytest.mark.parametrize(
    ("question", "found", "doc", "template"),
    [
        # a plain "what is X": no surcharge ("added to every entry") nobody asked for
        ("What is the standard entry fee for the Brackmoor Fell 30K?", 49.0, RACE, DERIVE),
        # "members" is the words of the value's own sentence: no member discount on a credit
        ("What are Brackmoor members given once a year, in euros?", 8.0, RACE, DERIVE),
        # "Zone 4" labels the rate; "per kg" is the rate asked for
        ("What does Ostrel charge per kg for Zone 4 parcels?", 5.4, PARCELS, DERIVE),
        # "fewer than 6 parcels" selects the price per collection: no count to multiply by
        ("What does Ostrel charge per collection for fewer than 6 parcels?", 3.5, PARCELS, DERIVE),
        # the measure that names the treatment is stated by its row: selected, never applied again
        ("What does a 75-minute hot stone massage cost at Larchside?", 96.0, SPA, "charge(v1; 75 min)"),
        ("What does a pack of 8 personal training sessions cost at Larchside?", 330.0, SPA,
         "charge(v1; 8 sessions)"),
    ],
)  # fmt: skip
def test_a_value_that_answers_as_asked_is_kept(question: str, found: float, doc: str, template: str) -> None:
    values = _values(_found(found, "EUR", doc))
    step = _calc(question, template)
    assert refusal(step, values) is None
    assert describe(step, values) == f"Calculate {found:g} * 1"


@pytest.mark.parametrize(
    ("question", "found", "doc"),
    [
        ("What discount does Ostrel give on invoices paid within 10 days?", 3.0, PARCELS),
        ("What do resident guests pay per gram of mixed clay at Larchside?", 0.04, SPA),
    ],
)
def test_a_rate_or_a_share_asked_for_is_not_refused(question: str, found: float, doc: str) -> None:
    unit = "%" if "discount" in question else "EUR"
    values = _values(_found(found, unit, doc))
    step = _calc(question)
    assert refusal(step, values) is None
    assert describe(step, values) == f"Calculate {found:g} * 1"


def test_a_label_glued_to_a_letter_is_no_quantity() -> None:
    from ioa_p2p.planning.kept_lookup import unselected

    question = "What fixed charge does the Flat 7C tenant pay for a lost key?"
    assert unselected(question, "Lost key: EUR 30") == []
    assert unselected("What does a 60W bulb use in 10 hours?", "60W bulb: 0.06 kWh per hour") == [10.0]


@pytest.mark.parametrize(
    ("question", "found", "doc"),
    [
        # the question names the discount's case: the derivation applies it
        ("What does a member of a registered running club pay for the standard Fell 30K entry?", 49.0, RACE),
        # it asks for a total: the fees the derivation adds are asked for
        ("What is the total for a standard Fell 30K entry including every fee?", 49.0, RACE),
        # a quantity the row does not state is applied (or its rule named missing)
        ("What would Ostrel charge for a 7 kg parcel to Zone 4?", 5.4, PARCELS),
        # a weekend collection: another sentence's surcharge the question names
        ("What does a weekend collection of 3 parcels cost with Ostrel?", 3.5, PARCELS),
        # a unit the value's record does not state
        ("What does the hot stone massage cost per minute?", 96.0, SPA),
        # the thing asked is not what the value's record states (another document's rule may say it)
        ("How much interest is owed on a Fell 30K standard entry paid late?", 49.0, RACE),
        # a measure the question states ("is 120 m up", never an age) that the value's record does not
        ("Our lodge is 120 m up. What does the facial cost at Larchside?", 58.0, SPA),
        # a label the value's record does not state: read for another zone
        ("What does Ostrel charge per kg for Zone 5 parcels?", 5.4, PARCELS),
        # the kind of answer asked is not the value's
        ("How long is the hot stone massage at Larchside?", 96.0, SPA),
        ("How long does the hot stone massage last?", 96.0, SPA),
    ],
)
def test_the_derivation_decides_when_the_question_asks_more(question: str, found: float, doc: str) -> None:
    from ioa_p2p.planning.kept_lookup import kept_lookup

    assert kept_lookup(question, _found(found, "EUR", doc)) is None


def test_the_own_record_is_the_one_stating_the_value() -> None:
    from ioa_p2p.planning.kept_lookup import kept_lookup, own_record, unselected

    found = _found(26.0, "EUR", RACE)
    assert found.records is not None
    own = own_record("What is the standard entry for the Fell 12K?", 26.0, found.records)
    assert own is not None and own.key == "Fell 12K"
    assert unselected("What does an 80-minute facial cost?", "Facial, 45 minutes: EUR 58.00") == [80.0]
    assert kept_lookup("What is the standard entry fee for the Fell 12K?", found) == ("26 * 1", "EUR")
    # no record states the value: nothing to keep it by
    assert kept_lookup("What is the standard entry fee for the Fell 12K?", _found(27.0, "EUR", RACE)) is None
    # a value without typed records, or another kind of value
    assert kept_lookup("What is the fee?", Value.of_number(26.0, "EUR")) is None
    assert kept_lookup("What is the fee?", None) is None
    assert kept_lookup("When does late entry open?", found) is None


def test_other_steps_are_left_to_the_derivation() -> None:
    from ioa_p2p.planning.kept_lookup import kept_step

    values = _values(_found(49.0, "EUR", RACE))
    question = "What is the standard entry fee for the Brackmoor Fell 30K?"
    assert kept_step(PlanStep(2, CALC, question, "v1 * 2", (1,)), values) is None
    assert kept_step(PlanStep(1, LOOKUP, question, question), values) is None
    assert kept_step(_calc(question), {}) is None
    assert kept_step(_calc(question), values) == "49 * 1"


@pytest.mark.parametrize(
    "question",
    [
        # the price each: the count ordered selects the price, it is no quantity to multiply by
        "At Tamsin Pottery, what does a glazed mug cost each when 40 are ordered?",
        # "Flat 7C" is a code, not seven of something
        "For how many nights in a row may visitors stay at Flat 7C without the owner's consent?",
    ],
)
def test_a_count_that_only_selects_is_not_multiplied_by(question: str) -> None:
    from ioa_p2p.planning import plan_request

    plan = plan_request(question)
    assert [s.kind for s in plan.steps][0] == LOOKUP
    assert not any(s.kind == CALC and any(c.isdigit() for c in s.template) for s in plan.steps)
    assert len([s for s in plan.steps if s.kind == LOOKUP]) == 1


def test_a_fee_added_to_every_item_is_asked_for_not_summed() -> None:
    from ioa_p2p.planning import plan_request

    plan = plan_request("What is the paperwork fee added to every Ostrel Couriers invoice?")
    assert [s.kind for s in plan.steps if s.kind == LOOKUP] == [LOOKUP]
    assert not any("+" in s.template for s in plan.steps)
    summed = plan_request("What is the Ostrel basic fee added to the Ostrel paperwork fee?")
    assert any("v1 + v2" in s.template for s in summed.steps)


HALL = """\
Pendle Row community hall - running costs

The hall's heating burns 88 kWh of gas per square metre of floor area each winter. The main hall
has a floor area of 240 square metres. Cleaning is EUR 1.90 per square metre per month. Caretaker
time is billed at EUR 31 per caretaker-hour. The hall's minibus cruises at 70 km/h.
"""


@pytest.mark.parametrize(
    ("question", "found", "unit"),
    [
        # a rate per square metre (the floor area is in the document): the whole is asked, not the rate
        ("How much gas does the Pendle Row main hall burn in a winter?", 88.0, "kWh"),
        ("What does cleaning the Pendle Row main hall cost for a year?", 1.9, "EUR"),
        # "per caretaker-hour" is per hour: the question asks for the cost of the time, not the rate
        ("What did the caretaker's time on the Pendle Row open day cost?", 31.0, "EUR"),
        # a speed, not the distance asked for
        ("How far does the Pendle Row minibus go in a morning at cruising speed?", 70.0, "km"),
    ],
)
def test_a_rate_per_something_the_question_never_names_is_not_kept(
    question: str, found: float, unit: str
) -> None:
    """The nat suite's losses when p-derive merged beside p-three (coordinator): "95 kWh of gas per square
    metre" was kept as the answer to a whole season's gas."""
    from ioa_p2p.planning.kept_lookup import kept_lookup, unasked_per

    assert kept_lookup(question, _found(found, unit, HALL)) is None
    assert unasked_per(question, HALL, found)
    assert not unasked_per("What is the cleaning charge per square metre per month?", HALL, 1.9)
    assert not unasked_per("What is the caretaker's hourly rate?", HALL, 31.0)
