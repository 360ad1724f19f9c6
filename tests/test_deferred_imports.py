"""py-libp2p's unused dependencies deferred (``ioa_p2p.node.net.deferred_imports``, issue 26).

A fresh node process (real libp2p hosts on 127.0.0.1) never runs requests, httpx or dnspython's DNS over
HTTPS stack; upstream still imports them (else the deferral is no longer needed and this test says so); a
deferred module works the moment it is used, runs once when threads race for it, and a module whose code
fails is not left half-made in ``sys.modules``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioa_p2p.node.net.deferred_imports import DEFERRED, DeferringFinder, is_deferred

#: What dnspython imports for DNS over HTTPS / QUIC when they are installed (none may run in a node).
DNS_OVER_HTTP = ("httpx2", "httpcore2", "truststore")


def _run(script: str, tmp_path: Path) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_a_running_node_never_runs_the_deferred_dependencies(tmp_path: Path) -> None:
    """Two real nodes (a bootstrap node and an agent that issues its card through it): requests and httpx
    are imported by py-libp2p (still deferred), their dependencies and dnspython's HTTP stack never run;
    using them afterwards gives the real modules."""
    result = _run(
        """
        import json, sys
        from pathlib import Path
        import trio
        from ioa_p2p.bootstrap.bootnode import bootstrap_config
        from ioa_p2p.config.node_config import NodeConfig
        from ioa_p2p.identity import Identity
        from ioa_p2p.node import open_node
        from ioa_p2p.node.net.deferred_imports import is_deferred

        root = Path(sys.argv[1])
        LISTEN = ("/ip4/127.0.0.1/tcp/0",)

        async def main():
            boot = bootstrap_config(NodeConfig(home=root / "boot", listen=LISTEN))
            async with open_node(boot, identity=Identity.generate(), write_info=False) as node:
                addr = [str(a) for a in node.listen_addrs()][0]
                raw = {"agent": {"name": "plotter", "description": "Draws charts from CSV data"},
                       "discovery": {"warm": False}}
                agent = NodeConfig(home=root / "agent", listen=LISTEN, bootstrap=(addr,), raw=raw)
                async with open_node(agent, identity=Identity.generate(), write_info=False) as a:
                    with trio.fail_after(60):
                        await a.services.discovery.card_ready.wait()
                    with trio.fail_after(30):
                        while not a.connected_peers():
                            await trio.sleep(0.1)
            names = [n for n in ("requests", "httpx") if n in sys.modules]
            deferred = {n: is_deferred(sys.modules[n]) for n in names}
            out = {"modules": sorted(sys.modules), "deferred": deferred}
            import requests
            from httpx import AsyncClient
            out["used"] = [requests.codes.ok, AsyncClient.__name__, is_deferred(requests)]
            print(json.dumps(out))

        trio.run(main)
        """,
        tmp_path,
    )
    modules = result["modules"]
    assert isinstance(modules, list)
    assert result["deferred"] == {"requests": True, "httpx": True}, (
        "py-libp2p no longer imports requests/httpx at import time: remove them from DEFERRED"
    )
    assert [m for m in modules if m.split(".")[0] in DNS_OVER_HTTP + ("urllib3", "rich", "pygments")] == []
    assert "libp2p.security.tls.autotls.acme" in modules  # the importer is still there, its imports deferred
    assert result["used"] == [200, "AsyncClient", False]


@pytest.fixture
def package(tmp_path: Path) -> Iterator[str]:
    """A throwaway importable package ``name`` whose modules record each run in ``name.runs``."""
    name = f"deferred_probe_{os.getpid()}_{threading.get_ident()}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("runs = []\n")
    (root / "slow.py").write_text(
        textwrap.dedent(
            f"""
            import time
            import {name}
            {name}.runs.append("slow")
            time.sleep(0.2)  # threads arrive while this runs
            VALUE = 42
            """
        )
    )
    (root / "broken.py").write_text(f"import {name}\n{name}.runs.append('broken')\nraise RuntimeError('x')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


def test_a_deferred_module_runs_once_on_first_use_even_when_threads_race(package: str) -> None:
    import importlib

    finder = DeferringFinder([f"{package}.slow"])
    sys.meta_path.insert(0, finder)
    try:
        slow = importlib.import_module(f"{package}.slow")
        runs = importlib.import_module(package).runs
        assert is_deferred(slow) and runs == []
        assert importlib.import_module(f"{package}.slow") is slow  # a second import
        assert runs == []  # ... did not run it
        assert slow.__name__ == f"{package}.slow" and runs == []
        seen: list[int] = []
        threads = [threading.Thread(target=lambda: seen.append(slow.VALUE)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert seen == [42] * 8 and runs == ["slow"] and not is_deferred(slow)
    finally:
        sys.meta_path.remove(finder)


def test_a_deferred_module_that_fails_raises_at_first_use_and_leaves_sys_modules(package: str) -> None:
    import importlib

    finder = DeferringFinder([f"{package}.broken"])
    sys.meta_path.insert(0, finder)
    try:
        broken = importlib.import_module(f"{package}.broken")
        with pytest.raises(RuntimeError, match="x"):
            _ = broken.anything
        assert f"{package}.broken" not in sys.modules
    finally:
        sys.meta_path.remove(finder)


def test_only_modules_py_libp2p_imports_with_a_plain_import_are_deferred() -> None:
    """A module-level ``from X import Y`` would run X at once: the deferred names must be imported by
    py-libp2p only as ``import X`` (checked on the installed sources)."""
    import libp2p

    root = Path(libp2p.__file__).parent
    offenders = [
        f"{path.relative_to(root)}: {line.strip()}"
        for path in root.rglob("*.py")
        if "tests" not in path.parts
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("from ") and line.split()[1].split(".")[0] in DEFERRED
    ]
    assert offenders == []
