"""A lookup the retrieval finds no answer to still sends the typed records of the document its best
passage came from (``data["records"]``, version 1, bounded): a planner derives what no sentence states.

The document is made up for this test (a ferry guide with a timetable).
"""

from __future__ import annotations

import json
from pathlib import Path

import trio

from ioa_p2p.adapters import Task, load_adapter, run_task
from ioa_p2p.adapters.retrieval.adapter import RetrievalAdapter
from ioa_p2p.adapters.retrieval.docmodel.wire import MAX_BYTES, VERSION
from ioa_p2p.planning.records import records_from_data

GUIDE = """\
# Lowmere Sound ferry: passenger guide

The crossing from Dunhallow Pier to Skerra takes 1 hour 40 minutes.

| Sailing | Dunhallow Pier | Skerra | Orrin |
|---------|----------------|--------|-------|
| S1      | 06:15          | 07:55  | 08:50 |
| S2      | 10:30          | 12:10  | 13:05 |
"""


def test_a_refused_lookup_carries_the_best_documents_records(tmp_path: Path) -> None:
    (tmp_path / "ferry").mkdir()
    (tmp_path / "ferry" / "guide.md").write_text(GUIDE)
    made = load_adapter("retrieval", {"path": str(tmp_path), "embedding": {"backend": "hashing"}})
    assert isinstance(made, RetrievalAdapter)
    question = (
        "If I leave Dunhallow at 08:40 and the drive to the pier takes 2 hours 35 minutes, what time is it?"
    )

    async def main() -> None:
        with trio.fail_after(60):
            result = await run_task(made, Task.create(question, timeout=60))
        assert not result.ok and "answers this" in result.text  # refused: no sentence answers it
        raw = result.data["records"]
        assert raw["version"] == VERSION and raw["path"] == "ferry/guide.md"
        assert len(json.dumps(raw).encode()) <= MAX_BYTES + 1024
        assert result.data["query"] == question
        records = records_from_data(json.loads(json.dumps(raw)))  # as it crosses the wire
        assert records is not None
        rows = [r for r in records.records if r.kind == "row"]
        assert any(dict(r.cells).get("Skerra") == "12:10" for r in rows)

    trio.run(main)


def test_a_long_documents_answer_fits_the_result_bound_with_as_many_records_as_room_allows(
    tmp_path: Path,
) -> None:
    """The demo's librarian over a large docs folder failed with 'TaskResult.data encodes to 70581 bytes':
    the whole document, the passages and 60 KB of records together passed MAX_DATA_BYTES. The records take
    the room the rest leaves."""
    from ioa_p2p.adapters.base import MAX_DATA_BYTES
    from ioa_p2p.wire import canonical

    rows = "\n".join(
        f"| Q-{n:03d} | Harbour crane hire for {n} hours | with operator, slinger and a safety briefing at "
        f"the yard gate | from berth {n % 40} to the bonded warehouse | EUR {40 + n} per hour, minimum "
        f"EUR {90 + n} |"
        for n in range(300)
    )
    text = "# Kettleby port price list\n\n| Code | Service | Crew | Route | Price |\n|---|---|---|---|---|\n"
    office = " ".join(
        f"Counter {n} of the harbour office handles customs papers, crane bookings and berth changes for "
        f"vessels of class {n}, and keeps the signed forms for seven years."
        for n in range(30)
    )
    text += rows + "\n\n## Harbour office\n\n" + office
    text += " The harbour office opens at 07:30 and the crane yard closes at 18:00 on weekdays.\n"
    (tmp_path / "port").mkdir()
    (tmp_path / "port" / "prices.md").write_text(text)
    made = load_adapter("retrieval", {"path": str(tmp_path), "embedding": {"backend": "hashing"}})

    async def main() -> None:
        with trio.fail_after(60):
            result = await run_task(made, Task.create("When does the harbour office open?", timeout=60))
        assert result.ok, result.text
        assert len(canonical.encode(result.data)) <= MAX_DATA_BYTES
        records = records_from_data(json.loads(json.dumps(result.data["records"])))
        assert records is not None and len(records.records) >= 20

    trio.run(main)
