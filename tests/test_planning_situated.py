"""Issue 23 (p-chain): a natural question that combines two or three rules of the document its value was
looked up in (planning/situated.py): a first item's price plus each further one's, other charges the
question adds by name, the factors and discounts its situation selects or whose threshold it meets, a
charge in two tiers; a rule solved for the quantity that reaches an amount. Documents and wordings are
made up here and differ from every suite's."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.operand_rules import class_price, operand_charge, share_of_given
from ioa_p2p.planning.party import party_of
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.rule_reader import CHARGE, FACTOR, apply_to_expression, apply_to_quantity, read_rule
from ioa_p2p.planning.situated import (
    floor_reached,
    inverted_rule,
    quantity_for,
    scaled_to_given,
    situated_charge,
    stated_terms,
)
from ioa_p2p.planning.values import Value

MARINA = """\
Hollin Quay Marina - visitor charges 2026

Mooring
  First night ................... EUR 34.00
  Each further night ............ EUR 26.00 (at most 14 nights)
  Shore power ................... EUR 6.50 each (one hook-up)

Kayak racks
  Up to 2 kayaks ................ EUR 12.00
  Each additional kayak ......... EUR 4.00

Members of an affiliated sailing club pay two thirds of the mooring charges.
Crews arriving after sunset: a late-arrival surcharge of EUR 5 is added.
Slipway use costs EUR 0.90 per metre of hull for the first 10 m, EUR 1.40 per metre beyond that.
Below 5 °C every waiting time given above is doubled.
Fuel dock queue: 20 minutes waiting time.
"""


def _records(doc: str = MARINA) -> DocRecords:
    records = records_from_data(records_data(read_document("charges.txt", doc)))
    assert records is not None
    return records


def _found(number: float, unit: str = "EUR", doc: str = MARINA) -> Value:
    return replace(Value.of_number(number, unit), records=_records(doc))


def _eval(expression: str) -> float:
    return float(eval(expression, {"__builtins__": {}}, {"min": min, "max": max, "ceil": math.ceil}))


@pytest.mark.parametrize(
    ("question", "found", "expected"),
    [
        # first + each further, for the count the question gives
        ("We'd like to moor for four nights at Hollin Quay. What do we pay?", 34.0, 34 + 26 * 3),
        # ... with a factor the situation selects ("affiliated sailing club")
        ("Our affiliated sailing club's yacht stays three nights. What will the mooring come to?", 34.0,
         (34 + 26 * 2) * 2 / 3),
        # ... plus another charge the question adds by name; the value found is that other charge
        ("We moor for two nights, plus shore power. What is the bill?", 6.5, 34 + 26 + 6.5),
        # up to N in one price, each additional one beyond
        ("How much to rack five kayaks?", 12.0, 12 + 4 * 3),
    ],
)  # fmt: skip
def test_a_situation_composes_the_documents_rules(question: str, found: float, expected: float) -> None:
    composed = situated_charge(question, _found(found))
    assert composed is not None, question
    assert math.isclose(_eval(composed[0]), expected), composed
    assert composed[1] == "EUR"


@pytest.mark.parametrize(
    "question",
    [
        "What does the first night cost?",  # the value found on its own: no composition
        "We moor for one night. What is the bill?",  # no further night: the first night answers alone
        "How much is a kayak rack for one kayak?",
    ],
)
def test_no_composition_without_a_second_rule(question: str) -> None:
    assert situated_charge(question, _found(34.0 if "night" in question else 12.0)) is None


def test_a_situation_the_question_does_not_name_selects_nothing() -> None:
    # a club member is not named: two nights are first + further, never two thirds of it
    composed = situated_charge("We moor for two nights with our yacht. What is the bill?", _found(34.0))
    assert composed is not None and math.isclose(_eval(composed[0]), 60.0)


def test_a_value_found_that_is_no_part_of_the_charge_composes_nothing() -> None:
    # the kayaks' price was found, the question counts nights: another reading decides
    assert situated_charge("We moor for three nights. What is the bill?", _found(12.0)) is None


def test_a_charge_in_two_tiers_over_the_given_quantity() -> None:
    for length, expected in ((14.0, 0.9 * 10 + 1.4 * 4), (8.0, 0.9 * 8)):
        q = f"Our boat is {length:g} m long. What does the slipway cost?"
        stated = stated_terms(q, _found(1.4))
        assert stated is not None and math.isclose(_eval(stated[0]), expected), stated
    # no quantity in metres: nothing to charge
    assert stated_terms("What does the slipway cost per metre?", _found(1.4)) is None


def test_a_threshold_the_quantity_meets_doubles_every_time_above() -> None:
    derived = derive_expression(
        "It is 2 °C today. How long will we wait at the fuel dock queue?", _found(20, "min")
    )
    assert derived is not None and math.isclose(_eval(derived[0]), 40.0), derived
    # 9 °C: the threshold fails, the time stated answers as it is
    derived = derive_expression(
        "It is 9 °C today. How long will we wait at the fuel dock queue?", _found(20, "min")
    )
    assert derived is None or math.isclose(_eval(derived[0]), 20.0), derived


@pytest.mark.parametrize(
    ("sentence", "quantity", "expected"),
    [
        ("Parking: EUR 1.20 per hour for the first 3 hours, EUR 2.00 per hour after that.", 5, 7.6),
        ("Water: EUR 2 per m3 for the first 50 m3; EUR 3 per m3 for every further m3.", 40, 80.0),
    ],
)  # fmt: skip
def test_two_tiers_read_as_one_charge(sentence: str, quantity: float, expected: float) -> None:
    rule = read_rule(sentence)
    assert rule is not None and rule.kind == CHARGE and rule.further is not None
    expression = apply_to_quantity(rule, quantity)
    assert expression is not None and math.isclose(_eval(expression), expected)


def test_two_rates_of_two_bands_stay_no_rule() -> None:
    assert read_rule("5.1 to 12 kg: EUR 2.80 per kg over 12 kg: EUR 2.40 per kg") is None


@pytest.mark.parametrize(("verb", "factor"), [("doubled", 2.0), ("halved", 0.5), ("tripled", 3.0)])
def test_a_verb_that_multiplies(verb: str, factor: float) -> None:
    rule = read_rule(f"In frost the drying time is {verb}.")
    assert rule is not None and rule.kind == FACTOR and rule.factor == factor
    expression = apply_to_expression(rule, "6 + 2")
    assert expression is not None and math.isclose(_eval(expression), 8 * factor)


@pytest.mark.parametrize(
    ("sentence", "amount", "expected"),
    [
        ("Late returns: EUR 2 per day after a 3-day grace period, capped at EUR 20.", 20, 13),
        ("Late returns: EUR 2 per day after a 3-day grace period, capped at EUR 20.", 7, 7),
        ("Storage costs EUR 5 plus EUR 1.50 per day.", 11, 4),
        ("Parking: EUR 1.20 per hour for the first 3 hours, EUR 2.00 per hour after that.", 7.6, 5),
    ],
)  # fmt: skip
def test_a_charge_solved_for_the_quantity_that_reaches_an_amount(
    sentence: str, amount: float, expected: float
) -> None:
    rule = read_rule(sentence)
    assert rule is not None
    solved = quantity_for(rule, amount)
    assert solved is not None and math.isclose(_eval(solved), expected), solved
    # the quantity found reaches the amount, one less does not
    reached = apply_to_quantity(rule, _eval(solved))
    short = apply_to_quantity(rule, _eval(solved) - 1)
    assert reached is not None and short is not None
    assert _eval(reached) >= amount - 1e-9 > _eval(short)


def test_an_amount_beyond_the_cap_is_never_reached() -> None:
    rule = read_rule("Late returns: EUR 2 per day after a 3-day grace period, capped at EUR 20.")
    assert rule is not None and quantity_for(rule, 25) is None


CLUB = """\
# Fenwick Tennis Club - court fees 2026

