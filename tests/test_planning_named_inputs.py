"""Code inputs named where their values are looked up ("the deposit for a van (v) and a car (c)", "the
sprinter and walker counts as p and q"), and lookups of two values that share an attribute or a subject
(issue 23, classes 3 and 4). Made-up companies and wordings, none from a goal suite."""

from __future__ import annotations

from ioa_p2p.planning import CODE, LOOKUP, plan_request
from ioa_p2p.planning.described import input_marks
from ioa_p2p.planning.lookups import split_lookup


def _bound(goal: str) -> tuple[list[str], dict[str, str]]:
    """The lookups' questions and each code input's question."""
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    questions = {s.index: s.template for s in plan.steps if s.kind == LOOKUP}
    code = plan.steps[-1]
    assert code.kind == CODE
    return list(questions.values()), {name: questions[i] for name, i in code.bindings}


def test_marks_in_brackets_bind_each_lookup_in_order() -> None:
    goal = "Take Hollin Vans' damage deposits for a panel van (v) and a small car (c) and run `print(v - c)`."
    questions, bound = _bound(goal)
    assert len(questions) == 2
    assert "(v)" not in bound["v"] and "panel van" in bound["v"] and "deposit" in bound["v"]
    assert "small car" in bound["c"] and "deposit" in bound["c"]  # the shared attribute carried over


def test_marks_bind_by_position_not_by_order_in_the_code() -> None:
    goal = "Take the route length in km (k) and the adult fare (f) of the Tarrow Coaster; run `print(f / k)`."
    _, bound = _bound(goal)
    assert "length" in bound["k"] and "Tarrow" in bound["k"]  # the subject named last is the first's too
    assert "fare" in bound["f"]


def test_names_after_as_bind_a_shared_plural_one_each() -> None:
    goal = "Take the sprinter and walker counts as p and q and run `print(p + q)`."
    _, bound = _bound(goal)
    assert "sprinter" in bound["p"] and "walker" not in bound["p"]
    assert "walker" in bound["q"] and "sprinter" not in bound["q"]


def test_names_abbreviating_the_lookups_words_bind_them() -> None:
    goal = "Look up the Brackley Hall daily rate and the deposit, then run `print(rate * 3 + dep)` with both."
    _, bound = _bound(goal)
    assert "daily rate" in bound["rate"] and "deposit" in bound["dep"]


def test_a_name_nothing_justifies_is_still_reported_missing() -> None:
    plan = plan_request("Look up the Brackley Hall daily rate and the deposit, then run `print(x * y)`.")
    assert plan.unplanned and "the code uses" in plan.unplanned


def test_input_marks_leave_other_brackets_alone() -> None:
    crate = "Find the weight (kg) of the crate"
    assert input_marks(crate, {"w"}) == (crate, [])
    assert input_marks("Find the weight (w) and the cost (c)", {"w", "c"}) == (
        "Find the weight and the cost",
        ["w", "c"],
    )


def test_split_lookup_shares_an_attribute_after_for() -> None:
    assert split_lookup("Find the late fees for a hardback and a paperback") == [
        "What is the late fees for a hardback?",
        "What is the late fees for a paperback?",
    ]


def test_a_leading_question_the_code_answers_is_no_lookup_of_its_own() -> None:
    goal = (
        "What share of the Dunmore Harriers' runners are juniors? Take the junior and senior counts as j and "
        "s and run `print(round(100 * j / (j + s), 1))`."
    )
    questions, bound = _bound(goal)
    assert len(questions) == 2  # the two counts, not the share itself
    assert "junior" in bound["j"] and "Dunmore" in bound["j"]  # the question's subject kept as context
    assert "senior" in bound["s"] and "Dunmore" in bound["s"]


def test_a_question_the_next_clause_refers_back_to_is_kept() -> None:
    plan = plan_request(
        "What is the Dunmore Harriers' junior fee? Take it and run `print(f * 2)` with f set to it."
    )
    assert [s.kind for s in plan.steps] == [LOOKUP, CODE]


def test_an_initial_before_a_possessive_ends_no_sentence() -> None:
    goal = "Read K. Marlowe's start and end gauge readings off the log and run `print(end - start)`."
    plan = plan_request(goal)
    assert not plan.unplanned, plan.unplanned
    texts = {s.index: s.template for s in plan.steps if s.kind == LOOKUP}
    assert len(texts) == 2 and all("K. Marlowe's" in t for t in texts.values())
    bound = {name: texts[i] for name, i in plan.steps[-1].bindings}
    assert "start gauge reading" in bound["start"] and "end gauge reading" in bound["end"]


def test_adding_two_values_nothing_found_yet_looks_each_up_first() -> None:
    plan = plan_request(
        "Add the spay and the microchip fees for a rescue cat at Fellside Vets, then run `print(x)` with x "
        "set to the total."
    )
    kinds = [s.kind for s in plan.steps]
    assert kinds == [LOOKUP, LOOKUP, "calc", CODE], kinds
    assert "spay fee" in plan.steps[0].template and "microchip fee" in plan.steps[1].template
    assert plan.steps[2].template.replace(" ", "") == "v1+v2"


def test_adding_onto_an_earlier_value_is_no_pair_of_lookups() -> None:
    plan = plan_request("Look up the Fellside Vets consultation fee. Add the out-of-hours surcharge to it.")
    assert [s.kind for s in plan.steps].count(LOOKUP) == 2  # the fee, the surcharge: not three


def test_a_second_part_with_its_own_determiner_keeps_only_its_own_words() -> None:
    assert split_lookup("Find the dog dental and the vaccination fees for a rescue") == [
        "What is the dog dental fee for a rescue?",
        "What is the vaccination fee for a rescue?",  # not "the dog vaccination fee"
    ]
