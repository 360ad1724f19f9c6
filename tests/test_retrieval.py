"""The retrieval adapter over real documents in a temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from ioa_p2p.adapters import REJECTED, TASK_ERROR, Task, TaskResult, load_adapter, run_task
from ioa_p2p.adapters.retrieval.adapter import RetrievalAdapter, chunk_document
from ioa_p2p.errors import AdapterOptionsError, ConfigError

GARDEN = """# Gardening guide

Tomatoes need full sun and regular watering.
Plant them after the last frost.

## Pests

Aphids can be washed off with a jet of water.
Slugs are kept away by copper tape around the beds.

## Harvest

Pick tomatoes when they are fully red and slightly soft.
"""

BOATS = """Sailing notes
=============

A sloop has one mast and two sails: a mainsail and a jib.

Knots
-----

The bowline makes a fixed loop at the end of a rope.

```
    code sample with a blank line

    still the same block
```
"""

COOKING = "Bread needs flour, water, salt and yeast.\nKnead the dough for ten minutes.\n"


def make_docs(root: Path) -> Path:
    docs = root / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "garden.md").write_text(GARDEN)
    (docs / "sub" / "boats.rst").write_text(BOATS)
    (docs / "cooking.txt").write_text(COOKING)
    (docs / "ignored.py").write_text("print('tomatoes slugs aphids')\n")
    (docs / ".hidden").mkdir()
    (docs / ".hidden" / "secret.md").write_text("tomatoes slugs aphids copper")
    outside = root / "outside.md"
    outside.write_text("slugs copper tape outside the folder")
    os.symlink(outside, docs / "link.md")
    return docs


def hashing_adapter(docs: Path, **options: object) -> RetrievalAdapter:
    made = load_adapter("retrieval", {"path": str(docs), "embedding": {"backend": "hashing"}, **options})
    assert isinstance(made, RetrievalAdapter)
    return made


async def ask(adapter: RetrievalAdapter, question: str) -> TaskResult:
    with trio.fail_after(60):
        return await run_task(adapter, Task.create(question, timeout=60))


def lines_of(path: Path, start: int, end: int) -> str:
    return "\n".join(path.read_text().splitlines()[start - 1 : end]).strip()


def test_chunking_keeps_structure_and_line_ranges() -> None:
    passages = chunk_document("garden.md", GARDEN, chunk_chars=100)
    assert [p.heading for p in passages] == [
        "Gardening guide",
        "Gardening guide > Pests",
        "Gardening guide > Harvest",
    ]
    for p in passages:
        assert p.text == "\n".join(GARDEN.splitlines()[p.start_line - 1 : p.end_line]).strip()
    assert passages[1].citation == "garden.md:6-9" and passages[1].text.startswith("## Pests")
    rst = chunk_document("boats.rst", BOATS, chunk_chars=800)
    assert [p.heading for p in rst] == ["Sailing notes", "Sailing notes > Knots"]
    assert "still the same block" in rst[1].text and "code sample" in rst[1].text


def test_long_paragraphs_are_split_by_lines() -> None:
    text = "\n".join(f"line {i} " + "word " * 20 for i in range(50))
    passages = chunk_document("long.txt", text, chunk_chars=300)
    assert len(passages) > 5
    assert all(len(p.text) <= 300 for p in passages)
    assert passages[0].start_line == 1 and passages[-1].end_line == 50
    assert all(a.end_line < b.start_line for a, b in zip(passages, passages[1:], strict=False))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["# Title", "## Sub", "text line", "", "```", "Head", "====", "- item"]), max_size=60
    )
)
def test_chunk_invariants(lines: list[str]) -> None:
    text = "\n".join(lines)
    passages = chunk_document("f.md", text, chunk_chars=120)
    previous_end = 0
    for p in passages:
        assert previous_end < p.start_line <= p.end_line <= len(lines)
        assert p.text == "\n".join(lines[p.start_line - 1 : p.end_line]).strip()
        previous_end = p.end_line


async def test_answers_with_citations(tmp_path: Path) -> None:
    docs = make_docs(tmp_path)
    adapter = hashing_adapter(docs, top_k=2)
    result = await ask(adapter, "How do I keep slugs away from the beds?")
    assert result.ok, result.text
    best = result.data["passages"][0]
    assert best["path"] == "garden.md" and "copper tape" in best["text"]
    assert best["text"] == lines_of(docs / "garden.md", best["start_line"], best["end_line"])
    # issue 11: the answer span first, then its source line, then the passages' citations
    assert result.text.splitlines()[0] == "Slugs are kept away by copper tape around the beds."
    assert result.data["value"]["kind"] == "text" and result.data["citation"]["path"] == "garden.md"
    assert 0 < result.data["confidence"] <= 1
    assert f"[1] garden.md:{best['start_line']}-{best['end_line']}" in result.text
    knot = await ask(adapter, "Which knot makes a fixed loop at the end of a rope?")
    assert knot.data["passages"][0]["path"] == "sub/boats.rst"
    index = result.data["index"]
    assert index["files"] == 3 and index["model"].startswith("hashing/")
    assert any("link.md" in s for s in index["skipped"])  # symlink not followed
    for p in result.data["passages"] + knot.data["passages"]:
        assert "outside" not in p["text"] and p["path"] != ".hidden/secret.md"


async def test_index_is_cached_and_follows_changes(tmp_path: Path) -> None:
    docs = make_docs(tmp_path)
    adapter = hashing_adapter(docs)
    await ask(adapter, "tomatoes")
    assert adapter.builds == 1
    garden_entry = adapter.index.files["garden.md"]
    await ask(adapter, "bread dough")
    assert adapter.builds == 1 and adapter.index.files["garden.md"] is garden_entry

    (docs / "cooking.txt").write_text(COOKING + "Pizza ovens reach 450 degrees.\n")
    (docs / "new.md").write_text("# Volcanoes\n\nMagma that reaches the surface is called lava.\n")
    (docs / "sub" / "boats.rst").unlink()
    result = await ask(adapter, "What is magma called at the surface?")
    assert adapter.builds == 2
    assert adapter.index.files["garden.md"] is garden_entry  # unchanged file not re-embedded
    assert set(adapter.index.files) == {"garden.md", "cooking.txt", "new.md"}
    assert result.ok and result.data["passages"][0]["path"] == "new.md"
    await adapter.aclose()


async def test_no_match_empty_folder_and_no_words(tmp_path: Path) -> None:
    docs = make_docs(tmp_path)
    adapter = hashing_adapter(docs, min_score=0.9)
    miss = await ask(adapter, "quantum chromodynamics lattice")
    assert miss.failure == TASK_ERROR and "best score" in miss.text
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = await ask(hashing_adapter(empty), "anything at all")
    assert nothing.failure == TASK_ERROR and "no documents" in nothing.text
    rejected = await ask(adapter, "?? !!")
    assert rejected.failure == REJECTED


def test_bad_options(tmp_path: Path) -> None:
    with pytest.raises(AdapterOptionsError, match="path"):
        load_adapter("retrieval", {})
    with pytest.raises(AdapterOptionsError, match="not a folder"):
        load_adapter("retrieval", {"path": str(tmp_path / "missing")})
    for bad in ({"top_k": 0}, {"chunk_chars": 10}, {"keyword_weight": 2.0}, {"extensions": "md"}):
        with pytest.raises(AdapterOptionsError):
            load_adapter("retrieval", {"path": str(tmp_path), **bad})
    with pytest.raises(ConfigError, match="embedding backend"):
        load_adapter("retrieval", {"path": str(tmp_path), "embedding": {"backend": "x"}})


async def test_default_offline_embedder_understands_paraphrases(tmp_path: Path) -> None:
    docs = make_docs(tmp_path)
    adapter = load_adapter("retrieval", {"path": str(docs), "keyword_weight": 0.0})
    assert isinstance(adapter, RetrievalAdapter)
    assert adapter.embedder.model_id.startswith("wordllama/")
    result = await ask(adapter, "how should I bake a loaf?")
    assert result.ok and result.data["passages"][0]["path"] == "cooking.txt"
    card = adapter.describe()
    assert card.kind == "retrieval" and card.task_types == ("question",) and "docs" in card.description


async def test_the_answer_carries_its_whole_document_bounded(tmp_path: Path) -> None:
    """The document an answer was read from travels with it (data["document"]): a derivation reads the
    quantities that define what the question asks for from it. A huge document of wide characters is cut
    so that the result's data stays within its bound."""
    docs = tmp_path / "docs"
    docs.mkdir()
    line = "the Ørsund café serves crème brûlée ☕ every day."
    filler = "\n".join(f"Paragraph {i}: {line}" for i in range(2_000))
    (docs / "cafe.md").write_text("# Ørsund café\n\nThe café seats 42 guests.\n\n" + filler)
    adapter = hashing_adapter(docs)
    try:
        result = await ask(adapter, "How many guests does the Ørsund café seat?")
    finally:
        await adapter.aclose()
    assert result.ok, result.text
    document = result.data["document"]
    assert document["path"] == "cafe.md" and "seats 42 guests" in document["text"]
    assert len(document["text"].encode()) <= 24_000


