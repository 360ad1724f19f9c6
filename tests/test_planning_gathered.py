"""Code inputs bound to the values a request gathers, by what the inputs are called (issue 23, p-three).

Made-up requests in the forms people use to say which looked-up value goes into which code variable
without binding them word by word: a list after a lookup verb, a collective ("both totals"), names listed
against descriptions, code given before the sentence that runs it. Before this, each ended "No answer:
the code uses X".
"""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.code_names import free_names, runnable
from ioa_p2p.planning.gather_items import collective_items, gather_object, listed_against, split_items
from ioa_p2p.planning.gathered import constants
from ioa_p2p.planning.name_match import best_fit, fit
from ioa_p2p.planning.types import LOOKUP
from tests.plan_bindings import CODE, bound_inputs

_bound = bound_inputs


# --------------------------------------------------------------------------- names against descriptions


def test_a_name_fits_a_description_by_word_start_initials_unit_and_plural() -> None:
    assert fit("prem", "the buyer's premium") > 0  # the start of a word
    assert fit("rt", "their revenue tonnes") > 0  # initials
    assert fit("kg", "the gross weight") > 0 and fit("cbm", "the volume") > 0  # units of the dimension
    assert fit("pct", "the levy percentage") > 0  # its letters in order
    assert fit("rally_fee", "the rally fee") > 0  # every part of a compound name
    assert fit("kg", "the volume") == 0 and fit("rally_fee", "the deposit") == 0


def test_best_fit_is_one_to_one_and_prefers_the_exact_form() -> None:
    descriptions = ["the day units", "the night units", "the number of days in the period"]
    assert best_fit(["days", "day", "night"], descriptions) == {"day": 0, "night": 1, "days": 2}
    # one name and one description left over go together
    assert best_fit(["x", "total"], ["the grand total", "the mystery"]) == {"total": 0, "x": 1}
    assert best_fit(["x", "y"], ["the grand total", "the mystery"]) is None  # nothing fits: no guess
    assert best_fit(["a"], ["one", "two"]) is None  # counts differ


# --------------------------------------------------------------------------- the values a request lists


def test_gather_object_drops_the_verb_and_where_to_read_it() -> None:
    assert gather_object("Read their gross weight and volume off the delivery note") == (
        "their gross weight and volume"
    )
    assert gather_object("Pull both totals from the league table") == "both totals"
    assert gather_object("Thanks for the help") == ""


def test_split_items_gives_each_value_the_words_it_shares() -> None:
    assert split_items("the March rainfall, the April rainfall and the number of weeks in the season") == [
        "the March rainfall",
        "the April rainfall",
        "the number of weeks in the season",
    ]
    assert split_items("the fares for an adult and for a child") == [
        "the fares for an adult",
        "the fares for a child",
    ]
    assert split_items("the opening and closing meter readings on the Ashby bill") == [
        "the opening meter reading on the Ashby bill",
        "the closing meter reading on the Ashby bill",
    ]
    assert split_items("the deposit and the monthly fees") == ["the deposit", "the monthly fees"]
    assert split_items("n = 4 and the other values") == ["the other values"]
    assert split_items("their gross weight and volume") == ["their gross weight", "their volume"]


def test_collective_items_are_described_by_the_names() -> None:
    text = "How many more goals did Rovers score than United?"
    got = collective_items("both totals", ["rovers", "united"], text)
    assert got == ["the Rovers total", "the United total"]
    assert collective_items("Hollin's two box prices", ["small", "large"], "") == [
        "Hollin's small box price",
        "Hollin's large box price",
    ]
    assert collective_items("the three prices", ["a", "b"], "") is None  # another count
    assert collective_items("the three prices", ["c", "s", "deal"], "") is None  # names that say nothing
    assert collective_items("the adult fare", ["adult"], "") is None  # a description, not a count


def test_listed_against_pairs_names_and_descriptions_in_order() -> None:
    got = listed_against(
        "Run it with start and end set to the opening and closing meter readings on the Ashby bill",
        ["end", "start"],
    )
    assert got == (
        ["start", "end"],
        ["the opening meter reading on the Ashby bill", "the closing meter reading on the Ashby bill"],
    )
    assert listed_against("with start and end set to the reading", ["start", "end"]) is None


