"""Issue 23 (p-lookup): a fact that labels its values by ordinals ("1st £400  2nd £200", "first child
£40, second child £30, each further child £20") answers the ordinal the question names
(adapters/retrieval/ordinals.py). Made-up wording."""

from __future__ import annotations

import re
from pathlib import Path

from ioa_p2p.adapters.retrieval.ordinals import asked_ordinal, ordinal_item

from .test_retrieval import ask, hashing_adapter


def _spans(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"£\d+", text)]


def test_the_question_names_one_ordinal_and_no_fixed_phrase() -> None:
    assert asked_ordinal("What is the second prize in the Novice section?") == 2
    assert asked_ordinal("our 3rd child's fee?") == 3
    assert asked_ordinal("the first class fare to Dunmore") is None  # a fixed phrase
    assert asked_ordinal("what do the first 2 hours cost?") is None  # counts a quantity
    assert asked_ordinal("the first and second prizes") is None  # two asked


def test_the_value_after_the_asked_ordinal() -> None:
    text = "Novice: 1st £90  2nd £45  3rd £20   Junior prize £15"
    assert ordinal_item(_spans(text), text, "What is the second prize in the Novice section?") == "£45"
    assert ordinal_item(_spans(text), text, "Novice section third prize?") == "£20"
    assert ordinal_item(_spans(text), text, "What is the Junior prize?") is None  # no ordinal asked


def test_an_ordinal_after_its_value_and_the_rest_label() -> None:
    text = "Holiday club: £40 for the first child, £30 for the second child, £20 for each further child."
    assert ordinal_item(_spans(text), text, "What does the second child pay?") == "£30"
    assert ordinal_item(_spans(text), text, "And a fourth child?") == "£20"  # "each further"
    assert ordinal_item(_spans(text), text, "What does the first child pay?") == "£40"
    plain = "Holiday club: £40 a day, £180 a week."
    assert ordinal_item(_spans(plain), plain, "What does the second child pay?") is None


async def test_the_ordinal_row_answers_end_to_end(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fenbridge-chess-rally.txt").write_text(
        "FENBRIDGE CHESS RALLY 2027 - ENTRY FORM\n\nPrize fund:\n"
        "  Open:    1st £300  2nd £150  3rd £75\n  Novice:  1st £90   2nd £45   3rd £20\n\n"
        "Entry fee £25; juniors £12.\n"
    )
    adapter = hashing_adapter(docs)
    result = await ask(adapter, "How much is the Novice second prize at the Fenbridge rally?")
    assert result.ok, result.text
    assert result.data["value"].get("value") == 45, result.text
