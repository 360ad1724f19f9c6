"""ioa_p2p.llm: language models behind one small :class:`Model` protocol.

- ``model.py``          :class:`Model` (``await model.complete(messages, tools=..., response_format=...)``),
  :class:`ModelReply`, :class:`ToolCall`; :func:`complete_json`: one validated JSON object, with retries
- ``json_repair.py``    the JSON object in a model's text, repaired (fences, prose, commas, brackets...)
- ``openai_compat.py``  :class:`OpenAIModel` (any OpenAI-compatible server), built from the ``[model]``
  table: one attempt per call (callers bound the whole call), ``max_tokens``, JSON schema detected per server
- ``settings.py``       :class:`ModelSettings`: the ``[model]`` table, typed (read by the one section parser)
- ``failures.py``       what may be said of a model failure (its kind; URLs without userinfo) and the
  prompt budget's token estimate
- ``traced.py``         model calls as OpenTelemetry GenAI spans (``chat <model>``: model, tokens) of a tracer
  port (no-op unless tracing is on)
- ``bounded_http.py``   response bodies bounded as they arrive (``[model] max_response_bytes``); the same
  transport serves the remote-agent adapters' HTTP clients

Imports: :mod:`ioa_p2p.errors`, :mod:`ioa_p2p.config` (the section parser) and the ``openai`` package and its
HTTP package.
"""

from ioa_p2p.llm.json_repair import parse_json_object
from ioa_p2p.llm.model import JSON_MODE, Message, Model, ModelReply, ToolCall, complete_json
from ioa_p2p.llm.openai_compat import OpenAIModel, model_from_settings
from ioa_p2p.llm.settings import ModelSettings

__all__ = [
    "JSON_MODE",
    "Message",
    "Model",
    "ModelReply",
    "ModelSettings",
    "OpenAIModel",
    "ToolCall",
    "complete_json",
    "model_from_settings",
    "parse_json_object",
]
