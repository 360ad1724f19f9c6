"""Structured capability fields: agent card version 2 (round trip, validation, version choice), the
``[agent]`` settings and CLI flags that fill them, adapters' cards, and what the matcher reads of them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ioa_p2p.card import AgentCard, AgentCardV2, issue_card, parse_card, structured_fields
from ioa_p2p.dht.ranking import card_profile
from ioa_p2p.dht.settings import AgentSettings
from ioa_p2p.errors import ConfigError, InvalidCard, SchemaError
from ioa_p2p.identity import Identity

NOW = 1_700_000_000_000
ME = Identity(b"\x07" * 32)


def card(**fields: object):
    return issue_card(ME, name="reader", description="Reads scans.", model="m", vector=[1.0, 0.0],
                      version=1, now_ms=NOW, **fields)  # type: ignore[arg-type]  # fmt: skip


def test_version_2_round_trip_and_version_1_without_structured_fields() -> None:
    v2 = card(
        languages=["de", "fr"], input_types=["application/pdf"], output_types=["text/plain"], tools=["ocr"]
    )
    parsed = parse_card(v2.encoded, now_ms=NOW + 1)
    assert isinstance(parsed.card, AgentCardV2) and parsed.envelope.body.VERSION == 2
    assert structured_fields(parsed.card) == {
        "languages": ("de", "fr"), "input_types": ("application/pdf",), "output_types": ("text/plain",),
        "tools": ("ocr",),
    }  # fmt: skip
    assert parsed.summary()["languages"] == ["de", "fr"] and parsed.summary()["tools"] == ["ocr"]
    plain = parse_card(card().encoded, now_ms=NOW + 1)  # nothing structured: a version 1 card, as before
    assert type(plain.card) is AgentCard and plain.envelope.body.VERSION == 1
    assert plain.summary()["languages"] == [] and structured_fields(plain.card)["tools"] == ()


def test_version_2_fields_are_validated() -> None:
    with pytest.raises(InvalidCard, match="languages"):
        card(languages=["x"] * 33)
    with pytest.raises(InvalidCard, match="tools"):
        card(tools=["  "])
    with pytest.raises(InvalidCard, match="input_types"):
        card(input_types=["a" * 65])
    body = parse_card(card(tools=["ocr"]).encoded, now_ms=NOW + 1).envelope.body.to_value()
    del body["tools"]  # every field of a version is always present on the wire
    with pytest.raises(SchemaError, match="missing fields"):
        AgentCardV2.from_value(body)


def test_agent_settings_and_cli_flags_fill_the_fields(tmp_path) -> None:
    peer = ME.peer_id
    agent = AgentSettings.from_section({"name": "r", "languages": "de", "tools": ["ocr", "pdf"]}, peer)
    assert agent.languages == ("de",) and agent.tools == ("ocr", "pdf") and agent.input_types == ()
    changed = agent.with_changes({"output_types": ["text/plain"]}, peer)
    assert changed.output_types == ("text/plain",) and changed.languages == ("de",)
    with pytest.raises(ConfigError, match="input_types"):
        AgentSettings.from_section({"input_types": [1]}, peer)

    from ioa_p2p.cli import main

    result = CliRunner().invoke(main, ["node", "start", "--help"])
    assert result.exit_code == 0
    for flag in ("--skill", "--language", "--input-type", "--output-type", "--tool"):
        assert flag in result.output


def test_adapters_describe_structured_fields_and_the_matcher_reads_them() -> None:
    from ioa_p2p.adapters.calculator import CalculatorAdapter
    from ioa_p2p.adapters.python import PythonAdapter

    python = PythonAdapter.from_options({}).describe()
    assert python.tools == ("python",) and "image/png" in python.output_types
    assert python.with_overrides(name="x").tools == ("python",) and python.to_dict()["tools"] == ["python"]
    assert CalculatorAdapter.from_options({}).describe().input_types == ("text/plain",)
    profile = card_profile(card(languages=["de"], input_types=["application/pdf"]).card)
    assert profile.dense_text() == "Reads scans. Languages: german. Input: pdf."
    assert profile.lexical_fields()["languages"] == "german"
