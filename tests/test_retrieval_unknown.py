"""Issue 23: a thing the question asks about that the answering document never mentions is a near miss:
the librarian abstains instead of answering with another row (adapters/retrieval/unknown.py)."""

from __future__ import annotations

from pathlib import Path

import trio

from ioa_p2p.adapters import Task, TaskResult, load_adapter, run_task
from ioa_p2p.adapters.retrieval.adapter import RetrievalAdapter
from ioa_p2p.adapters.retrieval.unknown import asked_phrase, unknown_terms
from ioa_p2p.planning.refusal import ABSENT

TARIFF = (
    "# Larchmoor Holiday Park: tariff 2026\n\nAll prices in GBP per night.\n\n"
    "| Pitch | Low | High |\n|---|---|---|\n| Tent pitch | 18 | 26 |\n| Caravan pitch | 24 | 35 |\n"
    "| Hardstanding with electricity | 29 | 41 |\n\nDogs: 3 per night. Snorkelling gear hire: 8 per day.\n"
    "Visitor levy: 1.50 per adult per night.\n"
)


def test_a_word_the_document_never_uses_is_unknown() -> None:
    shown = [q.shown for q in unknown_terms("What does a yurt cost per night at Larchmoor?", TARIFF)]
    assert shown == ["yurt"]
    assert unknown_terms("What does a tent pitch cost in high season?", TARIFF) == []
    # a stem or a six-letter prefix meets its word: "snorkel" / "snorkelling", "electric" / "electricity"
    assert unknown_terms("How much is snorkel hire?", TARIFF) == []
    assert unknown_terms("the price of an electric hardstanding", TARIFF) == []
    # the request's own machinery is no term the document must name
    assert unknown_terms("Look up the tent pitch price, multiply it by 3 and print the result", TARIFF) == []


def test_only_the_phrase_naming_what_is_priced_is_checked() -> None:
    question = "My sister and I arrive by bicycle on Friday. What is the price of a caravan pitch?"
    assert asked_phrase(question) == "a caravan pitch"
    assert unknown_terms(question, TARIFF) == []  # "sister", "bicycle", "arrive": her situation
    assert asked_phrase("What does Ferncombe charge to varnish a boat, then add 5?") == "varnish a boat"
    assert asked_phrase("How long is the tent pitch?") == ""  # nothing priced: nothing checked
    assert [q.shown for q in unknown_terms("We come by bicycle; what is the cost of a yurt?", TARIFF)] == [
        "yurt"
    ]


async def ask(adapter: RetrievalAdapter, question: str) -> TaskResult:
    with trio.fail_after(60):
        return await run_task(adapter, Task.create(question, timeout=60))


async def test_the_librarian_abstains_on_an_unknown_item(tmp_path: Path) -> None:
    (tmp_path / "larchmoor.org").write_text(
        "#+TITLE: Larchmoor Holiday Park: tariff 2026\n* Pitches (GBP per night)\n"
        "| Pitch | Low | High |\n|---+---+---|\n| Tent pitch | 18 | 26 |\n| Caravan pitch | 24 | 35 |\n"
        "| Hardstanding | 29 | 41 |\n* Extras\n- Dogs: 3 per night.\n"
        "- Visitor levy: 1.50 per adult per night.\n"
    )
    made = load_adapter(
        "retrieval", {"path": str(tmp_path), "embedding": {"backend": "hashing"}, "read_any_text": True}
    )
    assert isinstance(made, RetrievalAdapter)
    pitch = await ask(made, "What does a caravan pitch cost per night in high season at Larchmoor?")
    assert pitch.ok and "35" in pitch.text.splitlines()[0], pitch.text
    yurt = await ask(made, "What does a yurt cost per night in high season at Larchmoor?")
    assert not yurt.ok and yurt.data[ABSENT] is True and "yurt" in yurt.data["unnamed"], yurt.text
    await made.aclose()
