"""The [agent] and [discovery] config tables."""

from __future__ import annotations

import pytest

from ioa_p2p.dht.settings import AgentSettings, DiscoverySettings
from ioa_p2p.errors import ConfigError
from ioa_p2p.identity import Identity

PEER = Identity(b"\x03" * 32).peer_id


def test_defaults() -> None:
    settings = DiscoverySettings.from_section({})
    assert settings.enabled and settings.gossip and settings.dht
    assert settings.ttl == 1800 and settings.republish == 600
    assert settings.probes == 40 and settings.ask == 2 and settings.enumerate == 200


def test_republish_defaults_to_a_third_of_the_ttl_and_must_be_shorter() -> None:
    assert DiscoverySettings.from_section({"ttl": 9}).republish == 3
    assert DiscoverySettings.from_section({"ttl": 9, "republish": 4.5}).republish == 4.5
    with pytest.raises(ConfigError, match="shorter than"):
        DiscoverySettings.from_section({"ttl": 9, "republish": 9})


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"colour": 1}, "unknown keys"),
        ({"ttl": "long"}, "number"),
        ({"ttl": 1}, "between"),
        ({"probes": 2.5}, "integer"),
        ({"ask": 0}, "between"),
        ({"gossip": "yes"}, "true or false"),
        ({"index": 3}, "table"),
        ({"ttl": True}, "number"),
    ],
)
def test_bad_discovery_tables(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DiscoverySettings.from_section(table)


def test_index_table_is_passed_through() -> None:
    settings = DiscoverySettings.from_section({"index": {"kind": "exact"}})
    assert settings.index == {"kind": "exact"}


def test_agent_table() -> None:
    agent = AgentSettings.from_section(
        {"name": "plotter", "description": "plots", "skills": "charts", "task_types": ["plot"], "other": 1},
        PEER,
    )
    assert agent.skills == ("charts",) and agent.task_types == ("plot",)
    assert AgentSettings.from_section({}, PEER).name == f"agent-{PEER.short()}"
    assert AgentSettings.from_section({"name": "  "}, PEER).name == f"agent-{PEER.short()}"
    changed = agent.with_changes({"description": "bakes bread"}, PEER)
    assert changed.description == "bakes bread" and changed.name == "plotter"
    with pytest.raises(ConfigError, match="text"):
        AgentSettings.from_section({"name": 3}, PEER)
    with pytest.raises(ConfigError, match="list of text"):
        AgentSettings.from_section({"skills": [1, 2]}, PEER)
