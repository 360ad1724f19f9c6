"""ioa_p2p.telemetry: optional tracing of goals across peers (pure: no I/O, no OpenTelemetry import).

- ``tracer.py``    the :class:`Tracer` / :class:`Span` ports, the no-op tracer (the default, costing
  nothing), W3C ``traceparent`` parsing and the span names and GenAI attribute keys we use
- ``settings.py``  ``[telemetry]``: ``otlp_endpoint``, ``file``, ``service_name``, and whether tracing is
  on (also from the standard ``OTEL_*`` variables)

The OpenTelemetry implementation is :mod:`ioa_p2p.node.telemetry`, imported only when tracing is on
(``pip install 'ioa-p2p[otel]'``); docs/dashboard.md, "Traces".
"""

from ioa_p2p.telemetry.settings import TelemetrySettings
from ioa_p2p.telemetry.tracer import NOOP_TRACER, NoopTracer, Span, Tracer, parse_traceparent

__all__ = ["NOOP_TRACER", "NoopTracer", "Span", "TelemetrySettings", "Tracer", "parse_traceparent"]
