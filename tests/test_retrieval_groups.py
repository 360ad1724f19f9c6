"""Issue 23 (p-chain4): an offer limited to another group is a near miss (adapters/retrieval/qualifiers.py).

"Platinum guests may instead ..." does not answer what a Silver guest gets when the document tells its
groups apart (a key line "Silver: ..." or "Silver guests ..."); the retrieval abstains (``absent``) and the
planner names the value missing (exit 3). A group word the question uses itself, a product name before
a noun, and a document that never defines the asked group are no near miss. Made-up documents."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.adapters.retrieval.qualifiers import unnamed_qualifiers
from ioa_p2p.planning.refusal import ABSENT

from .test_retrieval import ask, hashing_adapter

TERMS = """# Harbourlight Hotels: guest club rules

## Levels

- Silver: every registered guest.
- Platinum: guests with 20 or more nights in the last 12 months.

## Rewards

Every guest collects 10 stars per night.
Platinum guests may instead claim a free breakfast for 600 stars.
"""


def test_a_fact_of_another_group_the_document_defines_is_a_near_miss() -> None:
    fact = "Platinum guests may instead claim a free breakfast for 600 stars."
    question = "How many stars does a Silver Harbourlight guest need for a free breakfast?"
    assert [q.kind for q in unnamed_qualifiers(question, TERMS, "club.md", fact)] == ["group"]
    same = "How many stars does a Platinum Harbourlight guest need for a free breakfast?"
    assert unnamed_qualifiers(same, TERMS, "club.md", fact) == []


def test_names_before_a_noun_are_no_group() -> None:
    doc = "Ostrava Hall seats 120.\nThe Linden Room at Ostrava Hall seats 40.\n"
    question = "How many people does the Linden Room at Ostrava Hall seat?"
    assert unnamed_qualifiers(question, doc, "halls.md", "The Linden Room at Ostrava Hall seats 40.") == []
    undefined = "Premium guests may claim a late checkout.\n"  # no "Basic" group anywhere
    asked = "Can a Basic Harbourlight guest claim a late checkout?"
    found = unnamed_qualifiers(asked, undefined, "x.md", undefined.strip())
    assert "group" not in [q.kind for q in found]  # (its names are checked as names: qualifiers.py)


async def test_the_retrieval_abstains_on_another_groups_offer(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "club.md").write_text(TERMS)
    result = await ask(
        hashing_adapter(docs), "How many stars does a Silver Harbourlight guest need for a free breakfast?"
    )
    assert not result.ok and result.data[ABSENT] is True, result.text
