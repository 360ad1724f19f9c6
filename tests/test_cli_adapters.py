"""``ioa adapters`` and the ``[adapter]`` form of the adapter configuration (``ioa node start --adapter``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ioa_p2p.cli import main
from ioa_p2p.config import parse_config
from ioa_p2p.errors import ConfigError


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
