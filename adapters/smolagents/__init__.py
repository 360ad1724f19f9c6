"""Kind ``smolagents``: a Hugging Face smolagents CodeAgent or ToolCallingAgent (optional extra
``ioa-p2p[smolagents]``); see ``adapter.py``."""

from .adapter import SmolagentsAdapter, SmolagentsOptions

__all__ = ["SmolagentsAdapter", "SmolagentsOptions"]
