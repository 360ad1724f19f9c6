"""ioa_p2p.gateways.mcp: the MCP server of a node (``ioa mcp``); see ``ioa_p2p.gateways``."""
