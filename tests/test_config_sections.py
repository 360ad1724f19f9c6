"""The one typed config-section parser (ioa_p2p.config.sections) and proof that every section uses it."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from ioa_p2p.adapters import list_adapters, load_adapter
from ioa_p2p.adapters.mcp.adapter import McpOptions, chooser_from_options
from ioa_p2p.adapters.remote.endpoint import endpoint_from_settings
from ioa_p2p.bootstrap.agents import agents_plan
from ioa_p2p.config import Limits, parse_config
from ioa_p2p.config.gateway import A2ASettings
from ioa_p2p.config.sections import describe, key_name, parse_section, setting
from ioa_p2p.dht.index import make_index
from ioa_p2p.dht.settings import AgentSettings, DiscoverySettings
from ioa_p2p.embedding import make_embedder
from ioa_p2p.errors import AdapterLoadError, AdapterOptionsError, ConfigError
from ioa_p2p.identity import Identity
from ioa_p2p.llm import model_from_settings
from ioa_p2p.matching import make_matcher
from ioa_p2p.node.agents.config import agent_specs, agents_file_plan
from ioa_p2p.node.chats.config import ChatsConfig
from ioa_p2p.node.goals.types import GoalsConfig
from ioa_p2p.node.relay.settings import RelaySettings
from ioa_p2p.node.services import GoalsSwitch
from ioa_p2p.telemetry.settings import TelemetrySettings

ROOT = Path(__file__).resolve().parents[1]
PEER = Identity(b"\x05" * 32).peer_id


def _even(value: int) -> str | None:
    return None if value % 2 == 0 else "must be even (pairs of workers)"


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    count: int = setting(3, low=0)
    ratio: float = setting(0.5, above=0, high=1)
    wait: float = setting(2.0, above=0, unit="seconds")
    flag: bool = False
    tags: tuple[str, ...] = ()
    hosts: tuple[str, ...] = setting((), one_or_list=True)
    extra: dict[str, Any] = field(default_factory=dict)
    mode: Literal["fast", "safe"] = "safe"
    limit: int | None = setting(None, low=1, high=10)
    label: str | None = None
    workers: int = setting(2, check=_even)
    port: int = setting(0, low=0, high=65535, what="a TCP port 0..65535")


def parse(table: Any) -> Sample:
    return parse_section(Sample, table, "[sample]")


def test_every_supported_type_is_read_and_converted() -> None:
    sample = parse(
        {
            "name": "n",
            "count": 0,
            "ratio": 1,
            "wait": 3,
            "flag": True,
            "tags": ["a", "b"],
            "hosts": "h",
            "extra": {"k": [1]},
            "mode": "fast",
            "limit": 10,
            "label": "x",
            "workers": 4,
            "port": 65535,
        }
    )
    assert sample == Sample("n", 0, 1.0, 3.0, True, ("a", "b"), ("h",), {"k": [1]}, "fast", 10, "x", 4, 65535)
    assert isinstance(sample.ratio, float) and isinstance(sample.wait, float)
    assert parse({"name": "n", "hosts": ["h1", "h2"]}).hosts == ("h1", "h2")
    assert parse({"name": "n", "tags": ("a",)}).tags == ("a",)  # Python callers may pass tuples


def test_defaults_none_and_an_absent_table() -> None:
    assert parse({"name": "n"}) == Sample("n")
    assert parse({"name": "n", "limit": None, "label": None}).limit is None  # X | None takes None
    assert parse_section(Limits, None, "[limits]") == Limits()


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ({"count": "3"}, r"\[sample\]\.count must be a non-negative integer, not '3'"),
        ({"count": 2.5}, r"\[sample\]\.count must be a non-negative integer, not 2\.5"),
        ({"count": True}, r"\[sample\]\.count must be a non-negative integer, not True"),
        ({"count": -1}, r"\[sample\]\.count must be a non-negative integer, not -1"),
        ({"ratio": 0}, r"\[sample\]\.ratio must be a number > 0 and <= 1, not 0"),
        ({"ratio": 1.5}, r"\[sample\]\.ratio must be a number > 0 and <= 1, not 1\.5"),
        ({"ratio": math.nan}, r"\[sample\]\.ratio must be a number"),
        ({"ratio": math.inf}, r"\[sample\]\.ratio must be a number"),
        ({"wait": False}, r"\[sample\]\.wait must be a positive number of seconds, not False"),
        ({"flag": 1}, r"\[sample\]\.flag must be true or false, not 1"),
        ({"flag": "yes"}, r"\[sample\]\.flag must be true or false"),
        ({"name": 3}, r"\[sample\]\.name must be text, not 3"),
        ({"tags": "a"}, r"\[sample\]\.tags must be a list of text, not 'a'"),
        ({"tags": [1]}, r"\[sample\]\.tags must be a list of text, not \[1\]"),
        ({"hosts": [1]}, r"\[sample\]\.hosts must be text or a list of text"),
        ({"extra": [1]}, r"\[sample\]\.extra must be a table, not \[1\]"),
        ({"mode": "quick"}, r"\[sample\]\.mode must be one of \['fast', 'safe'\], not 'quick'"),
        ({"limit": 0}, r"\[sample\]\.limit must be an integer between 1 and 10, not 0"),
        ({"limit": "1"}, r"\[sample\]\.limit must be an integer between 1 and 10"),
        ({"label": 1}, r"\[sample\]\.label must be text, not 1"),
        ({"workers": 3}, r"\[sample\]\.workers: must be even \(pairs of workers\)"),
        ({"port": 65536}, r"\[sample\]\.port must be a TCP port 0\.\.65535, not 65536"),
        ({"colour": 1}, r"unknown keys in \[sample\]: \['colour'\]; known keys: \['count', .*'workers'\]"),
    ],
)
def test_bad_values_are_typed_errors_naming_table_and_key(table: dict[str, Any], said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        parse({"name": "n", **table})


def test_missing_required_keys_and_non_tables() -> None:
    with pytest.raises(ConfigError, match=r"\[sample\] lacks the required keys \['name'\]"):
        parse({})
    with pytest.raises(ConfigError, match=r"\[sample\] must be a table, not \[1\]"):
        parse([1])


def test_the_error_class_noun_given_fields_and_unknown_keys_left_to_others() -> None:
    where = "[agent.options] of adapter 'demo'"
    with pytest.raises(AdapterOptionsError, match=r"unknown options in \[agent\.options\] of adapter 'demo'"):
        parse_section(Sample, {"name": "n", "x": 1}, where, error=AdapterOptionsError, noun="options")
    with pytest.raises(AdapterOptionsError, match=r"\[agent\.options\]\.count of adapter 'demo' must be"):
        parse_section(Sample, {"name": "n", "count": -1}, where, error=AdapterOptionsError, noun="options")
    given = parse_section(Sample, {"count": 1}, "[sample]", given={"name": "fixed"})
    assert given.name == "fixed" and given.count == 1
    with pytest.raises(ConfigError, match="unknown keys"):
        parse_section(Sample, {"name": "n"}, "[sample]", given={"name": "fixed"})  # a given field is no key
    assert parse_section(Sample, {"name": "n", "theirs": 1}, "[sample]", ignore_unknown=True).name == "n"


def test_descriptions() -> None:
    assert describe(int) == "an integer" and describe(float) == "a number" and describe(str) == "text"
    assert describe(Literal["a"]) == "one of ['a']" and describe(dict[str, Any]) == "a table"
    assert describe(int | None) == "an integer"


def test_a_field_type_the_parser_cannot_read_is_a_programming_error() -> None:
    @dataclass(frozen=True)
    class Odd:
        when: set[str] = field(default_factory=set)

    with pytest.raises(TypeError, match="cannot read"):
        parse_section(Odd, {"when": []}, "[odd]")


# --------------------------------------------------------------------------- every section uses the parser


def _mcp_loop(table: dict[str, Any]) -> object:
    model = {"base_url": "http://127.0.0.1:9/v1"}
    return chooser_from_options(McpOptions(url="http://127.0.0.1:9/mcp", model=model, loop=table))


def _node(table: dict[str, Any]) -> object:
    return parse_config(Path("h"), {"node": table}, source="c.toml")


def _adapter(table: dict[str, Any]) -> object:
    return parse_config(Path("h"), {"adapter": table}, source="c.toml")


def _agents_file(table: dict[str, Any]) -> object:
    return agents_plan(table, Path("a.toml"))


def _agents_entry(table: dict[str, Any]) -> object:
    return agents_plan({"agent": [table]}, Path("a.toml"))


def _agents_list_entry(table: dict[str, Any]) -> object:
    return agent_specs(parse_config(Path("h"), {}), agents_file_plan({"agents": [table]}, Path("n.toml")))


def _agents_list_file(table: dict[str, Any]) -> object:
    return agents_file_plan({"agents": [{}], **table}, Path("n.toml"))


def _endpoint(table: dict[str, Any]) -> object:
    return endpoint_from_settings(table, kind="smolagents", env={})


@dataclass(frozen=True)
class Section:
    """One table of the configuration: the class the parser builds for it (as named in the product code's
    ``parse_section(<cls>, ...)`` call), how messages name it, one of its keys, how product code reads it."""

    cls: str
    where: str
    key: str
    read: Callable[[dict[str, Any]], object]
    error: type[ConfigError] = ConfigError
    strict: bool = True  # unknown keys refused (False: the table is shared with other readers)


OPTIONS = AdapterOptionsError
SECTIONS = (
    Section("Limits", "[limits]", "frame_timeout", Limits.from_section),
    Section("NodeConfig", "[node] of c.toml", "listen", _node),
    Section("AdapterTable", "[adapter] of c.toml", "kind", _adapter),
    Section("GoalsConfig", "[goals]", "timeout", GoalsConfig.from_section),
    Section("GoalsSwitch", "[goals]", "enabled", GoalsSwitch.from_section, strict=False),
    Section("ChatsConfig", "[chats]", "fsync", ChatsConfig.from_section),
    Section("DiscoverySettings", "[discovery]", "ttl", DiscoverySettings.from_section),
    Section("IndexSettings", "[discovery.index]", "n_trees", lambda t: make_index(t, 8)),
    Section("AgentSettings", "[agent]", "name", lambda t: AgentSettings.from_section(t, PEER), strict=False),
    Section("RelaySettings", "[relay] of c.toml", "hop", lambda t: RelaySettings.from_section(t, "c.toml")),
    Section("embedding_settings", "[embedding]", "dim", lambda t: make_embedder({"backend": "hashing", **t})),
    Section("ModelSettings", "[model]", "timeout", lambda t: model_from_settings(t, env={})),
    Section("ModelSettings", "[agent.options.model] of adapter 'smolagents'", "timeout", _endpoint, OPTIONS),
    Section("LoopOptions", "[agent.options.loop] of adapter 'mcp'", "max_steps", _mcp_loop, OPTIONS),
    Section("MatcherSettings", "the matcher settings", "shortlist", make_matcher),
    Section("AgentsFile", "the agents file a.toml", "config", _agents_file),
    Section("AgentEntry", "[agent] #1 of a.toml", "count", _agents_entry, strict=False),
    Section("AgentsEntry", "[[agents]] #1 of n.toml", "count", _agents_list_entry, strict=False),
    Section("AgentsFileTable", "the agents file n.toml", "root", _agents_list_file),
    Section("TelemetrySettings", "[telemetry]", "file", TelemetrySettings.from_section),
    Section("A2ASettings", "[a2a]", "listen", A2ASettings.from_section),
    Section(
        "parse_options",
        "[agent.options] of adapter 'calculator'",
        "max_bits",
        lambda t: load_adapter("calculator", t),
        OPTIONS,
    ),
)


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.where)
def test_every_section_refuses_a_wrong_type_naming_table_and_key(section: Section) -> None:
    with pytest.raises(section.error) as caught:
        section.read({section.key: object()})
    assert str(caught.value).startswith(f"{key_name(section.where, section.key)} must be "), str(caught.value)


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.where)
def test_every_strict_section_refuses_an_unknown_key_naming_its_table(section: Section) -> None:
    if not section.strict:
        section.read({"no_such_key": 1})  # [agent] is shared: the adapter's keys are not discovery's
        return
    with pytest.raises(
        section.error, match=r"unknown (keys|options|matcher options) in (.*): \['no_such_key'\]"
    ) as caught:
        section.read({"no_such_key": 1})
    assert f" in {section.where}: " in str(caught.value)


@pytest.mark.parametrize("kind", sorted(list_adapters()))
def test_every_adapter_kind_parses_its_options_with_the_parser(kind: str) -> None:
    try:
        load_adapter(kind, {"no_such_option": 1})
    except AdapterOptionsError as exc:
        assert f"unknown options in [agent.options] of adapter {kind!r}: ['no_such_option']" in str(exc)
    except AdapterLoadError:
        pytest.skip(f"adapter kind {kind} is not installed here")
    else:
        pytest.fail(f"adapter kind {kind} accepted an unknown option")


def _product_files() -> list[Path]:
    folders = ("ioa_p2p", "node", "dht", "adapters", "bootstrap")
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))]


def _parse_section_calls(tree: ast.AST, scope: str = "") -> Iterator[str]:
    """The section each ``parse_section(...)`` call builds: its first argument when that is a class name,
    else the enclosing class (``cls``) or function (``parse_options``, ``embedding_settings``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef):
            yield from _parse_section_calls(node, node.name)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _parse_section_calls(node, scope if scope[:1].isupper() else node.name)
        else:
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "parse_section" and node.args:
                first = ast.unparse(node.args[0])
                yield first if first[:1].isupper() else scope
            yield from _parse_section_calls(node, scope)


