"""Code inputs named in words and bound to the values looked up for them (issue 23, p-bind): lists of names
in the sentence's order, "both" / "those two", declarations ("let rate be ...", "x = the fee for ..."),
compound names and comments naming what a name holds, quantities the request states, lookups of two
values in one sentence. Made-up companies and wordings, none from a goal suite."""

from __future__ import annotations

from ioa_p2p.api.goals import EXIT_TASKS_FAILED, goal_exit_code
from ioa_p2p.planning import CODE, LOOKUP, Plan, plan_request
from ioa_p2p.planning.binding import (
    code_comments,
    described_pairs,
    listed_names,
    names_only,
    split_name,
    stated_inputs,
)
from ioa_p2p.planning.lookups import split_lookup
from ioa_p2p.planning.report import goal_report
from ioa_p2p.planning.tasked import task_question


def _bound(goal: str) -> dict[str, str]:
    """Each code input -> the text of the step whose value it is bound to (asserting the plan runs code)."""
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    code = plan.steps[-1]
    assert code.kind == CODE, plan.steps
    texts = {s.index: s.template for s in plan.steps}
    return {name: texts[i] for name, i in code.bindings}


def _code(plan: Plan) -> str:
    return plan.steps[-1].template


def test_names_listed_in_the_sentence_take_the_values_in_its_order() -> None:
    goal = (
        "Look up the Kestrel flat's deposit and its monthly rent, then run `print(r + d)` with d and r bound"
    )
    bound = _bound(goal)
    assert "deposit" in bound["d"] and "rent" in bound["r"]  # the code reads r first, the sentence d


def test_a_clause_that_only_lists_names_belongs_to_the_code() -> None:
    goal = (
        "Look up the adult and the child day fares on the Tansy line. Take a and c, and run `print(a + c)`."
    )
    bound = _bound(goal)
    assert "adult" in bound["a"]


def test_values_above_as_names() -> None:
    goal = (
        "Look up the Pellow Hall hire rate and the Pellow Hall caretaker fee. "
        "Using the values above as h and k, run `print(h * 4 + k)`."
    )
    bound = _bound(goal)
    assert "hire rate" in bound["h"] and "caretaker" in bound["k"]


def test_both_bound_after_a_lookup_of_a_bare_noun_and_a_phrase() -> None:
    goal = (
        "How far over the threshold did the Orrin Club vote get? Look up turnout and the threshold, "
        "then run `print(present - threshold)` with both bound."
    )
    bound = _bound(goal)
    assert "threshold" in bound["threshold"] and "turnout" in bound["present"]


def test_let_and_equals_declarations_are_looked_up_before_the_code() -> None:
    for goal in (
        "Let rate be the nightly rate of the Fennick cabin, then run `print(rate * 3)`.",
        "Set rate to the nightly rate of the Fennick cabin and run `print(rate * 3)`.",
    ):
        plan = plan_request(goal)
        assert not plan.unplanned, plan.unplanned
        assert plan.steps[0].kind == LOOKUP and "nightly rate of the Fennick cabin" in plan.steps[0].template
        assert dict(plan.steps[-1].bindings)["rate"] == 1
    plan = plan_request("x = the fee for a lost membership card. Run `print(x * 2)`.")
    assert not plan.unplanned and plan.steps[0].kind == LOOKUP
    assert "fee for a lost membership card" in plan.steps[0].template


def test_compound_names_and_word_parts_bind_by_the_lookups_words() -> None:
    bound = _bound(
        "Find the fee for a lost library card and the fee for a late DVD, then run "
        "`print(fee_lost - fee_dvd)`"
    )
    assert "lost" in bound["fee_lost"] and "DVD" in bound["fee_dvd"]
    bound = _bound("Find the cat spay fee and the microchip fee. Run `print(spay + chip)`.")
    assert "microchip" in bound["chip"] and "spay" in bound["spay"]
    assert split_name("crateWeight") == ["crate", "weight"] and split_name("fee_per_kg") == ["fee", "kg"]


def test_comments_say_which_value_a_name_holds() -> None:
    goal = (
        "Look up the Fennick cabin's nightly rate and its cleaning fee, then run this:\n"
        "```python\n# c = cleaning fee, r = nightly rate\nprint(r * 3 + c)\n```"
    )
    bound = _bound(goal)
    assert "nightly rate" in bound["r"] and "cleaning fee" in bound["c"]
    assert code_comments("print(x * 3 + y)  # y: the cleaning fee; x: the nightly rate") == {
        "y": "the cleaning fee",
        "x": "the nightly rate",
    }


