"""What an adapter kind needs from the node that runs it, declared by the kind itself.

A kind declares a frozen :class:`AdapterNeeds` as ``NEEDS`` on its factory (or on the class whose
``from_options`` the factory is); the registry reads it without building an adapter
(:func:`ioa_p2p.adapters.registry.adapter_needs`) and the node provides what it says, the same way for
every kind, built in or third party (:meth:`AdapterNeeds.provide`)::

    class MyAdapter:
        NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(home_paths=("notes",), model=True)

Option names may be dotted to reach into a table option (``python_options.hide_paths``). A kind that
declares nothing needs nothing (:data:`NO_NEEDS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class AdapterNeeds:
    """What a kind takes from its node (every field off by default)."""

    #: Its ``model`` option takes the keys of the node's ``[model]`` table; the node fills it from that
    #: table when the option is absent.
    model: bool = False
    #: Options naming a file or folder: a relative one is taken relative to the node home (never to the
    #: working directory the node was started from).
    home_paths: tuple[str, ...] = ()
    #: Options listing folders kept out of reach of the code the kind runs: they default to the node home
    #: (which holds the node key).
    hide_home: tuple[str, ...] = ()
    #: The kind executes code it is given: its node accepts chat invitations only from known peers by
    #: default (``[chats] invite_policy``, docs/security.md).
    executes_code: bool = False
    #: The agent describes itself (the kind builds its card from the agent: a remote card, a tool list, its
    #: own abilities). False for remote agents that publish no card (``http``, ``agent_protocol``): their
    #: node's card says only what the operator writes in ``description`` and ``skills``.
    self_described: bool = True
    #: Its tasks are calls to a remote agent (an A2A agent, an MCP server, an HTTP endpoint): telemetry
    #: traces them as ``invoke_agent <name>`` client spans, others as internal ``ioa.adapter.run`` spans.
    calls_remote: bool = False

    def provide(
        self, options: Mapping[str, Any], *, home: Path, model: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """``options`` (the ``[agent.options]`` table) with what the node provides filled in (pure: a new
        dict; values of the wrong type are left for the kind's own option check to report)."""
        out = self.resolve_paths(options, home)
        for name in self.hide_home:
            _set_default(out, name, [str(home)])
        if self.model and model and "model" not in out:
            out["model"] = dict(model)
        return out

    def resolve_paths(self, options: Mapping[str, Any], base: Path) -> dict[str, Any]:
        """``options`` with the relative paths of :attr:`home_paths` taken relative to ``base`` (a new dict):
        the node passes its home; ``ioa testnet up`` the folder the user named them from."""
        out = _copy_tables(options)
        for name in self.home_paths:
            _under_home(out, name, base)
        return out


NO_NEEDS = AdapterNeeds()

#: The card fields an operator describes an agent with ([agent] keys, or the kind's options).
DESCRIBING_KEYS = ("description", "skills")


def undescribed_warning(kind: str, needs: AdapterNeeds, agent: Mapping[str, Any]) -> str | None:
    """A warning when ``kind`` publishes no card of its own (``needs.self_described`` is False) and the
    ``[agent]`` table (its ``options`` included) gives it neither a description nor skills: peers then
    find it only by its name and kind. None when there is nothing to say."""
    if needs.self_described:
        return None
    options = agent.get("options")
    tables = [agent, options if isinstance(options, Mapping) else {}]
    if any(table.get(key) for table in tables for key in DESCRIBING_KEYS):
        return None
    return (
        f"the {kind} agent publishes no card of its own and this node gives it neither a description nor "
        "skills, so peers can hardly find it; set [agent] description and skills (or --description and "
        "--skill) to say what it does (docs/adapters.md)"
    )


def _copy_tables(table: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _copy_tables(v) if isinstance(v, Mapping) else v for k, v in table.items()}


def _parent(options: dict[str, Any], dotted: str, *, create: bool) -> tuple[dict[str, Any] | None, str]:
    """The table holding the last part of ``dotted`` (created when ``create``), and that part."""
    *parents, last = dotted.split(".")
    table: Any = options
    for part in parents:
        if part not in table and create:
            table[part] = {}
        table = table.get(part)
        if not isinstance(table, dict):
            return None, last
    return table, last


def _set_default(options: dict[str, Any], dotted: str, value: Any) -> None:
    table, key = _parent(options, dotted, create=True)
    if table is not None:
        table.setdefault(key, value)


def _under_home(options: dict[str, Any], dotted: str, home: Path) -> None:
    table, key = _parent(options, dotted, create=False)
    value = table.get(key) if table is not None else None
    if table is not None and isinstance(value, str) and value:
        path = Path(value).expanduser()
        table[key] = str(path if path.is_absolute() else home / path)


__all__ = ["DESCRIBING_KEYS", "NO_NEEDS", "AdapterNeeds", "undescribed_warning"]
