"""ioa_p2p.node.telemetry: the node's tracer, from ``[telemetry]`` and the ``OTEL_*`` variables.

- ``__init__.py``  :func:`open_tracer`: the no-op tracer unless tracing is wanted; only then is
  :mod:`.otel` (and OpenTelemetry) imported
- ``otel.py``      the OpenTelemetry tracer: a ``TracerProvider`` of its own (never the global one), OTLP/HTTP
  and file exporters, W3C trace context in and out

Off (the default), nothing of OpenTelemetry is imported and a span costs one context manager.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ioa_p2p.errors import ConfigError
from ioa_p2p.telemetry.settings import TelemetrySettings
from ioa_p2p.telemetry.tracer import NOOP_TRACER, Tracer


def open_tracer(
    table: Mapping[str, object], home: Path, peer_id: str, env: Mapping[str, str] | None = None
) -> Tracer:
    """The tracer ``[telemetry]`` (``table``) and the environment ask for; ConfigError when tracing is
    wanted and the ``otel`` extra is not installed."""
    settings = TelemetrySettings.from_section(table)
    environ = os.environ if env is None else env
    if not settings.wanted(environ):
        return NOOP_TRACER
    try:
        from ioa_p2p.node.telemetry.otel import OtelTracer
    except ImportError as exc:
        raise ConfigError(
            f"[telemetry] asks for traces but OpenTelemetry is not installed ({exc.name}): "
            "pip install 'ioa-p2p[otel]', or remove the [telemetry] table / OTEL_* variables"
        ) from None
    return OtelTracer.create(settings, home, peer_id, environ)


__all__ = ["open_tracer"]