def test_a_name_like_a_stated_quantity_takes_that_number() -> None:
    goal = (
        "We are staying 3 nights at the Fennick cabin. Look up the nightly rate and the cleaning fee, "
        "then run `print(nights * rate + cleaning)`."
    )
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    assert _code(plan).startswith("nights = 3\n")
    stated = stated_inputs(["guests", "nights"], "a 2-night stay for 40 guests and 12 more guests")
    assert stated == {"nights": "2"}  # two numbers of guests: neither is the input


def test_listing_helpers() -> None:
    assert listed_names("take a and c and run it", ["a", "c"]) == ["a", "c"]
    assert listed_names("as a, b, and c", ["a", "b", "c"]) == ["a", "b", "c"]
    assert listed_names("with a bound", ["a"]) == []
    assert names_only("Take a and c, in that order", ["a", "c"])
    assert not names_only("Take the deposit and c", ["deposit", "c"])
    assert split_lookup("Look up both the adult day fare and the child day fare on the Tansy line")
    assert split_lookup("Look up turnout and the threshold") == ["What is turnout?", "What is the threshold?"]


def test_an_input_nothing_names_is_reported_and_the_goal_exits_3() -> None:
    goal = "Look up the Fennick cabin's nightly rate and its cleaning fee, then run `print(x * y + z)`."
    plan = plan_request(goal)
    assert plan.unplanned and "the code uses" in plan.unplanned  # the inputs no value is named for
    report = goal_report(goal, [], "No answer: " + plan.unplanned)
    assert report["complete"] is False
    assert goal_exit_code("concluded", report["complete"]) == EXIT_TASKS_FAILED == 3


def test_a_value_named_before_the_code_it_goes_into() -> None:
    goal = (
        "On the Corran lease, subtract the Plan B key deposit from the Plan B damage deposit; "
        "the difference k then goes into `print(k // 50)`."
    )
    plan = plan_request(goal)
    assert not plan.unplanned and plan.steps[-1].kind == CODE
    assert dict(plan.steps[-1].bindings)["k"] == plan.steps[-2].index  # the difference, not a task
    goal = (
        "Read the Corran key deposit and the Corran damage deposit, add them, and halve the sum with "
        "`print(d / 2)` (d is the sum)."
    )
    plan = plan_request(goal)
    assert plan.steps[-1].kind == CODE and dict(plan.steps[-1].bindings)["d"] == plan.steps[-2].index


def test_them_after_a_calculation_is_its_value() -> None:
    goal = (
        "Get the Tansy Cup points for a first and for a third. A grower won two firsts and one third; "
        "work out her points and pass them as p to `print(p * 10)`."
    )
    plan = plan_request(goal)
    assert not plan.unplanned
    assert dict(plan.steps[-1].bindings)["p"] == plan.steps[-2].index == len(plan.steps) - 1


def test_two_owners_of_one_head_and_labels_that_share_words() -> None:
    assert split_lookup("Take this year's and last year's contents sums insured") == [
        "What is this year's contents sums insured?",
        "What is last year's contents sums insured?",
    ]
    goal = (
        "Take the junior season and the junior day permit prices at Orrin Lake, divide the season price by "
        "the day price, and pass the result as n to `print(int(n) + 1)`."
    )
    plan = plan_request(goal)
    assert plan.steps[2].template.replace(" ", "") == "(v1/v2)"


def test_how_much_more_one_party_pays_than_another() -> None:
    plan = plan_request("How much more does a non-member pay than a member for the Tern Sailing course?")
    assert [s.kind for s in plan.steps] == [LOOKUP, LOOKUP, "calc"]
    assert "non-member pay for the Tern Sailing course" in plan.steps[0].template
    assert "a member pay for the Tern Sailing course" in plan.steps[1].template
    assert plan.steps[2].template == "(v1 - v2)"
    plan = plan_request("Work out how much less a member pays than a non-member for the Tern Sailing course.")
    assert plan.steps[2].template == "(v2 - v1)"


