"""Issue 23, round 2: superlatives over a table ("the heaviest", "the cheapest", "the highest flow") pick
the row with the extreme value of the attribute's column, and "A costs how many times as much as B" is
the ratio of two lookups. Made-up documents and wordings (none from a goal suite)."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.superlative import superlative
from ioa_p2p.planning import CALC, LOOKUP, plan_request

from .test_retrieval import ask, hashing_adapter

KETTLES = """# Ovenden kettles: product sheet

| Model | Capacity | Weight | Boil time | Price    |
|-------|----------|--------|-----------|----------|
| K-10  | 1.0 l    | 0.9 kg | 150 s     | EUR 39   |
| K-15  | 1.5 l    | 1.4 kg | 190 s     | EUR 29   |
| K-17  | 1.7 l    | 1.1 kg | 210 s     | EUR 55   |
"""


async def _value(tmp_path: Path, question: str) -> str:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "kettles.md").write_text(KETTLES)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return str(result.data["value"]["text"])


async def test_the_row_with_the_extreme_value_answers(tmp_path: Path) -> None:
    assert await _value(tmp_path, "What does the heaviest Ovenden kettle cost?") == "EUR 29"
    assert await _value(tmp_path, "What is the price of the lightest Ovenden kettle?") == "EUR 39"
    assert await _value(tmp_path, "Which Ovenden kettle model has the largest capacity?") == "K-17"
    assert (
        await _value(tmp_path, "What is the weight of the most expensive Ovenden kettle model?") == "1.1 kg"
    )


def test_what_a_superlative_asks_for() -> None:
    assert superlative("the cheapest room") is not None
    words, _, direction = superlative("the highest flow rate") or (set(), set(), 0)
    assert "flow" in words and direction == 1
    assert superlative("What does the kettle cost?") is None


def test_how_many_times_as_much_is_a_ratio_of_two_lookups() -> None:
    steps = plan_request(
        "The largest tent at Corrow Outfitters costs how many times as much as the smallest one?"
    ).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[0].template == "What is the price of The largest tent at Corrow Outfitters?"
    assert steps[1].template == "What is the price of the smallest tent at Corrow Outfitters?"
    assert steps[2].template == "(v1 / v2)"
    steps = plan_request("How many times heavier is the Q7 anchor than the Q2 anchor?").steps
    assert steps[0].template == "What is the weight of the Q7 anchor?" and steps[2].template == "(v1 / v2)"