def test_constants_are_numbers_the_request_gives_a_name() -> None:
    assert constants(["h", "n", "rate"], "run with h = 2,500 and n set to 4") == {"h": "2500", "n": "4"}


# --------------------------------------------------------------------------- whole requests


def test_a_listed_lookup_of_three_values_binds_by_name() -> None:
    plan = plan_request(
        "Work out the average weekly rainfall for the Corrie Farm log. Find the March rainfall, the April "
        "rainfall and the number of weeks in the season, then run\n```python\n"
        "print(round((march + april) / weeks, 1))\n```"
    )
    bound = _bound(plan)
    assert "March rainfall" in bound["march"] and "April rainfall" in bound["april"]
    assert "number of weeks" in bound["weeks"]
    assert "Corrie Farm" in bound["march"]  # the request's subject goes with a lookup that names none


def test_both_totals_are_looked_up_by_the_names_the_code_reads() -> None:
    plan = plan_request(
        "How many more goals did Rovers score than United? Pull both totals from the league table and run "
        "`print(rovers - united)`."
    )
    bound = _bound(plan)
    assert "Rovers total" in bound["rovers"] and "United total" in bound["united"]
    assert "(the league table)" not in bound["rovers"]  # where to read it is no part of the question


def test_both_totals_take_the_thing_the_question_is_about() -> None:
    plan = plan_request(
        "How far ahead of Rovers is United in the fair play table? Pull both totals and run "
        "`print(united - rovers)`."
    )
    assert _bound(plan)["united"] == "What is the United total (the fair play table)?"


def test_units_and_their_own_thing_bind_weight_and_volume() -> None:
    plan = plan_request(
        "What is the load density of the pine planks? Read their weight and volume from the delivery note "
        "and run:\n```python\nprint(round(kg / cbm, 1))\n```"
    )
    bound = _bound(plan)
    assert "weight of the pine planks" in bound["kg"] and "volume of the pine planks" in bound["cbm"]


def test_names_listed_against_two_values_take_them_in_order() -> None:
    plan = plan_request(
        "Run `print(round(close_ - open_, 2))` with open_ and close_ set to the opening and closing meter "
        "readings on the Ashby bill."
    )
    bound = _bound(plan)
    assert "opening meter reading" in bound["open_"] and "closing meter reading" in bound["close_"]


def test_code_first_then_bound_to_an_owners_two_prices() -> None:
    plan = plan_request(
        "```python\nprint(large // small)\n```\nHow many small boxes cost as much as a large one? Bind "
        "small and large to Hollin's two box prices and run the code above."
    )
    bound = _bound(plan)
    assert "Hollin's small box price" in bound["small"] and "Hollin's large box price" in bound["large"]


def test_a_constant_stays_and_the_other_values_are_looked_up() -> None:
    plan = plan_request(
        "We stay four nights. With n = 4 and the other values from the booking page, run this:\n"
        "```python\ntotal = rate * n + cleaning_fee\nprint(total - deposit)\n```"
    )
    bound = _bound(plan)
    assert set(bound) == {"rate", "cleaning_fee", "deposit"}
    assert "cleaning fee" in bound["cleaning_fee"]
    assert plan.steps[-1].template.startswith("n = 4\n")


def test_an_input_no_description_fits_is_still_named_missing() -> None:
    plan = plan_request("Look up the three prices and run `print(round(x + y - z, 2))`.")
    assert not plan.steps and "the code uses" in plan.unplanned


def test_let_with_the_second_verb_left_out_declares_both() -> None:
    plan = plan_request(
        "Let rate be the hourly hire rate of a canoe at Brae Lakes and hours the minimum booking length "
        "there. Run `print(rate * hours)`."
    )
    bound = _bound(plan)
    assert "hourly hire rate of a canoe" in bound["rate"] and "minimum booking length" in bound["hours"]


