"""The conversation state machine of one member (pure: no I/O, no clock, no randomness).

The node feeds it events and gets back decisions::

    conv = Conversation(start, me=str(node.peer_id), start_id=chat_id_or_start_msg_id, now=now)
    conv.on_message(Incoming(msg_id, author, kind, content), now) -> list[Decision]
    conv.on_member_left(member, now)                              -> list[Decision]
    conv.on_task_finished(task_id, outcome, now)                  -> list[Decision]
    conv.on_task_progress(task_id, text, fraction, now)           -> list[Decision]
    conv.on_tick(now)                                             -> list[Decision]   # at conv.next_wakeup
    conv.compose_turn(speak.token, draft_or_None, now)            -> list[Decision]   # after the brain ran

Decisions: :class:`Speak` (it is this member's turn: run the brain on ``conv.view()``, then call
``compose_turn``), :class:`StartTask` / :class:`CancelTask` (run or stop a task through the local adapter),
:class:`Post` (sign and send this ``conv.*`` message to the chat, then feed it back through ``on_message``
like any other message), :class:`Concluded`, :class:`Aborted` (final) and :class:`Rejected` (log only).

Shared state is a pure function of the *set* of messages received, whatever their order, so every member
that holds the same messages agrees. Turns form a tree (each names its ``prev`` turn); a turn is valid when
its author is entitled to the floor at its parent (the holder at level 0, the i-th fallback speaker at level
i) and the floor's rules hold; the canonical history is the path to the deepest valid turn, ties broken by
lower level, then lower message id. Timers only decide *when* this member posts (its own turn, or a fallback
takeover); they never decide what others accept. The rules, with every limit and the fallback-speaker rule,
are documented in docs/conversation.md.
"""

from __future__ import annotations

from ioa_p2p.conversation import messages as cm
from ioa_p2p.conversation.messages import ConvStart, TaskOutcome, TaskProgress, Turn
from ioa_p2p.conversation.repair import repair_turn
from ioa_p2p.conversation.tree import (
    Status,
    TreeTask,
    TurnNode,
    chain_of,
    child_node,
    failed,
    invalid_turn,
    preference,
    turn_view,
)
from ioa_p2p.conversation.types import (
    Aborted,
    CancelTask,
    Concluded,
    ConversationView,
    Decision,
    Floor,
    Incoming,
    Post,
    Rejected,
    Speak,
    SpeakToken,
    StartTask,
    TaskStatus,
    TaskView,
    TurnDraft,
)
from ioa_p2p.errors import InvalidContent

#: This member's own limits on one round (each message rebuilds the turn tree, each node copying its
#: branch's tasks: 600 turns of 32 tasks cost 53 s and 356 MB). Past them the member leaves the round
#: (``Aborted``); others may go on. A round within the launch limit (``max_turns`` <= 1000) stays under.
MAX_HELD_TURNS = 1200
MAX_ROUND_TASKS = 256


