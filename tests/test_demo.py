"""``ioa demo`` (the README's first command) runs green as a subprocess: offline, separate processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ioa_p2p.cli.demo_cmds import FALLBACK_DOCS, find_docs

pytestmark = pytest.mark.slow


def test_ioa_demo_concludes_audits_and_stops_everything(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}  # the offline planner
    root = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "demo", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "team: " in out and "> async_task" in out and "> sync_task" in out
    # issue 11: tasks carry the planner's expression with earlier values bound; retrieval states its answer
    # span first (then the passages); the conclusion's first line states the answers
    assert "calculator done step 1/4: (15 / 100 * 2480) + (17 ^ 2) = 661" in out
    assert "coder done step 3/4: 338350" in out and "librarian done step 2/4: " in out
    assert "338350 * 3 = 1015050" in out and "\nconclusion:\n  The answers are: " in out
    assert "audit: valid" in out and "identical on every member" in out
    assert out.rstrip().splitlines()[-1].startswith("demo finished in")
    history = next(root.glob("ioa-demo-*.history"))
    audited = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "audit", str(history)], capture_output=True, text=True, timeout=60
    )
    assert audited.returncode == 0, audited.stdout + audited.stderr
    for log in (root / "nodes").glob("*.log"):  # every node stopped cleanly, none crashed
        assert "Traceback" not in log.read_text(), log


def test_demo_docs_fall_back_to_a_written_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, origin = find_docs(tmp_path)
    assert origin in ("repository", "working directory") and any(folder.glob("*.md"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("ioa_p2p.cli.demo_cmds.__file__", str(tmp_path / "a" / "b" / "c" / "demo_cmds.py"))
    folder, origin = find_docs(tmp_path / "root")
    assert origin == "built-in sample" and sorted(p.name for p in folder.iterdir()) == sorted(FALLBACK_DOCS)
