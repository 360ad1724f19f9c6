"""Each percentage of a concession table read as one sentence keeps the words of its own row as its
condition (planning/own_clause.py), end to end from a made-up document: a question that names one row's
words gets that row's percentage only, never every percentage the sentence states.

The document and questions are made up for these tests (a climbing wall's prices) and differ from every
benchmark document.
"""

from __future__ import annotations

from ioa_p2p.planning.own_clause import own_clause
from ioa_p2p.planning.ruled import ruled_expression
from tests.test_planning_ruled import records, value

WALL = """\
THE CRAGHOUSE CLIMBING WALL - PRICES 2027
All prices in EUR.

PASSES

  Pass            Single visit (EUR)   Ten visits (EUR)
  -------------   ------------------   ----------------
  Bouldering            12.00               100.00
  Roped climbing        16.00               140.00

REDUCTIONS
(taken off the single or ten-visit price)

  Apprentices with a trade card              10 % off
  Climbers aged 70 or over                   40 % off
  Volunteers of the mountain rescue team     25 % off
"""

ROWS = (
    "Apprentices with a trade card 10 % off Climbers aged 70 or over 40 % off "
    "Volunteers of the rescue 25 % off"
)


def test_each_percentage_gets_its_own_row() -> None:
    assert own_clause(ROWS, -40.0) == "off Climbers aged 70 or over 40 %"
    assert "Volunteers" in own_clause(ROWS, -25.0) and "Apprentices" not in own_clause(ROWS, -25.0)
    assert own_clause(ROWS, -10.0) == "Apprentices with a trade card 10 %"


def test_figure_first_rows_take_the_words_after_their_figure() -> None:
    text = "15 % off for apprentices, 30 % off for volunteers of the rescue team"
    assert own_clause(text, 30.0) == "30 % off for volunteers of the rescue team"
    assert own_clause(text, -15.0) == "15 % off for apprentices,"


def test_one_percentage_or_a_repeated_one_is_left_whole() -> None:
    assert (
        own_clause("Apprentices get 10 % off the single price", -10.0)
        == "Apprentices get 10 % off the single price"
    )
    twice = "Apprentices 10 % off, volunteers 10 % off, seniors 40 % off"
    assert own_clause(twice, -10.0) == twice


def test_a_question_naming_one_row_gets_that_rows_reduction_only() -> None:
    found = ruled_expression(
        "I volunteer with the mountain rescue team. What does a single bouldering visit cost me?",
        records(WALL),
    )
    assert found is not None
    assert value(found[0]) == 9.0  # 12 x 0.75, not x 0.9 x 0.6 as well


def test_a_question_naming_no_row_gets_no_reduction() -> None:
    found = ruled_expression("What does a single roped climbing visit cost at the Craghouse?", records(WALL))
    assert found is not None
    assert float(found[0]) == 16.0  # the price as it stands, no reduction
