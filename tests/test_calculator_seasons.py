"""Issue 23 (p-probe3): a span of years named by the word after it ("the 2024-25 season", "the 2023/24 tax
year") is no subtraction or division: a lookup handed to the calculator after the documents were searched
in vain must not be "answered" with 1999 (adapters/calculator/parser.py). Made-up wordings."""

from __future__ import annotations

import pytest

from ioa_p2p.adapters.calculator import calculate
from ioa_p2p.errors import TaskRejected


@pytest.mark.parametrize(
    "text",
    [
        "How many points did Tolbury finish the 2019-20 season with?",
        "What was the allowance in the 2023/24 tax year?",
        "Which club won the 1998-1999 league?",
    ],
)
def test_a_span_of_years_is_not_arithmetic(text: str) -> None:
    with pytest.raises(TaskRejected):
        calculate(text)


def test_years_with_an_operator_word_or_alone_are_still_computed() -> None:
    assert [float(c.value) for c in calculate("Compute 2024-25")] == [1999.0]
    assert [float(c.value) for c in calculate("What is 2024/25 plus 1?")] == [81.96]
    assert [float(c.value) for c in calculate("2030 - 16 is what?")] == [2014.0]
