"""Issue 23: a parts list whose head is a block of ``key: value`` lines and whose body is a space-aligned
table. Each head line is a fact of its own (never one sentence of three keys that outranks every row), a
model code written two ways ("RX-9" in the text, "rx9" in the file's name) is the same model, and a row's
cell stating the unit the request names ("in mAh") is the answer in that row. Made-up documents (none from
a goal suite)."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.facts import facts_of
from ioa_p2p.planning.answer_types import answer_type

from .test_retrieval import ask, hashing_adapter

PARTS = """ORCHARD ROBOTICS - PARTS LIST
Machine:       RX-9 picking arm, chassis mark B
List issue:    3 (issued 2025-11-02)
Prices:        EUR, unit prices before tax

Line  Code         Part                               Count  Unit cost  Vendor             Delivery
----  -----------  ---------------------------------  -----  ---------  -----------------  --------
1     RX9-BASE     Aluminium base plate, 300 mm           1     212.00  Tallis Metals      12 days
2     SRV-40KG     Servo 40 kg-cm, metal gear             5      38.75  Pemberton Drives   9 days
3     GRP-SOFT-2   Soft gripper pad (set)                 2      14.10  Pemberton Drives   9 days
4     PCK-7400     Power pack 2S, 7400 mAh                1      51.30  Corrin Cells       25 days
5     CTL-M4       Motion controller, M4 core             1      96.00  Halden Controls    18 days
"""


async def _ask(tmp_path: Path, question: str) -> tuple[str, int]:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "rx9-parts-issue3.txt").write_text(PARTS)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    return str(result.data["value"]["text"]), int(result.data["citation"]["line"])


def test_each_key_line_of_a_head_is_a_fact_of_its_own() -> None:
    texts = [f.text for f in facts_of("rx9-parts-issue3.txt", 1, "", PARTS) if not f.cells]
    assert "Machine:       RX-9 picking arm, chassis mark B" in texts
    assert "List issue:    3 (issued 2025-11-02)" in texts
    assert not any("List issue" in t and "Machine" in t for t in texts)


async def test_the_row_of_the_named_part_outranks_the_head(tmp_path: Path) -> None:
    value, line = await _ask(tmp_path, "What is the unit price of the RX-9 servo?")
    assert (value, line) == ("38.75", 9)
    value, line = await _ask(tmp_path, "RX-9 arm: delivery time of the motion controller?")
    assert (value, line) == ("18 days", 12)


async def test_the_cell_in_the_unit_asked_for(tmp_path: Path) -> None:
    value, line = await _ask(tmp_path, "Find the rating in mAh of the RX-9's power pack")
    assert (value, line) == ("7400 mAh", 11)


def test_a_unit_the_request_names_narrows_the_answer_type() -> None:
    assert answer_type("the capacity in mAh of the spare cell").units == ("mAh",)
    assert answer_type("the weight in kg of the crate").units == ("kg", "g", "lb")  # already among them
