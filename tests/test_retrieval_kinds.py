"""Answer spans of the kind the question asks for (issue 23, class 5), on made-up documents and wordings:
a period written in words and qualified ("ten working days") for "how soon", never a bare figure of an
address; "who is the <role>" answers with the cell of that role's column; "why" asks for the reason even
when the question speaks of a deadline, and a sentence led by "Why the change:" gives it; an aligned table
whose cell wraps onto an indented line is still read row by row; a clause number ("4.2 The ...") is never
a value."""

from __future__ import annotations

from pathlib import Path

from ioa_p2p.planning.answer_types import answer_type

from .test_retrieval import ask, hashing_adapter

LEASE = """# Garden Flat 2, Mossgate Terrace: Licence Agreement

**Licensor:** Mossgate Homes Ltd, 41 Quay Street, Amblebridge
**Licensee:** Mr Tobias Renwick

## Deposit

4.1 The licensee pays a deposit of EUR 900 before moving in.

4.2 The deposit is repaid within fourteen working days after the keys are returned.

## Changes in 2026

| Topic            | 2025       | 2026        |
|------------------|------------|-------------|
| Notice period    | 2 months   | 1 month     |

Why the change: tenants asked for shorter notice because most moves are arranged at short notice.
"""
REGISTER = """BRIDGEWORKS UPGRADE - RISK REGISTER (June 2026)

ID    RISK                                        OWNER           PROB.   TREND
-------------------------------------------------------------------------------
K-01  Crane hire delayed by the supplier          P. Laszlo       30 %    up
K-02  Flooding of the lower works, east           M. Oduya        20 %    same
      abutment and access road
K-04  Steel delivery late (more than 4 weeks)     R. Tanaka       40 %    up
K-06  Noise complaints from residents             P. Laszlo       10 %    down
"""


def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "mossgate").mkdir(parents=True, exist_ok=True)
    (root / "bridgeworks").mkdir(parents=True, exist_ok=True)
    (root / "mossgate" / "licence.md").write_text(LEASE)
    (root / "bridgeworks" / "risks.txt").write_text(REGISTER)
    return root


async def answer_of(tmp_path: Path, question: str) -> str:
    result = await ask(hashing_adapter(docs(tmp_path)), question)
    assert result.ok, result.text
    return str(result.data["value"]["text"])


async def test_a_period_in_words_keeps_its_qualifier(tmp_path: Path) -> None:
    got = await answer_of(tmp_path, "How soon is the Mossgate deposit repaid after the keys are returned?")
    assert got == "14 working days"


async def test_who_is_the_role_answers_with_that_column(tmp_path: Path) -> None:
    assert (
        await answer_of(tmp_path, "Who is the owner of the steel delivery risk at Bridgeworks?")
        == "R. Tanaka"
    )
    # the row after a wrapped cell is still a row of the table
    assert (
        await answer_of(tmp_path, "Who is the owner of the Bridgeworks noise complaints risk?") == "P. Laszlo"
    )
    got = await answer_of(tmp_path, "What is the trend of the Bridgeworks flooding risk at the access road?")
    assert got == "same"


async def test_why_asks_the_reason_whatever_it_is_about(tmp_path: Path) -> None:
    for question in (
        "Why did Mossgate shorten the notice period in 2026?",
        "Why was the deadline for notice at Mossgate changed?",
    ):
        assert answer_type(question).kind == "reason"
    got = await answer_of(tmp_path, "Why did Mossgate shorten the notice period in 2026?")
    assert "short notice" in got


async def test_a_clause_number_is_no_value(tmp_path: Path) -> None:
    got = await answer_of(tmp_path, "How much is the Mossgate licence deposit?")
    assert got == "EUR 900"
