"""A measure the question itself states is the situation, not the answer (issue 23, class 5): "after half
an hour of running, how long must it rest" answers with the rest, never the half hour the rule also names,
whatever unit either side uses. Made-up documents and wordings."""

from __future__ import annotations

from pathlib import Path

from .test_retrieval import ask, hashing_adapter

SHEET = """# Oskarby Drills: duty cycles

## Operating limits

The Oskarby D-40 is rated for intermittent duty: after **15 minutes** of continuous drilling it must cool
down for **10 minutes**.
The Oskarby D-90 may run for 2 hours; after that it needs 45 minutes of rest.
Charge the battery for 90 minutes after every 3 hours of use.
"""


async def value(tmp_path: Path, question: str) -> str:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "drills.md").write_text(SHEET)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return str(result.data["value"]["text"])


async def test_a_stated_duration_is_not_the_answer_in_any_unit(tmp_path: Path) -> None:
    asked = "Having drilled for a quarter of an hour non-stop, how long must the Oskarby D-40 cool down?"
    assert await value(tmp_path, asked) == "10 min"
    asked = "After 15 minutes of continuous drilling, how long does a D-40 have to cool down?"
    assert await value(tmp_path, asked) == "10 min"
    asked = "Once the Oskarby D-90 has run for 120 minutes, how long does it need to rest?"
    assert await value(tmp_path, asked) == "45 min"
    asked = "After three hours of use, how long should the Oskarby battery charge?"
    assert await value(tmp_path, asked) == "90 min"


async def test_an_answer_is_kept_when_only_the_question_states_another_measure(tmp_path: Path) -> None:
    # nothing but stated measures: the rule's figure is still the answer (never an empty answer)
    asked = "How long may the Oskarby D-90 run before it needs rest?"
    assert await value(tmp_path, asked) == "2 h"
