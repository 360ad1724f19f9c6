"""Goal suite 3's files (bench/goal_suite3/, issue 23's independent held-out suite): format, splits, sealing.

These tests check the suite's files and the harness's handling of them, never the planner's answers. The
suite is held out: assertion messages name goal ids only, never a goal's text or answer. The checks shared
with suite 4 live in tests/goal_suite_checks.py.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from .goal_suite_checks import (
    SuiteFiles,
    format_problems,
    recompute_problems,
    run_bench,
    source_folders,
    stratification_problems,
    uncaught_first_mutations,
    unscorable,
)

SUITE = SuiteFiles("3", "goal_suite3", "c")


@pytest.fixture(scope="module")
def goals() -> dict[str, list[dict[str, Any]]]:
    return SUITE.goals()


@pytest.fixture(scope="module")
def checker() -> ModuleType:
    return SUITE.checker()


def test_every_split_is_gzipped_and_sealed() -> None:
    assert SUITE.split_files() == ["dev_c.json.gz", "test_c.json.gz", "train_c.json.gz"]
    # test stays sealed for good; train and dev until the coordinator opens them
    assert "test" in SUITE.sealed()


def test_goals_have_the_harness_format(goals: dict[str, list[dict[str, Any]]]) -> None:
    ids = [g["id"] for split in goals.values() for g in split]
    assert len(ids) == len(set(ids)) >= 80
    assert not format_problems(goals, SUITE.root / "docs")


def test_splits_are_stratified_30_30_40(goals: dict[str, list[dict[str, Any]]]) -> None:
    assert not stratification_problems(goals)
    assert len(source_folders(goals)) >= 7


def test_every_answer_recomputes_from_its_facts(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    assert not recompute_problems(goals, checker)


def test_the_checker_catches_a_wrong_answer_and_a_misquoted_fact(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    assert not uncaught_first_mutations(goals, checker)


def test_the_harness_validates_suite3_and_refuses_to_keep_sealed_goals() -> None:
    done = run_bench(SUITE, "bench_goals_suite.py", "--validate")
    assert done.returncode == 0 and "suite ok: 153 goals" in done.stderr, done.stderr[-500:]
    kept = run_bench(SUITE, "bench_goals_suite.py", "--split", "test", "--keep")
    assert kept.returncode == 2 and "held out" in kept.stderr and not kept.stdout


def test_every_expected_answer_is_scorable(goals: dict[str, list[dict[str, Any]]]) -> None:
    assert not unscorable(goals)
