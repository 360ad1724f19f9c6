"""The built-in tools of the ``llm`` kind, each switchable in its options.

=============  ==========================================  ==================================================
tool           arguments                                   what it does
=============  ==========================================  ==================================================
``python``     ``{"code": str}``                           the ``python`` adapter: the existing sandbox
``calculator`` ``{"expression": str}``                     the ``calculator`` adapter: exact arithmetic
``retrieval``  ``{"query": str}``                          the ``retrieval`` adapter over one folder
``read_file``  ``{"path": str}``                           a file (or a folder's listing) under one folder
``http_get``   ``{"url": str}``                            GET to an allow-listed host (off by default)
=============  ==========================================  ==================================================

The adapter-backed tools run their adapter with :func:`~ioa_p2p.adapters.run_task` and a nested task that
keeps the parent's deadline, so every failure is a result the model reads, never an exception. ``read_file``
refuses paths outside its folder (``..``, absolute paths, symlinks leading out). ``http_get`` takes only
``http``/``https`` URLs whose host is exactly one of ``http_hosts``, follows no redirect, and reads at most
``http_max_kb``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import trio

from ioa_p2p.adapters.base import REJECTED, TASK_ERROR, Adapter, Task, TaskContext, TaskResult, run_task
from ioa_p2p.adapters.remote import open_http_client, translate_http_error
from ioa_p2p.adapters.toolloop.spec import ToolSpec
from ioa_p2p.errors import IoAError

Call = Callable[[dict[str, Any], Task], Awaitable[TaskResult]]


@dataclass(frozen=True, slots=True)
class Tool:
    spec: ToolSpec
    call: Call
    adapter: Adapter | None = None  # closed with the llm adapter


def _schema(name: str, about: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": about}},
        "required": [name],
    }


def _argument(arguments: dict[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f'the argument "{name}" (a non-empty string) is missing')
    return value


def adapter_tool(name: str, description: str, argument: str, about: str, adapter: Adapter) -> Tool:
    """A tool that runs ``adapter`` on the argument's text (a nested task with the parent's deadline)."""

    async def call(arguments: dict[str, Any], parent: Task) -> TaskResult:
        try:
            text = _argument(arguments, argument)
        except ValueError as exc:
            return TaskResult.failed(REJECTED, str(exc))
        nested = Task(text, (), parent.deadline, parent.task_id, parent.chat_id)
        return await run_task(adapter, nested, TaskContext())

    return Tool(ToolSpec(name, description, _schema(argument, about)), call, adapter)


def read_file_tool(root: Path, max_kb: int) -> Tool:
    base = root.resolve()

    async def call(arguments: dict[str, Any], parent: Task) -> TaskResult:
        try:
            wanted = _argument(arguments, "path")
        except ValueError as exc:
            return TaskResult.failed(REJECTED, str(exc))
        return await trio.to_thread.run_sync(_read, base, wanted, max_kb * 1024)

    about = (
        "Read a text file (or list a folder) under the allowed folder; paths are relative to it. "
        f"Up to {max_kb} KiB."
    )
    return Tool(ToolSpec("read_file", about, _schema("path", "relative path, '.' for the folder")), call)


def _read(base: Path, wanted: str, limit: int) -> TaskResult:
    target = (base / wanted.strip().lstrip("/")).resolve()
    if target != base and not target.is_relative_to(base):
        return TaskResult.failed(REJECTED, f"{wanted!r} is outside the allowed folder")
    relative = target.relative_to(base).as_posix() or "."
    if target.is_dir():
        entries = sorted(
            p.name + ("/" if p.is_dir() else "") for p in target.iterdir() if not p.name.startswith(".")
        )
        listing = "\n".join(entries[:200]) + (
            f"\n[... {len(entries) - 200} more]" if len(entries) > 200 else ""
        )
        return TaskResult.success(f"folder {relative}:\n{listing or '(empty)'}")
    if not target.is_file():
        return TaskResult.failed(TASK_ERROR, f"no file {relative!r} in the allowed folder")
    with target.open("rb") as handle:
        content = handle.read(limit + 1)
    text = content[:limit].decode("utf-8", "replace")
    cut = f"\n[... cut at {limit // 1024} KiB]" if len(content) > limit else ""
    return TaskResult.success(f"{relative}:\n{text}{cut}")


def http_get_tool(hosts: tuple[str, ...], max_kb: int, timeout: float) -> Tool:
    allowed = {h.lower().strip() for h in hosts}

    async def call(arguments: dict[str, Any], parent: Task) -> TaskResult:
        try:
            url = _argument(arguments, "url").strip()
        except ValueError as exc:
            return TaskResult.failed(REJECTED, str(exc))
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("http", "https") or host not in allowed or parts.username or parts.password:
            return TaskResult.failed(
                REJECTED, f"only http(s) GETs to {sorted(allowed)} are allowed, not {url[:200]!r}"
            )
        return await _get(url, host, max_kb * 1024, timeout)

    about = f"HTTP GET a URL on an allowed host ({', '.join(sorted(allowed))}); returns status and body text."
    return Tool(ToolSpec("http_get", about, _schema("url", "http(s) URL")), call)


async def _get(url: str, host: str, limit: int, seconds: float) -> TaskResult:
    async with open_http_client(max_response_bytes=limit, timeout=seconds) as client:
        try:
            with trio.fail_after(seconds):
                response = await client.get(url)
                await response.aread()
        except trio.TooSlowError:
            return TaskResult.failed("timeout", f"{host} did not answer within {seconds:g} s")
        except Exception as exc:  # httpx errors and ours (too large): translated once, here
            error = translate_http_error(exc, host)
            if not isinstance(error, IoAError):  # pragma: no cover - translate_http_error always translates
                raise
            return TaskResult.failed(TASK_ERROR, str(error))
    body = response.content.decode("utf-8", "replace")
    text = f"HTTP {response.status_code}\n{body}"
    if response.status_code >= 300:
        return TaskResult.failed(TASK_ERROR, text)
    return TaskResult.success(text)


__all__ = ["Tool", "adapter_tool", "http_get_tool", "read_file_tool"]
