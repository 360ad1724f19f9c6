"""Capacity filters (issue 23, class 7: "which room fits 30"): a "which" question that states a count or a
measure is answered by the rows whose named column holds it, tightest fit first; made-up documents and
wordings."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.capacity import fitting_rows
from ioa_p2p.adapters.retrieval.facts import facts_of

from .test_retrieval import ask, hashing_adapter

ROOMS = """THE CALDER ROOMS - SPACES AND CAPACITIES 2026

SPACE           THEATRE  BANQUET  RECEPTION   RATE/h
------------------------------------------------------
Long Gallery       220      150       260       210
Mill Room          120       80       140       130
Snug                30       -         40        60
------------------------------------------------------
"""
VANS = """# Hopwell Van Hire

| Van         | Payload (kg) | Load length (m) | Day rate |
|-------------|-------------:|----------------:|---------:|
| Hopper S    | 650          | 2.1             | EUR 55   |
| Hopper M    | 1,100        | 3.0             | EUR 72   |
| Hopper XL   | 1,450        | 4.2             | EUR 95   |
"""


async def test_which_room_holds_the_group(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "calder").mkdir(parents=True)
    (root / "calder" / "spaces.txt").write_text(ROOMS)
    adapter = hashing_adapter(root)
    result = await ask(
        adapter, "We are 100 guests for a banquet at the Calder Rooms. Which space can take us?"
    )
    assert result.ok and result.data["value"]["text"] == "Long Gallery", result.text
    result = await ask(adapter, "Which Calder Rooms space can seat 25 people theatre-style?")
    assert result.ok and result.data["value"]["text"] == "Snug, Mill Room, Long Gallery", result.text


def test_a_measure_in_another_unit_and_no_fit() -> None:
    facts = facts_of("hopwell/vans.md", 1, "Hopwell Van Hire", VANS)
    row = next(f for f in facts if f.cells)
    value = fitting_rows("Which Hopwell van can carry a payload of 1.2 t?", row, facts)
    assert value is not None and value.text == "Hopper XL"
    assert fitting_rows("Which Hopwell van can carry a payload of 3 t?", row, facts) is None
    assert fitting_rows("Which Hopwell van is the newest?", row, facts) is None
