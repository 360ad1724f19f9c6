"""What tasks cost, per agent, computed only from signed task results.

Every ``conv.task.result`` carries ``data["usage"]`` (docs/conversation.md): ``model`` (text or null),
``prompt_tokens`` and ``completion_tokens`` (the model server's ``usage``, or null = unknown),
``tool_calls``, ``wall_ms`` (the task's real time) and, for a task done by a sub-team,
``tokens_unknown_tasks`` (the sub-team's tasks whose tokens are unknown; the tokens and tool calls are
the sub-team's, summed over its tasks, nested sub-teams included, so tables add up across nesting).
The assignee's node signs the message, so the claim is attributable: any member (or anyone holding the
exported history) can recompute the table below from the messages alone and check another member's
claimed cost against it.

- :func:`normalize_usage`: a usage record in the canonical shape (what a node puts into its results);
- :func:`usage_of`: the usage record of a result's ``data`` (tolerant: missing or malformed -> unknown);
- :func:`nested_usage`: the usage a sub-team's cost table adds to its parent task;
- :func:`cost_table`: one :class:`CostRow` per result author (tasks, ok, tokens, tool calls, time) and the
  total; a task counts once per author (its first result);
- :func:`render_costs`: the table as text lines, agents by card name (``?`` marks tokens some task did
  not report); :func:`costs_appendix` adds each agent's full peer ID.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

USAGE_KEYS = ("model", "prompt_tokens", "completion_tokens", "tool_calls", "wall_ms")
#: Optional key of a sub-team task's usage: its nested tasks whose tokens are unknown.
NESTED_UNKNOWN = "tokens_unknown_tasks"
MAX_COUNT = 2**53  # claims beyond this are not counts (and would not add up exactly as JSON numbers)


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_COUNT:
        return None
    return value


def normalize_usage(raw: object, *, wall_ms: int | None = None, model: str | None = None) -> dict[str, Any]:
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
    nested = _count(given.get(NESTED_UNKNOWN))
    if nested:
        record[NESTED_UNKNOWN] = nested
    return record


def usage_of(data: object) -> dict[str, Any]:
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
            self.unknown_tokens += usage.get(NESTED_UNKNOWN) or 0
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


def nested_usage(table: CostTable) -> dict[str, Any]:
    """What a sub-team's tasks cost, as the usage of the parent task it did (no ``wall_ms``: the parent
    task's own real time is measured by its node): the sub-team's tokens and tool calls summed, and how
    many of its tasks reported no tokens (tokens are null when none of them did)."""
    total = table.total
    known = total.tasks > total.unknown_tokens or total.prompt_tokens or total.completion_tokens
    record: dict[str, Any] = {
        "model": None,
        "prompt_tokens": total.prompt_tokens if known else None,
        "completion_tokens": total.completion_tokens if known else None,
        "tool_calls": total.tool_calls,
    }
    if known and total.unknown_tokens:
        record[NESTED_UNKNOWN] = total.unknown_tokens
    return record


def task_costs(tasks: Iterable[tuple[str, str, bool, object]]) -> CostTable:
    """The table of finished tasks given as ``(assignee, task_id, ok, data)`` (a conversation's view, a
    goal result's task list: both hold only the assignees' verified results)."""
    return cost_table(
        (assignee, {"task_id": tid, "ok": ok, "data": data}) for assignee, tid, ok, data in tasks
    )


COSTS_HEADING = "Cost per agent (from the signed task results):"
OUTSIDE_HEADING = "Agents outside this team that took part (in sub-teams):"
#: Agents a sub-team's result may name (``data["agents"]``) that readers take at most.
MAX_NESTED_AGENTS = 64


def nested_agents(data: object) -> list[tuple[str, str]]:
    """``(peer id, card name)`` of the agents a sub-team task's result says took part below it
    (``data["agents"]``: ``[{"peer_id", "name"}]``, the sub-team and its own sub-teams; tolerant: anything
    malformed is skipped, at most :data:`MAX_NESTED_AGENTS`)."""
    raw = data.get("agents") if isinstance(data, Mapping) else None
    out: dict[str, str] = {}
    for item in raw[:MAX_NESTED_AGENTS] if isinstance(raw, list) else ():
        peer = item.get("peer_id") if isinstance(item, Mapping) else None
        name = item.get("name") if isinstance(item, Mapping) else None
        if isinstance(peer, str) and 0 < len(peer) <= 128:
            out.setdefault(peer, " ".join(name.split())[:64] if isinstance(name, str) else "")
    return list(out.items())


def outside_lines(agents: Iterable[tuple[str, str]]) -> list[str]:
    """The lines that name the agents outside the team that took part (none: no lines)."""
    found = dict(agents)
    if not found:
        return []
    return [OUTSIDE_HEADING, *(f"- {name or peer[-12:]}: {peer}" for peer, name in found.items())]


def costs_appendix(table: CostTable, names: Mapping[str, str] | None = None) -> str:
    """The text a conclusion ends with ("" when no task finished): the heading, the table with agents by
    card name, then each agent's full peer ID (:func:`peer_lines`)."""
    if not table.rows:
        return ""
    lines = [*render_costs(table, names), *peer_lines([r.agent for r in table.rows], names)]
    return COSTS_HEADING + "\n" + "\n".join(lines)


