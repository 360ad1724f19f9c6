"""Issue 23 (p-rules, class 7): a value the documents state relative to another quantity ("20 °C lower than
the conventional temperature") is never the level a question asks for: the lookup does not answer, and the
step is refused with the base named (planning/relative.py). Made-up documents and wordings."""

from __future__ import annotations

import pytest

from ioa_p2p.planning import LOOKUP, PlanStep
from ioa_p2p.planning.refusal import dimension_refusal
from ioa_p2p.planning.relative import relative_base
from ioa_p2p.planning.results import answers
from ioa_p2p.planning.values import Value

KITCHEN = "# Oven notes\n\nA fan oven is set 20 °C lower than the conventional temperature in a recipe.\n"
FARES = "Seniors pay EUR 4 less than the adult fare on every Pellin line. Adults pay EUR 11."


@pytest.mark.parametrize(
    ("question", "value", "evidence", "base"),
    [
        ("What should a fan oven be set to for the Orla brownies?", Value.of_number(20, "°C"), KITCHEN,
         "the conventional temperature in a recipe"),
        ("What does a senior pay for a Pellin single?", Value.of_number(4, "EUR"), FARES,
         "the adult fare on every Pellin line"),
    ],
)  # fmt: skip
def test_an_offset_is_not_the_level_asked_the_base_is_named_missing(
    question: str, value: Value, evidence: str, base: str
) -> None:
    found = value.with_evidence((evidence,))
    assert relative_base(question, found) == base
    step = PlanStep(1, LOOKUP, question, question)
    assert not answers(step, found, None)
    lacking = dimension_refusal(step, found)
    assert lacking is not None and lacking.what == base, lacking


@pytest.mark.parametrize(
    ("question", "value", "evidence"),
    [
        ("How much lower is a fan oven set than a conventional one?", Value.of_number(20, "°C"), KITCHEN),
        ("By how much do seniors pay less on Pellin lines?", Value.of_number(4, "EUR"), FARES),
        ("What does an adult pay on a Pellin line?", Value.of_number(11, "EUR"), FARES),  # a level
    ],
)
def test_a_difference_asked_for_or_a_level_stated_is_an_answer(
    question: str, value: Value, evidence: str
) -> None:
    found = value.with_evidence((evidence,))
    assert relative_base(question, found) == ""
    step = PlanStep(1, LOOKUP, question, question)
    lacking = dimension_refusal(step, found)
    assert lacking is None or "relative" not in lacking.why, lacking
    if value.number == 11:  # a level the documents state answers
        assert answers(step, found, None)
