"""A formula the documents state, solved for the variable a question asks for (planning/formula.py), and
a lookup that found no single answer whose records a derivation closes with (planning/salvage.py).

The documents and questions are made up for these tests (a workshop's appliance sheet, a test track's
rules, a pump datasheet) and differ from every benchmark document; each mechanism is asked in several
wordings over at least two documents.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from ioa_p2p.adapters.calculator.adapter import calculate
from ioa_p2p.adapters.retrieval.docmodel import read_document
from ioa_p2p.adapters.retrieval.docmodel.wire import records_data
from ioa_p2p.planning import plan_request
from ioa_p2p.planning.derive import derive_expression
from ioa_p2p.planning.formula import formula_expression, formulas_in, meanings
from ioa_p2p.planning.records import DocRecords, records_from_data
from ioa_p2p.planning.salvage import accepted_value, salvaged
from ioa_p2p.planning.values import Value

from .planning_e2e import answer_through_adapters

WORKSHOP = """\
# Brannock Workshop: appliances

| Appliance      | Voltage (V) | Power (W) | Weight (kg) |
|----------------|-------------|-----------|-------------|
| Kettle K-2     | 230         | 2300      | 1.1         |
| Heater H-40    | 230         | 1840      | 4.0         |
| Drill D-7      | 110         | 770       | 2.2         |

## Fuses

The current an appliance draws follows from its power and voltage:

    P = V × I

where P is the power in watts, V the supply voltage in volts and I the current in amperes. Choose the
fuse one size above the current.
"""

TRACK = """\
Marlow Test Track - rules for carts

1. Kinetic energy. The kinetic energy (E, in joules) of a cart is

   E = 0.5 x m x v^2

   where m is the mass of the cart with its driver in kilograms and v the speed in metres per second.
2. Barriers absorb at most 90,000 joules.
3. Carts: the Sprite weighs 400 kg, the Comet 650 kg.
"""

PUMPS = """\
PUMP DATASHEET - ORVELL P-SERIES

Model   Impeller diameter (mm)   Rated flow (L/min)
P-100   120                      300
P-250   180                      750

