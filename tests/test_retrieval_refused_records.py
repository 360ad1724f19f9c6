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
