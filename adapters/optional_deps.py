"""What an adapter kind needs and accepts, read without building it.

- :func:`missing_requirements`: the packages of a distribution's extras that are not installed (an entry
  point ``"pkg.mod:Factory [extra]"`` names the extra its kind needs), from the distribution's metadata,
  without importing anything;
- :func:`import_optional`: import an optional dependency inside an adapter, or raise
  :class:`~ioa_p2p.errors.AdapterLoadError` saying which extra to install;
- :func:`option_specs`: the options an adapter accepts, from its options dataclass (``OPTIONS`` on its
  factory), for listings such as ``ioa adapters``.
"""

from __future__ import annotations

import importlib
import re
import typing
from dataclasses import MISSING, dataclass, fields, is_dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

from ioa_p2p.errors import AdapterLoadError

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def missing_requirements(dist: metadata.Distribution, extras: tuple[str, ...]) -> tuple[str, ...]:
    """Names of the requirements of ``dist``'s ``extras`` that are not installed (sorted, unique).

    Only presence is checked (not versions): pip resolves versions when the extra is installed."""
    wanted = {_canonical(e) for e in extras}
    missing: set[str] = set()
    for requirement in dist.requires or ():
        spec, _, marker = requirement.partition(";")
        found = _EXTRA_MARKER.search(marker)
        if found is None or _canonical(found.group(1)) not in wanted:
            continue
        name = _NAME.match(spec)
        if name is None:
            continue
        try:
            metadata.distribution(name.group(1))
        except metadata.PackageNotFoundError:
            missing.add(name.group(1))
    return tuple(sorted(missing))


def import_optional(module: str, *, kind: str, extra: str) -> ModuleType:
    """Import ``module`` for adapter ``kind``; a clear :class:`AdapterLoadError` when it is absent."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise AdapterLoadError(
            f"adapter {kind!r} needs the package {module!r}, which is not installed or does not import "
            f"({exc}); install it with: pip install 'ioa-p2p[{extra}]'"
        ) from exc


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option of an adapter kind, as a listing shows it."""

    name: str
    type: str
    default: Any  # the default value, or None when the option is required
    required: bool


def option_specs(options_class: type) -> list[OptionSpec]:
    """The fields of an adapter's options dataclass as :class:`OptionSpec` rows."""
    if not is_dataclass(options_class):
        raise TypeError(f"{options_class!r} is not an options dataclass")
    hints = typing.get_type_hints(options_class)
    specs = []
    for f in fields(options_class):
        if f.default is not MISSING:
            default, required = f.default, False
        elif f.default_factory is not MISSING:
            default, required = f.default_factory(), False
        else:
            default, required = None, True
        specs.append(OptionSpec(f.name, _type_name(hints[f.name]), default, required))
    return specs


def _type_name(hint: Any) -> str:
    text = str(hint) if typing.get_origin(hint) is not None else getattr(hint, "__name__", str(hint))
    return text.replace("typing.", "")


__all__ = ["OptionSpec", "import_optional", "missing_requirements", "option_specs"]
