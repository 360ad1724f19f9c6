"""Kind ``smolagents``: a Hugging Face smolagents CodeAgent or ToolCallingAgent (optional extra
``ioa-p2p[smolagents]``); see ``adapter.py``."""

from ioa_p2p.adapters.smolagents.adapter import SmolagentsAdapter, SmolagentsOptions

__all__ = ["SmolagentsAdapter", "SmolagentsOptions"]
