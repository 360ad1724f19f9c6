"""Tooling gates: ruff over the tree, strict mypy over the five packages (both configured in pyproject)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.typecheck import run_mypy

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: install the test extras with pip install -e '.[test]'")
    return found


def test_ruff_is_clean() -> None:
    out = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_is_clean_on_every_package() -> None:
    _tool("mypy")
    out = run_mypy([])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout
