"""The Agent Protocol v1 over plain HTTP (``/ap/v1/agent/...``), as AutoGPT and other agents serve it.

Only what a task needs: create a task, execute its steps one by one, list its artifacts (the paginated
``{"artifacts": [...]}`` of the spec, or the bare list some servers return) and download them. Responses are
checked for the fields we read; anything else is a :class:`~ioa_p2p.errors.ProtocolViolation`. HTTP errors
become :class:`AgentProtocolError` with the status and the server's (scrubbed) words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from ioa_p2p.adapters.remote import scrub, strip_userinfo, translate_http_error
from ioa_p2p.errors import ProtocolViolation, RemotePeerError

PREFIX = "/ap/v1/agent/tasks"


class AgentProtocolError(RemotePeerError):
    """The agent answered an Agent Protocol request with an HTTP error."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Step:
    step_id: str
    name: str
    status: str
    output: str
    is_last: bool
    additional_output: Any


@dataclass(frozen=True, slots=True)
class Artifact:
    artifact_id: str
    file_name: str
    relative_path: str

    @property
    def path(self) -> str:
        folder = self.relative_path.strip("/")
        if folder.endswith(self.file_name):
            return folder
        return f"{folder}/{self.file_name}" if folder else self.file_name


class AgentProtocolClient:
    def __init__(self, http: httpx.AsyncClient, base_url: str, secrets: list[str]) -> None:
        self._http = http
        self._base = base_url.rstrip("/")
        self._secrets = secrets
        self.where = f"the Agent Protocol agent at {strip_userinfo(base_url)}"

    async def _send(self, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        try:
            response = await self._http.request(method, self._base + path, json=body)
            await response.aread()
        except Exception as exc:
            raise translate_http_error(exc, self.where, self._secrets) from None
        if response.status_code >= 300:
            said = scrub(response.content.decode("utf-8", "replace"), self._secrets, limit=500)
            raise AgentProtocolError(
                f"{self.where} answered HTTP {response.status_code} to {method} {path}: {said}",
                status=response.status_code,
            )
        return response

    async def _json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = await self._send(method, path, body)
        try:
            return json.loads(response.content)
        except ValueError:
            raise ProtocolViolation(f"{self.where} did not answer JSON to {method} {path}") from None

    async def create_task(self, text: str, additional_input: dict[str, Any]) -> str:
        task = await self._json("POST", PREFIX, {"input": text, "additional_input": additional_input})
        task_id = task.get("task_id") if isinstance(task, dict) else None
        if not isinstance(task_id, str) or not task_id:
            raise ProtocolViolation(f"{self.where} created a task without a task_id")
        return task_id

    async def execute_step(self, task_id: str) -> Step:
        step = await self._json("POST", f"{PREFIX}/{quote(task_id, safe='')}/steps", {})
        if not isinstance(step, dict) or not isinstance(step.get("step_id"), str):
            raise ProtocolViolation(f"{self.where} answered a step without a step_id")
        output = step.get("output")
        return Step(
            step_id=step["step_id"],
            name=str(step.get("name") or ""),
            status=str(step.get("status") or ""),
            output=output if isinstance(output, str) else "" if output is None else json.dumps(output),
            is_last=step.get("is_last") is True,
            additional_output=step.get("additional_output"),
        )

    async def list_artifacts(self, task_id: str, limit: int) -> list[Artifact]:
        listing = await self._json("GET", f"{PREFIX}/{quote(task_id, safe='')}/artifacts?page_size={limit}")
        items = listing.get("artifacts") if isinstance(listing, dict) else listing
        if not isinstance(items, list):
            raise ProtocolViolation(f"{self.where} answered an artifact list that is not a list")
        artifacts = []
        for item in items[:limit]:
            if isinstance(item, dict) and isinstance(item.get("artifact_id"), str):
                artifacts.append(
                    Artifact(
                        item["artifact_id"],
                        str(item.get("file_name") or ""),
                        str(item.get("relative_path") or ""),
                    )
                )
        return artifacts

    async def download(self, task_id: str, artifact_id: str) -> bytes:
        path = f"{PREFIX}/{quote(task_id, safe='')}/artifacts/{quote(artifact_id, safe='')}"
        return (await self._send("GET", path)).content


__all__ = ["AgentProtocolClient", "AgentProtocolError", "Artifact", "Step"]
