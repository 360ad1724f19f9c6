"""A language-model tool loop shared by the ``llm`` and ``mcp`` kinds.

- ``spec.py``     :class:`ToolSpec`, :data:`CallTool` and the :class:`ToolChooser` port;
- ``loop.py``     :class:`ToolLoop`: native tool calls or JSON ReAct, hard limits, usage;
- ``prompts.py``  the system prompts and tool observations the model sees.
"""

from ioa_p2p.adapters.toolloop.loop import DEADLINE_MARGIN, MODES, Limits, ToolLoop
from ioa_p2p.adapters.toolloop.spec import CallTool, ToolChooser, ToolSpec

__all__ = ["DEADLINE_MARGIN", "MODES", "CallTool", "Limits", "ToolChooser", "ToolLoop", "ToolSpec"]
