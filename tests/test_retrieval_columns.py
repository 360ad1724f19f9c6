"""Issue 23, round 2: "what <noun>" answers with the words of the row's cell under the column the noun
names (not the row's key), and a cell with a condition ("X, only with Y; otherwise Z") answers with the
branch the question's situation meets. Made-up documents (none from a goal suite)."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.extract import otherwise

from .test_retrieval import ask, hashing_adapter

RULES = """# Harlow Rowing Club: boat rules

## Boats by crew experience

| Rowing experience | Boat allowed                                        |
|-------------------|-----------------------------------------------------|
| under 1 year      | wide training scull                                 |
| 1 to 3 years      | standard single                                     |
| more than 3 years | racing shell, only with coach sign-off; otherwise standard single |
"""


async def _value(tmp_path: Path, question: str) -> str:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "boats.md").write_text(RULES)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return str(result.data["value"]["text"])


async def test_what_noun_answers_with_the_cell_of_that_column(tmp_path: Path) -> None:
    assert await _value(tmp_path, "What boat may a Harlow rower with 2 years of experience take out?") == (
        "standard single"
    )
    assert await _value(tmp_path, "Which boat is a Harlow rower with 0.5 years of rowing allowed?") == (
        "wide training scull"
    )


async def test_a_conditional_cell_gives_the_branch_the_situation_meets(tmp_path: Path) -> None:
    denied = "What boat may I take at Harlow? I have rowed for 5 years but the coach refused the sign-off."
    assert await _value(tmp_path, denied) == "standard single"
    met = "What boat may I take at Harlow with 5 years of experience and the coach's sign-off?"
    assert await _value(tmp_path, met) == "racing shell"
    silent = "What boat may I take at Harlow with 5 years of experience?"
    assert (await _value(tmp_path, silent)).startswith("racing shell, only with coach sign-off")


def test_otherwise_leaves_a_cell_without_a_condition_as_it_is() -> None:
    assert otherwise("standard single", "the coach did not sign") == "standard single"
    cell = "free, if booked online; otherwise EUR 5"
    assert otherwise(cell, "What does it cost? (I did not book online)") == "EUR 5"
    assert otherwise(cell, "What does it cost when booked online?") == "free"
