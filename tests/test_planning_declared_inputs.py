"""Code inputs declared one by one beside their descriptions, bound from lookups (issue 23, p-words2).

Made-up requests in the forms people use to say which value goes into which code variable: "bind x = the
A and y = the B", "x is what Acme charges for A and y is its B price", "Here x is the A", "<code> - p and q
being the A and B", "bind lo to A and hi to its B", a description after "=" with no article, an owner
left out ("w2 = the X-2's"), one wh-clause for two subjects ("what adults and children pay"), and a
question about the output after the code ("What comes out?"). On the planner before, each ended "No
answer: the code uses X" or asked a lookup that named neither owner nor thing.
"""

from __future__ import annotations

from ioa_p2p.planning import plan_request
from ioa_p2p.planning.gather_items import declared_descriptions, listed_against, split_items
from tests.plan_bindings import bound_inputs

_bound = bound_inputs


def test_bind_name_equals_description_for_each_input() -> None:
    plan = plan_request(
        "From the Quillby hardware list, bind nut = the M8 nut price and bolt = the M8 bolt price, "
        "then run `print(round(10 * nut + 10 * bolt, 2))`."
    )
    bound = _bound(plan)
    assert "M8 nut price" in bound["nut"] and "M8 bolt price" in bound["bolt"]


def test_a_description_that_is_a_what_clause_and_its_owner_given_to_the_next() -> None:
    plan = plan_request(
        "```\nprint(round(3 * large + 2 * small, 2))\n```\n"
        "large is what Fenwick Bakery charges for a Rye Loaf in the big tin and small is its half-tin price. "
        "What does this print?"
    )
    bound = _bound(plan)
    assert "Fenwick Bakery charges for a Rye Loaf in the big tin" in bound["large"]
    assert "Rye Loaf" in bound["small"] and "half-tin price" in bound["small"]


def test_here_name_is_a_description_and_a_question_about_the_output() -> None:
    plan = plan_request(
        "```\nguests = 40\nprint(max(guests, floor) * plate)\n```\n"
        "Here plate is the lunch price per guest in Ormsby's menu and floor is the fewest guests it is "
        "charged for. What's the output?"
    )
    bound = _bound(plan)
    assert "lunch price per guest" in bound["plate"] and "fewest guests" in bound["floor"]
    assert plan.steps[-1].template.startswith("guests = 40")


def test_names_being_descriptions_after_a_dash() -> None:
    plan = plan_request(
        "`print(round(c / t * 100, 1))` - t and c being the kiosk's 2025 sales from tea and from coffee. "
        "What comes out?"
    )
    bound = _bound(plan)
    assert "sales from tea" in bound["t"] and "sales from coffee" in bound["c"]
    assert listed_against("- t and c being the A and the B", ["c", "t"]) == (["t", "c"], ["the A", "the B"])


def test_bind_name_to_description_and_its_owner_named() -> None:
    plan = plan_request(
        "Bind before to the Loft Room's weekday rate in Pimble's 2025 list and after to its 2026 rate, "
        "then run `print(round((after - before) / before * 100, 1))`."
    )
    bound = _bound(plan)
    assert "Loft Room's weekday rate" in bound["before"]
    assert "Loft Room's 2026 rate" in bound["after"]


def test_a_description_after_equals_needs_no_article() -> None:
    said = declared_descriptions(
        "Bind fee = the club's joining fee, cap = the price of a swim cap and lane = lane hire per hour",
        ["fee", "cap", "lane"],
    )
    assert said == {
        "fee": "the club's joining fee",
        "cap": "the price of a swim cap",
        "lane": "the lane hire per hour",
    }
    assert declared_descriptions("with a = 5 and b = x + 2", ["a", "b"]) == {}  # numbers and sums: no


def test_an_owner_alone_takes_the_head_of_the_description_before() -> None:
    plan = plan_request(
        "run print(round(m2 - m1, 1)) with m1 = the Brisk K-10's dry mass in kg and m2 = the K-12's"
    )
    bound = _bound(plan)
    assert "K-10's dry mass in kg" in bound["m1"] and "K-12's dry mass in kg" in bound["m2"]


def test_one_wh_clause_for_two_subjects_is_asked_for_each() -> None:
    assert split_items("what adults and under-16s pay per swim at Tarn Baths") == [
        "what adults pay per swim at Tarn Baths",
        "what under-16s pay per swim at Tarn Baths",
    ]
    plan = plan_request(
        "Look up what adults and under-16s pay per swim at Tarn Baths, bind them to adult and junior, "
        "and run `print(2 * adult + 3 * junior)`."
    )
    bound = _bound(plan)
    assert "what adults pay" in bound["adult"].lower() and "under-16s pay" in bound["junior"]
