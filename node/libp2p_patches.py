"""Every workaround for a py-libp2p 0.8.1 problem, in one place.

Each patch names the problem, what we do, and how ``tests/test_libp2p_patches.py`` notices when upstream
changes make it unnecessary or wrong (those tests fail loudly rather than letting a stale patch linger).

1. Dial delay: every successful dial waited ``swarm._HAPPY_EYEBALLS_DELAY`` (250 ms) because the delay is
   not cut short after the primary dial succeeds. We set it to 0 (connect goes from ~250 ms to ~25 ms).
   The test checks the constant still exists with its upstream value before patching.
2. Plaintext by default: ``new_host()`` without ``sec_opt`` also accepts ``/plaintext/2.0.0`` (and secio),
   so a peer could claim any peer ID. We always pass a Noise-only ``sec_opt`` (:mod:`ioa_p2p.node.host`);
   the tests check that a plaintext dial to our node is refused and that upstream's default still offers
   plaintext.
3. Noisy loggers: thousands of warnings on normal stream closes. :func:`quiet_libp2p_logs` sets the library's
   loggers to ERROR unless the user asks for debug output.
"""

from __future__ import annotations

import logging

import libp2p
import libp2p.network.swarm as _swarm

#: The py-libp2p version these patches were written against.
PATCHED_FOR_VERSION = "0.8.1"
#: Upstream's happy-eyeballs delay before we patch it (seconds).
UPSTREAM_HAPPY_EYEBALLS_DELAY = 0.250

_NOISY_LOGGERS = ("libp2p", "multiaddr", "hypercorn", "zeroconf", "aioquic")
_applied = False


def upstream_happy_eyeballs_delay() -> float | None:
    """The value upstream ships (None if the constant is gone: the patch must be revisited)."""
    return _ORIGINAL_DELAY


_ORIGINAL_DELAY: float | None = getattr(_swarm, "_HAPPY_EYEBALLS_DELAY", None)


def apply_patches() -> None:
    """Idempotent; called by :func:`ioa_p2p.node.host.new_noise_host` before any host is made."""
    global _applied
    if _applied:
        return
    if hasattr(_swarm, "_HAPPY_EYEBALLS_DELAY"):
        _swarm._HAPPY_EYEBALLS_DELAY = 0  # type: ignore[attr-defined]
    _applied = True


def quiet_libp2p_logs(level: int = logging.ERROR) -> None:
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).setLevel(level)


def libp2p_version() -> str:
    return str(libp2p.__version__)
