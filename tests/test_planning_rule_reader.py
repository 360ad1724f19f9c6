"""Issue 23 (p-rule): a rule a document states in a sentence or a table of bands, read into a typed rule
and applied to the quantities a question states (planning/rule_reader.py); a sentence that states no form
with confidence reads as no rule. Made-up wording throughout."""

from __future__ import annotations

import math

import pytest

from ioa_p2p.planning.rule_bands import band_for, condition_of, read_band, read_bands
from ioa_p2p.planning.rule_reader import (
    CHARGE,
    DISCOUNT,
    FACTOR,
    SHARE_PER_UNIT,
    SURCHARGE,
    applies_to,
    apply_to_amount,
    apply_to_quantity,
    read_rule,
)


def _eval(expression: str) -> float:
    return float(eval(expression, {"__builtins__": {}}, {"min": min, "max": max, "ceil": math.ceil}))


@pytest.mark.parametrize(
    ("sentence", "kind", "amount", "expected"),
    [
        ("An off-peak return is charged at 1.75 times the single.", FACTOR, 8.0, 14.0),
        ("Pensioners pay half the standard ticket.", FACTOR, 9.0, 4.5),
        ("A weekend pass costs twice the day pass.", FACTOR, 6.5, 13.0),
        ("Latecomers pay 40 % of the yearly subscription.", FACTOR, 300.0, 120.0),
        ("Holders of a Bluefin card get 12 % off all rentals.", DISCOUNT, 50.0, 44.0),
        ("Heron Card: a quarter off standard tickets", DISCOUNT, 20.0, 15.0),
        ("Students receive a discount of 30 percent.", DISCOUNT, 10.0, 7.0),
        ("Prices are reduced by 5 % for repeat orders.", DISCOUNT, 200.0, 190.0),
        ("Booking by phone adds EUR 4 to the fare.", SURCHARGE, 31.0, 35.0),
        ("Express cleaning: plus a fee of EUR 7.50 per order item", None, 0.0, 0.0),
        ("A 20 % surcharge is added on public holidays.", SURCHARGE, 45.0, 54.0),
        ("Gift wrapping costs EUR 3 extra.", SURCHARGE, 12.0, 15.0),
    ],
)  # fmt: skip
def test_a_rule_over_an_amount_is_read_and_applied(
    sentence: str, kind: str | None, amount: float, expected: float
) -> None:
    rule = read_rule(sentence)
    if kind is None:  # a rate per item: a charge over a quantity, not a rule over the amount
        assert rule is not None and rule.kind == CHARGE
        assert apply_to_amount(rule, 10.0) is None
        return
    assert rule is not None and rule.kind == kind
    expression = apply_to_amount(rule, amount)
    assert expression is not None
    assert _eval(expression) == pytest.approx(expected)


def test_a_fraction_in_words_stays_exact_in_the_expression() -> None:
    rule = read_rule("Owl Railcard: one third off adult fares.")
    assert rule is not None and apply_to_amount(rule, 9.3) == "9.3 * (1 - 1/3)"


@pytest.mark.parametrize(
    ("sentence", "quantity", "expected"),
    [
        # rate x quantity after a grace period, capped
        ("Overdue tools cost EUR 2 per day after a 3-day grace period, capped at EUR 20.", 9, 12.0),
        ("Overdue tools cost EUR 2 per day after a 3-day grace period, capped at EUR 20.", 2, 0.0),
        ("Overdue tools cost EUR 2 per day after a 3-day grace period, capped at EUR 20.", 40, 20.0),
        # a base fee plus a rate, in started half-hour steps
        ("A site visit is EUR 55 plus EUR 40 per hour, billed in half-hour steps (a started half hour "
         "counts in full).", 1.2, 55 + 40 * 1.5),
        # per started unit
        ("Mooring costs EUR 6 per started hour.", 2.1, 18.0),
        # a minimum quantity
        ("Winter storage is EUR 11 per metre; a canoe shorter than 5 m is charged as 5 m.", 3.8, 55.0),
        ("Winter storage is EUR 11 per metre; a canoe shorter than 5 m is charged as 5 m.", 6.0, 66.0),
        # a floor (a minimum charge)
        ("Couriers charge EUR 0.90 per km, with a minimum charge of EUR 12.", 4, 12.0),
        # free units first
        ("Data costs EUR 1.50 per GB; the first 2 GB are free.", 5, 4.5),
    ],
)  # fmt: skip
def test_a_charge_over_a_quantity_is_read_and_applied(
    sentence: str, quantity: float, expected: float
) -> None:
    rule = read_rule(sentence)
    assert rule is not None and rule.kind == CHARGE
    expression = apply_to_quantity(rule, quantity)
    assert expression is not None
    assert _eval(expression) == pytest.approx(expected)