def agent_labels(peers: Iterable[str], names: Mapping[str, str] | None = None) -> dict[str, str]:
    """A short label per peer ID: its card name (at most 28 characters); with the end of its peer ID
    when another peer has the same name, or the end of the peer ID alone when the name is unknown."""
    names = names or {}
    peers = list(dict.fromkeys(peers))
    given = {p: " ".join(str(names.get(p) or "").split())[:20] for p in peers}
    counts: dict[str, int] = {}
    for name in given.values():
        counts[name] = counts.get(name, 0) + 1
    out = {}
    for p in peers:
        name = given[p]
        out[p] = p[-12:] if not name else name if counts[name] == 1 else f"{name} ..{p[-6:]}"
    return out


def peer_lines(peers: Iterable[str], names: Mapping[str, str] | None = None) -> list[str]:
    """``Peer ID of <label>: <peer id>`` lines for ``peers`` (the table names agents by label)."""
    return [f"Peer ID of {label}: {peer}" for peer, label in agent_labels(peers, names).items()]


def duration(ms: int) -> str:
    """A task's time as people read it: ``31 ms``, ``1.25 s``, ``12.5 s``, ``3 min 05 s``."""
    if ms < 1000:
        return f"{ms} ms"
    if ms < 10_000:
        return f"{ms / 1000:.2f} s"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(round(ms / 1000), 60)
    return f"{minutes} min {seconds:02d} s"


def _tokens(row: CostRow) -> str:
    none_known = not (row.prompt_tokens or row.completion_tokens)
    if row.unknown_tokens and row.unknown_tokens >= row.tasks and none_known:
        return "unknown"
    text = f"{row.prompt_tokens}+{row.completion_tokens}"
    return text + (f" (+? in {row.unknown_tokens})" if row.unknown_tokens else "")


def render_costs(table: CostTable, names: Mapping[str, str] | None = None) -> list[str]:
    """The table as aligned text lines: agent (card name, :func:`agent_labels`), tasks (ok), tokens
    prompt+completion, tool calls, time (:func:`duration`)."""
    labels = agent_labels([r.agent for r in table.rows], names)
    header = ("agent", "tasks", "tokens (prompt+completion)", "tool calls", "time")
    lines = [header]
    for row in [*table.rows, table.total]:
        label = "total" if row is table.total else labels[row.agent]
        lines.append(
            (
                label[:28],
                f"{row.tasks} ({row.ok} ok)",
                _tokens(row),
                str(row.tool_calls),
                duration(row.wall_ms),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in lines]


__all__ = [
    "COSTS_HEADING",
    "MAX_NESTED_AGENTS",
    "NESTED_UNKNOWN",
    "OUTSIDE_HEADING",
    "USAGE_KEYS",
    "CostRow",
    "CostTable",
    "agent_labels",
    "cost_table",
    "costs_appendix",
    "duration",
    "nested_agents",
    "nested_usage",
    "normalize_usage",
    "outside_lines",
    "peer_lines",
    "render_costs",
    "task_costs",
    "usage_of",
]
