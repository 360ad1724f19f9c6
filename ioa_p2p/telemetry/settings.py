"""``[telemetry]``: whether this node records traces of its goals and where it sends them (pure).

- ``otlp_endpoint``: an OTLP/HTTP collector (``http://127.0.0.1:4318``; spans go to ``/v1/traces``);
- ``file``: a file that gets one JSON object per finished span (relative paths are under ``$IOA_HOME``);
- ``service_name``: the ``service.name`` of this node's spans (default ``ioa-p2p``);
- ``enabled``: ``true`` / ``false``; absent: on when an endpoint or a file is set here, or the standard
  ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``OTEL_TRACES_EXPORTER``
  (``otlp``, ``console``) variables ask for it, and ``OTEL_SDK_DISABLED`` is not ``true``.

Tracing needs the ``otel`` extra (``pip install 'ioa-p2p[otel]'``); without it a node asked to trace
stops with a :class:`~ioa_p2p.errors.ConfigError` saying so. Off, nothing of OpenTelemetry is imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ioa_p2p.config.sections import parse_section, setting

OTEL_ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def _url(value: str) -> str | None:
    if value and not value.startswith(("http://", "https://")):
        return "an http:// or https:// URL of an OTLP/HTTP collector"
    return None


@dataclass(frozen=True, slots=True)
class TelemetrySettings:
    enabled: bool | None = None
    otlp_endpoint: str = setting("", check=_url)
    file: str = ""
    service_name: str = setting("ioa-p2p", check=lambda v: None if v.strip() else "a non-empty name")

    @classmethod
    def from_section(cls, table: Any) -> TelemetrySettings:
        return parse_section(cls, table, "[telemetry]")

    def wanted(self, env: Mapping[str, str]) -> bool:
        """Whether tracing is on, given the process environment (see the module docstring)."""
        if self.enabled is not None:
            return self.enabled
        if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
            return False
        if self.otlp_endpoint or self.file:
            return True
        if any(env.get(name, "").strip() for name in OTEL_ENDPOINT_VARS):
            return True
        exporters = {e.strip() for e in env.get("OTEL_TRACES_EXPORTER", "").split(",")}
        return bool(exporters & {"otlp", "console"})


__all__ = ["OTEL_ENDPOINT_VARS", "TelemetrySettings"]
