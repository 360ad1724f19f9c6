"""Issue 23 (p-natural5): a rate the lookup found is never the answer by itself. Its unit decides which of the
situation's typed quantities multiplies it (per night x the nights of a stay between two dates, per child x
the children of the party); a unit no quantity fits is the missing value, named (exit 3), never the bare
rate "times one"; free units a document grants ("stay 7 nights, pay for 6") come off the count charged.
Made-up documents and wordings."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import CALC, PlanStep
from ioa_p2p.planning.compose import describe
from ioa_p2p.planning.derive import DERIVE, derive_expression, derive_missing
from ioa_p2p.planning.missing import Missing
from ioa_p2p.planning.paragraph_bounds import bounded
from ioa_p2p.planning.rate_operand import rate_fact, rate_operand
from ioa_p2p.planning.refusal import refusal
from ioa_p2p.planning.situation_values import situation_values, stay_nights
from ioa_p2p.planning.unit_offers import offers_in, with_offers
from ioa_p2p.planning.values import Value

FERRY = (
    "# Quillan Ferries: fares\n\nFoot passengers pay EUR 2.40 per zone crossed; the island lies in the "
    "third zone.\n"
    "Children under 12 travel for EUR 1.10 per child."
)
LODGE = "# Harrow Lodge\n\nThe garden cabin costs EUR 86 per night, breakfast included.\n"
FLOORS = "# Ossel Floors\n\nSanding and sealing is charged at EUR 21.50 per square metre of floor.\n"
GYM = "# Pellmoor Gym\n\nThe Basic plan costs EUR 39 per month."
OFFER = "Special offer: stay 7 nights, pay for 6. Bikes can be hired on request."


def _found(number: float, unit: str, text: str) -> Value:
    return Value.of_number(number, unit).with_evidence((text,))


def _typed(question: str) -> list[tuple[float, str]]:
    return [(v.number, v.what) for v in situation_values(question)]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Two of us stay from 28 June to 2 July.", [(4.0, "night"), (2.0, "person")]),
        ("We arrive on 30 December and leave on 3 January.", [(4.0, "night")]),
        (
            "What do three adults and two kids aged 6 and 9 pay?",
            [(5.0, "person"), (3.0, "adult"), (2.0, "child")],
        ),
        ("A 12 m yacht stays 4 nights in May.", [(12.0, "m"), (4.0, "night")]),
    ],
)
def test_the_situation_s_quantities_are_typed_dates_give_nights_parties_give_persons_by_kind(
    question: str, expected: list[tuple[float, str]]
) -> None:
    assert _typed(question) == expected


def test_a_stay_between_two_dates_is_nights_never_minutes_of_a_clock_range() -> None:
    stay = stay_nights("We're at the lodge from 5 to 8 October.")
    assert stay is not None and stay.number == 3.0 and stay.what == "night"
    assert stay_nights("Open from 9 to 17 every day.") is None


def test_the_rate_s_unit_takes_the_quantity_of_that_unit() -> None:
    child = _found(1.1, "EUR", FERRY)
    assert rate_operand("What do two adults and three children pay for the foot crossing?", child) == (
        "1.1 * 3",
        "EUR",
    )
    cabin = _found(86, "EUR", LODGE)
    assert rate_operand("What does the garden cabin cost from 28 June to 2 July?", cabin) == ("86 * 4", "EUR")


def test_a_unit_no_quantity_fits_is_named_missing_never_the_bare_rate() -> None:
    zone = _found(2.4, "EUR", FERRY)
    lacking = rate_operand("What is a foot passenger's fare from Quillan to the island?", zone)
    assert isinstance(lacking, Missing) and "zones" in lacking.what and "2.4" in lacking.why, lacking
    floor = _found(21.5, "EUR", FLOORS)
    lacking = rate_operand("What will Ossel charge to sand and seal our hallway?", floor)
    assert isinstance(lacking, Missing) and "square metres" in lacking.what, lacking


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("What does the Basic plan at Pellmoor cost?", _found(39, "EUR", GYM)),  # the monthly fee
        ("What is the nightly rate of the garden cabin?", _found(86, "EUR", LODGE)),
        ("What does sanding cost per square metre at Ossel?", _found(21.5, "EUR", FLOORS)),
        ("What does one child pay on the Quillan ferry?", _found(1.1, "EUR", FERRY)),
        ("Which zone is the island in?", Value.of_number(3, "")),  # no rate at all
    ],
)
def test_a_rate_asked_for_or_a_period_or_one_person_s_price_stays_the_answer(
    question: str, found: Value
) -> None:
    assert rate_operand(question, found) is None


def test_the_derivation_refuses_instead_of_answering_the_rate_times_one() -> None:
    question = "What is a foot passenger's fare from Quillan to the island?"
    zone = _found(2.4, "EUR", FERRY)
    lacking = derive_missing(question, zone)
    assert lacking is not None and "zones" in lacking.what, lacking
    step = PlanStep(2, CALC, question, DERIVE, (1,))
    refused = refusal(step, {1: zone})
    assert refused is not None and "zones" in refused.what
    cabin = _found(86, "EUR", LODGE)
    got = derive_expression("What does the garden cabin cost from 28 June to 2 July?", cabin)
    assert got is not None and got[0] == "86 * 4", got


@pytest.mark.parametrize(
    ("text", "unit", "block", "charged", "every"),
    [
        ("A stay of 5 consecutive nights is charged as 4 nights.", "night", 5, 4, True),
        ("Lessons: 6 lessons for the price of 5.", "lesson", 6, 5, True),
        ("Book 3 days and pay for 2 (weekdays only).", "day", 3, 2, True),
        ("Every fourth wash is free with the card.", "wash", 4, 3, True),
        ("The 10th coffee is free!", "coffee", 10, 9, False),
    ],
)
def test_offers_of_free_units_are_read_in_their_wordings(
    text: str, unit: str, block: int, charged: int, every: bool
) -> None:
    (offer,) = offers_in(text)
    assert (offer.unit, offer.block, offer.charged, offer.every) == (unit, block, charged, every)


def test_free_units_come_off_the_count_charged_when_the_count_reaches_the_block() -> None:
    question = "What does the garden cabin cost for 14 nights?"
    assert with_offers("86 * 14", question, [OFFER]) == "86 * (14 - floor(14 / 7) * 1)"
    assert with_offers("86 * 5", "and for 5 nights?", [OFFER]) == "86 * 5"  # below the block
    assert with_offers("86 * 14", question, ["Bikes can be hired."]) == "86 * 14"
    assert with_offers("max(86 * 14, 14 * 50)", question, [OFFER]) == "max(86 * 14, 14 * 50)"  # which one?


def test_a_charge_s_task_text_takes_the_document_s_offer() -> None:
    question = "What does the garden cabin at Harrow Lodge cost for 7 nights?"
    cabin = _found(86, "EUR", LODGE + OFFER)
    text = describe(PlanStep(2, CALC, question, DERIVE, (1,)), {1: cabin})
    assert text == "Calculate 86 * (7 - floor(7 / 7) * 1)", text


WASH = """KELDER LAUNDRY -- PRICES

