"""Issue 23 (p-probe2): a line that gives a price and then what a class of payers pays instead ("Entry
EUR 6; members pay EUR 4") answers a question that names the class with the class's price, never the sum
of the two, and a question that names no class with the line's price (adapters/retrieval/bill.py). Made-up
documents and wordings."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioa_p2p.adapters.retrieval.bill import items_of
from ioa_p2p.adapters.retrieval.facts import Fact

from .test_retrieval import ask, hashing_adapter

GALLERY = """# Ostrava Lane Gallery -- visiting

- Exhibition entry EUR 6.50; members pay EUR 4.00
- Guided tour EUR 12; students are charged EUR 8
- Locker EUR 1 (refunded)
"""


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("What does exhibition entry cost for a member at the Ostrava Lane Gallery?", 4.0),
        ("As a student, how much is a guided tour at Ostrava Lane Gallery?", 8.0),
        ("How much is exhibition entry at the Ostrava Lane Gallery?", 6.5),
    ],
)
async def test_a_class_of_payers_pays_its_own_price_instead(
    tmp_path: Path, question: str, want: float
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ostrava-gallery.md").write_text(GALLERY)
    result = await ask(hashing_adapter(docs), question)
    assert result.ok, result.text
    value = result.data["value"]
    numbers = [value["value"]] if value["kind"] == "number" else [i["value"] for i in value["items"]]
    assert numbers == [want], result.text


def test_only_a_segment_led_by_payers_is_an_alternative() -> None:
    fact = Fact("f.md", 3, "Exhibition entry EUR 6.50; members pay EUR 4.00", "f.md")
    items = items_of(fact)
    assert [i.alternative for i in items] == [False, True]
    both = Fact("f.md", 4, "Hire EUR 30; delivery EUR 15", "f.md")
    assert [i.alternative for i in items_of(both)] == [False, False]  # two charges, both paid
