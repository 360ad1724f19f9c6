"""The third-party adapter package of docs/adapters.md is complete, under 30 lines, and works as written.

The two files are taken from the docs verbatim; the package is "installed" by putting the module and a
``.dist-info`` (its METADATA and the entry points of its pyproject.toml) on ``sys.path``, which is all an
installed distribution is to ``importlib.metadata``; then the registry finds the kind and a task runs.
"""

from __future__ import annotations

import importlib
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioa_p2p.adapters import Task, TaskContext, run_task
from ioa_p2p.adapters.registry import adapter_options, list_adapters, load_adapter
from ioa_p2p.errors import AdapterOptionsError

DOC = Path(__file__).resolve().parents[1] / "docs" / "adapters.md"


def _blocks() -> tuple[str, str]:
    section = DOC.read_text().split("### Adding an adapter from another package", 1)[1].split("\n## ", 1)[0]
    toml = re.search(r"```toml\n(.*?)```", section, re.S)
    python = re.search(r"```python\n(.*?)```", section, re.S)
    assert toml is not None and python is not None, "the example package is missing from docs/adapters.md"
    return toml.group(1), python.group(1)


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[None]:
    pyproject, module = _blocks()
    project = tomllib.loads(pyproject)["project"]
    (tmp_path / "ioa_wordcount.py").write_text(module)
    info = tmp_path / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    points = project["entry-points"]["ioa_p2p.adapters"]
    lines = "".join(f"{kind} = {target}\n" for kind, target in points.items())
    (info / "entry_points.txt").write_text(f"[ioa_p2p.adapters]\n{lines}")
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("ioa_wordcount", None)
        importlib.invalidate_caches()


def test_the_example_package_is_under_30_lines() -> None:
    pyproject, module = _blocks()
    assert len(pyproject.splitlines()) + len(module.splitlines()) < 30


async def test_the_example_package_installs_and_runs(installed: None) -> None:
    info = list_adapters()["wordcount"]
    assert info.distribution == "ioa-wordcount" and info.available
    assert [(o.name, o.default) for o in adapter_options("wordcount") or []] == [("top", 3)]
    adapter = load_adapter("wordcount", {"top": 2})
    ctx = TaskContext()
    result = await run_task(adapter, Task.create("the cat saw the other cat and the dog", timeout=10), ctx)
    assert result.ok and result.text == "9 words; most frequent: the, cat"
    assert result.data == {"top": ["the", "cat"]} and [p.text for p in ctx.reports] == ["counted"]
    with pytest.raises(AdapterOptionsError):
        load_adapter("wordcount", {"top": "many"})
