"""Where the benchmarks find shared data sets: ``$IOA_SHARED``, else a ``shared/`` folder next to the
repository (``../shared`` from the repo root; from a git worktree nested deeper, the nearest ``shared/``
beside one of its parent folders). No machine path is written here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``$IOA_SHARED`` if set, else the nearest ``shared/`` sibling of the repo root or of a parent."""
    env = os.environ.get("IOA_SHARED")
    if env:
        return Path(env)
    for folder in (REPO, *REPO.parents):
        candidate = folder.parent / "shared"
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared"


def data_file(name: str) -> Path:
    """``<shared>/data/<name>`` (it may not exist: see :func:`require`)."""
    return shared_dir() / "data" / name


def require(path: Path) -> Path:
    """``path``, or exit with a message saying the data set is absent and how to point at it."""
    if not path.exists():
        sys.exit(
            f"data set not found: {path}\n"
            "put the shared data in ../shared/data next to the repository, set IOA_SHARED to the shared "
            "folder, or pass the file's path as an argument"
        )
    return path
