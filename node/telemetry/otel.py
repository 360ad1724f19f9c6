"""The OpenTelemetry tracer of a node (imported only when tracing is on; needs ``ioa-p2p[otel]``).

Each node has its own ``TracerProvider`` (resource ``service.name`` from ``[telemetry]``, ``ioa.peer_id``),
never the process-global one, so nodes sharing a process keep apart. Exporters: OTLP/HTTP to
``[telemetry].otlp_endpoint`` or the standard ``OTEL_EXPORTER_OTLP_*`` variables (the exporter reads them
itself), ``console`` when ``OTEL_TRACES_EXPORTER`` says so, and a JSON-lines file (``[telemetry].file``:
one finished span per line). Spans are exported in batches from a background thread of the SDK; the
provider is flushed and shut down when the node stops (:meth:`OtelTracer.shutdown`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from ioa_p2p.telemetry.settings import OTEL_ENDPOINT_VARS, TelemetrySettings
from ioa_p2p.telemetry.tracer import AttrValue, Span, parse_traceparent

_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT, "server": SpanKind.SERVER}


class FileSpanExporter(SpanExporter):
    """Each finished span as one JSON object per line (ids in hex, times in ns since the epoch)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = [json.dumps(span_json(s)) + "\n" for s in spans]
        with self.lock, self.path.open("a", encoding="utf-8") as out:
            out.writelines(lines)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def span_json(span: ReadableSpan) -> dict[str, Any]:
    ctx = span.get_span_context()
    parent = span.parent
    return {
        "name": span.name,
        "trace_id": f"{ctx.trace_id:032x}" if ctx else "",
        "span_id": f"{ctx.span_id:016x}" if ctx else "",
        "parent_span_id": f"{parent.span_id:016x}" if parent else None,
        "parent_remote": bool(parent and parent.is_remote),
        "kind": span.kind.name.lower(),
        "start_ns": span.start_time,
        "end_ns": span.end_time,
        "status": span.status.status_code.name.lower(),
        "attributes": dict(span.attributes or {}),
        "service": str(span.resource.attributes.get("service.name", "")),
    }


class _Span:
    def __init__(self, span: trace.Span) -> None:
        self.span = span

    def set_attribute(self, key: str, value: AttrValue) -> None:
        self.span.set_attribute(key, value)

    def record_error(self, kind: str, message: str = "") -> None:
        self.span.set_attribute("error.type", kind)
        self.span.set_status(Status(StatusCode.ERROR, message[:500]))

    def traceparent(self) -> str:
        ctx = self.span.get_span_context()
        if not ctx.is_valid:
            return ""
        return f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"


class OtelTracer:
    """A node's tracer over the OpenTelemetry SDK (see the module docstring)."""

    def __init__(self, provider: TracerProvider, description: str) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer("ioa_p2p")
        self.description = description

    @classmethod
    def create(
        cls, settings: TelemetrySettings, home: Path, peer_id: str, env: Mapping[str, str]
    ) -> OtelTracer:
        resource = Resource.create({"service.name": settings.service_name, "ioa.peer_id": peer_id})
        provider = TracerProvider(resource=resource)
        said = []
        endpoint = settings.otlp_endpoint
        if endpoint or any(env.get(v, "").strip() for v in OTEL_ENDPOINT_VARS) or "otlp" in _exporters(env):
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            url = endpoint.rstrip("/") + "/v1/traces" if endpoint else None
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=url)))
            said.append(f"OTLP {url or 'per OTEL_EXPORTER_OTLP_*'}")
        if "console" in _exporters(env):
            provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
            said.append("console")
        if settings.file:
            path = Path(settings.file).expanduser()
            path = path if path.is_absolute() else home / path
            provider.add_span_processor(
                BatchSpanProcessor(FileSpanExporter(path), schedule_delay_millis=1000)
            )
            said.append(f"file {path}")
        return cls(provider, "on: " + (", ".join(said) or "no exporter"))

    @property
    def enabled(self) -> bool:
        return True

    def describe(self) -> str:
        return self.description

    def span(
        self,
        name: str,
        *,
        parent: str | None = None,
        kind: str = "internal",
        attributes: Mapping[str, AttrValue] | None = None,
    ) -> AbstractContextManager[Span]:
        return self._span(name, parent, kind, attributes)

    @contextmanager
    def _span(
        self, name: str, parent: str | None, kind: str, attributes: Mapping[str, AttrValue] | None
    ) -> Iterator[Span]:
        context = None
        parsed = parse_traceparent(parent) if parent else None
        if parsed is not None:
            trace_id, span_id, flags = parsed
            remote = SpanContext(int(trace_id, 16), int(span_id, 16), True, TraceFlags(flags & 0x01))
            context = trace.set_span_in_context(NonRecordingSpan(remote))
        with self.tracer.start_as_current_span(
            name, context=context, kind=_KINDS.get(kind, SpanKind.INTERNAL), attributes=dict(attributes or {})
        ) as span:
            yield _Span(span)

    def shutdown(self) -> None:
        self.provider.shutdown()


def _exporters(env: Mapping[str, str]) -> set[str]:
    return {e.strip() for e in env.get("OTEL_TRACES_EXPORTER", "").split(",") if e.strip()}


__all__ = ["FileSpanExporter", "OtelTracer", "span_json"]
