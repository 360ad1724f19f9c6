"""``ioa init``'s commented config template (made from the section dataclasses) and ``ioa config check``."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import tomllib
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner

from ioa_p2p.cli import main
from ioa_p2p.config.sections import parse_section
from ioa_p2p.config.template import default_of, table_keys
from ioa_p2p.errors import ConfigError
from ioa_p2p.identity import Identity
from ioa_p2p.node.config_check import CONFIG_TABLES, OTHER_TABLES, check_config, config_template

from .test_config_sections import SECTIONS

ROOT = Path(__file__).resolve().parents[1]
KEY_LINE = re.compile(r"^# (\w+) = (.*?)(  # .*)?$")


def uncommented(template: str) -> dict[str, dict[str, object]]:
    """Every table of the template with every ``# key = value`` line taken as set."""
    text, table = [], ""
    for line in template.splitlines():
        header = re.match(r"^#? ?\[([\w.]+)\]$", line)
        if header:
            table = header.group(1)
            text.append(f"[{table}]")
        elif (key := KEY_LINE.match(line)) and table:
            text.append(f"{key.group(1)} = {key.group(2)}")
        elif line and not line.startswith("#"):
            text.append(line)
    return tomllib.loads("\n".join(text))


def test_the_template_shows_every_key_of_every_table_at_its_default(tmp_path: Path) -> None:
    template = config_template("writer")
    for doc in CONFIG_TABLES:
        assert f"[{doc.name}]" in template
        for f in table_keys(doc):
            assert re.search(rf"^#? ?{f.name}( = |: )", template, re.M), f"[{doc.name}].{f.name} missing"
    raw = uncommented(template)
    for doc in CONFIG_TABLES:
        table = raw
        for part in doc.name.split("."):
            table = table[part]  # type: ignore[assignment]
        values = {k: v for k, v in table.items() if k not in doc.skip and not isinstance(v, dict)}
        keys = {f.name for f in table_keys(doc)}
        given = {f.name: default_of(f) for f in dataclasses.fields(doc.cls) if f.name not in keys}
        parsed = parse_section(doc.cls, values, f"[{doc.name}]", given=given)
        for f in table_keys(doc):
            expected = "writer" if (doc.name, f.name) == ("agent", "name") else default_of(f)
            assert getattr(parsed, f.name) == expected, f"[{doc.name}].{f.name}"
    path = tmp_path / "all.toml"
    path.write_text(tomli_w.dumps(raw))
    assert check_config(tmp_path, path).adapter is None  # every default, uncommented, is a valid config


def test_every_table_the_node_reads_is_in_the_template_and_parsed_by_the_one_parser() -> None:
    read: set[str] = set()
    for folder in ("ioa_p2p", "node", "dht", "adapters", "bootstrap"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "attr", "") == "section"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    read.add(node.args[0].value)
    tables = {doc.name.split(".")[0] for doc in CONFIG_TABLES}
    assert read <= tables | set(OTHER_TABLES), (
        f"tables the node reads but the template lacks: {read - tables}"
    )
    assert {doc.cls.__name__ for doc in CONFIG_TABLES} - {"WordLlamaSettings"} <= {s.cls for s in SECTIONS}


