"""Kind ``llm``: a tool-using agent over the project's OpenAI-compatible model.

- ``options.py``  the options and their checks;
- ``tools.py``    the built-in tools (python, calculator, retrieval, read_file, http_get);
- ``adapter.py``  the adapter: tools + MCP servers + :class:`~ioa_p2p.adapters.toolloop.ToolLoop`.
"""

from ioa_p2p.adapters.llm.adapter import LlmAdapter, builtin_tools, model_for
from ioa_p2p.adapters.llm.options import LlmOptions

__all__ = ["LlmAdapter", "LlmOptions", "builtin_tools", "model_for"]
