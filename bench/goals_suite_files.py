"""The goal suites' files for bench/bench_goals_suite.py and bench/goals_dry_run.py (pure, stdlib only).

A suite is a folder with ``docs/`` (the documents its librarian serves) and split files: ``SPLIT.json`` (the
old suites), ``SPLIT_WRITER.json`` or ``SPLIT_WRITER.json.gz`` (gzipped, so nobody reads it by accident).
Each file is ``{"goals": [...]}``, each goal ``{"id", "kind" (or "category"), "goal", "expected", "why",
"sources"}``.

**Sealed splits** are scored by a script only: their goals' text, answers and per-goal results are never
printed, only counts per kind. A suite's ``test`` split is always sealed; a suite folder may seal more
splits with a ``SEALED`` file (one split name per line, ``#`` comments): suite 3 is wholly sealed until the
coordinator opens its train and dev splits by editing that file. ``--validate`` counts the problems of a
sealed split's goals without showing them. A suite folder may hold ``check_answers.py`` (suites 3 and 4),
whose ``goal_problems(goal, docs)`` recomputes every answer from the facts its ``why`` lists; ``--validate``
runs it.
"""

from __future__ import annotations

import collections
import gzip
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from goals_suite_scoring import score_text, self_test

HERE = Path(__file__).resolve().parent
CATEGORIES = ("single", "chained", "three_agent", "natural")


def sealed_splits(root: Path) -> frozenset[str]:
    """The splits of the suite in ``root`` that are never shown: ``test`` and those its ``SEALED`` lists."""
    marker = root / "SEALED"
    listed = marker.read_text(encoding="utf-8").splitlines() if marker.exists() else []
    names = {line.split("#", 1)[0].strip() for line in listed}
    return frozenset({"test", *names} - {""})


def split_files(root: Path, split: str) -> list[Path]:
    """The files of one split: ``SPLIT.json`` or ``SPLIT_*.json``, gzipped or not."""
    found = [
        p
        for pattern in (f"{split}.json", f"{split}_*.json", f"{split}.json.gz", f"{split}_*.json.gz")
        for p in root.glob(pattern)
    ]
    return sorted(set(found))


def read_split(path: Path) -> list[dict[str, Any]]:
    """The goals of one split file (gzipped ones are read here, never printed)."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return list(json.loads(raw.decode("utf-8"))["goals"])


@dataclass(frozen=True)
class Suite:
    """A goal suite: its folder, its splits (in order) and how its goals are checked."""

    name: str
    root: Path
    splits: tuple[str, ...]
    #: --validate checks an answer is in none of the documents but its sources (the old suite only: the new
    #: ones' READMEs say which small numbers recur by chance)
    distinct_answers: bool

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def sealed(self) -> frozenset[str]:
        return sealed_splits(self.root) & frozenset(self.splits)

    def files(self, split: str) -> list[Path]:
        return split_files(self.root, split)

    def checker(self) -> ModuleType | None:
        """The suite's own answer checker (``check_answers.py``), when it has one."""
        path = self.root / "check_answers.py"
        spec = importlib.util.spec_from_file_location(f"check_answers_suite{self.name}", path)
        if not path.exists() or spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


