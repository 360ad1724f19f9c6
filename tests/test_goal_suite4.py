"""Goal suite 4's files (bench/goal_suite4/, issue 23's fresh blind suite, writer d): format, splits, sealing.

These tests check the suite's files and the harness's handling of them, never the planner's answers. The
suite is held out: assertion messages name goal ids only, never a goal's text or answer.
"""

from __future__ import annotations

import argparse
import collections
import copy
import gzip
import importlib.util
import json
import subprocess
import sys
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SUITE = BENCH / "goal_suite4"
SPLITS = ("train", "dev", "test")
KINDS = ("single", "chained", "three_agent", "natural")
KEYS = {"id", "kind", "goal", "expected", "why", "sources"}


def load_module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split_goals(split: str) -> list[dict[str, Any]]:
    data = json.loads(gzip.decompress((SUITE / f"{split}_d.json.gz").read_bytes()).decode("utf-8"))
    assert data["writer"] == "d" and data["split"] == split
    return list(data["goals"])


@pytest.fixture(scope="module")
def goals() -> dict[str, list[dict[str, Any]]]:
    return {split: split_goals(split) for split in SPLITS}


@pytest.fixture(scope="module")
def checker() -> ModuleType:
    return load_module("check_answers_suite4_test", SUITE / "check_answers.py")


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    """bench_goals_suite.py (it imports its sibling modules from bench/)."""
    sys.path.insert(0, str(BENCH))
    try:
        return load_module("bench_goals_suite_test4", BENCH / "bench_goals_suite.py")
    finally:
        sys.path.remove(str(BENCH))


def documents(checker: ModuleType) -> dict[str, str]:
    return {
        p.relative_to(checker.DOCS).as_posix(): p.read_text(encoding="utf-8")
        for p in checker.DOCS.rglob("*")
        if p.is_file()
    }


def test_every_split_is_gzipped_and_test_is_sealed() -> None:
    assert sorted(p.name for p in SUITE.glob("*.json*")) == [
        "dev_d.json.gz",
        "test_d.json.gz",
        "train_d.json.gz",
    ]
    lines = (SUITE / "SEALED").read_text(encoding="utf-8").splitlines()
    sealed = {ln.split("#", 1)[0].strip() for ln in lines} - {""}
    # test stays sealed for good; train and dev until the coordinator opens them (README.md)
    assert "test" in sealed and sealed <= set(SPLITS)


def test_eight_new_folders_each_with_a_marked_distractor() -> None:
    folders = sorted(p for p in (SUITE / "docs").iterdir() if p.is_dir())
    assert len(folders) == 8 and all(p.name.startswith("d-") for p in folders)
    marks = ("SUPERSEDED", "superseded", "ARCHIVE", "WITHDRAWN", "DISCONTINUED", "NOT-OAKHAM")
    for folder in folders:
        files = [p.name for p in folder.iterdir() if p.is_file()]
        assert 2 <= len(files) <= 4, folder.name
        assert any(m in name for name in files for m in marks), folder.name


def test_goals_have_the_harness_format(goals: dict[str, list[dict[str, Any]]]) -> None:
    docs = SUITE / "docs"
    every = [g for split in SPLITS for g in goals[split]]
    ids = [g["id"] for g in every]
    assert len(ids) == len(set(ids)) >= 100
    assert sorted(ids) == [f"d-{i:03d}" for i in range(1, len(ids) + 1)]
    for g in every:
        assert set(g) == KEYS, g["id"]
        assert g["kind"] in KINDS and g["goal"].strip() and "Check:" in g["why"], g["id"]
        assert all((docs / s).is_file() for s in g["sources"]), g["id"]
        exp = g["expected"]
        if exp["type"] == "number":
            assert isinstance(exp["value"], int | float) and exp["tol"] >= 0 and "unit" in exp, g["id"]
        elif exp["type"] == "date":
            assert date.fromisoformat(exp["value"]), g["id"]
        else:
            assert exp["type"] == "text" and (exp.get("value") or exp.get("all_of")), g["id"]
    kinds = collections.Counter(g["kind"] for g in every)
    assert kinds["single"] >= 25 and kinds["chained"] >= 25, kinds
    assert kinds["three_agent"] >= 20 and kinds["natural"] >= 30, kinds