async def test_decimal_commas_of_a_semicolon_table_are_points(tmp_path: Path) -> None:
    # issue 23: where ';' separates the cells, "6,20" is 6.2 (a comma-separated file keeps its commas)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferry.csv").write_text(
        "Route;Adult fare EUR;Child fare EUR\n"
        "Harlow-Isle;9,50;4,75\nIsle-Point;6,20;3,10\nPoint-Bay;7,40;3,70\n"
    )
    adapter = hashing_adapter(docs)
    fare = await ask(adapter, "What is the adult fare from Isle to Point?")
    assert fare.ok and "6.2" in fare.text.splitlines()[0], fare.text
    await adapter.aclose()


async def test_tab_and_semicolon_tables_are_read_by_content(tmp_path: Path) -> None:
    # a table whose cells are separated by tabs or semicolons is read as a table (the cell at the asked row)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fees.txt").write_text(
        "Harbour fees\n\nService\tFee EUR\tBooking\nMooring\t31\tnone\nCrane lift\t85\tone week\n"
    )
    (docs / "hut.md").write_text(
        "# Hut prices\n\nRoom;Price CHF;Meals\nDormitory bed;38;breakfast\nTwin room;96;half board\n"
    )
    adapter = hashing_adapter(docs)
    crane = await ask(adapter, "What is the fee for a crane lift?")
    assert crane.ok and crane.data["passages"][0]["path"] == "fees.txt", crane.text
    assert "85" in crane.text.splitlines()[0] and "31" not in crane.text.splitlines()[0], crane.text
    twin = await ask(adapter, "What is the price of a twin room?")
    assert twin.ok and twin.data["passages"][0]["path"] == "hut.md", twin.text
    assert "96" in twin.text.splitlines()[0] and "38" not in twin.text.splitlines()[0], twin.text
    await adapter.aclose()
