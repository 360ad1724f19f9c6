"""Issue 23 class 5 (p-chain3): the row that answers, over made-up documents. A question that names a year
is not answered from a table of another year only ("Q4 2023" from the FY2024 table), and a question word
before an ingredient ("how much sugar", "the sugar") is no modifier that makes "Caster sugar" another sugar
than the one asked about (the sibling rule is for "Lime curd" against "Lemon curd")."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_retrieval import ask, hashing_adapter

FIGURES = """# Orvane Tea Company: FY2025 quarterly figures

## Table 1: revenue by channel, FY2025 (EUR thousand)

| Quarter | Shops | Online | Total |
|---------|-------|--------|-------|
| Q1      | 410   | 120    | 530   |
| Q2      | 455   | 131    | 586   |

## Table 2: FY2024 comparatives (total revenue, EUR thousand)

| Quarter | FY2024 |
|---------|--------|
| Q1      | 472    |
| Q2      | 519    |

## Table 3: shop revenue by city, Q2 2025

| City       | Shops | Revenue (EUR thousand) |
|------------|------:|-----------------------:|
| Lisbon     |     3 |                    210 |
| Porto      |     2 |                    245 |
| **Total**  |     5 |                    455 |
"""

RECIPE = """# Pellin Bakehouse recipes

### Orange marmalade

*One batch fills 8 jars of 340 ml.*

| Ingredient          | Per batch (8 jars) |
|---------------------|--------------------|
| Seville oranges     | 9                  |
| Granulated sugar    | 1,800 g            |
| Water               | 2 L                |
| Lemons              | 2                  |
"""


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("What was Orvane's total revenue in Q2 2024?", "519"),
        ("Orvane Tea: Q1 2024 total revenue?", "472"),
    ],
)
async def test_a_question_of_one_year_is_answered_from_that_years_figures(
    tmp_path: Path, question: str, shown: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "orvane-figures.md").write_text(FIGURES)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok and result.text.startswith(shown), result.text


@pytest.mark.parametrize(
    "question",
    [
        "How much sugar goes into one batch of Pellin's orange marmalade?",
        "What is the sugar for one batch of orange marmalade at Pellin Bakehouse?",
    ],
)
async def test_a_question_word_before_the_ingredient_is_no_other_modifier(
    tmp_path: Path, question: str
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pellin-recipes.md").write_text(RECIPE)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok and result.text.startswith("1800 g"), result.text
