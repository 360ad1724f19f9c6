"""The test adapter kinds (``echo``), registered by tests and benchmarks, never by the installed product.

A kind is an entry point in the group ``ioa_p2p.adapters`` (:mod:`ioa_p2p.adapters.registry`). The
installed ``ioa-p2p`` declares only real kinds; :func:`register_test_kinds` writes a tiny distribution of
its own (``ioa-p2p-test-kinds``: a ``.dist-info`` folder holding ``METADATA`` and ``entry_points.txt``)
into a folder and puts that folder on ``sys.path`` (this process) and on ``PYTHONPATH`` (the processes it
starts afterwards: testnet nodes, ``ioa node start``), so ``adapter = "echo"`` works there exactly as a
third-party kind installed with pip would. tests/conftest.py does it once per test session; benchmarks
that run echo nodes do it at start.
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
from pathlib import Path

#: kind -> entry point target.
TEST_KINDS = {"echo": "ioa_p2p.testing.echo:EchoAdapter.from_options"}
DISTRIBUTION = "ioa-p2p-test-kinds"
_DIST_INFO = "ioa_p2p_test_kinds-0.dist-info"


def write_test_kinds(folder: Path) -> Path:
    """Write the distribution that registers :data:`TEST_KINDS` into ``folder``; returns ``folder``."""
    info = folder / _DIST_INFO
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: 0\n"
        "Summary: test adapter kinds of ioa-p2p (tests only)\n",
        encoding="utf-8",
    )
    lines = ["[ioa_p2p.adapters]"] + [f"{kind} = {target}" for kind, target in sorted(TEST_KINDS.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def register_test_kinds(folder: Path | None = None) -> Path:
    """Register the test kinds in this process and in the processes it starts from now on (see the module
    docstring). ``folder``: where to write them (default: a new temporary folder, which the caller may
    remove when done). Returns the folder."""
    folder = write_test_kinds(folder or Path(tempfile.mkdtemp(prefix=f"ioa-test-kinds-{os.getpid()}-")))
    path = str(folder)
    if path not in sys.path:
        sys.path.insert(0, path)
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if path not in parts:
        os.environ["PYTHONPATH"] = os.pathsep.join([path, *parts])
    importlib.invalidate_caches()
    return folder


__all__ = ["DISTRIBUTION", "TEST_KINDS", "register_test_kinds", "write_test_kinds"]
