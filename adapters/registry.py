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
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import Any, cast

from ioa_p2p.adapters.base import Adapter, AdapterCard
from ioa_p2p.errors import (
    AdapterLoadError,
    AdapterOptionsError,
    ConfigError,
    IoAError,
    UnknownAdapter,
)

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "ioa_p2p.adapters"

#: Keys of the ``[agent]`` table the registry reads; the rest belongs to the card / other services.
AGENT_ADAPTER_KEY = "adapter"
AGENT_OPTIONS_KEY = "options"


@dataclass(frozen=True, slots=True)
class AdapterInfo:
    """An installed adapter kind: its name, the ``module:object`` it names, its distribution."""

    kind: str
    target: str
    distribution: str


def list_adapters() -> dict[str, AdapterInfo]:
    """Every installed adapter kind, by kind (sorted). Raises AdapterLoadError on a conflict."""
    found: dict[str, AdapterInfo] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = ep.dist.name if ep.dist is not None else "?"
        info = AdapterInfo(ep.name, ep.value, dist)
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
    """Build the adapter the ``[agent]`` config table names, or ``None`` if it names none
    (a node that only launches goals and chats)."""
    kind = agent.get(AGENT_ADAPTER_KEY)
    if kind is None:
        if AGENT_OPTIONS_KEY in agent:
            raise ConfigError("[agent.options] is set but [agent].adapter is missing; name a kind")
        return None
    if not isinstance(kind, str):
        raise ConfigError(f"[agent].adapter must be a string naming an adapter kind, not {kind!r}")
    options = agent.get(AGENT_OPTIONS_KEY, {})
    if not isinstance(options, Mapping):
        raise AdapterOptionsError("[agent.options] must be a table")
    return load_adapter(kind, options)


def adapter_executes_code(kind: object) -> bool:
    """Whether the installed adapter ``kind`` declares that it executes code it is given:
    ``EXECUTES_CODE = True`` on its factory, or on the class whose method the factory is. Imports the
    plugin without building an adapter; no adapter (``None``) or an unknown kind is False (building
    the adapter reports an unknown kind)."""
    if not isinstance(kind, str) or not kind:
        return False
    info = list_adapters().get(kind)
    if info is None:
        return False
    factory = _load_factory(info)
    for owner in (factory, getattr(factory, "__self__", None)):
        declared = getattr(owner, "EXECUTES_CODE", None)
        if isinstance(declared, bool):
            return declared
    return False


@asynccontextmanager
async def open_adapter(kind: str, options: Mapping[str, Any] | None = None) -> AsyncIterator[Adapter]:
    """``load_adapter`` and ``aclose`` on exit."""
    adapter = load_adapter(kind, options)
    try:
        yield adapter
    finally:
        await adapter.aclose()


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
    "adapter_executes_code",
    "adapter_from_config",
    "list_adapters",
    "load_adapter",
    "open_adapter",
]
