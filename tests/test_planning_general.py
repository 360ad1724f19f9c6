"""Issue 23's mechanisms, each on made-up requests (none from a goal suite): code pasted without a fence,
self-contained calculations and conversions, two values in one lookup, values named by what they are,
rates applied to quantities, answer types, what a request asks to be done, structured results, units.
"""

from __future__ import annotations

import json

import pytest

from ioa_p2p.planning import CALC, CODE, DATE, LOOKUP, TASK, Value, describe, plan_request, value_of
from ioa_p2p.planning.answer_types import answer_type, request_act
from ioa_p2p.planning.results import answers
from ioa_p2p.planning.segment import fence_code
from ioa_p2p.planning.units import factor


def kinds(goal: str) -> list[str]:
    return [s.kind for s in plan_request(goal).steps]


def test_code_after_a_colon_is_found_without_a_fence() -> None:
    goal = (
        "Execute:\nimport math\nfor k in range(2):\n    print(math.floor(7.5 + k))\n"
        "then double whatever it prints."
    )
    assert "```python\nimport math\nfor k in range(2):\n    print(math.floor(7.5 + k))\n```" in fence_code(
        goal
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [CODE, CALC] and steps[1].needs == (1,)
    assert fence_code("Say hello: it is a nice day.") == "Say hello: it is a nice day."


def test_a_variable_is_bound_to_the_value_it_is_set_to_and_never_left_missing() -> None:
    steps = plan_request(
        "Work out 12 % of 950. Then run this with q bound to the number:\nprint(q * 2)"
    ).steps
    assert steps[1].kind == CODE and steps[1].bindings == (("q", 1),)
    assert "q = 114" in describe(steps[1], {1: Value.of_number(114)})
    plan = plan_request("Compute 5 * 5, then run this with a set to it: print(a + b)")
    assert not plan.steps and "b" in plan.unplanned  # b has no value: said, never run


@pytest.mark.parametrize(
    ("goal", "kind", "template"),
    [
        ("How many days are there from 2 May 2026 to 14 August 2026?", DATE, None),
        ("What date is sixty days after 10 October 2026?", DATE, None),
        (
            "If 2,019 is divided by 9, what is it rounded to two decimal places?",
            CALC,
            "round(( 2019 / 9 ), 2)",
        ),
        ("Convert 30 kilograms to pounds.", CALC, None),
    ],
)
def test_self_contained_requests_need_no_lookup(goal: str, kind: str, template: str | None) -> None:
    (step,) = plan_request(goal).steps
    assert step.kind == kind
    if template is not None:
        assert step.template == template


def test_a_price_after_a_reduction_gives_the_price_before() -> None:
    (step,) = plan_request("A lamp costs EUR 63 after a 10 % discount. What was its original price?").steps
    assert step.kind == CALC and step.template == "63 / (1 - 10 / 100)"


def test_two_values_in_one_lookup_become_two_lookups_with_their_context() -> None:
    steps = plan_request(
        "Look up Orwin Bakery's 2023 and 2024 flour purchases, then calculate the ratio 2024 ÷ 2023."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert "Orwin Bakery's 2023" in steps[0].template and "Orwin Bakery's 2024" in steps[1].template
    steps = plan_request(
        "Find the salt for one loaf and how many slices a loaf gives, work out the salt per slice."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template.replace(" ", "") == "(v1/v2)"


def test_a_rate_from_the_documents_is_applied_to_the_quantity_of_the_request() -> None:
    steps = plan_request(
        "Look up the daily rent of a cargo bike at Velo Depot, then calculate five days at that rent."
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, CALC]
    assert describe(steps[1], {1: Value.of_number(18, "EUR")}) == "Calculate 18 * 5"


def test_a_quantity_read_in_one_unit_is_used_in_the_unit_asked() -> None:
    steps = plan_request(
        "Find how many tonnes of grain the Hove silo stored in May, then turn that into an average per day "
        "over the month's 31 days, in kilograms."
    ).steps
    assert describe(steps[1], {1: Value.of_number(6.2, "t")}) == "Calculate 6200 / 31"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How long does the varnish need to dry?", "duration"),
        ("How much does a day pass cost?", "amount"),
        ("How many rooms does the annex have?", "count"),
        ("Why was the pier closed last winter?", "reason"),
        ("Which supplier delivers the oak panels?", "name"),
        ("What time does the last bus leave Dunmore?", "time"),
        ("When did the audit start?", "date"),
    ],
)
def test_the_answer_type_comes_from_the_question(question: str, kind: str) -> None:
    assert answer_type(question).kind == kind


def test_a_rate_question_names_its_denominator() -> None:
    assert answer_type("What is the rate per square metre for floor tiles?").per == "square metre"


@pytest.mark.parametrize(
    ("request_text", "act"),
    [
        ("Calculate what a year of it costs", "compute"),
        ("Give the date ten days after it.", "compute"),
        ("Translate 'thank you' to German", "transform"),
        ("Count: red green blue", "transform"),
        ("Run this code: print(3)", "code"),
        ("Look up the opening hours of the Kelby museum", "question"),
        ("What is the boiling point of ethanol?", "question"),
    ],
)
def test_what_a_request_asks_to_be_done(request_text: str, act: str) -> None:
    assert request_act(request_text) == act


def test_each_request_for_another_agent_is_its_own_step() -> None:
    assert kinds("Translate 'thank you' to German. Count: red green blue") == [TASK, TASK]
    assert kinds("Convert 8 miles to kilometres and encode the word tea in base64.") == [CALC, TASK]


def test_a_result_of_the_wrong_type_does_not_answer_its_step() -> None:
    (convert, encode) = plan_request("Convert 8 miles to kilometres and encode the word tea in base64.").steps
    echoed = value_of("echo: Calculate 8 * 1.609344", None, convert.template)
    assert not answers(convert, echoed, None)
    how_long = plan_request("How long does the Tiber kiln take to cool?").steps[0]
    assert not answers(how_long, Value.of_text("Cooling"), None)
    assert answers(how_long, Value.of_number(9, "h"), None)


def test_a_structured_result_gives_the_field_asked_for_never_the_last_line_of_its_rendering() -> None:
    rendering = json.dumps({"celsius": 21.5, "kelvin": 294.65}, indent=2)
    value = value_of(rendering, None, "Convert 70.7 F to celsius")
    assert value is not None and value.number == 21.5
    assert value_of("}", {"structured": {"result": 42}}) == Value.of_number(42)
    whole = value_of("ok", {"data": {"w": 1, "h": 2}}, "size")
    assert whole is not None and whole.text == '{"w":1,"h":2}'


def test_units_convert_within_one_kind_and_never_across() -> None:
    assert factor("t", "kg") == 1000 and factor("L/min", "m³/h") == pytest.approx(0.06)
    assert factor("kg", "km") is None and factor("EUR/km", "EUR/km") == 1.0


def test_a_value_without_a_number_never_crashes_a_calculation() -> None:
    steps = plan_request("Look up when the 9:10 bus from Arden reaches Holm, then add 5 to it.").steps
    assert describe(steps[-1], {1: Value.of_text("09:40")}).startswith("Calculate")


def test_a_timetable_question_asks_for_a_time_and_the_next_ferry_is_no_new_step() -> None:
    assert answer_type("Look up when the 9:10 bus from Arden reaches Holm").kind == "time"
    assert (
        len(
            plan_request(
                "Find when the 9:10 bus reaches Holm, then count the minutes until the next bus."
            ).steps
        )
        == 2
    )