| Booking                  | Member  | Visitor |
|--------------------------|---------|---------|
| Hour (one court)         | EUR 8   | EUR 14  |
| Day (10 consecutive hours) | EUR 60 | EUR 95 |

1. Floodlights after 18:00 cost EUR 4 per hour.
2. Juniors accompanied by a member play at half the visitor hour price.
3. Lost locker keys are replaced for EUR 15.
"""


def test_a_rule_applied_to_the_fact_it_names_in_words() -> None:
    found = _found(15.0, doc=CLUB)  # the lookup found another sentence's amount
    q = "My son is a junior and comes with me, a member, for three hours. What does he pay?"
    composed = operand_charge(q, found)
    assert composed is not None and math.isclose(_eval(composed[0]), 14 / 2 * 3), composed
    # a quantity the operand is not per (kilometres): not this rule's charge
    assert (
        operand_charge("A junior accompanied by a member plays 3 km away. What does he pay?", found) is None
    )
    # the situation is not named: nothing selected
    assert operand_charge("What does a visitor pay for three hours?", found) is None


def test_half_the_fact_reads_as_a_factor() -> None:
    rule = read_rule("Juniors accompanied by a member play at half the visitor hour price.")
    assert rule is not None and rule.kind == FACTOR and rule.factor == 0.5


GRANTS = """\
# Brisley Heritage Fund - budget rules