def _parsed_classes() -> set[str]:
    names: set[str] = set()
    for path in _product_files():
        names.update(_parse_section_calls(ast.parse(path.read_text(encoding="utf-8"))))
    return names


def test_the_list_of_sections_is_every_class_the_parser_builds() -> None:
    """A new section (a new ``parse_section`` call) must join SECTIONS, so the tests above cover it."""
    assert _parsed_classes() == {s.cls for s in SECTIONS}


def test_every_from_section_goes_through_the_parser() -> None:
    for path in _product_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "from_section":
                calls = {getattr(c.func, "id", "") for c in ast.walk(node) if isinstance(c, ast.Call)}
                assert "parse_section" in calls, f"{path}: from_section does not use parse_section"


TABLE_NAMES = {"table", "section", "settings", "options", "node"}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            found.add(id(body[0].value))
    return found


def test_no_hand_written_section_parser_is_left() -> None:
    """Key checks written by hand (``set(table) - known`` and their "unknown keys" message) are gone: only
    ioa_p2p/config/sections.py says such things."""
    offenders = []
    for path in _product_files():
        if path == ROOT / "ioa_p2p" / "config" / "sections.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            said = isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            if said and re.search(r"unknown (keys|options?\b)", node.value):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: says {node.value!r}")
            if (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Sub)
                and isinstance(node.left, ast.Call)
            ):
                call = node.left
                if (
                    getattr(call.func, "id", "") == "set"
                    and call.args
                    and ast.unparse(call.args[0]) in TABLE_NAMES
                ):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not offenders, offenders
