"""`ioa init` / `ioa id` and the key-file error cases, through click's CliRunner."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from ioa_p2p.cli import main
from ioa_p2p.identity import PeerId


def run(home, *args):
    return CliRunner().invoke(main, ["--home", str(home), *args], catch_exceptions=False)


def test_init_creates_key_0600_and_config(tmp_path) -> None:
    home = tmp_path / "h"
    result = run(home, "init", "--json", "--name", "plotter")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    PeerId.from_string(out["peer_id"])
    assert (home / "node.key").stat().st_mode & 0o777 == 0o600
    assert 'name = "plotter"' in (home / "config.toml").read_text()
    shown = run(home, "id")
    assert shown.exit_code == 0 and shown.output.strip() == out["peer_id"]
    as_json = json.loads(run(home, "id", "--json").output)
    assert as_json["peer_id"] == out["peer_id"]
    assert bytes.fromhex(as_json["public_key"]) == PeerId.from_string(out["peer_id"]).public_key


def test_init_refuses_to_overwrite_without_force(tmp_path) -> None:
    home = tmp_path / "h"
    first = json.loads(run(home, "init", "--json").output)["peer_id"]
    again = run(home, "init")
    assert again.exit_code == 1 and "--force" in again.output
    assert run(home, "id").output.strip() == first
    forced = json.loads(run(home, "init", "--force", "--json").output)["peer_id"]
    assert forced != first and run(home, "id").output.strip() == forced


def test_env_var_home(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("IOA_HOME", str(tmp_path / "envhome"))
    result = CliRunner().invoke(main, ["init"])
    assert result.exit_code == 0
    assert (tmp_path / "envhome" / "node.key").exists()


def _broken(tmp_path, content: bytes, mode: int = 0o600):
    home = tmp_path / "h"
    home.mkdir()
    key = home / "node.key"
    key.write_bytes(content)
    os.chmod(key, mode)
    return home, key


def _assert_names_file(result, key, words) -> None:
    assert result.exit_code != 0
    assert str(key) in result.output
    assert any(w in result.output for w in words), result.output


def test_missing_key(tmp_path) -> None:
    result = run(tmp_path / "nothing", "id")
    assert result.exit_code == 1 and "ioa init" in result.output


def test_corrupt_key(tmp_path) -> None:
    home, key = _broken(tmp_path, b"this is not a key")
    _assert_names_file(run(home, "id"), key, ["corrupt"])


def test_truncated_key(tmp_path) -> None:
    good = ed25519.Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    home, key = _broken(tmp_path, good[: len(good) // 2])
    _assert_names_file(run(home, "id"), key, ["corrupt", "truncated"])
    assert key.read_bytes() == good[: len(good) // 2]  # never silently regenerated


def test_wrong_mode_key(tmp_path) -> None:
    home = tmp_path / "h"
    run(home, "init")
    key = home / "node.key"
    os.chmod(key, 0o644)
    _assert_names_file(run(home, "id"), key, ["0644"])


def test_foreign_key(tmp_path) -> None:
    foreign = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    home, key = _broken(tmp_path, foreign)
    _assert_names_file(run(home, "id"), key, ["not Ed25519"])


def test_json_errors_are_json(tmp_path) -> None:
    result = run(tmp_path / "nothing", "id", "--json")
    assert result.exit_code == 1
    assert json.loads(result.output)["error"]["type"] == "KeyFileError"


def test_usage_error_exit_code(tmp_path) -> None:
    result = CliRunner().invoke(main, ["id", "--bogus"])
    assert result.exit_code == 2


def test_peers_without_a_running_node(tmp_path) -> None:
    result = run(tmp_path / "h", "peers")
    assert result.exit_code == 1 and "ioa node start" in result.output
