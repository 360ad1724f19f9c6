"""Packages whose public names load on first use (pure; no I/O beyond importing our own modules).

A package ``__init__`` that must stay cheap to import (an idle node imports only what it uses: issue 26)
lists where each public name lives and hands :func:`lazy_exports` that table::

    _LAZY = {"Matcher": "base", "hybrid_matcher": "hybrid"}
    __getattr__ = lazy_exports(__name__, _LAZY)

Python calls the returned function for a name the package's namespace lacks (PEP 562); it imports the
submodule, returns the name and keeps it in the package's namespace, so the next access is a plain lookup.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name of ``where`` imported from the submodule it
    maps to (relative to ``package``) on first use; any other name raises :class:`AttributeError`."""
    homes = dict(where)

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        vars(sys.modules[package])[name] = value  # the next access is a plain lookup
        return value

    return __getattr__


__all__ = ["lazy_exports"]
