"""ioa_p2p.llm: language models behind one small :class:`Model` protocol.

- ``model.py``          :class:`Model` (``await model.complete(messages, tools=..., response_format=...)``),
  :class:`ModelReply`, :class:`ToolCall`; :func:`complete_json`: one validated JSON object, with retries
- ``json_repair.py``    the JSON object in a model's text, repaired (fences, prose, commas, brackets...)
- ``openai_compat.py``  :class:`OpenAIModel` (any OpenAI-compatible server) and the ``[model]`` table

Imports: :mod:`ioa_p2p.errors` only (and the ``openai`` package).
"""

from ioa_p2p.llm.json_repair import parse_json_object
from ioa_p2p.llm.model import JSON_MODE, Message, Model, ModelReply, ToolCall, complete_json
from ioa_p2p.llm.openai_compat import OpenAIModel, model_from_settings

__all__ = [
    "JSON_MODE",
    "Message",
    "Model",
    "ModelReply",
    "OpenAIModel",
    "ToolCall",
    "complete_json",
    "model_from_settings",
    "parse_json_object",
]
