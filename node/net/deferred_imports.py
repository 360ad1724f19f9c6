"""py-libp2p's dependencies a node never uses, run only if something uses them (issue 26: memory per node).

``import libp2p`` (0.8.1) imports its whole feature set: ~1,350 modules, ~80 MB resident in every node
process. Two parts of it are never used by a node and can be deferred without changing py-libp2p:

- **requests and httpx** (~9 MB, ~290 modules with urllib3, rich, pygments, click): py-libp2p imports them
  (plain ``import requests`` / ``import httpx``) only in its AutoTLS client (ACME certificates from
  ``libp2p.direct``), which a node never runs (Noise only, no internet). :func:`defer_unused_dependencies`
  registers them as *deferred modules*: the module object is in ``sys.modules`` at once and its code runs
  on the first attribute access (``importlib.util.LazyLoader``'s contract), so code that uses them (an
  adapter's HTTP client) gets the real module the moment it touches it. Two differences from the standard
  library's ``LazyLoader`` (Python 3.11): reading ``__spec__``/``__name__`` does not run the module (the
  import system reads ``__spec__`` on every repeated ``import requests``, which would run it at the
  second importer), and a lock makes the first access of two threads run the module once, the second
  thread waiting for it (what Python 3.12 added).
- **DNS over HTTPS and over QUIC in dnspython** (~4 MB: httpx2, httpcore2, h2, truststore): dnspython
  imports these when they are installed; a node resolves ``/dns`` multiaddrs with plain DNS (multiaddr's
  resolver) and never asks a DNS-over-HTTPS server. dnspython's own switch turns them off
  (``dns._features.force``), before ``dns.query`` is imported.

Only modules imported with ``import X`` can be deferred: a module-level ``from X import Y`` needs the module
at once. That is why zeroconf (mDNS), aioquic (QUIC), prometheus_client (py-libp2p's metrics), trio_websocket
and the secp256k1/ECDSA/RSA key libraries stay eager (``docs/performance.md``, "Light nodes").

:func:`defer_unused_dependencies` runs when ``ioa_p2p.node.net`` is imported, before anything imports
``libp2p``; where a dependency was already imported (by the process that embeds the node), it changes
nothing. ``tests/test_deferred_imports.py`` checks that a node's process never runs them, that they still
work when used, and that upstream still imports them (else this module is no longer needed).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass, field

#: py-libp2p's dependencies a node never uses, deferred until first use (imported as ``import X`` only).
DEFERRED = ("requests", "httpx")
#: dnspython features a node never uses (each would import an HTTP or QUIC stack).
DNS_FEATURES_OFF = ("doh", "doq")

#: Attributes the import machinery reads from a module it finds in ``sys.modules``: served without running it.
_PASSTHROUGH = frozenset({"__spec__", "__name__", "__class__", "__dict__", "__loader__", "__package__"})


class DeferredModule(types.ModuleType):
    """A module whose code runs on its first attribute access (other than :data:`_PASSTHROUGH`)."""

    def __getattribute__(self, attr: str) -> object:
        if attr not in _PASSTHROUGH:
            _run_deferred(self)
        return types.ModuleType.__getattribute__(self, attr)

    def __setattr__(self, attr: str, value: object) -> None:
        _run_deferred(self)
        types.ModuleType.__setattr__(self, attr, value)

    def __delattr__(self, attr: str) -> None:
        _run_deferred(self)
        types.ModuleType.__delattr__(self, attr)


def _run_deferred(module: types.ModuleType) -> None:
    """Run ``module``'s code once. Another thread waits until it has run; the thread running it (the
    module's own code and the imports it makes) sees the module as it is, as during a normal import."""
    spec = object.__getattribute__(module, "__spec__")
    pending: _Pending = spec.loader_state
    with pending.lock:
        if type(module) is not DeferredModule or pending.running:
            return  # it ran meanwhile (another thread), or this thread is running it
        pending.running = True
        spec.loader = pending.loader
        object.__setattr__(module, "__loader__", pending.loader)
        try:
            pending.loader.exec_module(module)
        except BaseException:
            if sys.modules.get(spec.name) is module:
                del sys.modules[spec.name]
            raise
        finally:
            object.__setattr__(module, "__class__", types.ModuleType)


@dataclass(slots=True)
class _Pending:
    """A deferred module's ``__spec__.loader_state``: the real loader, and who runs it."""

    loader: importlib.abc.Loader
    lock: threading.RLock = field(default_factory=threading.RLock)
    running: bool = False


class _DeferringLoader(importlib.abc.Loader):
    """Creates the module as the real loader would and defers running it."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        spec = module.__spec__
        assert spec is not None
        spec.loader_state = _Pending(self.loader)
        module.__class__ = DeferredModule


class DeferringFinder(importlib.abc.MetaPathFinder):
    """Finds the modules named in ``names`` with the other finders and defers running them."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # a namespace package or an old-style loader: imported as usual
        spec.loader = _DeferringLoader(spec.loader)
        return spec


def defer_unused_dependencies(names: Sequence[str] = DEFERRED) -> None:
    """Install the deferring finder for ``names`` (not yet imported) and turn dnspython's DNS over HTTPS
    and QUIC off (unless ``dns.query`` already ran). Idempotent."""
    pending = [n for n in names if n not in sys.modules]
    installed = any(isinstance(f, DeferringFinder) for f in sys.meta_path)
    if pending and not installed:
        sys.meta_path.insert(0, DeferringFinder(pending))
    if "dns.query" not in sys.modules:
        import dns._features

        for feature in DNS_FEATURES_OFF:
            dns._features.force(feature, False)


def is_deferred(module: types.ModuleType) -> bool:
    """True while ``module``'s code has not run."""
    return type(module) is DeferredModule


__all__ = [
    "DEFERRED",
    "DNS_FEATURES_OFF",
    "DeferredModule",
    "DeferringFinder",
    "defer_unused_dependencies",
    "is_deferred",
]
