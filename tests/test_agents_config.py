"""The ``[[agents]]`` list (config.toml or ``ioa node start --agents FILE``): one spec per agent (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ioa_p2p.config import parse_config
from ioa_p2p.errors import ConfigError
from ioa_p2p.node.agents import agent_specs, plan_of_config, read_agents_file
from ioa_p2p.node.agents.config import agents_file_plan, any_port
from ioa_p2p.node.config_check import check_config


def _config(home: Path, **tables: object) -> object:
    return parse_config(home, dict(tables), source="c.toml")


def test_each_entry_becomes_whole_node_configs_with_unique_names_and_own_homes(tmp_path: Path) -> None:
    config = parse_config(
        tmp_path,
        {
            "node": {
                "listen": ["/ip4/127.0.0.1/tcp/4001"],
                "bootstrap": [],
                "announce": ["/ip4/6.0.0.1/tcp/4001"],
            },
            "agent": {"skills": ["shared"], "description": "default"},
            "limits": {"frame_timeout": 7},
            "agents": [
                {"name": "calc", "adapter": "calculator", "count": 3},
                {"description": "writes", "listen": "/ip4/127.0.0.1/tcp/4100", "control_port": 7100},
                {"name": "calc", "home": "elsewhere/calc"},
            ],
        },
        source="c.toml",
    )
    plan = plan_of_config(config, "c.toml")
    assert plan is not None
    specs = agent_specs(config, plan)
    assert [s.name for s in specs] == ["calc", "calc-2", "calc-3", "agent", "calc-4"]
    homes = [s.home for s in specs]
    assert homes[:4] == [(tmp_path / "agents" / n).resolve() for n in ("calc", "calc-2", "calc-3", "agent")]
    assert homes[4] == (tmp_path / "elsewhere" / "calc").resolve()
    first, writer = specs[0].config, specs[3].config
    assert first.listen == ("/ip4/127.0.0.1/tcp/0",)  # every agent its own port: the OS picks
    assert first.announce == ()  # the process's announce names its port: not shared
    assert writer.listen == ("/ip4/127.0.0.1/tcp/4100",) and writer.control_port == 7100
    assert first.section("agent") == {
        "name": "calc",
        "adapter": "calculator",
        "skills": ["shared"],
        "description": "default",
    }  # [agent] gives the defaults an entry's keys override; the entry's own keys are not card keys
    assert writer.section("agent")["description"] == "writes"
    assert first.section("limits") == {"frame_timeout": 7}  # every other table is shared
    assert "agents" not in first.raw


def test_relative_adapter_paths_are_taken_from_the_agents_file_folder(tmp_path: Path) -> None:
    folder = tmp_path / "lab"
    folder.mkdir()
    path = folder / "agents.toml"
    path.write_text(
        '[[agents]]\nname = "handbook"\nadapter = "retrieval"\n[agents.options]\npath = "docs"\n', "utf-8"
    )
    home = tmp_path / "home"
    (spec,) = agent_specs(parse_config(home, {}), read_agents_file(path))
    assert spec.config.section("agent")["options"]["path"] == str(folder.resolve() / "docs")
    assert spec.home == (home / "agents" / "handbook").resolve()
    rooted = agents_file_plan({"root": "lab-agents", "agents": [{"name": "x"}]}, path)
    assert agent_specs(parse_config(home, {}), rooted)[0].home == (home / "lab-agents" / "x").resolve()


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"agents": [{"count": 0}]}, "[[agents]].count #1 of f.toml must be an integer between 1 and 512"),
        ({"agents": [{"listen": 5}]}, ".listen #1 of f.toml must be a multiaddr string"),
        ({"agents": [{"name": "a", "home": "h", "count": 2}]}, "home names one agent's folder"),
        ({"agents": [{"home": "same"}, {"home": "same"}]}, "would share its home"),
        ({"agents": {"name": "a"}}, "must be a list of tables, written [[agents]]"),
        ({"agents": []}, "names no agent"),
        ({"agents": [{"count": 300}, {"count": 300}]}, "one process runs at most 512"),
        ({"agent": [{"adapter": "calculator"}]}, "has no [[agents]] list (the testnet's [[agent]] form"),
        ({"agents": [{}], "rot": "x"}, "unknown keys in the agents file f.toml: ['rot']"),
    ],
)
def test_a_wrong_agents_list_is_a_config_error_naming_the_entry_and_key(
    tmp_path: Path, raw: dict[str, object], words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        agent_specs(parse_config(tmp_path, {}), agents_file_plan(raw, Path("f.toml")))
    assert words in str(caught.value)


def test_a_missing_or_broken_agents_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read agents file"):
        read_agents_file(tmp_path / "absent.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[agents]\n", "utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        read_agents_file(bad)


def test_any_port_frees_every_port_and_keeps_the_rest() -> None:
    assert any_port("/ip4/0.0.0.0/tcp/4001") == "/ip4/0.0.0.0/tcp/0"
    assert any_port("/ip6/::1/udp/4001/quic-v1") == "/ip6/::1/udp/0/quic-v1"
    assert any_port("/dns4/tcp.example.org/tcp/0") == "/dns4/tcp.example.org/tcp/0"


def test_config_check_reads_every_agent_of_the_list(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[[agents]]\nadapter = "calculator"\n[[agents]]\nadapter = "calculator"\n', "utf-8")
    report = check_config(tmp_path, path)
    assert report.adapter == "calculator" and "agents" in report.tables
    path.write_text(
        '[[agents]]\nadapter = "calculator"\n[[agents]]\nadapter = "calculator"\n'
        '[agents.options]\nmax_bits = "many"\n',
        "utf-8",
    )
    with pytest.raises(ConfigError, match="max_bits of adapter 'calculator' must be an integer"):
        check_config(tmp_path, path)
