"""The A2A gateway's tasks (asyncio): each with a numbered, bounded log of its updates, all in one book.

A :class:`GatewayTask` is one A2A task: one goal (a round) launched through the node's control API. Its
updates (status updates, the artifact) go to its :class:`UpdateLog`; every stream of the task reads that
log after the position it reached, so a slow or stalled reader holds no buffer of its own, and a reader
that fell behind what the log still holds is told how many updates it missed. A task's snapshot
(:meth:`GatewayTask.snapshot`) has the user's message and the message of every update still held, in
order: a client that lost its stream subscribes again, gets the snapshot, takes from its history the
messages after the last one it saw, then the live updates: none missed, none twice.

:class:`TaskBook` bounds it all: at most ``max_running`` tasks at once, ``max_tasks`` kept (finished ones
forgotten oldest first), ``max_bytes`` of updates in total (then finished tasks are forgotten; if none is
left, the oldest updates of the growing task go).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice

from a2a.types.a2a_pb2 import (
    TASK_STATE_SUBMITTED,
    Artifact,
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from google.protobuf.timestamp_pb2 import Timestamp

from ioa_p2p.config.gateway import A2ASettings
from ioa_p2p.gateways.a2a.mapping import TERMINAL, Update

#: Updates one task's log keeps (a goal of 20 turns has about 80).
MAX_UPDATES = 1000


class Busy(Exception):
    """The gateway runs ``max_running`` tasks already."""


@dataclass(frozen=True, slots=True)
class Batch:
    """Updates after a position: ``missed`` no longer held, then ``entries`` (n, update)."""

    missed: int
    entries: tuple[tuple[int, Update], ...]


class UpdateLog:
    """A task's updates, numbered 1, 2, ...; the last :data:`MAX_UPDATES` kept (see the module docstring)."""

    def __init__(self, capacity: int = MAX_UPDATES) -> None:
        self._items: deque[tuple[int, Update, int]] = deque()
        self._capacity = capacity
        self.last = 0
        self.bytes = 0
        self.closed = False
        self._changed = asyncio.Event()

    def append(self, update: Update) -> int:
        """Log ``update``; the bytes the log grew by (less any it dropped to stay within capacity)."""
        size = update.ByteSize()
        self.last += 1
        self._items.append((self.last, update, size))
        self.bytes += size
        grown = size
        while len(self._items) > self._capacity:
            grown -= self.drop_oldest()
        self._wake()
        return grown

    def drop_oldest(self) -> int:
        """Forget the oldest update (never the last one); the bytes freed."""
        if len(self._items) <= 1:
            return 0
        _, _, size = self._items.popleft()
        self.bytes -= size
        return size

    def close(self) -> None:
        self.closed = True
        self._wake()

    def updates(self) -> Iterator[Update]:
        return (update for _, update, _ in self._items)

    def after(self, n: int) -> Batch:
        if not self._items or self._items[-1][0] <= n:
            return Batch(0, ())
        first = self._items[0][0]
        skip = max(0, n + 1 - first)
        entries = tuple((seq, update) for seq, update, _ in islice(self._items, skip, None))
        return Batch(max(0, first - n - 1), entries)

    async def wait_after(self, n: int) -> Batch:
        """What follows ``n``, waiting until there is something or the log closes (callers bound it)."""
        while True:
            batch = self.after(n)
            if batch.entries or self.closed:
                return batch
            await self._changed.wait()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()


@dataclass(eq=False)
class GatewayTask:
    """One A2A task: a goal launched for a client (see the module docstring)."""

    task_id: str
    context_id: str
    skill: str
    message: Message  # the user's
    created_ms: int
    state: TaskState = TASK_STATE_SUBMITTED
    status_message: Message | None = None
    status_ms: int = 0
    artifacts: list[Artifact] = field(default_factory=list)
    launch_id: str = ""
    chat_id: str = ""
    round_id: str = ""
    cancel_requested: bool = False
    log: UpdateLog = field(default_factory=UpdateLog)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    @property
    def next_n(self) -> int:
        """The number of the task's next update (its message ID is ``<task id>.<n>``)."""
        return self.log.last + 1

    def snapshot(self) -> Task:
        """The task now: its state, artifacts, and history (the user's message, then the message of every
        update the log holds, in order); ``metadata`` names the goal (chat, round, launch, skill)."""
        stamp = Timestamp()
        stamp.FromMilliseconds(self.status_ms or self.created_ms)
        status = TaskStatus(state=self.state, timestamp=stamp)
        if self.status_message is not None:
            status.message.CopyFrom(self.status_message)
        history = [self.message]
        for update in self.log.updates():
            if isinstance(update, TaskStatusUpdateEvent) and update.status.HasField("message"):
                history.append(update.status.message)
        task = Task(id=self.task_id, context_id=self.context_id, status=status, history=history)
        task.artifacts.extend(self.artifacts)
        meta = {"skill": self.skill, "chat_id": self.chat_id, "round_id": self.round_id}
        task.metadata.update({**meta, "launch_id": self.launch_id, "updates": str(self.log.last)})
        return task


class TaskBook:
    """Every task of the gateway, by ID, and the chat of each context (see the module docstring)."""

    def __init__(self, settings: A2ASettings) -> None:
        self.settings = settings
        self.tasks: OrderedDict[str, GatewayTask] = OrderedDict()
        self.contexts: OrderedDict[str, str] = OrderedDict()  # context ID -> chat ID
        self.bytes = 0

    @property
    def running(self) -> int:
        return sum(1 for t in self.tasks.values() if not t.terminal)

    def open(self, task: GatewayTask) -> GatewayTask:
        """Keep ``task`` (Busy when ``max_running`` tasks run already)."""
        if self.running >= self.settings.max_running:
            raise Busy(
                f"this gateway runs {self.settings.max_running} tasks at once already; wait for one to "
                "finish, or cancel one"
            )
        self.tasks[task.task_id] = task
        self.bytes += task.message.ByteSize()
        self._evict(keep=task)
        return task

    def get(self, task_id: str) -> GatewayTask | None:
        return self.tasks.get(task_id)

    def publish(self, task: GatewayTask, update: Update) -> None:
        """Apply ``update`` to ``task`` and log it; the end of the task when its state is terminal."""
        if task.terminal or task.task_id not in self.tasks:
            return
        if isinstance(update, TaskStatusUpdateEvent):
            task.state = update.status.state
            task.status_ms = update.status.timestamp.ToMilliseconds()
            if update.status.HasField("message"):
                task.status_message = update.status.message
        elif isinstance(update, TaskArtifactUpdateEvent):
            for old in [a for a in task.artifacts if a.artifact_id == update.artifact.artifact_id]:
                task.artifacts.remove(old)
                self.bytes -= old.ByteSize()
            task.artifacts.append(update.artifact)
            self.bytes += update.artifact.ByteSize()  # kept apart from the log, which may drop the update
        self.bytes += task.log.append(update)
        if task.terminal:
            task.log.close()
            task.done.set()
        self._evict(keep=task)

    def bind_context(self, context_id: str, chat_id: str) -> None:
        """The chat a context's tasks continue (the most recent contexts kept, 4 per task kept)."""
        self.contexts[context_id] = chat_id
        self.contexts.move_to_end(context_id)
        while len(self.contexts) > 4 * self.settings.max_tasks:
            self.contexts.popitem(last=False)

    def in_context(self, context_id: str) -> list[GatewayTask]:
        return [t for t in self.tasks.values() if t.context_id == context_id]

    def _evict(self, keep: GatewayTask) -> None:
        finished = (t for t in list(self.tasks.values()) if t.terminal and t is not keep)
        while len(self.tasks) > self.settings.max_tasks or self.bytes > self.settings.max_bytes:
            old = next(finished, None)
            if old is None:
                break
            self.forget(old)
        while self.bytes > self.settings.max_bytes:
            freed = keep.log.drop_oldest()
            if not freed:
                break
            self.bytes -= freed

    def forget(self, task: GatewayTask) -> None:
        if self.tasks.pop(task.task_id, None) is None:
            return
        self.bytes -= task.log.bytes + task.message.ByteSize() + sum(a.ByteSize() for a in task.artifacts)


__all__ = ["MAX_UPDATES", "Batch", "Busy", "GatewayTask", "TaskBook", "UpdateLog"]