def test_a_value_given_in_a_sentence_after_the_code() -> None:
    plan = plan_request(
        "Run the code below.\n```python\nprint(p * 1.1)\n```\nFor p use the Brae Lakes canoe hourly rate."
    )
    assert "Brae Lakes canoe hourly rate" in _bound(plan)["p"]


def test_a_statement_before_the_code_is_no_value_for_it() -> None:
    plan = plan_request(
        "Here's my script:\n```python\nprint(a * n)\n```\na is the canoe hourly rate at Brae Lakes, n is 4."
    )
    assert "canoe hourly rate at Brae Lakes" in _bound(plan)["a"]
    assert plan.steps[-1].template.startswith("n = 4\n")


def test_plugging_a_value_into_the_code_binds_its_one_input() -> None:
    plan = plan_request("Plug the canoe hourly rate at Brae Lakes into `print(round(r * 3.5, 2))`.")
    assert "canoe hourly rate at Brae Lakes" in _bound(plan)["r"]


def test_a_called_functions_parameters_are_inputs_and_a_defined_one_is_called() -> None:
    defined = "def cost(rate, deposit, hours=3):\n    return rate * hours + deposit"
    assert free_names(defined + "\nprint(cost(rate, deposit))") == ["rate", "deposit"]
    assert free_names("def f(x):\n    return x * 2\nprint(f(5))") == []
    assert runnable(defined).endswith("\nprint(cost(rate, deposit))")
    plan = plan_request(
        "Look up the canoe hourly rate and the deposit at Brae Lakes and pass them to this function:\n"
        f"```python\n{defined}\n```"
    )
    assert plan.steps[-1].template.endswith("print(cost(rate, deposit))")
    assert {name for name, _ in plan.steps[-1].bindings} == {"rate", "deposit"}


def test_placeholders_become_inputs_and_a_bare_last_expression_is_printed() -> None:
    code = "canoe = ...\nkayak = ...  # the kayak hourly rate\nprint(canoe - kayak)"
    assert free_names(runnable(code)) == ["canoe", "kayak"]
    assert "# kayak: the kayak hourly rate" in runnable(code)
    assert runnable("x = 3\nround(x * rate, 2)") == "x = 3\nprint(round(x * rate, 2))"
    assert runnable("main()") == "main()"  # a call that shows what it means to
    plan = plan_request(
        "Look up the Brae Lakes canoe hourly rate and the kayak hourly rate. Then:\n```python\n"
        "canoe_rate = ...\nkayak_rate = ...\nprint(canoe_rate - kayak_rate)\n```"
    )
    bound = _bound(plan)
    assert "canoe hourly rate" in bound["canoe_rate"] and "kayak hourly rate" in bound["kayak_rate"]


def test_a_description_that_points_back_is_a_calculation_not_a_lookup() -> None:
    plan = plan_request("Find both prices, then run `print(round(r * 2, 2))` with r as that sum.")
    assert not any("that sum" in s.template for s in plan.steps)


# --------------------------------------------------------------------------- a scene before the lookups


def test_a_scene_is_the_context_of_the_lookup_that_points_back_at_it() -> None:
    plan = plan_request(
        "Our keeper was booked for dissent and we paid the fine a month late. Look up that fine as f and run "
        "`print(f * 2)`."
    )
    assert [s.kind for s in plan.steps] == [LOOKUP, CODE]  # the scene is no task of its own
    assert "booked for dissent" in plan.steps[0].template
    assert dict(plan.steps[1].bindings) == {"f": 1}


def test_a_scene_is_no_task_and_its_names_are_not_forced_on_lookups() -> None:
    plan = plan_request(
        "I'm booking a winter service at Cogwell Cycles and two new tyres. Look up the service price and the "
        "price of a tyre, then run `print(service + tyres * 2)`."
    )
    assert [s.kind for s in plan.steps] == [LOOKUP, LOOKUP, CODE]
    assert not any("booking" in s.template for s in plan.steps)