def test_ioa_init_writes_the_template_and_config_check_accepts_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["--home", str(home), "init", "--name", "calc-1"])
    assert out.exit_code == 0, out.output
    text = (home / "config.toml").read_text()
    assert text == config_template("calc-1") and '[agent]\nname = "calc-1"' in text
    checked = CliRunner().invoke(main, ["--home", str(home), "config", "check", "--json"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.output) == {
        "file": str(home / "config.toml"), "ok": True, "tables": ["agent"], "adapter": None
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("[limits]\nframe_timeout = 0\n", "ConfigError", "[limits].frame_timeout must be a positive number"),
        ("[discovry]\nttl = 60\n", "ConfigError", "unknown table [discovry]"),
        ("[goals]\nmax_turns = -1\n", "ConfigError", "[goals].max_turns must be an integer"),
        ("[relay]\nhops = 1\n", "ConfigError", "unknown keys in [relay] of"),
        ("[discovery.index]\nkind = 'faiss'\n", "ConfigError", "[discovery.index].kind must be one of"),
        ("[embedding]\nbackend = 'word2vec'\n", "ConfigError", "unknown embedding backend 'word2vec'"),
        ("[model]\ntimeout = 'soon'\n", "ConfigError", "[model].timeout must be a positive number"),
        ("[agent]\nskills = 3\n", "ConfigError", "[agent].skills must be text or a list of text"),
        (
            "[agent]\nadapter = 'calculator'\n[agent.options]\nmax_bits = 'many'\n",
            "AdapterOptionsError",
            "[agent.options].max_bits of adapter 'calculator' must be",
        ),
        ("[agent]\nadapter = 'no-such-kind'\n", "UnknownAdapter", "no adapter of kind 'no-such-kind'"),
        ("[node\nlisten = 1\n", "ConfigError", "is not valid TOML"),
        ("[a2a]\nlisten = 'anywhere'\n", "ConfigError", "[a2a].listen"),
        ("[a2a]\nmax_running = 9\nmax_tasks = 8\n", "ConfigError", "[a2a].max_running (9) exceeds max_tasks"),
        ("[a2a]\ntls_cert = 'c.pem'\n", "ConfigError", "[a2a]: give both tls_cert and tls_key"),
        (
            "[a2a]\nenabled = true\nlisten = '0.0.0.0:8470'\n",
            "ConfigError",
            "[a2a].listen = '0.0.0.0:8470' would send",
        ),
        ("[node]\nlisten = '/ip4/1.2.3/tcp/0'\n", "ConfigError", "[node].listen: '/ip4/1.2.3/tcp/0' is not"),
        ("[node]\nannounce = 'example'\n", "ConfigError", "[node].announce: 'example' is not a valid"),
        ("[node]\nbootstrap = '/ip4/127.0.0.1/tcp/1'\n", "ConfigError", "must end with /p2p/<peer id>"),
        ("[node]\nbootstrap_file = 'nowhere.txt'\n", "ConfigError", "bootstrap_file (or --bootstrap-file)"),
        ("[node]\nreachability = 'maybe'\n", "ConfigError", "must be one of ['auto', 'public', 'private']"),
    ],
)
def test_config_check_names_the_table_and_key_with_the_typed_error(
    tmp_path: Path, text: str, error: str, words: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    out = CliRunner().invoke(main, ["--home", str(tmp_path), "config", "check", str(path)])
    assert out.exit_code == 2 and f"{path}: {error}: " in out.output and words in out.output, out.output
    as_json = CliRunner().invoke(main, ["--home", str(tmp_path), "config", "check", str(path), "--json"])
    assert as_json.exit_code == 2 and json.loads(as_json.output)["error"]["type"] == error


def test_config_check_builds_the_adapter_with_the_node_defaults(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    path = tmp_path / "c.toml"
    path.write_text("[adapter]\nkind = 'retrieval'\n[adapter.options]\npath = 'docs'\ntop_k = 2\n")
    report = check_config(tmp_path, path)  # the relative folder is under the node home, as at start
    assert report.adapter == "retrieval" and report.tables == ("agent",)
    missing = CliRunner().invoke(
        main, ["--home", str(tmp_path), "config", "check", str(tmp_path / "no.toml")]
    )
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_config_check_reads_the_bootstrap_file_as_a_starting_node(tmp_path: Path) -> None:
    peer = Identity.generate().peer_id
    (tmp_path / "peers.txt").write_text(f"# the lab's bootstrap node\n/ip4/127.0.0.1/tcp/4001/p2p/{peer}\n")
    path = tmp_path / "c.toml"
    path.write_text("[node]\nbootstrap_file = 'peers.txt'\nannounce = ['/dns4/example.org/tcp/4001']\n")
    assert check_config(tmp_path, path).tables == ("node",)  # relative to the node home, as at start
    (tmp_path / "peers.txt").write_text("/ip4/127.0.0.1/tcp/4001\n")
    with pytest.raises(ConfigError, match=r"bootstrap_file.*must end with /p2p/<peer id>"):
        check_config(tmp_path, path)
