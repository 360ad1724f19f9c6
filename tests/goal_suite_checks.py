"""The checks every held-out goal suite's test makes of its files (tests/test_goal_suite3.py, _suite4.py).

A suite (:class:`SuiteFiles`) is a folder under ``bench/`` with gzipped split files ``SPLIT_WRITER.json.gz``,
a ``SEALED`` file, ``docs/`` and a ``check_answers.py`` built on ``bench/goals_suite_check.py``. The
functions here return what is wrong (goal ids only, never a goal's text or answer: the suites are held
out), so each suite's test asserts on them with its own numbers.
"""

from __future__ import annotations

import collections
import copy
import gzip
import importlib.util
import json
import subprocess
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SPLITS = ("train", "dev", "test")
KINDS = ("single", "chained", "three_agent", "natural")
KEYS = {"id", "kind", "goal", "expected", "why", "sources"}


@dataclass(frozen=True)
class SuiteFiles:
    """One suite: its name on the harness's ``--suite``, folder and writer letter."""

    name: str
    folder: str
    writer: str

    @property
    def root(self) -> Path:
        return BENCH / self.folder

    def split_goals(self, split: str) -> list[dict[str, Any]]:
        raw = (self.root / f"{split}_{self.writer}.json.gz").read_bytes()
        data = json.loads(gzip.decompress(raw).decode("utf-8"))
        assert data["writer"] == self.writer and data["split"] == split
        return list(data["goals"])

    def goals(self) -> dict[str, list[dict[str, Any]]]:
        return {split: self.split_goals(split) for split in SPLITS}

    def checker(self) -> ModuleType:
        return load_module(f"check_answers_{self.name}_test", self.root / "check_answers.py")

    def split_files(self) -> list[str]:
        return sorted(p.name for p in self.root.glob("*.json*"))

    def sealed(self) -> set[str]:
        lines = (self.root / "SEALED").read_text(encoding="utf-8").splitlines()
        return {ln.split("#", 1)[0].strip() for ln in lines} - {""}


def load_module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def every(goals: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [g for split in SPLITS for g in goals[split]]


def documents(checker: ModuleType) -> dict[str, str]:
    return {
        p.relative_to(checker.DOCS).as_posix(): p.read_text(encoding="utf-8")
        for p in checker.DOCS.rglob("*")
        if p.is_file()
    }


def format_problems(goals: dict[str, list[dict[str, Any]]], docs: Path) -> list[str]:
    """Goals not in the harness's format: keys, kind, a Check in the why, sources under ``docs``, a typed
    expected answer."""
    bad = []
    for g in every(goals):
        exp = g["expected"]
        fits = set(g) == KEYS and g["kind"] in KINDS and g["goal"].strip() and "Check:" in g["why"]
        fits = fits and all((docs / s).is_file() for s in g["sources"])
        if exp["type"] == "number":
            fits = fits and isinstance(exp["value"], int | float) and exp["tol"] >= 0 and "unit" in exp
        elif exp["type"] == "date":
            fits = fits and len(exp["value"]) == 10 and bool(date.fromisoformat(exp["value"]))
        else:
            fits = fits and exp["type"] == "text" and bool(exp.get("value") or exp.get("all_of"))
        if not fits:
            bad.append(g["id"])
    return bad


def stratification_problems(goals: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Kinds whose train / dev / test counts are not round(0.3 n) / round(0.3 n) / the rest."""
    per_kind = {s: collections.Counter(g["kind"] for g in goals[s]) for s in SPLITS}
    bad = []
    for kind in KINDS:
        n = sum(per_kind[s][kind] for s in SPLITS)
        third = round(0.3 * n)
        if (
            not per_kind["train"][kind] == per_kind["dev"][kind] == third
            or per_kind["test"][kind] != n - 2 * third
        ):
            bad.append(kind)
    return bad


def source_folders(goals: dict[str, list[dict[str, Any]]]) -> set[str]:
    return {s.split("/")[0] for g in every(goals) for s in g["sources"]}


def recompute_problems(goals: dict[str, list[dict[str, Any]]], checker: ModuleType) -> list[str]:
    """Goals whose answer does not recompute from the facts their why quotes."""
    docs = documents(checker)
    return [g["id"] for g in every(goals) if checker.goal_problems(g, docs)]


def wrong_answer(g: dict[str, Any]) -> dict[str, Any]:
    """The goal with its expected answer changed (a number by more than its tolerance, another date, a
    text that is no answer)."""
    wrong = copy.deepcopy(g)
    exp = wrong["expected"]
    if exp["type"] == "number":
        exp["value"] += 1 + 3 * exp["tol"]
    elif exp["type"] == "date":
        exp["value"] = "2001-01-01"
    else:
        exp.pop("accept", None)
        exp["value"] = "no such answer"
    return wrong


def misquoted(g: dict[str, Any]) -> dict[str, Any]:
    """The goal with its first quoted fact changed to words no document has."""
    changed = copy.deepcopy(g)
    changed["why"] = changed["why"].replace('"', '"not in the documents ', 1)
    return changed


def uncaught_mutations(goals: dict[str, list[dict[str, Any]]], checker: ModuleType) -> list[str]:
    """Goals where the checker misses a wrong answer or (for a goal with sources) a misquoted fact."""
    docs = documents(checker)
    missed = []
    for g in every(goals):
        if not checker.goal_problems(wrong_answer(g), docs) or (
            g["sources"] and not checker.goal_problems(misquoted(g), docs)
        ):
            missed.append(g["id"])
    return missed


def uncaught_first_mutations(goals: dict[str, list[dict[str, Any]]], checker: ModuleType) -> list[str]:
    """The mutations of the first number goal, the first date goal and the first goal with sources (its
    answer, its answer, its first quoted fact) that the checker misses, named "number", "date", "quote"."""
    docs = documents(checker)
    goals_ = every(goals)
    number = next(g for g in goals_ if g["expected"]["type"] == "number")
    day = next(g for g in goals_ if g["expected"]["type"] == "date")
    quoted = next(g for g in goals_ if g["sources"])
    cases = {"number": wrong_answer(number), "date": wrong_answer(day), "quote": misquoted(quoted)}
    return [name for name, g in cases.items() if not checker.goal_problems(g, docs)]


def renderings(exp: dict[str, Any]) -> list[str]:
    """How a correct answer is commonly written, for the scorer-compatibility check."""
    if exp["type"] == "date":
        day = date.fromisoformat(exp["value"])
        return [exp["value"], day.strftime("%d %B %Y")]
    if exp["type"] == "text":
        return [", ".join(exp["all_of"])] if exp.get("all_of") else [exp["value"]]
    value, unit = exp["value"], exp["unit"]
    spelled = {"EUR": f"EUR {value:,.2f}", "": f"{value:g}", "%": f"{value:g} %", "h": f"{value:g} hours"}
    return [spelled.get(unit, f"{value:g} {unit}")]


def unscorable(goals: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Goals whose expected answer, written in a common form, the bench's scorer does not match."""
    scoring = load_module("goals_suite_scoring_checks", BENCH / "goals_suite_scoring.py")
    return [
        g["id"]
        for g in every(goals)
        if any(scoring.score_text(g["expected"], r) is None for r in renderings(g["expected"]))
    ]


def run_bench(suite: SuiteFiles, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``bench/SCRIPT --suite NAME ARGS`` in a fresh Python, from the repository root."""
    return subprocess.run(
        [sys.executable, str(BENCH / script), "--suite", suite.name, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )
