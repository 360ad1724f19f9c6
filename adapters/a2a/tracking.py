"""What we know about one remote A2A task, folded from its events, and the result it becomes.

:class:`TaskTracker` applies ``StreamResponse`` events (task, status update, artifact update, message) and
``GetTask`` answers; :func:`build_result` maps the final state onto our result:

================================  ==========================================================
A2A state                         our result
================================  ==========================================================
``TASK_STATE_COMPLETED``          success: the artifacts' text, else the status message (once,
                                  :func:`answer_text`); raw parts -> files
a direct ``Message`` reply        success: its text
``TASK_STATE_REJECTED``           ``rejected`` with the remote's reason
``TASK_STATE_FAILED``             ``task_error`` with the remote's reason
``TASK_STATE_CANCELED``           ``task_error`` ("the remote agent canceled the task")
``TASK_STATE_INPUT_REQUIRED``     ``task_error`` with the remote's question (nobody here can answer it)
``TASK_STATE_AUTH_REQUIRED``      ``task_error`` (configure credentials with the ``headers`` option)
anything else                     ``bad_output``
================================  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from a2a.types.a2a_pb2 import Artifact, Message, Part, StreamResponse, Task, TaskState
from google.protobuf.json_format import MessageToDict

from ioa_p2p.adapters.base import BAD_OUTPUT, REJECTED, TASK_ERROR, TaskResult
from ioa_p2p.adapters.remote import FileCollector, clip_text, fit_data, hide_secrets, scrub
from ioa_p2p.errors import ProtocolViolation

TERMINAL = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
    }
)
INTERRUPTED = frozenset({TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED})
MAX_ARTIFACTS = 64


def state_name(state: int) -> str:
    """``TASK_STATE_INPUT_REQUIRED`` -> ``input-required``."""
    try:
        name = TaskState.Name(state)
    except ValueError:
        return f"unknown-{state}"
    return name.removeprefix("TASK_STATE_").lower().replace("_", "-")


def message_text(message: Message) -> str:
    return "\n".join(p.text for p in message.parts if p.HasField("text") and p.text).strip()


@dataclass
class TaskTracker:
    """The remote task as far as its events told us."""

    max_events: int
    task_id: str = ""
    context_id: str = ""
    state: int = TaskState.TASK_STATE_UNSPECIFIED
    status_text: str = ""
    reply: Message | None = None
    artifacts: dict[str, Artifact] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    events: int = 0

    @property
    def done(self) -> bool:
        """The remote answered (a message), finished, or is waiting for input we will not give."""
        return self.reply is not None or self.state in TERMINAL or self.state in INTERRUPTED

    @property
    def open_remote_task(self) -> bool:
        """There is a remote task that is neither finished nor already being canceled by itself."""
        return bool(self.task_id) and self.state not in TERMINAL

    def apply(self, event: StreamResponse) -> str | None:
        """Fold one event in; returns a progress text when the status changed."""
        self._count()
        kind = event.WhichOneof("payload")
        if kind == "task":
            return self.apply_task(event.task)
        if kind == "status_update":
            update = event.status_update
            self._adopt_id(update.task_id, update.context_id)
            return self._set_status(update.status.state, message_text(update.status.message))
        if kind == "artifact_update":
            self._adopt_id(event.artifact_update.task_id, event.artifact_update.context_id)
            self._add_artifact(event.artifact_update.artifact, append=event.artifact_update.append)
            return f"artifact {event.artifact_update.artifact.name or 'received'}"
        if kind == "message":
            self.reply = event.message
            return "reply received"
        raise ProtocolViolation("the remote A2A agent sent an empty event")

    def apply_task(self, task: Task) -> str | None:
        self._adopt_id(task.id, task.context_id)
        for artifact in task.artifacts:
            self._add_artifact(artifact, append=False)
        if task.HasField("metadata"):
            self.metadata = MessageToDict(task.metadata)
        return self._set_status(task.status.state, message_text(task.status.message))

    def _count(self) -> None:
        self.events += 1
        if self.events > self.max_events:
            raise ProtocolViolation(
                f"the remote A2A agent sent more than {self.max_events} events for one task"
            )

    def _adopt_id(self, task_id: str, context_id: str) -> None:
        if task_id and not self.task_id:
            self.task_id, self.context_id = task_id, context_id
        elif task_id and task_id != self.task_id:
            raise ProtocolViolation(
                f"the remote A2A agent mixed events of task {task_id!r} into {self.task_id!r}"
            )

    def _set_status(self, state: int, text: str) -> str | None:
        changed = state != self.state or (text and text != self.status_text)
        self.state = state
        if text:
            self.status_text = text
        if not changed:
            return None
        return f"remote {state_name(state)}" + (f": {text}" if text else "")

    def _add_artifact(self, artifact: Artifact, *, append: bool) -> None:
        key = artifact.artifact_id or f"artifact-{len(self.artifacts) + 1}"
        previous = self.artifacts.get(key)
        if append and previous is not None:
            previous.parts.extend(artifact.parts)
            return
        if previous is None and len(self.artifacts) >= MAX_ARTIFACTS:
            raise ProtocolViolation(f"the remote A2A agent sent more than {MAX_ARTIFACTS} artifacts")
        copy = Artifact()
        copy.CopyFrom(artifact)
        self.artifacts[key] = copy


def _collect(tracker: TaskTracker, secrets: list[str]) -> tuple[str, dict[str, Any], dict[str, bytes]]:
    """The answer (see :func:`answer_text`), ``data`` and files of the tracked task."""
    artifact_texts: list[str] = []
    collector = FileCollector()
    data_parts: list[Any] = []
    urls: list[str] = []
    listing: list[dict[str, Any]] = []
    for n, artifact in enumerate(tracker.artifacts.values(), 1):
        listing.append({"id": artifact.artifact_id, "name": artifact.name, "parts": len(artifact.parts)})
        for part in artifact.parts:
            _collect_part(part, artifact.name or f"artifact-{n}", artifact_texts, collector, data_parts, urls)
    text, source = answer_text(tracker, artifact_texts)
    text = hide_secrets(text, secrets)
    data: dict[str, Any] = {"artifacts": listing, "a2a": {"answer_from": source}}
    if source == "artifacts" and tracker.status_text and tracker.status_text.strip() not in text:
        data["a2a"]["status_message"] = scrub(tracker.status_text, secrets, limit=2000)
    if data_parts:
        data["data_parts"] = fit_data(data_parts)
    if urls:
        data["urls"] = urls[:50]
    if collector.skipped:
        data["files_skipped"] = collector.skipped
    return text, data, collector.files


def answer_text(tracker: TaskTracker, artifact_texts: list[str]) -> tuple[str, str]:
    """The remote's answer, once, and where it came from: a direct ``Message`` reply is the answer
    (``"reply"``); otherwise the text parts of the task's artifacts, in order (``"artifacts"``: A2A's
    outputs), or, when no artifact has text, the final status message (``"status"``). A status message
    that only repeats the artifacts' text (many agents send the result in both) is not added again; one
    that says more is kept in ``data["status_message"]``."""
    if tracker.reply is not None:
        return message_text(tracker.reply), "reply"
    texts = [t.strip() for t in artifact_texts if t.strip()]
    if texts:
        return "\n\n".join(texts), "artifacts"
    return tracker.status_text, "status" if tracker.status_text else "none"


def _collect_part(
    part: Part, name: str, texts: list[str], files: FileCollector, data_parts: list[Any], urls: list[str]
) -> None:
    content = part.WhichOneof("content")
    if content == "text":
        texts.append(part.text)
    elif content == "raw":
        files.add(part.filename or name, part.raw, fallback="artifact")
    elif content == "data":
        data_parts.append(MessageToDict(part.data))
    elif content == "url":
        urls.append(part.url)


def remote_usage(metadata: dict[str, Any]) -> dict[str, Any]:
    """Token counts a remote put in its task metadata (``usage`` with OpenAI or Anthropic key names)."""
    usage = metadata.get("usage")
    if not isinstance(usage, dict):
        return {}
    out: dict[str, Any] = {}
    for ours, theirs in (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens")):
        value = usage.get(ours, usage.get(theirs))
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 2**53:
            out[ours] = int(value)
    if isinstance(usage.get("model"), str):
        out["model"] = usage["model"][:128]
    return out


def build_result(tracker: TaskTracker, info: dict[str, Any], secrets: list[str]) -> TaskResult:
    """Our result for the tracked remote task (see the module docstring); ``info`` joins ``data``."""
    text, data, files = _collect(tracker, secrets)
    data["a2a"] = {
        **data["a2a"],
        **info,
        "task_id": tracker.task_id,
        "context_id": tracker.context_id,
        "state": state_name(tracker.state),
        "events": tracker.events,
    }
    state = tracker.state
    reason = scrub(tracker.status_text, secrets, limit=1000) or "no reason given"
    if tracker.reply is not None or state == TaskState.TASK_STATE_COMPLETED:
        answer = clip_text(text or "(the remote agent sent no text)")
        return TaskResult.success(answer, data=data, files=files)
    if state == TaskState.TASK_STATE_REJECTED:
        return TaskResult.failed(REJECTED, f"the remote A2A agent rejected the task: {reason}", data=data)
    if state == TaskState.TASK_STATE_FAILED:
        return TaskResult.failed(TASK_ERROR, f"the remote A2A agent failed: {reason}", data=data, files=files)
    if state == TaskState.TASK_STATE_CANCELED:
        return TaskResult.failed(TASK_ERROR, f"the remote A2A agent canceled the task: {reason}", data=data)
    if state == TaskState.TASK_STATE_INPUT_REQUIRED:
        return TaskResult.failed(
            TASK_ERROR,
            f"the remote A2A agent needs more input, which a task cannot give it: {reason}; "
            "restate the task with everything it needs",
            data=data,
        )
    if state == TaskState.TASK_STATE_AUTH_REQUIRED:
        return TaskResult.failed(
            TASK_ERROR,
            f"the remote A2A agent needs authorization: {reason}; give the node credentials for it "
            "(the adapter's headers option)",
            data=data,
        )
    return TaskResult.failed(
        BAD_OUTPUT, f"the remote A2A agent ended in state {state_name(state)} without an answer", data=data
    )


__all__ = [
    "INTERRUPTED",
    "TERMINAL",
    "TaskTracker",
    "answer_text",
    "build_result",
    "remote_usage",
    "state_name",
]
