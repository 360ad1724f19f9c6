"""Issue 23, round 2: statements that set the scene of a question go with it (never a step of their own),
a date asked for as a deadline is a period from the documents added to the date the situation states, and
a question that names its subject is answered from that subject's documents. Made-up wordings and
documents (none from a goal suite)."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.planning import CALC, DATE, LOOKUP, TASK, PlanStep, plan_request
from ioa_p2p.planning.answer_types import answer_type
from ioa_p2p.planning.scene import (
    as_question,
    deadline_plan,
    is_statement,
    join_scenes,
    lead_to_end,
    shifted,
)

from .test_retrieval import ask, hashing_adapter


def test_a_statement_before_a_question_is_its_scene_not_a_step() -> None:
    plan = plan_request(
        "Our choir has 40 singers and two pianists. Which rehearsal room at Brackwell fits us?"
    )
    assert [s.kind for s in plan.steps] == [LOOKUP]
    only = plan.steps[0].template
    assert only.startswith("Which rehearsal room at Brackwell fits us?")
    assert "40 singers and two pianists" in only


def test_a_condition_after_the_question_goes_with_it() -> None:
    plan = plan_request("Which boiler model does Norrick recommend for a flat? Only gas models, please.")
    assert all(s.kind != TASK for s in plan.steps)
    assert "Only gas models" in plan.steps[0].template


def test_requests_stay_steps_and_statements_without_a_question_stay() -> None:
    clauses = ["Look up the price of the T4 lamp", "Multiply it by 3"]
    assert join_scenes(clauses) == clauses
    statements = ["The shed is red", "The gate is blue"]
    assert join_scenes(statements) == statements  # no question to belong to
    assert not is_statement("Round it to two decimals")
    assert not is_statement("The number it prints is in kWh")
    assert is_statement("I moved into the flat on 2 June 2025")


def test_several_statements_join_the_question_they_precede() -> None:
    out = join_scenes(
        ["I ride a tandem", "My partner is 9 years old", "What does the Oakridge ferry charge us?"]
    )
    assert len(out) == 1
    assert out[0].startswith("What does the Oakridge ferry charge us?")
    assert "tandem" in out[0] and "9 years old" in out[0]


def test_the_last_day_asks_for_a_date() -> None:
    assert answer_type("What is the last day I may return the kettle?").kind == "date"
    assert answer_type("By when must the permit be renewed?").kind == "date"
    assert answer_type("What is the deadline for the grant report?").kind == "date"


def test_a_deadline_is_the_period_allowed_added_to_the_stated_date() -> None:
    plan = plan_request(
        "Our Ferncliff order arrived on 4 August 2025. What is the last day we can send it back for a refund?"
    )
    assert [s.kind for s in plan.steps] == [LOOKUP, DATE]
    lookup, moved = plan.steps
    assert "2025" not in lookup.template and "send it back" in lookup.template
    assert lookup.template.lower().startswith("within how many days")
    assert moved.template == "2025-08-04 + {1}" and moved.needs == (1,)


def test_no_deadline_without_exactly_one_stated_date() -> None:
    assert deadline_plan("What is the last day we can send it back?") is None
    assert (
        deadline_plan("What is the last day between 1 May 2025 and 9 May 2025 we can send it back?") is None
    )
    assert deadline_plan("How heavy is the Ferncliff kettle? (bought on 4 August 2025)") is None


FERNCLIFF = """# Ferncliff Home: customer service

Ferncliff Home sells kitchenware online.
"""
FERNCLIFF_RETURNS = """# Returns

Goods may be returned within **14 days** of arrival for a full refund.
"""
ODDLEY = """# Oddley Outdoor: customer service

A customer can return an item within **45 days** after delivery; a refund is paid within a week.
"""


async def test_a_question_naming_its_subject_is_answered_from_that_subjects_documents(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    files = {
        "ferncliff/about.md": FERNCLIFF,
        "ferncliff/returns.md": FERNCLIFF_RETURNS,
        "oddley/service.md": ODDLEY,
        "misc/notes.md": "# Notes\n\nNothing here.\n",
        "misc2/notes.md": "# More notes\n\nNothing here either.\n",
    }
    for rel, text in files.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text)
    adapter = hashing_adapter(docs)
    # Oddley's sentence uses more of the question's words; Ferncliff's set is the one the question names
    for name, days in (("Ferncliff", "14 days"), ("Oddley", "45 days")):
        result = await ask(
            adapter, f"Within how many days can a {name} customer return an item after delivery?"
        )
        assert result.ok, result.text
        assert result.data["value"]["text"] == days, (name, result.text)


def test_a_lead_saying_where_to_look_goes_after_the_question() -> None:
    plan = plan_request(
        "Going by the Tamsin Hall staff rules, how many guests may a member bring? Then triple it."
    )
    first = plan.steps[0]
    assert first.kind == LOOKUP
    assert first.template.startswith("how many guests may a member bring?")
    assert "(Going by the Tamsin Hall staff rules)" in first.template
    assert plan.steps[1].needs == (1,)
    assert lead_to_end("From 2024 on, prices rose.") == "From 2024 on, prices rose."  # no request after it


def test_an_instruction_to_work_out_a_question_is_that_question() -> None:
    assert (
        as_question("Work out how many crates the Selby depot holds")
        == "how many crates the Selby depot holds"
    )
    assert as_question("Calculate what it costs for 3 hours") == "Calculate what it costs for 3 hours"
    assert as_question("Calculate 4 times 5") == "Calculate 4 times 5"


def test_a_charge_among_other_requests_is_planned_as_if_alone() -> None:
    plan = plan_request(
        "What will two hours of court hire at Brindle Leisure cost on a Sunday? "
        "Then add the 6 EUR racket fee."
    )
    kinds = [s.kind for s in plan.steps]
    assert kinds[:2] == [LOOKUP, CALC] and plan.steps[1].template.startswith("charge(v1; 2 h")
    assert plan.steps[-1].needs == (2,) and "6" in plan.steps[-1].template


def test_steps_planned_alone_are_renumbered_after_the_earlier_ones() -> None:
    own = (
        PlanStep(1, LOOKUP, "a", "a?"),
        PlanStep(2, DATE, "b", "2025-01-02 + {1}", (1,)),
        PlanStep(3, CALC, "c", "charge(v1; 2 h) + v2", (1, 2)),
    )
    moved = shifted(own, 2)
    assert [s.index for s in moved] == [3, 4, 5]
    assert moved[1].template == "2025-01-02 + {3}" and moved[1].needs == (3,)
    assert moved[2].template == "charge(v3; 2 h) + v4" and moved[2].needs == (3, 4)