def test_splits_are_stratified_30_30_40(goals: dict[str, list[dict[str, Any]]]) -> None:
    per_kind = {s: collections.Counter(g["kind"] for g in goals[s]) for s in SPLITS}
    for kind in KINDS:
        n = sum(per_kind[s][kind] for s in SPLITS)
        assert per_kind["train"][kind] == per_kind["dev"][kind] == round(0.3 * n), kind
        assert per_kind["test"][kind] == n - 2 * round(0.3 * n), kind
    folders = {s.split("/")[0] for split in SPLITS for g in goals[split] for s in g["sources"]}
    assert len(folders) == 8


def test_every_answer_recomputes_from_its_facts(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    docs = documents(checker)
    bad = [g["id"] for split in SPLITS for g in goals[split] if checker.goal_problems(g, docs)]
    assert not bad


def test_the_checker_catches_wrong_answers_and_misquoted_facts(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    docs = documents(checker)
    missed = []
    for g in (g for split in SPLITS for g in goals[split]):
        wrong = copy.deepcopy(g)
        exp = wrong["expected"]
        if exp["type"] == "number":
            exp["value"] += 1 + 3 * exp["tol"]
        elif exp["type"] == "date":
            exp["value"] = "2001-01-01"
        else:
            exp.pop("accept", None)
            exp["value"] = "no such answer"
        misquoted = copy.deepcopy(g)
        misquoted["why"] = misquoted["why"].replace('"', '"not in the documents ', 1)
        if not checker.goal_problems(wrong, docs) or (
            g["sources"] and not checker.goal_problems(misquoted, docs)
        ):
            missed.append(g["id"])
    assert not missed


def renderings(exp: dict[str, Any]) -> list[str]:
    """How a correct answer is commonly written, for the scorer-compatibility check below."""
    if exp["type"] == "date":
        day = date.fromisoformat(exp["value"])
        return [exp["value"], day.strftime("%d %B %Y")]
    if exp["type"] == "text":
        return [", ".join(exp["all_of"])] if exp.get("all_of") else [exp["value"]]
    value, unit = exp["value"], exp["unit"]
    spelled = {"EUR": f"EUR {value:,.2f}", "": f"{value:g}", "%": f"{value:g} %", "h": f"{value:g} hours"}
    return [spelled.get(unit, f"{value:g} {unit}")]


def test_every_expected_answer_is_scorable(goals: dict[str, list[dict[str, Any]]]) -> None:
    scoring = load_module("scoring_test4", BENCH / "goals_suite_scoring.py")
    every = [g for split in SPLITS for g in goals[split]]
    bad = [
        g["id"]
        for g in every
        if any(scoring.score_text(g["expected"], r) is None for r in renderings(g["expected"]))
    ]
    assert not bad


def run_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / script), "--suite", "4", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )


def test_the_harness_validates_suite4_and_refuses_to_keep_sealed_goals() -> None:
    done = run_script("bench_goals_suite.py", "--validate")
    assert done.returncode == 0 and "suite ok: 133 goals" in done.stderr, done.stderr[-500:]
    for flag in (("--keep",), ("--root", str(ROOT / "build" / "suite4-never-made"))):
        kept = run_script("bench_goals_suite.py", "--split", "test", *flag)
        assert kept.returncode == 2 and "held out" in kept.stderr and not kept.stdout, flag
    assert not (ROOT / "build" / "suite4-never-made").exists()


def test_the_dry_run_refuses_the_test_split() -> None:
    done = run_script("goals_dry_run.py", "--split", "test")
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
