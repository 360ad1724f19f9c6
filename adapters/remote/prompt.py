"""A task as one prompt for an agent that takes a single text (smolagents, Open Interpreter, the llm loop).

The recent chat messages the node passes in ``Task.context`` (``speaker``, ``type``, ``content``) come
first, newest last, cut to a character budget (newest kept); then the task itself.
"""

from __future__ import annotations

from ioa_p2p.adapters.base import Task

MAX_CONTEXT_CHARS = 4000


def context_lines(task: Task, budget: int = MAX_CONTEXT_CHARS) -> list[str]:
    """The chat context as ``speaker (type): content`` lines, newest kept within ``budget`` characters."""
    lines: list[str] = []
    used = 0
    for message in reversed(task.context):
        speaker = str(message.get("speaker") or message.get("from") or "someone")[:80]
        kind = str(message.get("type") or "")[:40]
        content = " ".join(str(message.get("content") or message.get("text") or "").split())[:1000]
        line = f"{speaker} ({kind}): {content}" if kind else f"{speaker}: {content}"
        if used + len(line) > budget:
            break
        lines.append(line)
        used += len(line) + 1
    return lines[::-1]


def task_prompt(task: Task, budget: int = MAX_CONTEXT_CHARS) -> str:
    """The task text, preceded by the chat context when there is any."""
    lines = context_lines(task, budget)
    if not lines:
        return task.text
    return "The discussion so far:\n" + "\n".join(lines) + "\n\nYour task:\n" + task.text


__all__ = ["MAX_CONTEXT_CHARS", "context_lines", "task_prompt"]
