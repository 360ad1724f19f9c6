"""Issue 23 (p-chain5): a fact that states a change ("from EUR 40 to EUR 46", "now 12 (was 9)") answers
a question about the old value with the old one and about the new value with the new one
(adapters/retrieval/picks.py); "by how many ... went up" over two values found is their difference
(planning/followups.py). Made-up documents and requests."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.planning import CALC, LOOKUP, plan_request

from .test_retrieval import ask, hashing_adapter

NOTICE = """# Wenlow Marina: notice to berth holders, March 2026

The committee agreed to raise the yearly berth charge from EUR 410 to EUR 455 from 1 May.
The pontoon speed limit is now 4 knots (was 6 knots).
Visitor moorings stay at EUR 18 per night.
"""


async def test_the_old_and_the_new_value_of_a_change(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notice.md").write_text(NOTICE)
    adapter = hashing_adapter(docs)
    for question, expected in (
        ("What was the previous yearly berth charge at Wenlow Marina?", 410.0),
        ("What is the new yearly berth charge at Wenlow Marina?", 455.0),
        ("What was the old pontoon speed limit at Wenlow Marina?", 6.0),
        ("What is the current pontoon speed limit at Wenlow Marina?", 4.0),
    ):
        result = await ask(adapter, question)
        assert result.ok, result.text
        assert result.data["value"].get("value") == expected, (question, result.text)


def test_how_far_a_value_went_up_is_a_difference() -> None:
    goal = (
        "Find the old and the new yearly berth charge at Wenlow Marina and tell me by how many euros it rose."
    )
    steps = plan_request(goal).steps
    assert [s.kind for s in steps] == [LOOKUP, LOOKUP, CALC]
    assert steps[2].template.replace(" ", "") == "abs(v1-v2)"
