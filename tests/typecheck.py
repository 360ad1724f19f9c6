"""Strict mypy over the five packages, as Python imports them (``python -m tests.typecheck [mypy args]``).

mypy names a module after its folders, but ``node/``, ``dht/``, ``adapters/`` and ``bootstrap/`` install as
``ioa_p2p.node`` ... (setuptools ``package-dir``), and mypy cannot read setuptools' editable-install
finder. This builds ``build/typecheck/ioa_p2p``: one symbolic link per entry of ``ioa_p2p/`` plus one per
mapped package (``node -> ../../../node``...), all from ``[tool.setuptools.package-dir]``, and runs mypy with
the repository's ``[tool.mypy]`` settings (``files`` points there; plain ``mypy`` works too once the tree
exists). Paths in mypy's output are mapped back to the repository's
(``build/typecheck/ioa_p2p/node/net/host.py`` -> ``node/net/host.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"


def package_dirs() -> dict[str, str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return mapping


def build_tree() -> Path:
    """The link tree mypy checks; rebuilt on every run (cheap), so new files are always in it."""
    mapping = package_dirs()
    top = TREE / "ioa_p2p"
    if top.exists():
        shutil.rmtree(top)
    top.mkdir(parents=True)
    for entry in sorted((ROOT / mapping["ioa_p2p"]).iterdir()):
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(os.path.relpath(entry, top))
    for package, folder in sorted(mapping.items()):
        if package == "ioa_p2p":
            continue
        link = top.joinpath(*package.split(".")[1:])
        link.symlink_to(os.path.relpath(ROOT / folder, link.parent))
    return top


def repo_path(line: str, mapping: dict[str, str]) -> str:
    """``build/typecheck/ioa_p2p/node/x.py:3: error`` -> ``node/x.py:3: error`` (longest package first)."""
    tree = TREE.relative_to(ROOT).as_posix() + "/"
    if not line.startswith(tree):
        return line
    line = line[len(tree) :]
    for package, folder in sorted(mapping.items(), key=lambda kv: -len(kv[0])):
        prefix = package.replace(".", "/") + "/"
        if line.startswith(prefix):
            return folder + "/" + line[len(prefix) :]
    return line


def run_mypy(extra: list[str]) -> subprocess.CompletedProcess[str]:
    build_tree()
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or "mypy"
    out = subprocess.run([mypy, *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)
    mapping = package_dirs()
    stdout = "\n".join(repo_path(line, mapping) for line in out.stdout.splitlines())
    return subprocess.CompletedProcess(out.args, out.returncode, stdout, out.stderr)


def main() -> int:
    out = run_mypy(sys.argv[1:])
    print(out.stdout)
    print(out.stderr, end="", file=sys.stderr)
    return out.returncode


if __name__ == "__main__":
    sys.exit(main())