SUITES = {
    "1": Suite("1", HERE / "goal_suite", ("dev", "check"), True),
    "2": Suite("2", HERE / "goal_suite2", ("train", "dev", "test"), False),
    # issue 23's independent held-out suite: one writer, 13 new folders, every split gzipped and sealed
    # until the coordinator opens train and dev (bench/goal_suite3/README.md)
    "3": Suite("3", HERE / "goal_suite3", ("train", "dev", "test"), False),
    # issue 23's fresh blind suite after suite 3's dev split was tuned against: writer d, 8 new folders,
    # gzipped splits, test sealed for good, train and dev until the coordinator opens them
    # (bench/goal_suite4/README.md)
    "4": Suite("4", HERE / "goal_suite4", ("train", "dev", "test"), False),
    # a private held-out suite of natural and three-agent goals (bench/goal_suite_nat/README.md)
    "nat": Suite("nat", HERE / "goal_suite_nat", ("heldout",), False),
    # a second one, natural goals over rule-like documents (bench/goal_suite_nat2/README.md)
    "nat2": Suite("nat2", HERE / "goal_suite_nat2", ("heldout",), False),
    # the second probe set: 7 folders in new styles, six goals that must be refused
    # (bench/goal_suite_probe2/README.md)
    "probe2": Suite("probe2", HERE / "goal_suite_probe2", ("heldout",), False),
    # natural questions that compose several rules, 5 folders in new styles, six to be refused
    # (bench/goal_suite_probe3n/README.md)
    "probe3n": Suite("probe3n", HERE / "goal_suite_probe3n", ("heldout",), False),
    # the third: 8 more folders in new styles, 18 goals that must be refused, among them near misses
    # (another year, version, product, unit or condition; bench/goal_suite_probe3/README.md)
    "probe3": Suite("probe3", HERE / "goal_suite_probe3", ("heldout",), False),
    # the fourth: 9 more folders in new styles, all four kinds, 25 goals that must be refused (absent values
    # and near misses; bench/goal_suite_probe4/README.md)
    "probe4": Suite("probe4", HERE / "goal_suite_probe4", ("heldout",), False),
    # the fifth: 11 more folders in new styles, all four kinds, 43 goals that must be refused (absent values
    # and near misses; bench/goal_suite_probe5/README.md)
    "probe5": Suite("probe5", HERE / "goal_suite_probe5", ("heldout",), False),
    # the sixth: 11 more folders in new styles and domains, all four kinds, 42 goals that must be refused
    # (absent values and near misses; bench/goal_suite_probe6/README.md)
    "probe6": Suite("probe6", HERE / "goal_suite_probe6", ("heldout",), False),
    # the seventh: 9 more folders in new styles and domains, all four kinds, 22 goals that must be refused
    # (absent values and near misses; bench/goal_suite_probe7/README.md)
    "probe7": Suite("probe7", HERE / "goal_suite_probe7", ("heldout",), False),
    # the eighth blind probe: 100 goals over 10 folders in new styles, 20 to be refused
    # (absent values and near misses; bench/goal_suite_probe8/README.md)
    "probe8": Suite("probe8", HERE / "goal_suite_probe8", ("heldout",), False),
    # the ninth blind probe: 100 goals over 10 folders in new styles, 20 to be refused
    # (absent values and near misses; bench/goal_suite_probe9/README.md)
    "probe9": Suite("probe9", HERE / "goal_suite_probe9", ("heldout",), False),
    # the tenth blind probe: 100 goals over 10 folders in new styles, 20 to be refused
    # (absent values and near misses; bench/goal_suite_probe10/README.md)
    "probe10": Suite("probe10", HERE / "goal_suite_probe10", ("heldout",), False),
    # the eleventh blind probe: 100 goals over 10 folders in new styles, 20 to be refused
    # (absent values and near misses; bench/goal_suite_probe11/README.md)
    "probe11": Suite("probe11", HERE / "goal_suite_probe11", ("heldout",), False),
    # the twelfth blind probe: 100 goals over 10 folders in new styles, 20 to be refused
    # (absent values and near misses; bench/goal_suite_probe12/README.md)
    "probe12": Suite("probe12", HERE / "goal_suite_probe12", ("heldout",), False),
}


def load_goals(suite: Suite, split: str) -> list[dict[str, Any]]:
    """The goals of ``split`` (or ``all``), each with its ``category`` and ``split``."""
    names = suite.splits if split == "all" else (split,)
    goals = []
    for name in names:
        for path in suite.files(name):
            for g in read_split(path):
                goals.append({**g, "category": g.get("category") or g.get("kind"), "split": name})
    return goals


def validate_suite(suite: Suite, split: str = "all") -> list[str]:
    """Problems in the suite files (empty when sound). Problems of sealed goals are counted, never shown."""
    problems = self_test()
    goals = load_goals(suite, split)
    docs = {
        p.relative_to(suite.docs).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(suite.docs.rglob("*"))
        if p.is_file()
    }
    ids = [g["id"] for g in goals]
    problems += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    wanted = suite.splits if split == "all" else (split,)
    problems += [f"split {s}: no goal file" for s in wanted if not suite.files(s)]
    if suite.name == "1":
        mixes = {
            s: collections.Counter(g["category"] for g in goals if g["split"] == s) for s in suite.splits
        }
        if split == "all" and mixes["dev"] != mixes["check"]:
            problems.append(f"category mix differs: dev {dict(mixes['dev'])} vs check {dict(mixes['check'])}")
    checker = suite.checker()
    hidden: collections.Counter[str] = collections.Counter()
    for g in goals:
        found = goal_problems(suite, g, docs)
        if checker is not None:
            found += [f"{g.get('id', '?')}: {p}" for p in checker.goal_problems(g, docs)]
        if g["split"] in suite.sealed:
            hidden[g["split"]] += len(found)
        else:
            problems += found
    problems += [
        f"{n} problem(s) in the sealed {s} split (not shown: its goals are never read)"
        for s, n in sorted(hidden.items())
        if n
    ]
    return problems


def goal_problems(suite: Suite, g: dict[str, Any], docs: dict[str, str]) -> list[str]:
    where = g.get("id", "?")
    problems = []
    if g.get("category") not in CATEGORIES or not g.get("goal") or not g.get("why"):
        problems.append(f"{where}: needs a kind in {CATEGORIES}, a goal and a why")
    for source in g.get("sources", []):
        if source not in docs:
            problems.append(f"{where}: source {source} is not in docs/")
    exp = g.get("expected", {})
    try:
        hit = score_text(exp, g["goal"])
    except (KeyError, TypeError, ValueError) as exc:
        return [*problems, f"{where}: bad expected {exp}: {exc!r}"]
    if hit and exp.get("type") != "text":  # the answer must not be readable from the question itself
        problems.append(f"{where}: the expected answer already appears in the goal text ({hit!r})")
    if suite.distinct_answers:
        for doc, text in docs.items():  # nor from a passage a lookup would return by chance
            if doc not in g.get("sources", []) and score_text(exp, text):
                problems.append(f"{where}: the expected answer appears in {doc}, not one of its sources")
    return problems