def test_a_scene_that_names_nothing_is_the_context_of_a_lookup_that_names_nothing() -> None:
    plan = plan_request(
        "A newcomer books the evening pottery course with the deposit. Find what is left to pay at the first "
        "session and run `print(due)` with due bound to that amount."
    )
    assert plan.steps[0].kind == LOOKUP and "evening pottery course" in plan.steps[0].template


def test_a_scene_stays_when_work_in_words_follows() -> None:
    plan = plan_request(
        "86 pupils are going. Look up how many children make a group and compute the number of groups, "
        "then run `print(g * 2)` with g set to it."
    )
    assert plan.steps[0].kind != LOOKUP or "86" in plan.steps[0].template


def test_values_found_then_called_by_names_in_order() -> None:
    plan = plan_request(
        "Look up the adult and child day pass prices at Brae Lakes and call them a and c, then run "
        "`print(2 * a + c)`."
    )
    bound = _bound(plan)
    assert "adult day pass price" in bound["a"] and "child day pass price" in bound["c"]


def test_values_described_after_the_code_with_a_shared_qualifier() -> None:
    plan = plan_request("Run `print(w * h)` with the width and length of the Brae Lakes boathouse.")
    bound = _bound(plan)
    assert bound["w"] == "What is the width of the Brae Lakes boathouse?"
    assert bound["h"] == "What is the length of the Brae Lakes boathouse?"


def test_a_function_defined_for_a_value_described_before_it() -> None:
    plan = plan_request(
        "Using the canoe hourly rate at Brae Lakes, run:\n"
        "```python\ndef cost(rate):\n    return rate * 3 + 10\n```"
    )
    assert "canoe hourly rate at Brae Lakes" in _bound(plan)["rate"]
    assert plan.steps[-1].template.endswith("print(cost(rate))")


def test_inputs_are_read_in_the_order_the_code_reads_them() -> None:
    assert free_names("print(2 * a + c)") == ["a", "c"]  # not the syntax tree's breadth-first order
    plan = plan_request(
        "What is the adult fare on the Brae ferry, and the child fare? Plug them into `print(2 * a + c)`."
    )
    bound = _bound(plan)
    assert "adult fare" in bound["a"] and "child fare" in bound["c"]


def test_the_codes_comments_describe_its_inputs() -> None:
    plan = plan_request(
        "Run this for the Brae ferry:\n```python\n# a = adult fare, c = child fare\nprint(2 * a + c)\n```"
    )
    bound = _bound(plan)
    assert "adult fare" in bound["a"] and "child fare" in bound["c"]


def test_a_list_of_inputs_after_the_code_and_names_with_their_description_in_brackets() -> None:
    listed = plan_request(
        "Run `print(2 * a + c)`, where:\n- a: the adult fare on the Brae ferry\n"
        "- c: the child fare on the Brae ferry"
    )
    assert "adult fare on the Brae ferry" in _bound(listed)["a"]
    bracketed = plan_request(
        "Fill in a (adult fare) and c (child fare) from the Brae ferry timetable, then run "
        "`print(2 * a + c)`."
    )
    bound = _bound(bracketed)
    assert "adult fare" in bound["a"] and "child fare" in bound["c"]


def test_a_value_the_request_says_how_to_work_out_is_no_lookup() -> None:
    plan = plan_request(
        "Run `print(round(total / 4, 2))`, total being Orrin's allowance for a 4-day trip (look up the daily "
        "rate; travel days at half the rate)."
    )
    assert not plan.steps and "the code uses total" in plan.unplanned


def test_one_value_a_clause_then_the_code_with_short_names() -> None:
    plan = plan_request(
        "Look up the adult fare on the Brae ferry. Look up the child fare there. Then run "
        "`print(2 * af + cf)`."
    )
    bound = _bound(plan)
    assert "adult fare" in bound["af"] and "child fare" in bound["cf"]


def test_use_a_name_for_a_description() -> None:
    plan = plan_request(
        "Use x for the adult fare on the Brae ferry and y for the child fare, and run `print(2 * x + y)`."
    )
    bound = _bound(plan)
    assert bound["x"] == "What is the adult fare on the Brae ferry?" and "child fare" in bound["y"]
