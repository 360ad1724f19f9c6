"""Find and build agent adapters by kind, through Python entry points.

Any installed distribution can add an adapter kind by declaring an entry point in the group
``ioa_p2p.adapters`` whose name is the kind and whose object is a factory ``factory(options: dict)
-> Adapter`` (a function, or a class whose constructor takes the options dict)::

    [project.entry-points."ioa_p2p.adapters"]
    weather = "my_weather_agent:make_adapter"

The node's ``config.toml`` picks the adapter and its options in the ``[agent]`` table::

    [agent]
    name = "calc-1"
    adapter = "calculator"
    [agent.options]
    max_exponent = 10000

Errors are typed: :class:`~ioa_p2p.errors.UnknownAdapter` (no such kind installed),
:class:`~ioa_p2p.errors.AdapterOptionsError` (bad options),
:class:`~ioa_p2p.errors.AdapterLoadError` (a plugin that does not import, conflicts with another,
or does not implement the protocol).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, is_dataclass
from importlib import metadata
from typing import Any, cast

import trio

from ioa_p2p.adapters.base import Adapter, AdapterCard
from ioa_p2p.adapters.lifecycle import start_adapter
from ioa_p2p.adapters.needs import NO_NEEDS, AdapterNeeds
from ioa_p2p.adapters.optional_deps import OptionSpec, missing_requirements, option_specs
from ioa_p2p.errors import (
    AdapterLoadError,
    AdapterOptionsError,
    ConfigError,
    IoAError,
    UnknownAdapter,
)
from ioa_p2p.faults import single_error

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "ioa_p2p.adapters"

#: Keys of the ``[agent]`` table the registry reads; the rest belongs to the card / other services.
AGENT_ADAPTER_KEY = "adapter"
AGENT_OPTIONS_KEY = "options"


@dataclass(frozen=True, slots=True)
class AdapterInfo:
    """An installed adapter kind: its name, the ``module:object`` it names, its distribution.

    A kind whose entry point names extras (``"pkg.mod:Factory [extra]"``) needs that extra's packages;
    ``missing`` lists those not installed (the kind is listed but cannot be loaded until they are).
    """

    kind: str
    target: str
    distribution: str
    extras: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return not self.missing

    def missing_message(self) -> str:
        """``missing dependency X (pip install 'dist[extra]')``, or "" when nothing is missing."""
        if not self.missing:
            return ""
        extras = ",".join(e.replace("_", "-") for e in self.extras)
        return f"missing dependency {', '.join(self.missing)} (pip install '{self.distribution}[{extras}]')"


#: The last scan of the entry points: the import path it was made for (each entry with its folder's
#: modification time) and what it found. Scanning reads every installed distribution's metadata
#: (~120 ms on the 2-core test machine); a process of many agents asked twice per agent at start.
_SCANNED: tuple[tuple[tuple[str, int], ...], dict[str, AdapterInfo]] | None = None


def _import_path_state() -> tuple[tuple[str, int], ...]:
    """``sys.path`` with each folder's modification time: a distribution installed or removed since
    (a new ``*.dist-info`` folder) or a folder added to the path changes it."""
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, -1))
    return tuple(state)


def list_adapters() -> dict[str, AdapterInfo]:
    """Every installed adapter kind, by kind (sorted). Raises AdapterLoadError on a conflict.

    Kinds whose optional dependencies are missing are listed too (see :attr:`AdapterInfo.missing`).
    The scan is reused while the import path and its folders stay unchanged."""
    global _SCANNED
    state = _import_path_state()
    scanned = _SCANNED
    if scanned is not None and scanned[0] == state:
        return dict(scanned[1])
    found = _scan_adapters()
    _SCANNED = (state, found)
    return dict(found)


def _scan_adapters() -> dict[str, AdapterInfo]:
    found: dict[str, AdapterInfo] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = ep.dist.name if ep.dist is not None else "?"
        target = ep.value.split("[", 1)[0].strip()
        extras = tuple(ep.extras)
        missing = missing_requirements(ep.dist, extras) if ep.dist is not None and extras else ()
        info = AdapterInfo(ep.name, target, dist, extras, missing)
        previous = found.get(ep.name)
        if previous is not None and previous.target != info.target:
            raise AdapterLoadError(
                f"adapter kind {ep.name!r} is registered twice: {previous.target} "
                f"(from {previous.distribution}) and {info.target} (from {dist}); uninstall one"
            )
        found[ep.name] = info
    return dict(sorted(found.items()))


def load_adapter(kind: str, options: Mapping[str, Any] | None = None) -> Adapter:
    """Build the adapter registered as ``kind`` with ``options`` (the ``[agent.options]`` table).

    The adapter is not started: it allocates lazily and must be closed with ``await
    adapter.aclose()`` (or use :func:`open_adapter`).
    """
    if not isinstance(kind, str) or not kind:
        raise UnknownAdapter(f"adapter kind must be a non-empty string, not {kind!r}")
    if options is not None and not isinstance(options, Mapping):
        raise AdapterOptionsError(f"options of adapter {kind!r} must be a table, not {options!r}")
    installed = list_adapters()
    info = installed.get(kind)
    if info is None:
        raise UnknownAdapter(
            f"no adapter of kind {kind!r} is installed; "
            f"installed kinds: {sorted(installed) or 'none'} "
            f"(a package adds one with an entry point in the group {ENTRY_POINT_GROUP!r})"
        )
    if info.missing:
        raise AdapterLoadError(f"adapter {kind!r} cannot be used: {info.missing_message()}")
    factory = _load_factory(info)
    try:
        adapter = factory(dict(options or {}))
    except IoAError:
        raise
    except (TypeError, ValueError) as exc:
        raise AdapterOptionsError(f"bad options for adapter {kind!r}: {exc}") from None
    except Exception as exc:
        raise AdapterLoadError(
            f"adapter {kind!r} ({info.target}) failed to start: {type(exc).__name__}: {exc}"
        ) from exc
    _check_protocol(adapter, info)
    return cast(Adapter, adapter)


def adapter_from_config(agent: Mapping[str, Any]) -> Adapter | None:
    """Build the adapter the ``[agent]`` config table names, or ``None`` if it names none (absent or
    ``""``: a node that only launches goals and chats)."""
    kind = agent.get(AGENT_ADAPTER_KEY)
    if kind is None or kind == "":  # "" is [agent] adapter's default: none
        if AGENT_OPTIONS_KEY in agent:
            raise ConfigError("[agent.options] is set but [agent].adapter is missing; name a kind")
        return None
    if not isinstance(kind, str):
        raise ConfigError(f"[agent].adapter must be a string naming an adapter kind, not {kind!r}")
    options = agent.get(AGENT_OPTIONS_KEY, {})
    if not isinstance(options, Mapping):
        raise AdapterOptionsError("[agent.options] must be a table")
    return load_adapter(kind, options)


def adapter_needs(kind: object) -> AdapterNeeds:
    """What the installed adapter ``kind`` needs from its node (:class:`~ioa_p2p.adapters.needs.AdapterNeeds`
    declared as ``NEEDS`` on its factory, or on the class whose method the factory is). Imports the plugin
    without building an adapter; no adapter (``None``), an unknown kind or one that cannot be imported
    needs nothing (building the adapter reports those)."""
    if not isinstance(kind, str) or not kind:
        return NO_NEEDS
    info = list_adapters().get(kind)
    if info is None:
        return NO_NEEDS
    try:
        factory = _load_factory(info)
    except AdapterLoadError:  # building it reports the reason
        return NO_NEEDS
    for owner in (factory, getattr(factory, "__self__", None)):
        declared = getattr(owner, "NEEDS", None)
        if isinstance(declared, AdapterNeeds):
            return declared
    return NO_NEEDS


def adapter_executes_code(kind: object) -> bool:
    """Whether the installed adapter ``kind`` declares that it executes code it is given
    (``AdapterNeeds.executes_code``)."""
    return adapter_needs(kind).executes_code


def adapter_uses_model(kind: object) -> bool:
    """Whether the installed adapter ``kind`` declares that its ``model`` option takes the keys of the
    node's ``[model]`` table (``AdapterNeeds.model``): the node fills it from that table when absent."""
    return adapter_needs(kind).model


