"""Goal suite 4's files (bench/goal_suite4/, issue 23's fresh blind suite, writer d): format, splits, sealing.

These tests check the suite's files and the harness's handling of them, never the planner's answers. The
suite is held out: assertion messages name goal ids only, never a goal's text or answer. The checks shared
with suite 3 live in tests/goal_suite_checks.py.
"""

from __future__ import annotations

import argparse
import collections
import sys
from types import ModuleType
from typing import Any

import pytest

from .goal_suite_checks import (
    BENCH,
    ROOT,
    SPLITS,
    SuiteFiles,
    every,
    format_problems,
    load_module,
    recompute_problems,
    run_bench,
    source_folders,
    stratification_problems,
    uncaught_mutations,
    unscorable,
)

SUITE = SuiteFiles("4", "goal_suite4", "d")


@pytest.fixture(scope="module")
def goals() -> dict[str, list[dict[str, Any]]]:
    return SUITE.goals()


@pytest.fixture(scope="module")
def checker() -> ModuleType:
    return SUITE.checker()


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    """bench_goals_suite.py (it imports its sibling modules from bench/)."""
    sys.path.insert(0, str(BENCH))
    try:
        return load_module("bench_goals_suite_test4", BENCH / "bench_goals_suite.py")
    finally:
        sys.path.remove(str(BENCH))


def test_every_split_is_gzipped_and_test_is_sealed() -> None:
    assert SUITE.split_files() == ["dev_d.json.gz", "test_d.json.gz", "train_d.json.gz"]
    sealed = SUITE.sealed()
    # test stays sealed for good; train and dev until the coordinator opens them (README.md)
    assert "test" in sealed and sealed <= set(SPLITS)


def test_eight_new_folders_each_with_a_marked_distractor() -> None:
    folders = sorted(p for p in (SUITE.root / "docs").iterdir() if p.is_dir())
    assert len(folders) == 8 and all(p.name.startswith("d-") for p in folders)
    marks = ("SUPERSEDED", "superseded", "ARCHIVE", "WITHDRAWN", "DISCONTINUED", "NOT-OAKHAM")
    for folder in folders:
        files = [p.name for p in folder.iterdir() if p.is_file()]
        assert 2 <= len(files) <= 4, folder.name
        assert any(m in name for name in files for m in marks), folder.name


def test_goals_have_the_harness_format(goals: dict[str, list[dict[str, Any]]]) -> None:
    ids = [g["id"] for g in every(goals)]
    assert len(ids) == len(set(ids)) >= 100
    assert sorted(ids) == [f"d-{i:03d}" for i in range(1, len(ids) + 1)]
    assert not format_problems(goals, SUITE.root / "docs")
    kinds = collections.Counter(g["kind"] for g in every(goals))
    assert kinds["single"] >= 25 and kinds["chained"] >= 25, kinds
    assert kinds["three_agent"] >= 20 and kinds["natural"] >= 30, kinds


def test_splits_are_stratified_30_30_40(goals: dict[str, list[dict[str, Any]]]) -> None:
    assert not stratification_problems(goals)
    assert len(source_folders(goals)) == 8


def test_every_answer_recomputes_from_its_facts(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    assert not recompute_problems(goals, checker)


def test_the_checker_catches_wrong_answers_and_misquoted_facts(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    assert not uncaught_mutations(goals, checker)


def test_every_expected_answer_is_scorable(goals: dict[str, list[dict[str, Any]]]) -> None:
    assert not unscorable(goals)


def test_the_harness_validates_suite4_and_refuses_to_keep_sealed_goals() -> None:
    done = run_bench(SUITE, "bench_goals_suite.py", "--validate")
    assert done.returncode == 0 and "suite ok: 133 goals" in done.stderr, done.stderr[-500:]
    for flag in (("--keep",), ("--root", str(ROOT / "build" / "suite4-never-made"))):
        kept = run_bench(SUITE, "bench_goals_suite.py", "--split", "test", *flag)
        assert kept.returncode == 2 and "held out" in kept.stderr and not kept.stdout, flag
    assert not (ROOT / "build" / "suite4-never-made").exists()


def test_the_dry_run_refuses_the_test_split() -> None:
    done = run_bench(SUITE, "goals_dry_run.py", "--split", "test")
    assert done.returncode != 0 and "scored by bench_goals_suite.py only" in done.stderr
    assert not done.stdout


def test_the_harness_shows_no_sealed_goal(
    goals: dict[str, list[dict[str, Any]]], harness: ModuleType
) -> None:
    harness.SUITE = harness.SUITES["4"]
    assert "test" in harness.SUITE.sealed
    args = argparse.Namespace(quiet=False)
    records = [{"id": g["id"], "split": "test", "answer": "x"} for g in goals["test"][:3]]
    records.append({"id": "open", "split": "open-split", "answer": "x"})
    assert [harness.shown(r, args) for r in records] == [False, False, False, True]
    assert [r["id"] for r in harness.public_report({"goals": records}, args)["goals"]] == ["open"]
    quiet = argparse.Namespace(quiet=True)
    assert harness.public_report({"goals": records}, quiet)["goals"] == []
