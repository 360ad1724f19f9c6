"""What a node adds to its adapter's options: the node home for folders and hidden paths, its [model] table
for kinds that declare USES_MODEL, and starting an adapter's long-lived part before its card is used."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import trio

from ioa_p2p.adapters.registry import adapter_uses_model
from ioa_p2p.node.goals.runtime import adapter_table, load_runtime

MCP_SERVER = [sys.executable, str(Path(__file__).with_name("mcp_server.py"))]
MODEL = {"base_url": "http://127.0.0.1:1/v1", "model": "tiny"}


def test_model_using_kinds_get_the_node_model_table(tmp_path: Path) -> None:
    assert [k for k in ("llm", "mcp", "smolagents", "open_interpreter") if adapter_uses_model(k)] == [
        "llm", "mcp", "smolagents", "open_interpreter"
    ]  # fmt: skip
    assert (
        not adapter_uses_model("calculator")
        and not adapter_uses_model("nope")
        and not adapter_uses_model(None)
    )
    filled = adapter_table({"adapter": "llm"}, tmp_path, model=MODEL, uses_model=True)
    assert filled["options"]["model"] == MODEL
    own = {"base_url": "http://127.0.0.1:2/v1"}
    kept = adapter_table(
        {"adapter": "llm", "options": {"model": own}}, tmp_path, model=MODEL, uses_model=True
    )
    assert kept["options"]["model"] == own
    plain = adapter_table({"adapter": "calculator"}, tmp_path, model=MODEL, uses_model=False)
    assert "model" not in plain["options"]


def test_llm_folders_are_under_the_node_home_and_its_python_hides_it(tmp_path: Path) -> None:
    table = adapter_table(
        {
            "adapter": "llm",
            "options": {"files": "notes", "retrieval": "/srv/docs", "python_options": {"timeout": 5}},
        },
        tmp_path,
    )
    options = table["options"]
    assert options["files"] == str(tmp_path / "notes") and options["retrieval"] == "/srv/docs"
    assert options["python_options"] == {"hide_paths": [str(tmp_path)], "timeout": 5}


async def test_the_runtime_starts_a_served_adapter_so_its_card_is_final(tmp_path: Path) -> None:
    runtime = load_runtime({"adapter": "mcp", "options": {"command": MCP_SERVER}}, tmp_path)
    assert runtime.card is not None and "add" not in runtime.card.skills  # not started: no tools yet
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await runtime.start(nursery)
            assert runtime.card is not None and "add" in runtime.card.skills
            result = await runtime.run("add(a=2, b=3)", deadline=time.time() + 30)
            await runtime.aclose()
    assert result.ok and result.text == "5"