def test_a_charge_in_another_unit_than_the_question_is_not_applied() -> None:
    rule = read_rule("Overdue tools cost EUR 2 per day after a 3-day grace period.")
    assert rule is not None and rule.per == "days"
    assert apply_to_quantity(rule, 4, "h") is None
    assert apply_to_quantity(rule, 4, "days") == "2 * max(4 - 3, 0)"


def test_a_share_per_unit_with_a_floor() -> None:
    rule = read_rule(
        "We pay back the price less 2 % for each full month of use, but never less than 30 % of the price."
    )
    assert rule is not None and rule.kind == SHARE_PER_UNIT and rule.per == "months"
    assert rule.floor == pytest.approx(0.3)
    assert _eval(apply_to_quantity(rule, 10, amount=500) or "nan") == pytest.approx(400.0)
    assert _eval(apply_to_quantity(rule, 50, amount=500) or "nan") == pytest.approx(150.0)


def test_exceptions_by_class() -> None:
    rule = read_rule("Parking costs EUR 3 per started hour. Residents are exempt.")
    assert rule is not None and rule.exempt == ("residents",)
    assert not applies_to(rule, "residents of the old town")
    assert applies_to(rule, "visitors")
    other = read_rule("A 10 % service charge is added, except for takeaway orders.")
    assert other is not None and other.kind == SURCHARGE and other.exempt == ("takeaway orders",)


@pytest.mark.parametrize(
    "sentence",
    [
        "The office opens at 9 and closes at 17.",  # no rule at all
        "Members get 10 % off; guests pay 1.5 times the member price.",  # two forms compete
        "Our staff are friendly and helpful.",
    ],
)
def test_no_rule_is_read_without_confidence(sentence: str) -> None:
    assert read_rule(sentence) is None


def test_bands_from_a_table_and_a_list() -> None:
    table = [
        ["Under 4 kg", "2.5 mL"],
        ["4 to 7.9 kg", "4.0 mL"],
        ["8 to 11.9 kg", "6.0 mL"],
        ["12 kg or more", "8.0 mL"],
    ]
    bands = read_bands(table)
    assert len(bands) == 4
    assert band_for(bands, 3.9) == ["2.5 mL"]
    assert band_for(bands, 4) == ["4.0 mL"]
    assert band_for(bands, 10.5) == ["6.0 mL"]
    assert band_for(bands, 30) == ["8.0 mL"]
    listed = read_bands(
        [line.split(":") for line in ("1-3 days: 10 %", "4-10 days: 25 %", "over 10 days: 50 %")]
    )
    assert band_for(listed, 7) == [" 25 %"]
    assert band_for(listed, 11) == [" 50 %"]
    assert band_for(listed, 0) is None
    band = read_band("up to 5 kg")
    assert band is not None and band.holds(5) and not band.holds(5.1) and band.unit == "kg"


def test_the_condition_a_rule_states() -> None:
    upland = condition_of("Hill plots (above 400 m): harvest takes 15 % longer.")
    assert upland is not None and upland.unit == "m" and upland.holds(450) and not upland.holds(400)
    light = condition_of("Parcels under 2 kg ship at the letter rate.")
    assert light is not None and light.holds(1.5) and not light.holds(2)
    assert condition_of("Members over 70 get 25 % off.") is None  # no measure a question states
    assert condition_of("Over 5 kg and under 10 kg: EUR 9.") is None  # two thresholds: a band, not one


def test_a_line_of_two_rates_is_bands_not_one_charge() -> None:
    assert read_rule("2.1 to 10 kg: EUR 3.10 per kg over 10 kg: EUR 2.60 per kg") is None
    over = read_rule("Towing costs EUR 4 per km over 20 km.")  # "over" is no free allowance
    assert over is not None and over.allowance == 0