class Conversation:
    """One member's replica of a conversation round. See the module docstring for the driving loop."""

    def __init__(self, start: ConvStart, *, me: str, start_id: str, now: float) -> None:
        self.start = start
        self.me = me
        self.start_id = start_id
        #: The members' card names as this member knows them (peer ID -> name), set by the node: texts
        #: this member composes (a conclusion, its cost table) name agents by them.
        self.names: dict[str, str] = {}
        self._members = start.members
        self._turns: dict[str, tuple[str, Turn]] = {}
        self._children_of: dict[str, list[str]] = {}
        self._results: dict[str, dict[str, tuple[str, TaskOutcome]]] = {}  # task -> msg id -> result
        self._progress: dict[str, str] = {}
        self._left: set[str] = set()
        self._seen: set[str] = set()
        # local bookkeeping
        self._tip_seen: dict[str, float] = {}
        self._tip_open: dict[str, float] = {}
        self._spoken: set[tuple[str, int]] = set()
        self._composed: set[SpeakToken] = set()
        self._running: set[str] = set()
        self._done: set[str] = set()
        self._ended: str = ""  # "", "concluded" or "aborted"
        self._tasks_held = 0
        self._wakeup: float | None = None
        self._root = self._tip = TurnNode(start_id, "", None, -1, (start.first_speaker,), (), 0, {}, {})
        self._rebuild()

    # ----------------------------------------------------------------- events

    def on_message(self, msg: Incoming, now: float) -> list[Decision]:
        """Record a verified chat message (any kind; non-``conv.`` kinds are ignored)."""
        if not msg.kind.startswith("conv.") or msg.msg_id in self._seen or msg.kind == cm.START:
            return self._reconcile(now)
        self._seen.add(msg.msg_id)
        if msg.author not in self._members:
            return [self._reject(msg, "the author is not a member of this conversation")]
        try:
            parsed = cm.parse(msg.kind, msg.content)
        except InvalidContent as exc:
            return [self._reject(msg, str(exc))]
        if isinstance(parsed, Turn):
            self._tasks_held += len(parsed.tasks)
            if len(self._turns) >= MAX_HELD_TURNS or self._tasks_held > MAX_ROUND_TASKS:
                return self._leave_oversized()
            self._turns[msg.msg_id] = (msg.author, parsed)
            self._children_of.setdefault(parsed.prev, []).append(msg.msg_id)
        elif isinstance(parsed, TaskOutcome):
            assignee = self._assignee(parsed.task_id)
            if assignee is not None and assignee != msg.author:
                return [self._reject(msg, "only the task's assignee may post its result")]
            self._results.setdefault(parsed.task_id, {})[msg.msg_id] = (msg.author, parsed)
        elif isinstance(parsed, TaskProgress) and self._assignee(parsed.task_id) == msg.author:
            self._progress[parsed.task_id] = parsed.text
        self._rebuild()
        return self._reconcile(now)

    def on_member_left(self, member: str, now: float) -> list[Decision]:
        """A member left or was removed (a signed membership change in the chat)."""
        if member in self._members:
            self._left.add(member)
            self._rebuild()
        return self._reconcile(now)

    def on_task_finished(self, task_id: str, outcome: TaskOutcome, now: float) -> list[Decision]:
        """A task this member ran has ended; returns the result to post (nothing if it was cancelled)."""
        if task_id not in self._running:
            return self._reconcile(now)
        self._running.discard(task_id)
        self._done.add(task_id)
        text = outcome.text[: cm.MAX_TEXT]
        fixed = TaskOutcome(task_id, outcome.ok, text, outcome.data, outcome.files, outcome.failure)
        return [Post(cm.RESULT, fixed.to_content()), *self._reconcile(now)]

    def on_task_progress(self, task_id: str, text: str, fraction: float | None, now: float) -> list[Decision]:
        """A running local task reported progress; returns the progress message to post."""
        if task_id not in self._running:
            return []
        if fraction is not None:
            fraction = min(1.0, max(0.0, float(fraction))) if fraction == fraction else None
        return [Post(cm.PROGRESS, TaskProgress(task_id, str(text)[:1000], fraction).to_content())]

    def on_tick(self, now: float) -> list[Decision]:
        """Time passed; call at :meth:`next_wakeup` (calling more often is harmless)."""
        return self._reconcile(now)

    def next_wakeup(self) -> float | None:
        """The next time at which :meth:`on_tick` may produce a decision (None once ended)."""
        return None if self._ended else self._wakeup

    @property
    def ended(self) -> bool:
        return bool(self._ended)

    # ----------------------------------------------------------------- composing a turn

    def compose_turn(self, token: SpeakToken, draft: TurnDraft | None, now: float) -> list[Decision]:
        """Turn a brain's draft into a valid turn to post; [] if the floor moved on meanwhile.

        ``draft=None`` (the brain failed or timed out) gives the rule-based pass: a conclusion from the task
        results when one is due, else a discussion turn handing the floor to the next member.
        """
        tip = self._tip
        if self._ended or token.tip != tip.msg_id or token.height != tip.height + 1:
            return []
        if token in self._composed:  # never sign two different turns for the same floor
            return []
        chain = self._chain(tip.queue[0])
        if token.level >= len(chain) or chain[token.level] != self.me:
            return []
        speak = self._speak_context(tip, token.level, now)
        turn = self._repair(tip, token, speak, draft)
        if self._invalid(tip, self.me, turn) is not None:  # repair failed: fall back to the plainest turn
            turn = self._repair(tip, token, speak, None)
        self._composed.add(token)
        return [Post(turn.kind, turn.to_content())]

    def _repair(self, tip: TurnNode, token: SpeakToken, speak: Speak, draft: TurnDraft | None) -> Turn:
        running = {t for t in tip.tasks if self._status(tip.tasks[t], tip)[0] is TaskStatus.RUNNING}
        return repair_turn(
            draft, speak, prev=tip.msg_id, height=tip.height + 1, level=token.level,
            members=set(self._members), running=running, view=self.view, names=self.names,
        )  # fmt: skip

    # ----------------------------------------------------------------- views

    def view(self) -> ConversationView:
        path = self._path(self._tip)
        turns = tuple(turn_view(n) for n in path if n.turn is not None)
        tasks = tuple(self._task_view(t, self._tip) for t in self._tip.tasks.values())
        floor = None
        if not self._tip.concluded and not self._ended:
            holder = self._tip.queue[0]
            floor = Floor(
                height=self._tip.height + 1,
                holder=holder,
                chain=self._chain(holder),
                waiting=tuple(t for t in self._tip.waiting if self._running_at(t, self._tip)),
                must_conclude=self._tip.height + 2 >= self.start.max_turns,
            )
        conclusion = turns[-1] if self._tip.concluded else None
        status = "concluded" if self._tip.concluded else ("aborted" if self._ended else "running")
        return ConversationView(
            self.start, self.me, status, turns, tasks, floor, frozenset(self._left), conclusion
        )

    # ----------------------------------------------------------------- tree (shared state)

    def _assignee(self, task_id: str) -> str | None:
        msg_id, _, index = task_id.rpartition("#")
        entry = self._turns.get(msg_id)
        if entry is None or not (index.isascii() and index.isdigit()):  # "²".isdigit(), int("²") fails
            return None
        tasks = entry[1].tasks
        return tasks[int(index)].assignee if int(index) < len(tasks) else None

    def _result(self, task_id: str) -> TaskOutcome | None:
        assignee = self._assignee(task_id)
        found = sorted((mid, r) for mid, (a, r) in self._results.get(task_id, {}).items() if a == assignee)
        return found[0][1] if found else None

    def _status(self, task: TreeTask, node: TurnNode) -> Status:
        """A task's status on the branch ending at ``node``; the first rule that applies wins."""
        result = self._result(task.task_id)
        if result is not None:
            status = TaskStatus.COMPLETED if result.ok else TaskStatus.FAILED
            return status, result, result.text, result.failure
        if task.assignee in self._left:
            return failed(f"the assignee {task.assignee} left the conversation", "left")
        if task.task_id in node.declared:
            return failed(node.declared[task.task_id], "timeout")
        if node.concluded:
            return failed("the conversation concluded before the task finished", "cancelled")
        if self._ended == "aborted":
            return failed("the goal's deadline passed before the task finished", "timeout")
        if self._ended:
            return failed("the conversation ended before the task finished", "cancelled")
        return TaskStatus.RUNNING, None, "", None

    def _running_at(self, task_id: str, node: TurnNode) -> bool:
        task = node.tasks.get(task_id)
        return task is not None and self._status(task, node)[0] is TaskStatus.RUNNING

    def _chain(self, holder: str) -> tuple[str, ...]:
        return chain_of(self._members, holder)

    def _rebuild(self) -> None:
        root = TurnNode(self.start_id, "", None, -1, (self.start.first_speaker,), (), 0, {}, {})
        stack = [root]
        order: list[TurnNode] = []
        while stack:
            node = stack.pop()
            order.append(node)
            for child_id in sorted(self._children_of.get(node.msg_id, ())):
                author, turn = self._turns[child_id]
                if self._invalid(node, author, turn) is None:
                    child = child_node(node, child_id, author, turn, self._members, self.start.max_self_turns)
                    node.children.append(child)
                    stack.append(child)
        for node in reversed(order):  # children come after their parent in ``order``
            node.best = max([c.best for c in node.children], default=(node.concluded, node.height))
        tip = root
        while tip.children:
            tip = min(tip.children, key=preference)
        self._root, self._tip = root, tip

    def _invalid(self, parent: TurnNode, author: str, turn: Turn) -> str | None:
        """Why ``turn`` by ``author`` is not a valid successor of ``parent`` (None when it is valid)."""
        return invalid_turn(parent, author, turn, self.start, self._members, self._running_at)

    def _path(self, node: TurnNode) -> list[TurnNode]:
        path = [self._root]
        while path[-1] is not node and path[-1].children:
            nxt = min(path[-1].children, key=preference)
            path.append(nxt)
        return path

    # ----------------------------------------------------------------- local decisions

    def _reconcile(self, now: float) -> list[Decision]:
        out: list[Decision] = []
        tip = self._tip
        if self._ended:
            return self._cancel_all("the conversation has ended")
        self._tip_seen.setdefault(tip.msg_id, now)
        if tip.concluded:
            self._ended = "concluded"
            assert tip.turn is not None
            out += self._cancel_all("the conversation concluded")
            out.append(Concluded(tip.turn.text, tip.author, tip.msg_id, tip.turn.forced))
            return out
        if now >= self.start.deadline:
            self._ended = "aborted"
            out += self._cancel_all("the goal's deadline passed")
            out.append(Aborted("the goal's deadline passed without a conclusion"))
            return out
        out += self._reconcile_tasks(tip, now)
        out += self._maybe_speak(tip, now)
        return out

    def _leave_oversized(self) -> list[Decision]:
        """This member's limits are exceeded: it stops taking part (the round may go on without it)."""
        self._ended = "aborted"
        why = f"the round exceeds this member's limits ({MAX_HELD_TURNS} turns, {MAX_ROUND_TASKS} tasks)"
        return [*self._cancel_all(why), Aborted(why)]

    def _cancel_all(self, reason: str) -> list[Decision]:
        out: list[Decision] = [CancelTask(t, reason) for t in sorted(self._running)]
        self._running.clear()
        return out

    def _reconcile_tasks(self, tip: TurnNode, now: float) -> list[Decision]:
        out: list[Decision] = []
        for task_id in sorted(self._running):
            task = tip.tasks.get(task_id)
            if task is None or self._status(task, tip)[0] is not TaskStatus.RUNNING:
                self._running.discard(task_id)
                out.append(CancelTask(task_id, "the task is no longer wanted"))
        for task in tip.tasks.values():
            if task.assignee != self.me or task.task_id in self._running | self._done:
                continue
            if self._status(task, tip)[0] is TaskStatus.RUNNING:
                self._running.add(task.task_id)
                deadline = min(now + self.start.task_timeout, self.start.deadline)
                out.append(StartTask(self._task_view(task, tip), deadline))
        return out

    def _speak_context(self, tip: TurnNode, level: int, now: float) -> Speak:
        chain = self._chain(tip.queue[0])
        pending = tuple(t for t in tip.waiting if self._running_at(t, tip))
        wrap_up = now >= self.start.deadline - self.start.wrap_up
        last = tip.height + 2 >= self.start.max_turns
        if wrap_up:
            reason = "wrap-up"
        elif level > 0:
            reason = "holder-left" if chain[0] in self._left else "speaker-timeout"
        elif pending:
            reason = "tasks-overdue"
        elif last:
            reason = "max-turns"
        else:
            reason = ""
        token = SpeakToken(tip.msg_id, level, tip.height + 1)
        return Speak(token, reason, wrap_up or last, pending)

    def _ready_at(self, tip: TurnNode, level: int, now: float) -> float:
        """When this member may take the floor at ``level`` (see "fallback speaker" in the docs)."""
        chain = self._chain(tip.queue[0])
        live_before = sum(1 for m in chain[:level] if m not in self._left)
        pending = any(self._running_at(t, tip) for t in tip.waiting)
        seen = self._tip_seen[tip.msg_id]
        # waiting: the overdue time; open: when this member first saw the floor open
        opened = self._tip_open.setdefault(tip.msg_id, now) if not pending else 0.0
        base = seen + self.start.task_timeout if pending else opened
        normal = base + live_before * self.start.speaker_timeout
        wrap_start = self.start.deadline - self.start.wrap_up
        step = self.start.wrap_up / (len(self._members) + 1)
        return min(normal, max(wrap_start, seen) + live_before * step)

    def _maybe_speak(self, tip: TurnNode, now: float) -> list[Decision]:
        chain = self._chain(tip.queue[0])
        wakeups = [self.start.deadline, self.start.deadline - self.start.wrap_up]
        out: list[Decision] = []
        if self.me in chain and self.me not in self._left:
            level = chain.index(self.me)
            ready = self._ready_at(tip, level, now)
            if now >= ready and (tip.msg_id, level) not in self._spoken:
                self._spoken.add((tip.msg_id, level))
                out.append(self._speak_context(tip, level, now))
            elif now < ready:
                wakeups.append(ready)
        if any(self._running_at(t, tip) for t in tip.waiting):
            wakeups.append(self._tip_seen[tip.msg_id] + self.start.task_timeout)
        future = [w for w in wakeups if w > now]
        self._wakeup = min(future) if future else None
        return out

    # ----------------------------------------------------------------- helpers

    def _reject(self, msg: Incoming, reason: str) -> Rejected:
        return Rejected(msg.msg_id, msg.author, reason)

    def _task_view(self, task: TreeTask, node: TurnNode) -> TaskView:
        status, result, text, failure = self._status(task, node)
        return TaskView(
            task_id=task.task_id,
            assigner=task.assigner,
            assignee=task.assignee,
            title=task.title,
            description=task.description,
            mode=task.mode,
            height=task.height,
            status=status,
            text=text,
            data=result.data if result else None,
            files=result.files if result else None,
            failure=failure,
            progress=self._progress.get(task.task_id, ""),
        )


__all__ = ["Conversation"]
