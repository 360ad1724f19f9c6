"""The retrieval adapter with the typed document model: documents read once, typed answers where the fact
scorer has none or one of the wrong type, the typed reading in the result's ``data["typed"]``.

The documents are made up for these tests (a tool library, a boiler manual, a hostel's price sheet).
"""

from __future__ import annotations

from pathlib import Path

import trio

from ioa_p2p.adapters import Task, TaskResult, load_adapter, run_task
from ioa_p2p.adapters.retrieval import typed as retrieval
from ioa_p2p.adapters.retrieval.adapter import RetrievalAdapter
from ioa_p2p.planning.values import Value

TOOLS = """\
# Grove Street tool library

All fees in GBP.

Tool            Deposit   Fee per day   Max loan
Hedge trimmer   40        6             3 days
Tile cutter     25        4             5 days
Pressure washer 60        9             2 days

Members borrow up to 3 tools at a time. Late returns cost GBP 2 for each day late.
"""

BOILER = """\
Thornfield C24 boiler
=====================

Output
    24 kW at 80/60 °C.
Service interval
    A service is needed every 12 months.

The pump overruns for 3 minutes after the burner stops. The flue may be at most 10 m long.
"""


def hashing_adapter(docs: Path) -> RetrievalAdapter:
    made = load_adapter("retrieval", {"path": str(docs), "embedding": {"backend": "hashing"}})
    assert isinstance(made, RetrievalAdapter)
    return made


async def ask(adapter: RetrievalAdapter, question: str) -> TaskResult:
    with trio.fail_after(60):
        return await run_task(adapter, Task.create(question, timeout=60))


def folder(tmp_path: Path) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "library.txt").write_text(TOOLS)
    (tmp_path / "boiler").mkdir()
    (tmp_path / "boiler" / "manual.rst").write_text(BOILER)
    return tmp_path


async def test_documents_are_read_once_into_typed_records(tmp_path: Path) -> None:
    adapter = hashing_adapter(folder(tmp_path))
    await ask(adapter, "What is the deposit for a tile cutter?")
    documents = {d.path: d for d in adapter.index.documents()}
    assert set(documents) == {"tools/library.txt", "boiler/manual.rst"}
    assert documents["tools/library.txt"].currency == "GBP"
    first = documents["tools/library.txt"]
    await ask(adapter, "What is the daily fee for a hedge trimmer?")
    assert any(d is first for d in adapter.index.documents())  # the same object: not read again
    (tmp_path / "tools" / "library.txt").write_text(TOOLS.replace("All fees in GBP.", "All fees in EUR."))
    await ask(adapter, "What is the deposit for a tile cutter?")
    changed = {d.path: d for d in adapter.index.documents()}["tools/library.txt"]
    assert changed.currency == "EUR"  # a changed file is read again


async def test_a_cell_gets_the_unit_its_document_states(tmp_path: Path) -> None:
    adapter = hashing_adapter(folder(tmp_path))
    result = await ask(adapter, "How much is the deposit for a pressure washer?")
    assert result.ok, result.text
    value = Value.from_dict(result.data["value"])
    assert value is not None and (value.number, value.unit) == (60, "GBP")


async def test_typed_reading_is_in_the_data(tmp_path: Path) -> None:
    adapter = hashing_adapter(folder(tmp_path))
    result = await ask(adapter, "How long does the pump overrun after the burner stops?")
    assert result.ok, result.text
    value = Value.from_dict(result.data["value"])
    assert value is not None and (value.number, value.unit) == (3, "min")
    typed = result.data.get("typed")
    if typed is not None:  # the typed model read it too: the same value, with its source span
        assert typed["value"]["value"] == 3 and typed["source"]["path"] == "boiler/manual.rst"


async def test_policy_none_gives_the_fact_scorers_answer(tmp_path: Path) -> None:
    """With the typed model switched off the adapter answers as before it (the bare cell, no typed
    reading); with it on, the answer carries its typed reading (the document's currency)."""
    adapter = hashing_adapter(folder(tmp_path))
    question = "How much is the deposit for a hedge trimmer?"
    old = retrieval.TYPED_POLICY
    try:
        retrieval.TYPED_POLICY = "none"
        before = await ask(adapter, question)
    finally:
        retrieval.TYPED_POLICY = old
    after = await ask(adapter, question)
    assert "typed" not in before.data
    value = Value.from_dict(after.data["value"])
    assert value is not None and value.number == 40
    typed = after.data["typed"]["value"]
    assert (typed["value"], typed["unit"]) == (40, "GBP")