The hydraulic head (H, in metres) of a P-series pump is H = 1.5 x 10^-10 x D^2 x n^2, where D is
the impeller diameter in millimetres and n the shaft speed in revolutions per minute.
"""


def records(text: str, path: str) -> DocRecords:
    parsed = records_from_data(json.loads(json.dumps(records_data(read_document(path, text)))))
    assert parsed is not None
    return parsed


def value(expression: str) -> float:
    return float(Fraction(calculate(expression)[-1].value))


def solved(question: str, text: str, path: str) -> tuple[float, str]:
    got = formula_expression(question, (text,), records(text, path))
    assert got is not None, question
    return value(got[0]), got[1]


def test_formulas_and_what_their_variables_are() -> None:
    [power] = formulas_in(WORKSHOP)
    assert (power.name, power.coefficient, power.powers) == ("P", "", (("V", 1.0), ("I", 1.0)))
    [energy] = formulas_in(TRACK)
    assert (energy.name, energy.coefficient, energy.powers) == ("E", "0.5", (("m", 1.0), ("v", 2.0)))
    [head] = formulas_in(PUMPS)
    assert head.powers == (("D", 2.0), ("n", 2.0))
    means = meanings(" ".join(TRACK.split()), {"E", "m", "v"})
    assert means["E"].unit == "J" or "joules" in means["E"].units
    assert "speed" in means["v"].words
    assert means["m"].unit == "kg"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What current does the Kettle K-2 draw?", 10),
        ("How many amperes does the Drill D-7 pull from the supply?", 7),
        ("At Brannock, what is the current of the Heater H-40 in amperes?", 8),
    ],
)
def test_a_formula_solved_for_a_variable_with_the_others_from_the_row_the_question_names(
    question: str, expected: float
) -> None:
    assert solved(question, WORKSHOP, "workshop.md")[0] == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What speed does a 1,250 kg cart reach with a kinetic energy of 62,500 joules?", 10),
        ("A cart of 800 kg carries 90,000 J of kinetic energy: how fast is it going?", 15),
        ("How much kinetic energy does a 400 kg cart have at a speed of 20 metres per second?", 80_000),
    ],
)
def test_a_formula_solved_for_the_variable_asked_with_the_values_the_question_states(
    question: str, expected: float
) -> None:
    assert solved(question, TRACK, "track.txt")[0] == pytest.approx(expected)


def test_a_power_of_two_unknowns_solved_by_a_root_and_rounded_as_asked() -> None:
    got, unit = solved(
        "What shaft speed gives the P-250 a head of 40 metres? Nearest 10 rpm is fine.", PUMPS, "pumps.txt"
    )
    # 40 = 1.5e-10 * 180^2 * n^2  ->  n = sqrt(40 / (1.5e-10 * 32400)) = 2868.9
    assert got == pytest.approx(2870)
    assert unit == "rpm"


@pytest.mark.parametrize(
    ("question", "text", "path"),
    [
        ("What current does the Toaster T-1 draw?", WORKSHOP, "workshop.md"),  # no such row
        ("What speed does a cart reach?", TRACK, "track.txt"),  # two unknowns
        ("What is the weight of the Kettle K-2?", WORKSHOP, "workshop.md"),  # not a variable of P = V x I
        ("What do the barriers absorb?", TRACK, "track.txt"),
    ],
)
def test_nothing_when_the_formula_is_not_filled_but_one_or_not_asked(
    question: str, text: str, path: str
) -> None:
    assert formula_expression(question, (text,), records(text, path)) is None


def test_the_derivation_uses_the_formula_before_the_value_looked_up() -> None:
    found = Value.of_number(2300, "W").with_evidence((WORKSHOP,)).with_records(records(WORKSHOP, "w.md"))
    derived = derive_expression("What current does the Kettle K-2 draw?", found)
    assert derived is not None and value(derived[0]) == pytest.approx(10)


@pytest.mark.parametrize(
    ("question", "text", "path", "expected"),
    [
        ("What speed does a cart of 800 kg with 90,000 J of kinetic energy reach?", TRACK, "track.txt", 15),
        ("How many amperes does the Heater H-40 draw?", WORKSHOP, "workshop.md", 8),
    ],
)
def test_a_refused_lookup_feeds_the_derivation_its_records_close(
    question: str, text: str, path: str, expected: float
) -> None:
    plan = plan_request(question)
    lookup = plan.steps[0]
    assert plan.steps[-1].needs == (1,)
    data = {"records": records_data(read_document(path, text)), "confidence": 0.05}
    kept = salvaged(plan, lookup, data)
    assert kept is not None and kept.records is not None and kept.number is None
    assert accepted_value(plan, lookup, "nothing in docs answers this", data, completed=False) == kept
    derived = derive_expression(plan.steps[-1].text, kept)
    assert derived is not None and value(derived[0]) == pytest.approx(expected)


@pytest.mark.parametrize(
    "question",
    [
        "What do the barriers at Marlow cost to hire for 3 days?",  # the records close nothing
        "How heavy is a cart with its driver?",
    ],
)
def test_a_refused_lookup_whose_records_close_nothing_stays_failed(question: str) -> None:
    plan = plan_request(question)
    data = {"records": records_data(read_document("track.txt", TRACK))}
    assert salvaged(plan, plan.steps[0], data) is None
    assert accepted_value(plan, plan.steps[0], "nothing answers", data, completed=False) is None
    assert salvaged(plan, plan.steps[0], {"confidence": 0.1}) is None  # no records: nothing to salvage


@pytest.mark.parametrize(
    "question",
    [
        "A cart of 800 kg carries 90,000 J of kinetic energy: how fast is it going?",
        "How fast is a 1,250 kg cart going with 62,500 joules of kinetic energy?",
    ],
)
def test_how_fast_is_planned_as_a_derivation(question: str) -> None:
    steps = plan_request(question).steps
    assert [s.kind for s in steps] == ["lookup", "calc"] and steps[-1].template == "derive(v1)"


async def test_end_to_end_through_the_retrieval_and_calculator_adapters(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "workshop.md").write_text(WORKSHOP)
    (docs / "pumps.txt").write_text(PUMPS)
    got = await answer_through_adapters("How many amperes does the Drill D-7 draw at Brannock?", docs)
    assert got == pytest.approx(7)
