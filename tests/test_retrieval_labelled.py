"""Issue 23 (p-lookup): a fact that states several values each with a bracketed label ("£12 (members) or
£18 (non-members)", "£300 (residents) or £390 (others)") answers with the value of the label the question
names or the asker fits (adapters/retrieval/labelled.py). Made-up wording."""

from __future__ import annotations

import re
from pathlib import Path

from ioa_p2p.adapters.retrieval.facts import Fact, Scorer
from ioa_p2p.adapters.retrieval.labelled import labelled_item, labels_of

from .test_retrieval import ask, hashing_adapter

FEES = "Kayak taster session: £12 (members) or £18 (non-members), buoyancy aid included."
HALL = "Evening hire of the main room is £300 (residents) or £390 (others), bar staff not included."


def _pick(text: str, question: str) -> str | None:
    spans = [(m.start(), m.end(), m.group()) for m in re.finditer(r"£\d+", text)]
    return labelled_item(spans, text, question, Scorer(question, [Fact("f.txt", 1, text, "")]))


def test_labels_are_the_brackets_right_after_the_values() -> None:
    spans = [(m.start(), m.end(), m.group()) for m in re.finditer(r"£\d+", FEES)]
    assert labels_of(spans, FEES) == [("members", "£12"), ("non-members", "£18")]
    assert labels_of(spans[:1], "£12 for the session") == []
    text = "£18 per hour (the Boardroom: £32 per hour) or £25 a day (members)"
    both = [(m.start(), m.end(), m.group()) for m in re.finditer(r"£\d+", text)]
    assert labels_of(both, text) == [("members", "£25")]  # a bracket holding a value labels nothing


def test_the_label_the_question_names_and_its_negation() -> None:
    assert _pick(FEES, "What does a non-member pay for the kayak taster?") == "£18"
    assert _pick(FEES, "What does a member pay for the kayak taster?") == "£12"
    assert _pick(FEES, "What does the kayak taster cost?") is None  # no label chosen: read as before


def test_an_asker_outside_the_group_gets_the_others_value() -> None:
    assert _pick(HALL, "We don't live in the village: what is the evening hire of the main room?") == "£390"
    assert _pick(HALL, "Evening hire of the main room for residents?") == "£300"
    assert _pick(HALL, "What is the evening hire of the main room?") is None


async def test_the_labelled_value_answers_end_to_end(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ashby-parva-hall.txt").write_text(
        "ASHBY PARVA VILLAGE HALL - HIRE CHARGES 2027\n\n"
        f"{HALL}\nDaytime hire is charged by the hour.\nA deposit of £100 is held against damage.\n"
    )
    adapter = hashing_adapter(docs)
    for question, expected in (
        ("We don't live in the village: what is Ashby Parva hall's evening hire of the main room?", 390),
        ("What does a non-member pay for a Tarnside kayak taster session?", 18),
    ):
        if "Tarnside" in question:
            (docs / "tarnside-canoe-club.txt").write_text(f"TARNSIDE CANOE CLUB - SESSIONS 2027\n\n{FEES}\n")
        result = await ask(adapter, question)
        assert result.ok, result.text
        assert result.data["value"].get("value") == expected, (question, result.text)
