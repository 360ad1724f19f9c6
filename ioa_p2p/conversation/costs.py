"""What tasks cost, per agent, computed only from signed task results.

Every ``conv.task.result`` carries ``data["usage"]`` (docs/protocol.md): ``model`` (text or null),
``prompt_tokens`` and ``completion_tokens`` (the model server's ``usage``, or null = unknown),
``tool_calls`` and ``wall_ms``. The assignee's node signs the message, so the claim is attributable: any
member (or anyone holding the exported history) can recompute the table below from the messages alone and
check another member's claimed cost against it.

- :func:`normalize_usage`: a usage record in the canonical shape (what a node puts into its results);
- :func:`usage_of`: the usage record of a result's ``data`` (tolerant: missing or malformed -> unknown);
- :func:`cost_table`: one :class:`CostRow` per result author (tasks, ok, tokens, tool calls, time) and the
  total; a task counts once per author (its first result);
- :func:`render_costs`: the table as text lines (``?`` marks tokens some task did not report).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

USAGE_KEYS = ("model", "prompt_tokens", "completion_tokens", "tool_calls", "wall_ms")
MAX_COUNT = 2**53  # claims beyond this are not counts (and would not add up exactly as JSON numbers)


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_COUNT:
        return None
    return value


def normalize_usage(raw: Any, *, wall_ms: int | None = None, model: str | None = None) -> dict[str, Any]:
    """``raw`` (an adapter's ``data["usage"]``, or anything) as a canonical usage record. ``wall_ms`` and
    ``model`` fill in what ``raw`` lacks (the node measures the wall time of every task itself)."""
    given = raw if isinstance(raw, Mapping) else {}
    name = given.get("model")
    record = {
        "model": name[:200] if isinstance(name, str) and name else model,
        "prompt_tokens": _count(given.get("prompt_tokens")),
        "completion_tokens": _count(given.get("completion_tokens")),
        "tool_calls": _count(given.get("tool_calls")) or 0,
        "wall_ms": _count(given.get("wall_ms")),
    }
    if record["wall_ms"] is None:
        record["wall_ms"] = max(0, int(wall_ms)) if wall_ms is not None else 0
    return record


def usage_of(data: Any) -> dict[str, Any]:
    """The usage record of a task result's ``data`` (unknown tokens, no time when it has none)."""
    return normalize_usage(data.get("usage") if isinstance(data, Mapping) else None)


@dataclass
class CostRow:
    """What one agent's tasks cost (``None`` tokens: no task of it reported any)."""

    agent: str
    tasks: int = 0
    ok: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    unknown_tokens: int = 0  # tasks whose tokens are unknown
    tool_calls: int = 0
    wall_ms: int = 0
    models: list[str] = field(default_factory=list)

    def add(self, ok: bool, usage: Mapping[str, Any]) -> None:
        self.tasks += 1
        self.ok += 1 if ok else 0
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if prompt is None or completion is None:
            self.unknown_tokens += 1
        else:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
        self.tool_calls += usage.get("tool_calls") or 0
        self.wall_ms += usage.get("wall_ms") or 0
        model = usage.get("model")
        if isinstance(model, str) and model and model not in self.models and len(self.models) < 8:
            self.models.append(model)

    def merge(self, other: CostRow) -> None:
        self.tasks += other.tasks
        self.ok += other.ok
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.unknown_tokens += other.unknown_tokens
        self.tool_calls += other.tool_calls
        self.wall_ms += other.wall_ms
        self.models.extend(m for m in other.models if m not in self.models)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "tasks": self.tasks,
            "ok": self.ok,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens_unknown_tasks": self.unknown_tokens,
            "tool_calls": self.tool_calls,
            "wall_ms": self.wall_ms,
            "models": list(self.models),
        }


@dataclass(frozen=True)
class CostTable:
    rows: list[CostRow]
    total: CostRow

    def to_json(self, names: Mapping[str, str] | None = None) -> dict[str, Any]:
        names = names or {}
        rows = [{**r.to_json(), "name": names.get(r.agent, "")} for r in self.rows]
        return {"agents": rows, "total": self.total.to_json()}


def cost_table(results: Iterable[tuple[str, Mapping[str, Any]]]) -> CostTable:
    """The table of ``results``: ``(author, content of a conv.task.result)`` pairs in causal order, only
    from verified messages. A task id counts once per author (its first result)."""
    rows: dict[str, CostRow] = {}
    seen: set[tuple[str, str]] = set()
    for author, content in results:
        task_id = content.get("task_id")
        if not isinstance(task_id, str) or (author, task_id) in seen:
            continue
        seen.add((author, task_id))
        rows.setdefault(author, CostRow(author)).add(content.get("ok") is True, usage_of(content.get("data")))
    total = CostRow("total")
    for row in rows.values():
        total.merge(row)
    return CostTable(sorted(rows.values(), key=lambda r: r.agent), total)


def task_costs(tasks: Iterable[tuple[str, str, bool, Any]]) -> CostTable:
    """The table of finished tasks given as ``(assignee, task_id, ok, data)`` (a conversation's view, a
    goal result's task list: both hold only the assignees' verified results)."""
    return cost_table(
        (assignee, {"task_id": tid, "ok": ok, "data": data}) for assignee, tid, ok, data in tasks
    )


COSTS_HEADING = "Cost per agent (from the signed task results):"


def costs_appendix(table: CostTable, names: Mapping[str, str] | None = None) -> str:
    """The text a conclusion ends with ("" when no task finished)."""
    if not table.rows:
        return ""
    return COSTS_HEADING + "\n" + "\n".join(render_costs(table, names))


def _tokens(row: CostRow) -> str:
    if row.unknown_tokens and row.unknown_tokens == row.tasks:
        return "unknown"
    text = f"{row.prompt_tokens}+{row.completion_tokens}"
    return text + (f" (+? in {row.unknown_tokens})" if row.unknown_tokens else "")


def render_costs(table: CostTable, names: Mapping[str, str] | None = None) -> list[str]:
    """The table as aligned text lines: agent, tasks (ok), tokens prompt+completion, tool calls, time."""
    names = names or {}
    header = ("agent", "tasks", "tokens (prompt+completion)", "tool calls", "time")
    lines = [header]
    for row in [*table.rows, table.total]:
        label = names.get(row.agent) or (row.agent if row.agent == "total" else row.agent[-12:])
        lines.append(
            (
                label[:28],
                f"{row.tasks} ({row.ok} ok)",
                _tokens(row),
                str(row.tool_calls),
                f"{row.wall_ms / 1000:.1f} s",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in lines]


__all__ = [
    "COSTS_HEADING",
    "USAGE_KEYS",
    "CostRow",
    "CostTable",
    "cost_table",
    "costs_appendix",
    "normalize_usage",
    "render_costs",
    "task_costs",
    "usage_of",
]
