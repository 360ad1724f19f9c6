"""Kind ``http``: any agent behind a JSON HTTP endpoint — how an in-house service joins unchanged.

Request: ``method`` to ``url`` with ``headers`` (values may use ``${ENV_VAR}`` so secrets stay out of the
config), a JSON ``body`` template with the task text put at ``task_field`` (a dotted path; for ``GET`` the
query parameter of that name), optionally the recent chat messages at ``context_field`` and the seconds left
at ``deadline_field``. Response: JSON (``response = "json"``) with the answer text at ``text_path`` and
structured data at ``data_path``, or the whole body as text (``response = "text"``). Token counts the
service reports at ``usage_path`` (default ``usage``: OpenAI-compatible ``prompt_tokens`` /
``completion_tokens``, Anthropic ``input_tokens`` / ``output_tokens``) become the result's usage.

Failure mapping (``data["http"]`` carries ``status`` and ``error_kind``):

======================================  ==========  ====================================================
what happened                           failure     error_kind
======================================  ==========  ====================================================
400 404 405 409 413 415 422, other 4xx  rejected    ``refused`` (the service cannot do this task)
401 403 407                             task_error  ``auth`` (check the headers option)
429                                     task_error  ``rate_limited``
408, no answer within ``timeout``       timeout     ``timeout``
5xx                                     crash       ``server_error``
cannot connect                          crash       ``unreachable``
3xx (redirects are not followed)        bad_output  ``redirect``
body over ``max_response_kb``           bad_output  ``too_large``
not JSON, or no text at ``text_path``   bad_output  ``bad_json`` / ``no_text``
======================================  ==========  ====================================================

Whatever the service says in an error is scrubbed (header values, URL credentials, ``token=...``) and cut to
500 characters before it reaches a result.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
import trio

from ioa_p2p.adapters.base import (
    BAD_OUTPUT,
    CRASH,
    REJECTED,
    TASK_ERROR,
    TIMEOUT,
    AdapterCard,
    Task,
    TaskContext,
    TaskResult,
    parse_options,
)
from ioa_p2p.adapters.http.mapping import get_path, put_path
from ioa_p2p.adapters.needs import AdapterNeeds
from ioa_p2p.adapters.remote import (
    check_http_url,
    clip_text,
    expand_headers,
    fit_card,
    fit_data,
    header_secrets,
    hide_secrets,
    open_http_client,
    plain,
    reported_usage,
    scrub,
    strip_userinfo,
    translate_http_error,
    usage_record,
)
from ioa_p2p.errors import AdapterOptionsError, IoAError, IoATimeout, MessageTooLarge

KIND = "http"
METHODS = ("POST", "PUT", "PATCH", "GET")
REFUSED = {400, 404, 405, 409, 413, 415, 422}
AUTH = {401, 403, 407}


@dataclass(frozen=True, slots=True)
class HttpOptions:
    url: str
    method: str = "POST"
    headers: dict[str, Any] = field(default_factory=dict)  # ${ENV_VAR} allowed in values
    body: dict[str, Any] = field(default_factory=dict)  # JSON body template
    task_field: str = "task"  # dotted path of the task text in the body (GET: query parameter)
    context_field: str = ""  # where the recent chat messages go ("" = not sent)
    deadline_field: str = ""  # where the seconds left go ("" = not sent)
    response: str = "json"  # "json" or "text"
    text_path: str = "text"  # dotted path of the answer in a JSON response ("" = the whole body)
    data_path: str = ""  # dotted path of structured data to keep ("" = none)
    error_path: str = ""  # dotted path of the error message in error responses ("" = the whole body)
    usage_path: str = "usage"  # dotted path of the token usage the service reports, if it does
    timeout: float = 60.0  # seconds for the whole request (within the task deadline)
    max_response_kb: int = 1024
    name: str = "http agent"
    description: str = ""
    skills: tuple[str, ...] = ()
    task_types: tuple[str, ...] = ("text",)


def _validate(o: HttpOptions) -> None:
    check_http_url(o.url, kind="http")
    if o.method.upper() not in METHODS:
        raise AdapterOptionsError(f"adapter 'http' option method must be one of {list(METHODS)}")
    if o.response not in ("json", "text"):
        raise AdapterOptionsError("adapter 'http' option response must be 'json' or 'text'")
    if not o.task_field:
        raise AdapterOptionsError("adapter 'http' option task_field must name where the task text goes")
    if not (o.timeout > 0 and o.max_response_kb >= 1):
        raise AdapterOptionsError("adapter 'http' options timeout must be > 0 and max_response_kb >= 1")
    try:
        json.dumps(o.body)
    except (TypeError, ValueError) as exc:
        raise AdapterOptionsError(f"adapter 'http' option body is not JSON data: {exc}") from None


class HttpAdapter:
    """A JSON HTTP endpoint as this node's adapter (see the module docstring)."""

    #: A JSON endpoint publishes no card: the operator describes it (description, skills).
    NEEDS: ClassVar[AdapterNeeds] = AdapterNeeds(self_described=False, calls_remote=True)
    OPTIONS: ClassVar[type] = HttpOptions

    def __init__(self, options: HttpOptions, *, env: Mapping[str, str] | None = None) -> None:
        _validate(options)
        self.options = options
        self._method = options.method.upper()
        self._headers = expand_headers(options.headers, kind=KIND, env=env)
        self._secrets = header_secrets(self._headers)
        self._where = f"the service at {strip_userinfo(options.url)}"
        self._client: httpx.AsyncClient | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> HttpAdapter:
        return cls(parse_options(HttpOptions, options, KIND))

    def describe(self) -> AdapterCard:
        o = self.options
        host = urlsplit(o.url).hostname or "?"
        description = o.description or f"An agent behind the HTTP endpoint of {host}."
        return fit_card(
            name=o.name, description=description, skills=o.skills, kind=KIND, task_types=o.task_types
        )

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:  # lazily, one pooled client for the adapter's life
            self._client = open_http_client(
                max_response_bytes=self.options.max_response_kb * 1024,
                timeout=self.options.timeout,
                headers=self._headers,
            )
        return self._client

    def _request(self, task: Task) -> httpx.Request:
        o = self.options
        if self._method == "GET":
            return self._http().build_request("GET", o.url, params={o.task_field: task.text})
        body = put_path(o.body, o.task_field, task.text)
        if o.context_field:
            body = put_path(body, o.context_field, plain([dict(m) for m in task.context]))
        if o.deadline_field and math.isfinite(task.remaining()):
            body = put_path(body, o.deadline_field, max(0.0, round(task.remaining(), 3)))
        return self._http().build_request(self._method, o.url, json=body)

    async def run(self, task: Task, ctx: TaskContext) -> TaskResult:
        started = time.monotonic()
        try:
            request = self._request(task)
        except ValueError as exc:
            raise AdapterOptionsError(f"adapter 'http': {exc}") from None
        await ctx.progress(f"asking {self._where}")
        status, body, failure = 0, b"", None
        with trio.move_on_after(self.options.timeout) as waited:
            try:
                response = await self._http().send(request)
                status, body = response.status_code, response.content
            except (httpx.HTTPError, IoAError) as exc:
                failure = self._transport_failure(exc)
        if waited.cancelled_caught:
            failure = _failed(
                TIMEOUT, "timeout", 0, f"{self._where} did not answer within {self.options.timeout:g} s"
            )
        result = failure or self._interpret(status, body)
        wall_ms = int((time.monotonic() - started) * 1000)
        reported = reported_usage(result.data.get("usage"))  # the remote's tokens (a usage object)
        return TaskResult(
            result.ok,
            result.text,
            {**result.data, "usage": usage_record(wall_ms=wall_ms, **reported)},
            result.files,
            result.failure,
        )

    def _transport_failure(self, exc: Exception) -> TaskResult:
        error = translate_http_error(exc, self._where, self._secrets)
        if isinstance(exc, MessageTooLarge):
            return _failed(BAD_OUTPUT, "too_large", 0, str(exc))
        if isinstance(error, IoATimeout):
            return _failed(TIMEOUT, "timeout", 0, str(error))
        return _failed(CRASH, "unreachable", 0, str(error))

    def _interpret(self, status: int, body: bytes) -> TaskResult:
        if 300 <= status < 400:
            return _failed(
                BAD_OUTPUT,
                "redirect",
                status,
                f"{self._where} answered a redirect ({status}); configure the final URL",
            )
        if status >= 400:
            return self._http_error(status, body)
        if self.options.response == "text":
            text = body.decode("utf-8", "replace")
            return TaskResult.success(
                clip_text(hide_secrets(text, self._secrets)), data={"http": {"status": status}}
            )
        try:
            document = json.loads(body)
        except ValueError:
            return _failed(
                BAD_OUTPUT,
                "bad_json",
                status,
                f"{self._where} did not answer JSON: "
                f"{scrub(body.decode('utf-8', 'replace'), self._secrets, limit=200)}",
            )
        return self._extract(status, document)

    def _extract(self, status: int, document: Any) -> TaskResult:
        o = self.options
        try:
            text = get_path(document, o.text_path)
        except KeyError as exc:
            return _failed(
                BAD_OUTPUT,
                "no_text",
                status,
                f"the answer of {self._where} has no {exc.args[0]!r} (text_path {o.text_path!r})",
            )
        if not isinstance(text, str):
            text = json.dumps(text, ensure_ascii=False, default=str)
        data: dict[str, Any] = {"http": {"status": status}}
        with contextlib.suppress(KeyError):  # tokens the service reports (OpenAI-compatible and others)
            data["usage"] = reported_usage(get_path(document, o.usage_path))
        if o.data_path:
            try:
                data["data"] = fit_data(get_path(document, o.data_path))
            except KeyError:
                data["http"]["missing_data_path"] = o.data_path
        return TaskResult.success(clip_text(hide_secrets(text, self._secrets)), data=data)

    def _http_error(self, status: int, body: bytes) -> TaskResult:
        said = body.decode("utf-8", "replace")
        if self.options.error_path:
            with contextlib.suppress(ValueError, KeyError):
                said = str(get_path(json.loads(body), self.options.error_path))
        said = scrub(said, self._secrets, limit=500) or "no message"
        if status in AUTH:
            return _failed(
                TASK_ERROR,
                "auth",
                status,
                f"{self._where} refused our credentials (HTTP {status}): "
                f"{said}; check the adapter's headers option",
            )
        if status == 429:
            return _failed(TASK_ERROR, "rate_limited", status, f"{self._where} is rate-limiting us: {said}")
        if status == 408:
            return _failed(TIMEOUT, "timeout", status, f"{self._where} timed out (HTTP 408): {said}")
        if status >= 500:
            return _failed(CRASH, "server_error", status, f"{self._where} failed (HTTP {status}): {said}")
        return _failed(REJECTED, "refused", status, f"{self._where} refused the task (HTTP {status}): {said}")

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(5):
                await client.aclose()


def _failed(kind: str, error_kind: str, status: int, reason: str) -> TaskResult:
    return TaskResult.failed(kind, reason, data={"http": {"status": status, "error_kind": error_kind}})


__all__ = ["HttpAdapter", "HttpOptions"]