SERVICE WASHES, priced per kg
    up to 6 kg .................. EUR 2.90 per kg
    over 6 kg ................... EUR 2.50 per kg
    Minimum charge .............. EUR 8.00 per load

IRONING
    Shirts ...................... EUR 2.10 per item, capped at EUR 30 per order
"""


def test_a_minimum_or_a_cap_stated_beside_the_rate_bounds_the_charge() -> None:
    kg = _found(2.9, "EUR", WASH)
    assert bounded("2.9 * 2", kg) == "max(2.9 * 2, 8)"
    shirts = _found(2.1, "EUR", WASH)
    assert bounded("2.1 * 20", shirts) == "min(2.1 * 20, 30)"  # its own paragraph's cap, not the minimum
    assert bounded("2.9 * 1", kg) == "2.9 * 1"  # the rate applied to nothing: no charge to bound
    assert bounded("2.9 * 2 + 5", kg) == "2.9 * 2 + 5"  # not one product: which part is bounded?
    question = "What does a 2 kg service wash cost at Kelder?"
    text = describe(PlanStep(2, CALC, question, DERIVE, (1,)), {1: kg})
    assert text == "Calculate max(2.9 * 2, 8)", text


@pytest.mark.parametrize(
    ("sentence", "number", "per"),
    [
        ("A member may bring a friend for EUR 7 a visit.", 7.0, ("visit",)),
        ("Canoes EUR 15/hour, paddles included.", 15.0, ("h",)),
        ("Tickets are EUR 6 each.", 6.0, None),  # one item's price: no rate
    ],
)
def test_an_amount_a_visit_or_slash_hour_is_a_rate_of_that_unit(
    sentence: str, number: float, per: tuple[str, ...] | None
) -> None:
    fact = rate_fact(_found(number, "EUR", sentence))
    assert (fact.per if fact is not None else None) == per


def test_a_word_that_only_qualifies_the_rate_s_unit_is_no_unit_of_its_own() -> None:
    van = _found(250, "km", "Class F vans: 250 km per hire day included; each further km costs EUR 0.25.")
    assert rate_operand("How many kilometres a day are included with a class F van?", van) is None
    assert rate_operand("How many kilometres are included with a class F van for 3 days?", van) == (
        "250 * 3",
        "km",
    )
    crew = _found(55, "EUR", "Fitters' time is billed at EUR 55 per fitter-hour.")
    lacking = rate_operand("What did the fitters' time cost us?", crew)
    assert isinstance(lacking, Missing) and "fitters" in lacking.what, lacking
