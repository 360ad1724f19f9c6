"""Agents that do the work: the adapter protocol, the registry and the offline built-ins.

Files:

- ``base.py``          the protocol: :class:`Adapter` (``describe``, ``async run``, ``aclose``),
                       :class:`Task`, :class:`TaskContext` (progress), :class:`TaskResult` (bounded),
                       :func:`run_task` (deadline, crash/timeout/bad output -> failed result),
                       :func:`parse_options` (typed options from a TOML table);
- ``registry.py``      adapters by kind through the entry-point group ``ioa_p2p.adapters``:
                       :func:`load_adapter`, :func:`adapter_from_config`, :func:`open_adapter`,
                       :func:`list_adapters`, :func:`~ioa_p2p.adapters.registry.adapter_needs`;
- ``needs.py``         :class:`~ioa_p2p.adapters.needs.AdapterNeeds`: what a kind declares it needs from
                       its node (``NEEDS``: the ``[model]`` table, folders under the node home, ...);
- ``python/``          kind ``python``: runs a fenced Python block in a sandboxed subprocess
                       (time, memory, no network, scratch directory, output and files);
- ``calculator/``      kind ``calculator``: exact arithmetic from plain-language tasks, no ``eval``;
- ``retrieval/``       kind ``retrieval``: passages with citations from a local folder of documents,
                       by offline embedding search;
- ``lifecycle.py``     long-lived adapters (``serve``, :func:`start_adapter`);
- ``optional_deps.py`` optional extras and the option listings of ``ioa adapters``;
- ``toolloop/``        the language-model tool loop (native tool calls or JSON ReAct) of ``llm`` and ``mcp``;
- ``llm/``             kind ``llm``: a tool-using agent over the node's OpenAI-compatible model;
- ``remote/``          what the remote and third-party kinds share (bounded HTTP, scrubbing, outputs);
- ``a2a/``, ``mcp/``, ``agent_protocol/``, ``http/``: kinds for remote agents (docs/adapters.md);
- ``smolagents/``, ``open_interpreter/``: kinds for agent libraries run in the node (optional extras).

The ``echo`` kind, a deterministic adapter for tests only, is :mod:`ioa_p2p.testing.echo`.

Typical use by a node::

    adapter = adapter_from_config(config.section("agent"))   # None if no adapter is configured
    result = await run_task(adapter, Task.create(text, timeout=60), TaskContext(on_progress))
    ...
    await adapter.aclose()
"""

from ioa_p2p.adapters.base import (
    BAD_OUTPUT,
    CRASH,
    FAILURE_KINDS,
    REJECTED,
    TASK_ERROR,
    TIMEOUT,
    Adapter,
    AdapterCard,
    Progress,
    Task,
    TaskContext,
    TaskResult,
    check_result,
    parse_options,
    run_task,
)
from ioa_p2p.adapters.registry import (
    ENTRY_POINT_GROUP,
    AdapterInfo,
    adapter_from_config,
    list_adapters,
    load_adapter,
    open_adapter,
)

__all__ = [
    "BAD_OUTPUT",
    "CRASH",
    "ENTRY_POINT_GROUP",
    "FAILURE_KINDS",
    "REJECTED",
    "TASK_ERROR",
    "TIMEOUT",
    "Adapter",
    "AdapterCard",
    "AdapterInfo",
    "Progress",
    "Task",
    "TaskContext",
    "TaskResult",
    "adapter_from_config",
    "check_result",
    "list_adapters",
    "load_adapter",
    "open_adapter",
    "parse_options",
    "run_task",
]
