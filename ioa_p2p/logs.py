"""Logging: structured ``key=value`` lines on stderr; py-libp2p's noisy loggers quieted unless ``-vv``.

Verbosity: ``-q`` errors only, default warnings, ``-v`` info, ``-vv`` debug including third-party libraries.

py-libp2p configures its own logger when it is imported (no handler, ``propagate = False``, level WARNING, so
Python's last-resort handler prints thousands of warnings on normal stream closes). The node calls
:func:`apply_third_party_levels` after importing it, which restores our choice.
"""

from __future__ import annotations

import logging
import sys
import time

_THIRD_PARTY = (
    "libp2p",
    "multiaddr",
    "hypercorn",
    "zeroconf",
    "aioquic",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "openai",
    "async_service",
)
_third_party_level = logging.CRITICAL


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        message = record.getMessage().replace('"', "'")
        level = record.levelname.lower()
        line = f'ts={stamp}.{int(record.msecs):03d}Z level={level} logger={record.name} msg="{message}"'
        if record.exc_info:
            line += " exc=" + repr(self.formatException(record.exc_info))
        return line


def setup_logging(verbosity: int = 0) -> None:
    """``verbosity``: -1 quiet, 0 default, 1 verbose, 2 debug."""
    global _third_party_level
    level = {-1: logging.ERROR, 0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    _third_party_level = logging.DEBUG if verbosity >= 2 else logging.CRITICAL
    apply_third_party_levels()


#: The HTTP client of the model servers logs URLs and request options: never below WARNING (secrets).
_NEVER_VERBOSE = ("httpx", "httpx2", "httpcore", "httpcore2", "openai")


def apply_third_party_levels() -> None:
    """(Re)apply our level to the libraries' loggers and route them through our handlers."""
    for name in _THIRD_PARTY:
        logger = logging.getLogger(name)
        level = _third_party_level
        if name in _NEVER_VERBOSE:
            level = max(level, logging.WARNING)
        logger.setLevel(level)
        logger.propagate = True
