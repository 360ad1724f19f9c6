"""How much one thing changed, neither end given (planning/changed.py; issue 23, p-chain5).

Made-up wording and documents: a question names one thing and asks how much (or by what percentage) it
went up or down; the document states its old value in a sentence and its new one in its row, or both in
one sentence. Before changed.py such a question was one lookup, answered with the old or the new value.
"""

from __future__ import annotations

from ioa_p2p.planning import describe, plan_request
from ioa_p2p.planning.changed import CHANGE, PERCENT_CHANGE, change_expression, change_missing, change_plan
from ioa_p2p.planning.refusal import refusal
from ioa_p2p.planning.types import CALC, LOOKUP
from ioa_p2p.planning.values import Value

MENU = (
    "LARCH CAFE - SPRING MENU\n"
    "Carrot cake, walnut, orange icing ........ 4.40\n"
    "Lemon drizzle ............................ 3.60\n"
    "Until March the carrot cake was £3.90 and the scone was £2.80; both went up with the new menu.\n"
)
POOL = "From 2 June the Fernhill adult swim pass goes up from £30.00 to £33.00 a month; juniors stay at £18."
OLD_LIST = (
    "                 Bronze        Gold\n"
    "  AC socket      0.45 €/kWh    0.33 €/kWh\n"
    "  DC rapid (60 kW)  0.70 €/kWh  0.57 €/kWh\n"
    "Previous prices, for reference: Gold AC 0.30 €/kWh, Gold DC rapid 0.52 €/kWh, Gold HPC 0.61 €/kWh.\n"
)


def _found(text: str, number: float = 3.9, unit: str = "GBP") -> Value:
    return Value.of_number(number, unit).with_evidence((text,))


def test_a_change_question_is_a_lookup_then_the_change() -> None:
    steps = change_plan("By how much did the Larch Cafe's carrot cake go up in spring?")
    assert steps is not None
    assert [s.kind for s in steps] == [LOOKUP, CALC]
    assert steps[0].template == "What is the Larch Cafe's carrot cake?"
    assert steps[1].template == CHANGE and steps[1].needs == (1,)
    priced = change_plan("By how much did the price of the Larch Cafe's carrot cake go up in spring?")
    assert priced is not None and priced[0].template == "What is the price of the Larch Cafe's carrot cake?"
    dearer = change_plan("How much dearer is the Larch Cafe's scone than it was last year?")
    assert dearer is not None and dearer[0].template == "What is the price of the Larch Cafe's scone?"
    level = change_plan("By how much has the Fernhill reservoir level dropped since Monday?")
    assert level is not None and level[0].template == "What is the Fernhill reservoir level?"
    percent = change_plan("By what percentage has the Fernhill adult swim pass gone up since May?")
    assert percent is not None and percent[1].template == PERCENT_CHANGE and percent[1].unit == "%"


def test_other_questions_are_left_to_other_shapes() -> None:
    assert change_plan("By how much did revenue grow from Q3 to Q4?") is None  # both ends: relations.change
    assert change_plan("How much will my bill go up if I use 300 kWh more?") is None  # a condition
    assert change_plan("What does the carrot cake cost?") is None
    assert change_plan("What did the cafe charge for scones, and how much has it gone up?") is None


def test_old_value_from_its_sentence_new_from_its_row() -> None:
    steps = change_plan("By how much did the Larch Cafe's carrot cake go up on the spring menu?")
    assert steps is not None
    assert change_expression(steps[1], _found(MENU)) == "4.4 - 3.9"


def test_both_ends_in_one_sentence_as_a_percentage() -> None:
    steps = change_plan("By what percentage does the Fernhill adult swim pass go up on 2 June?")
    assert steps is not None
    assert change_expression(steps[1], _found(POOL, 30.0)) == "(33 - 30) / 30 * 100"


def test_the_things_own_amount_in_a_list_and_its_own_column() -> None:
    steps = change_plan("By how much does the Gold DC rapid price go up?")
    assert steps is not None
    found = _found(OLD_LIST, 0.57, "EUR/kWh")
    # the old list's amount after "rapid" (not Gold AC's, not Gold HPC's); the new one is the found row's
    assert change_expression(steps[1], found) == "0.57 - 0.52"


def test_a_fall_is_the_old_less_the_new() -> None:
    text = "Ferry fares: foot passenger 6.50\nLast winter the foot passenger fare was £7.25."
    steps = change_plan("How much has the foot passenger fare come down since last winter?")
    assert steps is not None
    assert change_expression(steps[1], _found(text, 6.5)) == "7.25 - 6.5"


def test_another_time_of_day_is_no_earlier_value_refused_by_name() -> None:
    text = "Late exit until 5pm: £25\nThe old card said late exit until 2pm was £12."
    question = "How much dearer is a late exit until 5pm than it was on the old card?"
    steps = change_plan(question)
    assert steps is not None
    found = _found(text, 25.0)
    assert change_expression(steps[1], found) is None
    missing = change_missing(steps[1], found)
    assert missing is not None and "earlier value" in missing.what and "5pm" in missing.what
    assert refusal(steps[1], {1: found}) == missing


def test_planned_and_described_through_the_planner() -> None:
    plan = plan_request(
        "The cafe reprinted its menu last month. By how much did the Larch Cafe's carrot cake go up?"
    )
    assert [s.template for s in plan.steps][-1] == CHANGE
    assert describe(plan.steps[-1], {1: _found(MENU)}) == "Calculate 4.4 - 3.9"
    told = plan_request("The Fernhill adult swim pass went up in June. By what percentage? Two decimals.")
    assert told.steps[-1].template == PERCENT_CHANGE


def test_a_change_stated_outright_in_the_form_asked() -> None:
    text = "Fernhill Leisure: from 1 April the junior swim pass goes up by £1.50 and the sauna rises by 5%."
    amount = change_plan("How much does the Fernhill junior swim pass go up in April?")
    percent = change_plan("By what percentage does the Fernhill junior swim pass go up in April?")
    assert amount is not None and percent is not None
    assert change_expression(amount[1], _found(text, 12.0)) == "1.5"
    assert change_expression(percent[1], _found(text, 12.0)) is None  # an amount, not a percentage


def test_a_percentage_stated_outright() -> None:
    text = "Fernhill Leisure: from 1 April the sauna session rises by 5%."
    percent = change_plan("By what percentage does the Fernhill sauna session go up in April?")
    assert percent is not None
    assert change_expression(percent[1], _found(text, 6.0)) == "5"


def test_it_after_an_earlier_question_is_the_thing_it_prices() -> None:
    question = "What did the Larch Cafe charge for the scone before spring, and how much has it gone up?"
    steps = change_plan(question)
    assert steps is not None and steps[0].template == "What is the price of the Larch Cafe's scone?"
    assert change_expression(steps[1], _found(MENU, 3.2)) is not None  # "the scone was £2.80", its row
    hake = "What did the Larch Cafe charge for the flapjack before spring, and how much has it gone up?"
    flapjack = change_plan(hake)
    assert flapjack is not None
    assert change_missing(flapjack[1], _found(MENU, 2.5)) is not None  # no earlier flapjack price
