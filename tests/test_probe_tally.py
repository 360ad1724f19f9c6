"""The shared probe tally (bench/goals_probe_tally.py): a must-refuse goal is right only when it ended
refused, and the probe folders' answer kinds come from one module (bench/goals_probe_kinds.py)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def heldout(tmp_path: Path) -> Path:
    goals = [
        {"id": "t-001", "kind": "single", "expected": {"type": "number", "value": 3}},
        {"id": "t-002", "kind": "single", "expected": {"type": "refused", "missing": "a price"}},
        {"id": "t-003", "kind": "single", "expected": {"type": "refused", "missing": "a date"}},
        {"id": "t-004", "kind": "natural", "expected": {"type": "refused", "missing": "a fee"}},
    ]
    path = tmp_path / "heldout.json"
    path.write_text(json.dumps({"goals": goals}), encoding="utf-8")
    return path


LINES = [
    "t-001 single      ok   'The answer is 3.'  exp=3 ",
    "t-002 single      ok   'No answer: missing value: a price, needed by step 1.'  exp=a price ",
    "t-003 single      ok   'The answers are: What is its price: GBP 1.'  exp=a date ",
    "t-004 natural     FAIL 'The answer is 12.'  exp=a fee ",
    "a line that is no goal line",
]


def test_a_must_refuse_goal_that_states_a_value_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = load("goals_probe_tally")
    assert tally.tally(heldout(tmp_path), LINES) == 0
    out = capsys.readouterr().out
    assert "single      1/2 right, 0 refused, 1 wrong, 0 no answer (old rule: 2/2 right)" in out
    assert "natural     0/1 right, 0 refused, 1 wrong" in out
    assert "must be refused: old 2/3 right, strict 1/3 right" in out
    assert "4 goal lines read" in out


def test_no_goal_lines_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert load("goals_probe_tally").tally(heldout(tmp_path), ["nothing here"]) == 1


def test_the_command_names_a_missing_probe_folder() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "goals_probe_tally.py"), "probe-none"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "no probe folder" in done.stderr


def test_every_probe_uses_the_shared_answer_kinds() -> None:
    kinds = load("goals_probe_kinds")
    assert kinds.refused("x") == {"type": "refused", "missing": "x"}
    assert kinds.num(2, "EUR") == {"type": "number", "value": 2, "tol": 0.01, "unit": "EUR"}
    for folder in sorted(BENCH.glob("goal_suite_probe[2-9]*")):
        scripts = [folder / "goal_kinds.py", folder / "make_goals.py"]
        text = "".join(p.read_text(encoding="utf-8") for p in scripts if p.exists())
        assert "from goals_probe_kinds import" in text, folder.name
        assert 'return {"type": "refused"' not in text, folder.name