@asynccontextmanager
async def open_adapter(kind: str, options: Mapping[str, Any] | None = None) -> AsyncIterator[Adapter]:
    """``load_adapter``, start its long-lived part if it has one (:func:`start_adapter`: its card is
    final once this returns), and ``aclose`` on exit."""
    adapter = load_adapter(kind, options)
    with single_error():
        async with trio.open_nursery() as nursery:
            try:
                await start_adapter(adapter, nursery)
                yield adapter
            finally:
                await adapter.aclose()


def adapter_options(kind: str) -> list[OptionSpec] | None:
    """The options the installed adapter ``kind`` accepts (name, type, default), read from the options
    dataclass its factory declares as ``OPTIONS``; ``None`` when it declares none. Imports the plugin."""
    info = list_adapters().get(kind)
    if info is None:
        raise UnknownAdapter(f"no adapter of kind {kind!r} is installed")
    if info.missing:
        raise AdapterLoadError(f"adapter {kind!r} cannot be used: {info.missing_message()}")
    factory = _load_factory(info)
    for owner in (factory, getattr(factory, "__self__", None)):
        declared = getattr(owner, "OPTIONS", None)
        if isinstance(declared, type):
            return option_specs(declared)
    owner = getattr(factory, "__self__", None)
    if isinstance(owner, type) and is_dataclass(owner):  # the adapter is its own options dataclass
        return option_specs(owner)
    return None


def _load_factory(info: AdapterInfo) -> Any:
    ep = metadata.EntryPoint(name=info.kind, value=info.target, group=ENTRY_POINT_GROUP)
    try:
        factory = ep.load()
    except Exception as exc:
        raise AdapterLoadError(
            f"cannot import adapter {info.kind!r} from {info.target} "
            f"(package {info.distribution}): {type(exc).__name__}: {exc}; "
            "reinstall or fix that package"
        ) from exc
    if not callable(factory):
        raise AdapterLoadError(f"adapter {info.kind!r}: {info.target} is not callable")
    return factory


def _check_protocol(adapter: object, info: AdapterInfo) -> None:
    missing = [m for m in ("describe", "run", "aclose") if not callable(getattr(adapter, m, None))]
    if missing:
        raise AdapterLoadError(
            f"adapter {info.kind!r} from {info.target} lacks {missing}; "
            "see ioa_p2p.adapters.Adapter for the protocol"
        )
    try:
        card = adapter.describe()  # type: ignore[attr-defined]
    except Exception as exc:
        raise AdapterLoadError(f"adapter {info.kind!r}: describe() failed: {exc}") from exc
    if not isinstance(card, AdapterCard):
        raise AdapterLoadError(f"adapter {info.kind!r}: describe() must return an AdapterCard")


__all__ = [
    "ENTRY_POINT_GROUP",
    "AdapterInfo",
    "OptionSpec",
    "AdapterNeeds",
    "adapter_executes_code",
    "adapter_needs",
    "adapter_options",
    "adapter_uses_model",
    "adapter_from_config",
    "list_adapters",
    "load_adapter",
    "open_adapter",
]
