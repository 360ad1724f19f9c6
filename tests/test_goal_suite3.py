"""Goal suite 3's files (bench/goal_suite3/, issue 23's held-out suite): format, splits, sealing, answers.

These tests check the suite's files and the harness's handling of them, never the planner's answers. The
suite is held out: assertion messages name goal ids only, never a goal's text or answer.
"""

from __future__ import annotations

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
SUITE = ROOT / "bench" / "goal_suite3"
SPLITS = ("train", "dev", "test")
KINDS = ("single", "chained", "three_agent", "natural")
KEYS = {"id", "kind", "goal", "expected", "why", "sources"}


def split_goals(split: str) -> list[dict[str, Any]]:
    data = json.loads(gzip.decompress((SUITE / f"{split}_c.json.gz").read_bytes()).decode("utf-8"))
    assert data["writer"] == "c" and data["split"] == split
    return list(data["goals"])


@pytest.fixture(scope="module")
def goals() -> dict[str, list[dict[str, Any]]]:
    return {split: split_goals(split) for split in SPLITS}


@pytest.fixture(scope="module")
def checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_answers_test", SUITE / "check_answers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def documents(checker: ModuleType) -> dict[str, str]:
    return {
        p.relative_to(checker.DOCS).as_posix(): p.read_text() for p in checker.DOCS.rglob("*") if p.is_file()
    }


def test_every_split_is_gzipped_and_sealed() -> None:
    assert sorted(p.name for p in SUITE.glob("*.json*")) == [
        "dev_c.json.gz",
        "test_c.json.gz",
        "train_c.json.gz",
    ]
    lines = (SUITE / "SEALED").read_text().splitlines()
    sealed = {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}
    # test stays sealed for good; train and dev until the coordinator opens them
    assert "test" in sealed


def test_goals_have_the_harness_format(goals: dict[str, list[dict[str, Any]]]) -> None:
    docs = SUITE / "docs"
    ids = [g["id"] for split in SPLITS for g in goals[split]]
    assert len(ids) == len(set(ids)) >= 80
    for g in (g for split in SPLITS for g in goals[split]):
        assert set(g) == KEYS, g["id"]
        assert g["kind"] in KINDS and g["goal"].strip() and "Check:" in g["why"], g["id"]
        assert all((docs / s).is_file() for s in g["sources"]), g["id"]
        exp = g["expected"]
        if exp["type"] == "number":
            assert isinstance(exp["value"], int | float) and exp["tol"] >= 0 and "unit" in exp, g["id"]
        elif exp["type"] == "date":
            assert len(exp["value"]) == 10 and exp["value"][4] == "-", g["id"]
        else:
            assert exp["type"] == "text" and (exp.get("value") or exp.get("all_of")), g["id"]


def test_splits_are_stratified_30_30_40(goals: dict[str, list[dict[str, Any]]]) -> None:
    per_kind = {s: collections.Counter(g["kind"] for g in goals[s]) for s in SPLITS}
    for kind in KINDS:
        n = sum(per_kind[s][kind] for s in SPLITS)
        assert per_kind["train"][kind] == per_kind["dev"][kind] == round(0.3 * n), kind
        assert per_kind["test"][kind] == n - 2 * round(0.3 * n), kind
    folders = {s.split("/")[0] for split in SPLITS for g in goals[split] for s in g["sources"]}
    assert len(folders) >= 7


def test_every_answer_recomputes_from_its_facts(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    docs = documents(checker)
    bad = [g["id"] for split in SPLITS for g in goals[split] if checker.goal_problems(g, docs)]
    assert not bad


def test_the_checker_catches_a_wrong_answer_and_a_misquoted_fact(
    goals: dict[str, list[dict[str, Any]]], checker: ModuleType
) -> None:
    docs = documents(checker)
    every = [g for split in SPLITS for g in goals[split]]
    number = copy.deepcopy(next(g for g in every if g["expected"]["type"] == "number"))
    number["expected"]["value"] += 1 + 3 * number["expected"]["tol"]
    assert checker.goal_problems(number, docs)
    date = copy.deepcopy(next(g for g in every if g["expected"]["type"] == "date"))
    date["expected"]["value"] = "2001-01-01"
    assert checker.goal_problems(date, docs)
    quoted = copy.deepcopy(next(g for g in every if g["sources"]))
    quoted["why"] = quoted["why"].replace('"', '"not in the documents ', 1)
    assert checker.goal_problems(quoted, docs)


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_goals_suite.py"), "--suite", "3", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )


def test_the_harness_validates_suite3_and_refuses_to_keep_sealed_goals() -> None:
    done = run_bench("--validate")
    assert done.returncode == 0 and "suite ok: 153 goals" in done.stderr, done.stderr[-500:]
    kept = run_bench("--split", "test", "--keep")
    assert kept.returncode == 2 and "held out" in kept.stderr and not kept.stdout


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
    spec = importlib.util.spec_from_file_location("scoring_test", ROOT / "bench" / "goals_suite_scoring.py")
    assert spec is not None and spec.loader is not None
    scoring = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scoring)
    every = [g for split in SPLITS for g in goals[split]]
    bad = [
        g["id"]
        for g in every
        if any(scoring.score_text(g["expected"], r) is None for r in renderings(g["expected"]))
    ]
    assert not bad
