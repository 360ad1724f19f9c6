"""What a node adds to its adapter's options, as each kind declares (``NEEDS``, an ``AdapterNeeds``): the node
home for folders and hidden paths, its [model] table; the node knows no kind by name; and starting an
adapter's long-lived part before its card is used."""

from __future__ import annotations

import ast
import sys
import time
from pathlib import Path

import trio

from ioa_p2p.adapters.needs import NO_NEEDS, AdapterNeeds
from ioa_p2p.adapters.registry import adapter_needs, adapter_uses_model, list_adapters
from ioa_p2p.node.goals import runtime as runtime_module
from ioa_p2p.node.goals import tasks as tasks_module
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
    filled = adapter_table({"adapter": "llm"}, tmp_path, model=MODEL)
    assert filled["options"]["model"] == MODEL
    own = {"base_url": "http://127.0.0.1:2/v1"}
    kept = adapter_table({"adapter": "llm", "options": {"model": own}}, tmp_path, model=MODEL)
    assert kept["options"]["model"] == own
    plain = adapter_table({"adapter": "calculator"}, tmp_path, model=MODEL)
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


def test_needs_are_provided_generically_with_dotted_option_names(tmp_path: Path) -> None:
    needs = AdapterNeeds(
        model=True, home_paths=("data", "sub.folder", "gone.x"), hide_home=("sandbox.hide", "hide")
    )
    options = {"data": "in/home", "sub": {"folder": "~/abs", "keep": 1}, "hide": [], "gone": "not a table"}
    out = needs.provide(options, home=tmp_path, model=MODEL)
    assert out["data"] == str(tmp_path / "in/home") and out["sub"]["folder"] == str(
        Path("~/abs").expanduser()
    )
    assert out["sandbox"] == {"hide": [str(tmp_path)]} and out["hide"] == []  # an explicit value is kept
    assert out["gone"] == "not a table" and out["model"] == MODEL  # a wrong type is left for the kind
    assert options["sub"] == {"folder": "~/abs", "keep": 1} and "sandbox" not in options  # input untouched
    assert NO_NEEDS.provide(options, home=tmp_path, model=MODEL) == options


def test_built_in_kinds_declare_what_they_need_and_the_node_names_no_kind() -> None:
    assert adapter_needs("python") == AdapterNeeds(hide_home=("hide_paths",), executes_code=True)
    assert adapter_needs("retrieval").home_paths == ("path",)
    assert adapter_needs("llm").hide_home == ("python_options.hide_paths",)
    assert not adapter_needs("http").self_described and not adapter_needs("agent_protocol").self_described
    assert adapter_needs("a2a").self_described and adapter_needs("mcp").self_described
    assert adapter_needs("calculator") == adapter_needs(None) == adapter_needs("no-such-kind") == NO_NEEDS
    remote = {kind for kind in list_adapters() if adapter_needs(kind).calls_remote}
    assert remote == {"a2a", "mcp", "http", "agent_protocol"}  # traced as invoke_agent client spans
    for module in (runtime_module, tasks_module):
        source = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        strings = [n.value for n in ast.walk(source) if isinstance(n, ast.Constant)]
        literals = {v for v in strings if isinstance(v, str)}
        assert not literals & set(list_adapters()), f"{module.__name__} names an adapter kind"


async def test_the_runtime_starts_a_served_adapter_so_its_card_is_final(tmp_path: Path) -> None:
    runtime = load_runtime({"adapter": "mcp", "options": {"command": MCP_SERVER}}, tmp_path)
    assert runtime.card is not None and "add" not in runtime.card.skills  # not started: no tools yet
    assert runtime.needs == adapter_needs("mcp") and runtime.needs.calls_remote
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await runtime.start(nursery)
            assert runtime.card is not None and "add" in runtime.card.skills
            result = await runtime.run("add(a=2, b=3)", deadline=time.time() + 30)
            await runtime.aclose()
    assert result.ok and result.text == "5"
