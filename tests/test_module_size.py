"""House rule: one module = one concept, never over 500 lines (CONTRIBUTING.md); split by concept early.

Every ``.py`` file under the product packages, ``bench/`` and ``tests/`` is checked; the message names each
file over the limit with its length, so the fix (a split by concept) is obvious.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("ioa_p2p", "node", "dht", "adapters", "bootstrap", "bench", "tests")
LIMIT = 500


def line_count(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def python_files(folders: tuple[str, ...]) -> list[Path]:
    return sorted(
        p for folder in folders for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts
    )


def over_limit(folders: tuple[str, ...]) -> list[str]:
    return [
        f"{p.relative_to(ROOT).as_posix()} ({n} lines)"
        for p in python_files(folders)
        if (n := line_count(p)) > LIMIT
    ]


def test_the_checked_folders_hold_python_files() -> None:
    for folder in CHECKED:
        assert python_files((folder,)), f"no .py file under {folder}/: was it moved? update CHECKED"


def test_no_module_is_over_500_lines() -> None:
    over = over_limit(CHECKED)
    assert not over, f"modules over {LIMIT} lines (split each by concept, CONTRIBUTING.md): " + ", ".join(
        over
    )


def test_the_count_is_of_lines(tmp_path: Path) -> None:
    short, long = tmp_path / "short.py", tmp_path / "long.py"
    short.write_text("x = 1\n" * LIMIT, encoding="utf-8")
    long.write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    assert line_count(short) == LIMIT
    assert line_count(long) == LIMIT + 1