def test_added_charge_named_without_an_article_is_looked_up() -> None:
    goal = (
        "For the Tern night walk, take the adult price, add torch hire, and run `print(c)` with c that cost."
    )
    plan = plan_request(goal)
    assert any(s.kind == LOOKUP and "torch hire" in s.template for s in plan.steps)
    assert plan.steps[-2].template.replace(" ", "") == "(v1+v2)"


def test_three_items_before_one_head_are_three_lookups() -> None:
    assert split_lookup("Retrieve the 1st, 2nd and 3rd prizes of the Tansy Open") == [
        "What is the 1st prize of the Tansy Open?",
        "What is the 2nd prize of the Tansy Open?",
        "What is the 3rd prize of the Tansy Open?",
    ]
    assert split_lookup("Look up the price of a small, a medium and a large box at Orrin Storage") == [
        "What is the price of a small box at Orrin Storage?",
        "What is the price of a medium box at Orrin Storage?",
        "What is the price of a large box at Orrin Storage?",
    ]
    plan = plan_request(
        "Retrieve the 1st, 2nd and 3rd prizes of the Tansy Open, add them, and run `print(p / 5)`."
    )
    assert plan.steps[3].template == "(v1 + v2 + v3)" and dict(plan.steps[-1].bindings)["p"] == 4


def test_a_scenes_task_sentence_is_the_question_it_asks() -> None:
    assert task_question("Total the tickets (Two adults are booking the Orrin boat trip)") == (
        "What do the tickets cost in total? (Two adults are booking the Orrin boat trip)"
    )
    assert task_question("Work out the total before VAT (a Tansy call-out)") == (
        "What is the total before VAT? (a Tansy call-out)"
    )
    assert task_question("total the deposit and the rent") is None  # two values: two lookups and a sum
    assert task_question("Total it") is None
    goal = "Two adults are booking the Orrin boat trip. Total the tickets and run `print(t / 2)` with t bound"
    plan = plan_request(goal)
    assert all(s.kind != "task" for s in plan.steps)  # asked, not handed to an agent as a task
    assert "tickets cost in total" in plan.steps[0].template


def _looked_up(plan: Plan, index: int) -> str:
    """The question of the lookup a value comes from (through ``derive(vN)`` steps)."""
    step = plan.steps[index - 1]
    while step.kind != LOOKUP and len(step.needs) == 1:
        step = plan.steps[step.needs[0] - 1]
    return step.template


def test_descriptions_beside_names_in_any_order() -> None:
    for goal in (
        "Plug the Orrin deposit into d and the Orrin monthly rent into r, then run `print(d + r)`.",
        "Use the Orrin deposit for d and the Orrin monthly rent for r: `print(d + r)`.",
        "With d = the Orrin deposit and r = the Orrin monthly rent, run `print(d + r)`.",
        "Given the Orrin deposit d and the Orrin monthly rent r, run `print(d + r)`.",
        "Run `print(d + r)` with d the Orrin deposit and r the Orrin monthly rent.",
    ):
        plan = plan_request(goal)
        assert not plan.unplanned, (goal, plan.unplanned)
        bound = dict(plan.steps[-1].bindings)
        assert "deposit" in _looked_up(plan, bound["d"]), goal
        assert "monthly rent" in _looked_up(plan, bound["r"]), goal
    described = described_pairs("Assign the Orrin room rate to rate and run it", ["rate"])
    assert described and described[0][:2] == ("rate", "the Orrin room rate")


def test_call_it_names_the_value_just_found() -> None:
    goal = "Find the Orrin adult fare. Call it a. Find the Orrin child fare. Call it c. Run `print(a - c)`."
    bound = _bound(goal)
    assert "adult" in bound["a"] and "child" in bound["c"]


def test_one_thing_compared_with_another_is_no_two_parties_comparison() -> None:
    from ioa_p2p.planning.natural import verb_comparison

    assert (
        verb_comparison("How much more does Orrin's express delivery to Tansy cost than standard delivery?")
        is None
    )


def test_a_second_value_without_its_article_is_a_lookup_of_its_own() -> None:
    assert split_lookup("Get the Orrin hourly rate and minimum booking length") == [
        "What is the Orrin hourly rate?",
        "What is the minimum booking length (Orrin)?",
    ]
    assert split_lookup("Find the adult and child fares") == [
        "What is the adult fare?",
        "What is the child fare?",
    ]
