"""Config parsing: defaults, overrides, and typed errors naming the file."""

from __future__ import annotations

import pytest

from ioa_p2p.config.node_config import load_config
from ioa_p2p.errors import ConfigError
from ioa_p2p.node.config_check import write_config_template


def test_defaults_without_a_file(tmp_path) -> None:
    config = load_config(tmp_path)
    assert config.listen == ("/ip4/127.0.0.1/tcp/0",) and config.bootstrap == ()
    assert config.section("agent") == {}


def test_written_template_roundtrips(tmp_path) -> None:
    write_config_template(tmp_path, name="x")
    config = load_config(tmp_path)
    assert config.section("agent") == {"name": "x"} and config.listen == ("/ip4/127.0.0.1/tcp/0",)


def test_overrides(tmp_path) -> None:
    config = load_config(tmp_path).with_overrides(
        listen=("/ip4/127.0.0.1/tcp/4001",),
        bootstrap=("/ip4/127.0.0.1/tcp/1/p2p/x",),
        sections={"agent": {"name": "n"}},
    )
    assert config.listen == ("/ip4/127.0.0.1/tcp/4001",)
    assert config.bootstrap == ("/ip4/127.0.0.1/tcp/1/p2p/x",)
    assert config.section("agent") == {"name": "n"}


@pytest.mark.parametrize(
    "text",
    [
        "[node\nlisten=",
        "[node]\nlisten = 5",
        "[node]\nbogus = 1",
        "[node]\ncontrol_port = -1",
        "node = 3",
        "[node]\ncontrol_port = 1.5",
    ],
)
def test_bad_configs(tmp_path, text) -> None:
    (tmp_path / "config.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert "config.toml" in str(caught.value)


def test_missing_explicit_file(tmp_path) -> None:
    with pytest.raises(ConfigError):
        load_config(tmp_path, path=tmp_path / "nope.toml")
