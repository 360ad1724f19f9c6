"""Light nodes (issue 26): what a node process imports, pinned by looking at ``sys.modules`` in a fresh
subprocess (never by timing or RSS thresholds).

A bootstrap node must not import the matcher, the planner, the adapters, numpy or any model package; an
agent node that has not searched holds no MiniLM/onnxruntime and no wordllama package code (its card vector
comes from the memory-mapped weights); nothing imports openai, a2a-sdk or mcp unless an adapter or gateway
needs them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

#: Top-level packages (or ioa_p2p subpackages) no node imports unless it uses them.
MODEL_PACKAGES = ("onnxruntime", "wordllama", "openai", "a2a", "mcp", "pydantic", "lemminflect", "annoy")
AGENT_ONLY = (
    "numpy",
    "snowballstemmer",
    "ioa_p2p.matching",
    "ioa_p2p.planning",
    "ioa_p2p.adapters",
    "ioa_p2p.teaming",
    "ioa_p2p.embedding",
    "ioa_p2p.llm",
    "ioa_p2p.dht.directory",
    "ioa_p2p.node.goals",
)

#: What an agent imports only at its first find, goal or invitation (issue 26, "Per-node cost"): the matcher
#: itself (its card vector comes from :mod:`ioa_p2p.matching.encoders` alone), the team choice, and the
#: planner with the brains that plan (made at the first turn: ``DeferredBrain``).
FIRST_USE = (
    "ioa_p2p.planning",
    "ioa_p2p.conversation.brains.offline",
    "ioa_p2p.conversation.brains.llm",
    "ioa_p2p.matching.hybrid",
    "ioa_p2p.matching.lexical",
    "ioa_p2p.matching.late",
    "ioa_p2p.matching.goals",
    "ioa_p2p.matching.breadth",
    "ioa_p2p.teaming.offline",
    "ioa_p2p.teaming.coverage",
    "ioa_p2p.teaming.llm_team",
    "ioa_p2p.teaming.join",
)


#: What an agent that embedded its own card still never imports: the ``tokenizers`` extension (~4.4 MB
#: resident for good once imported; wordllama's tokenizer is read by ``ioa_p2p.matching.llama_bpe``).
IDLE_AGENT_NEVER = ("tokenizers",)


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n in modules)


def _run(script: str, tmp_path: Path, timeout: float = 120.0) -> dict[str, list[str]]:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    result: dict[str, list[str]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_importing_the_cli_and_the_node_loads_no_agent_or_model_code(tmp_path: Path) -> None:
    result = _run(
        """
        import json, sys
        import ioa_p2p, ioa_p2p.cli, ioa_p2p.node, ioa_p2p.bootstrap.bootnode
        print(json.dumps({"modules": sorted(sys.modules)}))
        """,
        tmp_path,
    )
    modules = result["modules"]
    assert "libp2p" in modules and "ioa_p2p.node.node" in modules  # the script did import the node
    assert _loaded(modules, MODEL_PACKAGES + AGENT_ONLY) == []


def test_a_bootstrap_node_and_an_idle_agent_load_only_what_they_use(tmp_path: Path) -> None:
    """A running bootstrap node imports no agent code; an agent with ``warm = false`` that issued its card
    (its vector embedded) imports no model package, nor the matcher or the team choice (its goals service
    runs); its first ``find`` loads the matcher and its models."""
    result = _run(
        """
        import json, sys
        from pathlib import Path
        import trio
        from ioa_p2p.bootstrap.bootnode import bootstrap_config
        from ioa_p2p.config.node_config import NodeConfig
        from ioa_p2p.identity import Identity
        from ioa_p2p.node import open_node

        root = Path(sys.argv[1])
        LISTEN = ("/ip4/127.0.0.1/tcp/0",)

        async def main():
            out = {}
            boot = bootstrap_config(NodeConfig(home=root / "boot", listen=LISTEN))
            async with open_node(boot, identity=Identity.generate(), write_info=False) as node:
                await trio.sleep(0.5)
                out["bootstrap"] = sorted(sys.modules)
                out["bootstrap_services"] = node.services.names()
                addr = [str(a) for a in node.listen_addrs()][0]
                raw = {"agent": {"name": "plotter", "description": "Draws charts from CSV data"},
                       "discovery": {"warm": False}}
                agent = NodeConfig(home=root / "agent", listen=LISTEN, bootstrap=(addr,), raw=raw)
                async with open_node(agent, identity=Identity.generate(), write_info=False) as a:
                    discovery = a.services.discovery
                    with trio.fail_after(60):
                        await discovery.card_ready.wait()
                    out["agent"] = sorted(sys.modules)
                    with trio.fail_after(60):
                        await discovery.find("plot a chart", k=3)
                    out["after_find"] = sorted(sys.modules)
            print(json.dumps(out))

        trio.run(main)
        """,
        tmp_path,
    )
    assert _loaded(result["bootstrap"], MODEL_PACKAGES + AGENT_ONLY) == []
    assert "goals" not in result["bootstrap_services"] and "discovery" not in result["bootstrap_services"]
    assert _loaded(result["agent"], MODEL_PACKAGES + FIRST_USE + IDLE_AGENT_NEVER) == []
    assert "ioa_p2p.matching.static_model" in result["agent"]  # the card's vector: the mapped weights
    assert "onnxruntime" in result["after_find"]  # the hybrid matcher's MiniLM, loaded by the find
    assert "ioa_p2p.matching.hybrid" in result["after_find"]


def test_checking_bucket_pages_loads_no_numpy_and_no_matcher(tmp_path: Path) -> None:
    """A bootstrap node stores bucket pages for the network: checking real pages (signatures, liveness,
    that each sketch belongs in the page's LSH cell, in exact integer arithmetic; both card schemes'
    families) and merging them needs neither numpy (~11 MB) nor the matcher and its text tools (~4.5 MB
    more). The pages are made here (issuing a sketch needs numpy) and checked in a fresh process."""
    import time

    import numpy as np

    from ioa_p2p.card.schemes import LITE_MODEL_ID
    from ioa_p2p.card.sketch import issue_sketch
    from ioa_p2p.dht.forest import forest_for
    from ioa_p2p.dht.pages import encode_page, page_key
    from ioa_p2p.identity import Identity

    now = int(time.time() * 1000)
    rng = np.random.default_rng(7)
    pages = []
    for model, dim in ((LITE_MODEL_ID, 256), ("example/16", 16)):
        forest = forest_for(model, dim)
        sketch = issue_sketch(
            Identity.generate(),
            version=1,
            model=model,
            vector=rng.normal(size=dim),
            now_ms=now,
            expires_at=now + 600_000,
        )
        for cell in forest.cells(sketch.vector()):
            pages.append((page_key(cell, model, dim), encode_page([sketch.encoded]).hex(), True))
            wrong = forest.cell(cell.table, cell.level, cell.prefix ^ 1)  # the sketch does not belong there
            pages.append((page_key(wrong, model, dim), encode_page([sketch.encoded]).hex(), False))
    (tmp_path / "pages.json").write_text(json.dumps(pages))
    result = _run(
        """
        import json, sys, time
        from pathlib import Path
        from ioa_p2p.dht.validators import IoaNamespaceValidator
        from ioa_p2p.errors import InvalidCard

        pages = json.loads((Path(sys.argv[1]) / "pages.json").read_text())
        validator = IoaNamespaceValidator(lambda: int(time.time() * 1000))
        verdicts = []
        for key, value, _ in pages:
            try:
                validator.validate(key, bytes.fromhex(value))
                merge = validator.store_page(key, None, bytes.fromhex(value), lambda peer: True)
                verdicts.append(merge.page is not None)
            except InvalidCard:
                verdicts.append(False)
        print(json.dumps({"modules": sorted(sys.modules), "verdicts": verdicts}))
        """,
        tmp_path,
    )
    modules = result["modules"]
    assert "ioa_p2p.dht.pages" in modules and "ioa_p2p.dht.validators" in modules
    assert result["verdicts"] == [ok for _, _, ok in pages]
    assert len(pages) == 2 * 2 * 18  # every cell of a card (18) in both families, and a wrong one each
    assert _loaded(modules, ("numpy", "ioa_p2p.matching", "snowballstemmer") + MODEL_PACKAGES) == []


def test_the_calculator_loads_no_planner_and_stemming_loads_english_only(tmp_path: Path) -> None:
    """An agent with the calculator adapter reads the planner's values (its dates): that no longer runs the
    planner package's ``__init__`` (the whole planner, ~45 modules); stemming a card's terms loads
    snowballstemmer's English stemmer, not its 30 other languages, with the same stems."""
    result = _run(
        """
        import json, sys
        import ioa_p2p.adapters.calculator
        calculator = sorted(sys.modules)
        from ioa_p2p.matching.text import stem
        words = ["running", "agents", "calculations", "happiness", "generously", "conditional", "skies"]
        stems = [stem(w) for w in words]
        stemmed = sorted(sys.modules)
        import snowballstemmer
        full = snowballstemmer.stemmer("english")
        from ioa_p2p.planning import Value, plan_request  # the package's names, on first use
        print(json.dumps({"calculator": calculator, "stemmed": stemmed, "plan": callable(plan_request),
                          "same": stems == [full.stemWord(w) for w in words], "value": Value.__name__}))
        """,
        tmp_path,
    )
    assert "ioa_p2p.planning.values" in result["calculator"]
    assert _loaded(result["calculator"], ("ioa_p2p.planning.parse", "ioa_p2p.planning.compose")) == []
    assert not any(m == "snowballstemmer" or m.startswith("snowballstemmer.") for m in result["stemmed"])
    assert result["same"] and result["plan"] and result["value"] == "Value"


def test_warm_takes_a_boolean_or_auto_and_unload_idle_seconds() -> None:
    from ioa_p2p.dht.settings import DiscoverySettings
    from ioa_p2p.errors import ConfigError

    assert DiscoverySettings.from_section({}).warm == "auto"
    assert DiscoverySettings.from_section({}).unload_idle == 300.0
    for value in (True, False, "auto"):
        assert DiscoverySettings.from_section({"warm": value}).warm is value or value == "auto"
    for bad in ("yes", 1, 0, "true"):
        with pytest.raises(ConfigError, match=r'\[discovery\]\.warm must be true, false or "auto"'):
            DiscoverySettings.from_section({"warm": bad})
    with pytest.raises(ConfigError, match=r"\[discovery\]\.unload_idle must be"):
        DiscoverySettings.from_section({"unload_idle": -1})
