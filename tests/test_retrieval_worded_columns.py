"""Issue 23 (p-chain4): a table row's words under the column a word of the question names by its stem
("who manufactures" -> Manufacturer, "which fault code" -> Code), never the row's key the question states
itself, and "what does X mean?" asks for a meaning in words. Made-up documents."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.planning.answer_types import answer_type

from .test_retrieval import ask, hashing_adapter

FAULTS = """# Tenby Loom Works: controller fault codes

| Code  | Beeps | Meaning                              | Manufacturer of the part | Reset |
|-------|-------|--------------------------------------|--------------------------|-------|
| F-110 | 2     | Warp tension sensor out of range     | Carrow Sensors           | auto  |
| F-214 | 3     | Shuttle motor drew too much current  | Halden Drives            | manual |
| F-305 | 5     | Heald frame stuck above its end stop | Marsh Mechanics          | manual |
"""


async def _value(tmp_path: Path, question: str) -> str:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "faults.md").write_text(FAULTS)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return str(result.data["value"]["text"])


def test_what_does_it_mean_asks_for_words() -> None:
    assert answer_type("What does the loom's fault F-214 mean?").kind == "name"
    assert answer_type("What does the carnet cost?").kind != "name"


async def test_the_column_a_question_word_names(tmp_path: Path) -> None:
    assert await _value(tmp_path, "Who manufactures the part behind Tenby fault F-305?") == "Marsh Mechanics"
    assert await _value(tmp_path, "What does the Tenby loom fault F-214 mean?") == (
        "Shuttle motor drew too much current"
    )
    assert await _value(
        tmp_path, "Which Tenby fault code means that the warp tension sensor is out of range?"
    ) == ("F-110")


def test_an_activity_time_is_a_span() -> None:
    assert answer_type("Find the drying time of the Orla varnish").kind == "duration"
    assert answer_type("What is the baking time for the rye loaf?").kind == "duration"
    assert answer_type("What is the opening time of the Orla pool?").kind == "time"  # a clock time
    assert answer_type("What does a ticket to the Deep Time exhibition cost?").kind != "duration"  # a name
