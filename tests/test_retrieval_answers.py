"""Answer spans by the question's answer type over made-up documents (issue 23, classes 1, 5, 11): a
duration for "how long", the reason sentence for "why" (never the heading), the rate per the unit asked,
the row of the band a quantity falls in, the value named for a code in an exception, current figures over
ones no longer in force, a sibling item left aside; what is not a question over the documents is refused,
and a passage that quotes the request is no answer to it."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters import REJECTED
from ioa_p2p.adapters.base import Task, estimate

from .test_retrieval import ask, hashing_adapter

GLUE = """# Tarnwick adhesives: data sheet

## Curing

Tarnwick TX-4 epoxy must cure for 24 hours at room temperature before it bears load.
Maximum service temperature: 80 °C (TX-9: 120 °C).

## Prices

| Quantity | Per tube |
|----------|---------:|
| 1-9      |   6.50   |
| 10-49    |   5.80   |
| 50+      |   4.90   |

Primer costs 3.20 per tube; surface cleaner 12.00 per litre.
"""
NOTES = """# Quay notes

## Closure of the east pier

Reason: the east pier was closed because divers found cracked pilings under the walkway.

## Old tariffs (no longer valid)

Berthing was EUR 31 per night until 31 December 2024.

## Tariffs

Berthing costs EUR 36 per night. Mooring buoys cost EUR 22 per night.

### Plum jam

Plum jam: 900 g sugar per batch.

### Quince jam

Quince jam: 750 g sugar per batch.

## Examples

Ask the librarian: "how long must Tarnwick TX-4 epoxy cure before it bears load"
"""


def make(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "glue.md").write_text(GLUE)
    (docs / "quay.md").write_text(NOTES)
    return docs


async def value(adapter: object, question: str) -> str:
    result = await ask(adapter, question)  # type: ignore[arg-type]
    assert result.ok, result.text
    return str(result.data["value"]["text"])


async def test_answers_by_the_questions_answer_type(tmp_path: Path) -> None:
    adapter = hashing_adapter(make(tmp_path))
    assert await value(adapter, "How long must Tarnwick TX-4 epoxy cure before it bears load?") == "24 h"
    reason = await value(adapter, "Why was the east pier closed?")
    assert "cracked pilings" in reason and reason != "Reason"
    assert await value(adapter, "What is the maximum service temperature of the TX-9?") == "120 °C"
    assert (
        await value(adapter, "What does a tube of Tarnwick epoxy cost per tube for an order of 20?") == "5.8"
    )
    assert await value(adapter, "What is the surface cleaner's price per litre?") == "12"
    assert await value(adapter, "How much does berthing cost per night?") == "EUR 36"
    assert await value(adapter, "How much sugar goes into a batch of quince jam?") == "750 g"


async def test_what_is_not_a_question_is_refused_and_a_quote_of_the_request_is_no_answer(
    tmp_path: Path,
) -> None:
    adapter = hashing_adapter(make(tmp_path))
    for text in (
        "Calculate 4 nights at that rate.",
        "Translate 'harbour' to French.",
        "Give the date 9 days after it.",
    ):
        assert estimate(adapter, Task.create(text, timeout=5)) == 0.0
        refused = await ask(adapter, text)
        assert not refused.ok and refused.failure == REJECTED
    result = await ask(
        adapter, "Search the docs for how long must Tarnwick TX-4 epoxy cure before it bears load"
    )
    assert result.ok and result.data["citation"]["path"] == "glue.md"  # never the examples that quote it
