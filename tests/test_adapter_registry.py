"""The adapter registry: built-ins and third-party adapters through real entry points."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import trio

from ioa_p2p.adapters import (
    ENTRY_POINT_GROUP,
    Adapter,
    Task,
    adapter_from_config,
    list_adapters,
    load_adapter,
    open_adapter,
    run_task,
)
from ioa_p2p.errors import (
    AdapterLoadError,
    AdapterOptionsError,
    ConfigError,
    UnknownAdapter,
)
from ioa_p2p.testing.kinds import DISTRIBUTION

PLUGIN = """
from ioa_p2p.adapters import AdapterCard, TaskResult


class Shout:
    def __init__(self, options):
        self.suffix = options.pop("suffix", "!")
        if options:
            raise TypeError(f"unknown options {sorted(options)}")

    def describe(self):
        return AdapterCard("shout", "shouts", ("shouting",), "shout", ("text",))

    async def run(self, task, ctx):
        await ctx.progress("shouting", 1.0)
        return TaskResult.success(task.text.upper() + self.suffix)

    async def aclose(self):
        pass


class NotAnAdapter:
    def __init__(self, options):
        pass


def boom(options):
    raise RuntimeError("plugin is broken")
"""


def install_fake_distribution(
    root: Path, name: str, entry_points: dict[str, str], module: str | None = None
) -> None:
    """A real, minimal installed distribution: a .dist-info folder plus a module on sys.path."""
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "\n".join(f"{k} = {v}" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[ioa_p2p.adapters]\n{lines}\n")
    if module is not None:
        (root / f"{name}.py").write_text(textwrap.dedent(module))


def test_builtins_are_registered() -> None:
    kinds = list_adapters()
    assert {"python", "calculator", "retrieval", "echo"} <= set(kinds)
    assert kinds["calculator"].distribution == "ioa-p2p"
    for kind in ("calculator", "echo"):
        adapter = load_adapter(kind, {})
        assert isinstance(adapter, Adapter) and adapter.describe().kind == kind


def test_the_echo_test_kind_is_no_entry_point_of_the_installed_product() -> None:
    """``echo`` is registered by the tests (tests/conftest.py, ioa_p2p.testing.kinds), for them and the
    processes they start; the installed ioa-p2p declares only real kinds."""
    product = {e.name for e in metadata.distribution("ioa-p2p").entry_points if e.group == ENTRY_POINT_GROUP}
    assert "echo" not in product and {"python", "calculator", "a2a"} <= product
    assert list_adapters()["echo"].distribution == DISTRIBUTION
    listed = subprocess.run(
        [sys.executable, "-m", "ioa_p2p", "adapters", "--json"], capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    assert "echo" in {row["kind"] for row in json.loads(listed.stdout)}  # a process the tests start


async def test_third_party_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_distribution(
        tmp_path,
        "shout_plugin",
        {
            "shout": "shout_plugin:Shout",
            "not-an-adapter": "shout_plugin:NotAnAdapter",
            "broken": "shout_plugin:boom",
            "missing-module": "no_such_module_xyz:Thing",
            "not-callable": "shout_plugin:__name__",
        },
        PLUGIN,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    info = list_adapters()["shout"]
    assert info.distribution == "shout_plugin" and info.target == "shout_plugin:Shout"

    async with open_adapter("shout", {"suffix": "?"}) as adapter:
        with trio.fail_after(5):
            result = await run_task(adapter, Task("hello"))
    assert result.ok and result.text == "HELLO?"

    with pytest.raises(AdapterOptionsError, match="unknown options"):
        load_adapter("shout", {"colour": "red"})
    with pytest.raises(AdapterLoadError, match="lacks"):
        load_adapter("not-an-adapter")
    with pytest.raises(AdapterLoadError, match="plugin is broken"):
        load_adapter("broken")
    with pytest.raises(AdapterLoadError, match="cannot import"):
        load_adapter("missing-module")
    with pytest.raises(AdapterLoadError, match="not callable"):
        load_adapter("not-callable")


def test_conflicting_kinds_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_distribution(tmp_path, "evil_calc", {"calculator": "evil_calc:Calc"})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AdapterLoadError, match="registered twice"):
        load_adapter("calculator")


def test_unknown_kind_and_bad_options() -> None:
    with pytest.raises(UnknownAdapter, match="installed kinds"):
        load_adapter("no-such-kind")
    with pytest.raises(UnknownAdapter):
        load_adapter("")
    with pytest.raises(AdapterOptionsError, match="unknown option"):
        load_adapter("calculator", {"max_bitz": 3})
    with pytest.raises(AdapterOptionsError, match=r"\.max_bits of adapter .calculator. must be an integer"):
        load_adapter("calculator", {"max_bits": "many"})
    with pytest.raises(AdapterOptionsError):
        load_adapter("calculator", ["not", "a", "table"])  # type: ignore[arg-type]
    # every registry error is a ConfigError (exit code 2 in the CLI)
    assert issubclass(UnknownAdapter, ConfigError) and issubclass(AdapterLoadError, ConfigError)


def test_adapter_from_config_table() -> None:
    assert adapter_from_config({"name": "only-a-launcher"}) is None
    adapter = adapter_from_config(
        {"name": "calc-1", "adapter": "calculator", "options": {"max_expressions": 2}}
    )
    assert adapter is not None and adapter.describe().kind == "calculator"
    with pytest.raises(ConfigError):
        adapter_from_config({"options": {"x": 1}})
    with pytest.raises(ConfigError):
        adapter_from_config({"adapter": 3})
    with pytest.raises(AdapterOptionsError):
        adapter_from_config({"adapter": "calculator", "options": "nope"})
