"""``ioa adapters`` and the ``[adapter]`` form of the adapter configuration (``ioa node start --adapter``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ioa_p2p.adapters.needs import NO_NEEDS, AdapterNeeds, undescribed_warning
from ioa_p2p.cli import main
from ioa_p2p.config import parse_config
from ioa_p2p.errors import ConfigError

from .conftest import NodeProcess, ioa_init_all, stop_all


def test_ioa_adapters_lists_kinds_options_and_missing_dependencies(tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["--home", str(tmp_path), "adapters", "--json"])
    assert out.exit_code == 0, out.output
    kinds = {item["kind"]: item for item in json.loads(out.output)}
    assert {"llm", "a2a", "mcp", "agent_protocol", "http", "smolagents", "open_interpreter", "python"} <= set(
        kinds
    )
    llm = kinds["llm"]
    assert llm["available"] and llm["executes_code"] and llm["uses_model"]
    options = {o["name"]: o for o in llm["options"]}
    assert options["max_steps"]["default"] == 8 and options["http_get"]["default"] is False
    assert kinds["a2a"]["options"][0] == {"name": "url", "type": "str", "default": None, "required": True}
    for kind in ("python", "calculator", "retrieval", "echo"):  # the built-ins list their options too
        assert kinds[kind]["options"], kind
    timeout = {"name": "timeout", "type": "float", "default": 10.0, "required": False}
    assert timeout in kinds["python"]["options"]
    oi = kinds["open_interpreter"]
    if not oi["available"]:  # the normal case here: pip cannot install it beside a2a-sdk (docs/adapters.md)
        assert (
            "open-interpreter" in oi["missing"] and "pip install 'ioa-p2p[open-interpreter]'" in oi["install"]
        )
    text = CliRunner().invoke(main, ["--home", str(tmp_path), "adapters"])
    assert text.exit_code == 0 and "llm  [ioa-p2p]  ok  (runs code, uses [model])" in text.output
    assert "    max_steps: int = 8" in text.output


def test_the_adapter_table_folds_into_agent(tmp_path: Path) -> None:
    raw = {"agent": {"name": "a"}, "adapter": {"kind": "llm", "options": {"max_steps": 3}}}
    agent = parse_config(tmp_path, raw).section("agent")
    assert agent == {"name": "a", "adapter": "llm", "options": {"max_steps": 3}}
    only_options = parse_config(tmp_path, {"adapter": {"options": {"max_steps": 3}}})
    started = only_options.with_overrides(
        sections={"agent": {"adapter": "llm"}}
    )  # ioa node start --adapter llm
    assert started.section("agent") == {"adapter": "llm", "options": {"max_steps": 3}}


@pytest.mark.parametrize(
    "raw",
    [
        {"adapter": "llm"},
        {"adapter": {"kind": "llm", "colour": "red"}},
        {"agent": {"adapter": "python"}, "adapter": {"kind": "llm"}},
        {"agent": {"options": {}}, "adapter": {"options": {}}},
    ],
)
def test_contradicting_adapter_tables_are_config_errors(tmp_path: Path, raw: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        parse_config(tmp_path, raw)


def test_an_undescribed_agent_without_a_card_of_its_own_is_warned_about() -> None:
    http = AdapterNeeds(self_described=False)
    bare = {"adapter": "http", "options": {"url": "http://127.0.0.1:1/x"}}
    assert "publishes no card" in (undescribed_warning("http", http, bare) or "")
    assert undescribed_warning("http", http, {**bare, "skills": ["summaries"]}) is None
    assert undescribed_warning("http", http, {**bare, "options": {"description": "Summarises."}}) is None
    assert undescribed_warning("a2a", NO_NEEDS, bare) is None  # the remote card describes it


@pytest.mark.slow
def test_ioa_node_start_warns_about_an_agent_protocol_or_http_agent_nobody_described(tmp_path: Path) -> None:
    homes = [tmp_path / "bare", tmp_path / "described"]
    ioa_init_all(homes)
    for home, kind in zip(homes, ("agent_protocol", "http"), strict=True):
        (home / "config.toml").write_text(f'[agent.options]\nurl = "http://127.0.0.1:1/{kind}"\n')
    common = ("--listen", "/ip4/127.0.0.1/tcp/0", "--adapter")
    bare = NodeProcess(homes[0], *common, "agent_protocol")
    described = NodeProcess(homes[1], *common, "http", "--description", "Summarises reports.")
    try:
        bare.wait_listening()
        described.wait_listening()
    finally:
        stop_all([bare, described])
    warning = "warning: the agent_protocol agent publishes no card of its own"
    assert warning in bare.output() and "[agent] description and skills" in bare.output()
    assert "warning:" not in described.output()