- Contingency: up to 8 % of the building costs.
- Staff time may not exceed 30 % of the total grant.
- Spray mix: 40 mL of concentrate in 5 L of water treats 120 m² of stone.
"""


def test_a_share_of_the_amount_the_question_gives() -> None:
    found = _found(30.0, "%", doc=GRANTS)  # another rule's share was found
    q = "Our building costs come to EUR 64,000. What's the most we can set aside as contingency?"
    composed = share_of_given(q, found)
    assert composed is not None and math.isclose(_eval(composed[0]), 0.08 * 64000), composed
    # the amount given is not what the share is of
    assert share_of_given("Our travel costs come to EUR 64,000. How much contingency?", found) is None


def test_an_amount_stated_for_a_quantity_scaled_to_the_given_one() -> None:
    found = _found(40.0, "ml", doc=GRANTS)
    scaled = scaled_to_given("How many millilitres of concentrate to treat 300 m² of stone?", found)
    assert scaled is not None and math.isclose(_eval(scaled[0]), 100.0) and scaled[1] == "ml"
    assert scaled_to_given("How many millilitres of concentrate do I need?", found) is None


def test_the_units_after_which_a_share_per_unit_reaches_its_floor() -> None:
    rule = read_rule(
        "We refund the price less 2.5 % for each full month, but never less than 30 % of the price."
    )
    assert rule is not None
    solved = floor_reached(rule)
    assert solved is not None and _eval(solved) == 28  # 100 - 2.5 x 28 = 30
    assert floor_reached(read_rule("Holders of a Bluefin card get 12 % off all rentals.") or rule) is None


POOL = """\
# Amberley Lido - swim passes 2026

| Pass                   | Standard | Senior* | Child (4-15) |
|------------------------|----------|---------|--------------|
| Single session         | EUR 6    | EUR 4   | EUR 3        |
| Month (30 days)        | EUR 55   | EUR 38  | EUR 25       |

\\* Senior: swimmers aged 60 and over.
"""


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("I'm 72 and want to swim four sessions at Amberley Lido. What will it cost?", 4 * 4),
        ("I'm 9, and I swim three sessions. What do I pay?", 3 * 3),
        ("I'm 35 and swim five sessions. What do I pay?", 5 * 6),  # no class holds: the plain column
    ],
)
def test_the_column_of_the_class_the_person_is_in(question: str, expected: float) -> None:
    priced = class_price(question, _found(55.0, doc=POOL))
    assert priced is not None and math.isclose(_eval(priced[0]), expected), priced


def test_no_class_price_without_an_age_or_a_period() -> None:
    found = _found(55.0, doc=POOL)
    assert class_price("We want to swim four sessions. What will it cost?", found) is None  # no age
    assert class_price("I'm 72. What does a session cost?", found) is None  # nothing counted
    assert class_price("I'm 72 and swim 4 sessions with 2 towels. What will it cost?", found) is None


@pytest.mark.parametrize(
    ("question", "age"),
    [
        ("I'm 67 and want to fish three days.", 67.0),
        ("I am 16, and I'd like a pass.", 16.0),
        ("I'm 23 years old and hire a car.", 23.0),
        ("I'm 3 km from the lido; what does a swim cost?", None),  # a distance, no age
        ("I'm 2000 metres up.", None),
    ],
)
def test_the_age_of_the_one_who_asks(question: str, age: float | None) -> None:
    party = party_of(question)
    assert party is not None and len(party) == 1 and party[0].age == age


LIBRARY = """\
Wexley Libraries - charges

Overdue adult books: EUR 0.30 per day after a 2-day grace period, capped at EUR 6.
Damaged items are refunded at the purchase price less 2 % for each full month since purchase, but never
less than 50 % of the purchase price.
"""


@pytest.mark.parametrize(
    ("question", "found", "expected", "unit"),
    [
        ("After how many days does the fine on an overdue adult book reach its cap?", 0.3, 22, "days"),
        ("After how many days does an overdue book's fine reach EUR 3?", 0.3, 12, "days"),
        ("How many full months until the refund on a damaged item reaches its floor?", 2.0, 25, "months"),
    ],
)
def test_a_rule_solved_for_the_quantity_a_question_asks(
    question: str, found: float, expected: float, unit: str
) -> None:
    value = _found(found, "EUR" if found == 0.3 else "%", doc=LIBRARY)
    solved = inverted_rule(question, value)
    assert solved is not None and _eval(solved[0]) == expected and solved[1] == unit, solved
    derived = derive_expression(question, value)
    assert derived is not None and _eval(derived[0]) == expected, derived


def test_an_amount_beyond_the_cap_or_no_inversion_asked_solves_nothing() -> None:
    value = _found(0.3, doc=LIBRARY)
    assert inverted_rule("After how many days does the fine reach EUR 9?", value) is None  # above the cap
    assert inverted_rule("How many days late was the book?", value) is None


def test_further_items_without_each() -> None:
    doc = "Bike hire\n  First bike ........ EUR 18.00\n  Additional bikes .... EUR 12.00\n"
    composed = situated_charge("We need three bikes. What do we pay?", _found(18.0, doc=doc))
    assert composed is not None and math.isclose(_eval(composed[0]), 18 + 12 * 2), composed
