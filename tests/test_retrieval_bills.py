"""The items of a bill (issue 23, class 7): a question whose situation incurs several charges the documents
list separately gets each one, on its own terms, and their sum; what the question leaves out stays out; a
quantity the question states brings in the charge made per it; a question about one price still gets one.
Made-up documents and wordings (none from a goal suite)."""

from __future__ import annotations

from pathlib import Path

import trio

from ioa_p2p.adapters.base import Task, run_task
from ioa_p2p.adapters.registry import adapter_from_config
from ioa_p2p.planning import CALC, Value, describe, plan_request

from .test_retrieval import ask, hashing_adapter

VETS = """PELLOW VETERINARY PRACTICE
PRICE LIST FOR CLIENTS
Valid from 1 February 2026. 2025 prices in brackets are for reference only.

TREATMENT                                       PRICE        (2025)
----------------------------------------------------------------------
Standard consultation                           45.00        (41.00)
Vaccination, per dose                           22.00        (20.00)
Nail trim                                       12.00        (12.00)
Overnight hospital stay, per night (min. 2 nights)  60.00    (55.00)
Dental scale and polish                        150.00       (140.00)
----------------------------------------------------------------------
Notes
 1. Prices include VAT.
"""
ENERGY = """# Corvane Power - Tariffs 2026

Prices are in euro cent and exclude VAT.

## Corvane Dual

| Charge                 | Price              |
|------------------------|--------------------|
| Weekday rate           | 30.00 cent per kWh |
| Weekend rate           | 18.00 cent per kWh |
| Service charge         | 40.00 cent per day |

## Corvane Flat

| Charge                 | Price              |
|------------------------|--------------------|
| Service charge         | 55.00 cent per day |
| Unit rate              | 26.00 cent per kWh |
"""
WALKERS = """# Rowan Walkers - what we charge

## Walks

Group walk: EUR 15 per hour per dog.

Pick-up from your home: EUR 6 per visit; a collar light on loan is free.

## Grooming

A full groom costs EUR 35.
"""


def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for folder, name, text in (
        ("pellow", "price-list.txt", VETS),
        ("corvane", "tariffs.md", ENERGY),
        ("rowan", "charges.md", WALKERS),
    ):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / name).write_text(text)
    return root


async def amounts(adapter: object, question: str) -> list[float]:
    result = await ask(adapter, question)  # type: ignore[arg-type]
    assert result.ok, result.text
    value = Value.from_dict(result.data["value"])
    assert value is not None
    return value.numbers()


async def answered(tmp_path: Path, goal: str) -> float:
    """The goal planned, its lookup answered by the retrieval adapter, its charge by the calculator."""
    adapter = hashing_adapter(docs(tmp_path))
    lookup, *rest = plan_request(goal).steps
    result = await ask(adapter, describe(lookup, {}))
    assert result.ok, result.text
    value = Value.from_dict(result.data["value"])
    assert value is not None
    (calc,) = [s for s in rest if s.kind == CALC]
    calculator = adapter_from_config({"name": "calculator", "adapter": "calculator"})
    with trio.fail_after(30):
        done = await run_task(calculator, Task.create(describe(calc, {1: value}), timeout=30))
    assert done.ok, done.text
    number = Value.from_dict(done.data["value"])
    assert number is not None and number.number is not None
    return number.number


async def test_each_charge_the_situation_names_is_an_item(tmp_path: Path) -> None:
    adapter = hashing_adapter(docs(tmp_path))
    got = await amounts(
        adapter, "Our cat had a standard consultation and a nail trim at Pellow. What do we owe?"
    )
    assert sorted(got) == [12.0, 45.0]  # the 2026 prices, never the bracketed 2025 ones
    got = await amounts(
        adapter,
        "Apart from the nail trim, what will the dental scale and polish and the consultation cost "
        "at Pellow?",
    )
    assert sorted(got) == [45.0, 150.0]


async def test_a_single_price_stays_one_value(tmp_path: Path) -> None:
    adapter = hashing_adapter(docs(tmp_path))
    assert await amounts(adapter, "How much is a dental scale and polish at Pellow?") == [150.0]
    # a rate asked for itself: no quantity to charge it per, so no bill of several items
    assert len(await amounts(adapter, "What is the daily service charge on Corvane Flat?")) == 1


async def test_items_are_summed_each_on_its_own_terms(tmp_path: Path) -> None:
    total = await answered(
        tmp_path,
        "Our dog had an overnight hospital stay of one night at Pellow and two vaccination doses. "
        "What is the bill?",
    )
    assert total == 2 * 60 + 2 * 22  # the stay's two-night minimum, the doses per dose
    total = await answered(
        tmp_path,
        "On Corvane Dual we used 200 kWh on weekdays and 90 kWh at the weekend over 31 days. "
        "What is the bill before VAT?",
    )
    assert abs(total - (200 * 0.30 + 90 * 0.18 + 31 * 0.40)) < 1e-9  # each kWh at its own rate


async def test_a_stated_quantity_brings_in_the_charge_made_per_it(tmp_path: Path) -> None:
    total = await answered(
        tmp_path, "Rowan Walkers take our 3 dogs on a group walk for 2 hours. What do we pay?"
    )
    assert total == 15 * 2 * 3
    total = await answered(
        tmp_path,
        "Rowan Walkers picked our dog up from home for a group walk of 1.5 hours. What is the charge?",
    )
    assert total == 15 * 1.5 + 6


LONG = (
    "KETTLEWICK HIRE - CHARGES\nValid from 1 March 2026; 2025 charges in brackets no longer apply.\n\n"
    "ITEM                                    CHARGE        (2025)\n"
    "------------------------------------------------------------\n"
    + "".join(f"{f'Spare part number {n} (each)':<44}{n + 10:>5}.00       ({n + 8}.00)\n" for n in range(30))
    + "Ladder hire, per day (min. 2 days)          14.00         (12.00)\n"
    + "Delivery to site                            35.00         (30.00)\n"
    + "------------------------------------------------------------\n"
)


async def test_a_table_cut_over_passages_is_read_whole(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "kettlewick").mkdir(parents=True)
    (root / "kettlewick" / "charges.txt").write_text(LONG)
    adapter = hashing_adapter(root)
    got = await amounts(
        adapter, "What do we owe Kettlewick Hire for the ladder hire for 3 days and the delivery to our site?"
    )
    assert sorted(got) == [14.0, 35.0]


def test_a_price_for_a_quantity_is_a_charge_whatever_is_left_out() -> None:
    from ioa_p2p.planning.answer_types import answer_type

    for question in (
        "How much would 300 flyers from Orwin Print cost us? Leave out VAT.",
        "What would 40 mugs from Pellow Pottery cost, excluding VAT?",
    ):
        assert answer_type(question).kind == "amount", question
    (lookup, calc) = plan_request("How much would 300 flyers from Orwin Print cost us? Leave out VAT.").steps
    assert calc.template == "charge(v1; 300 flyers)" and "300 flyers" in lookup.template


async def test_the_asking_sentence_says_which_items_are_priced(tmp_path: Path) -> None:
    adapter = hashing_adapter(docs(tmp_path))
    # the scene names a consultation; the question asks the price of the nail trim only
    got = await amounts(
        adapter, "Our cat is at Pellow for a standard consultation today. What does a nail trim cost?"
    )
    assert got == [12.0]
    # a question that asks generically takes every charge the scene names
    got = await amounts(
        adapter, "Our cat had a standard consultation and a nail trim at Pellow. What is the bill?"
    )
    assert sorted(got) == [12.0, 45.0]
