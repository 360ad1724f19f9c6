"""Logging: structured ``key=value`` lines on stderr; py-libp2p's noisy loggers quieted unless ``-vv``.

Verbosity: ``-q`` errors only, default warnings, ``-v`` info, ``-vv`` debug including third-party libraries.
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
    "openai",
    "async_service",
)


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
    level = {-1: logging.ERROR, 0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    third_party = logging.DEBUG if verbosity >= 2 else logging.CRITICAL
    for name in _THIRD_PARTY:
        logging.getLogger(name).setLevel(third_party)
