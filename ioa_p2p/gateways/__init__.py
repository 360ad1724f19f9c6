"""ioa_p2p.gateways: the network as a service for outside clients, in front of a running node.

Each gateway is its own process talking to the node through its local control API
(:mod:`ioa_p2p.control_client`); a node that serves neither never imports a2a-sdk or mcp.

- ``a2a/``        the A2A v1.0 gateway (``ioa a2a serve``; asyncio, a2a-sdk's server classes):
  ``card.py`` the signed agent card, ``asks.py`` what a client asks, ``mapping.py`` goal events as A2A
  updates, ``tasks.py`` the bounded task book, ``pumps.py`` running a task's goal, ``handler.py`` the
  request handler, ``server.py`` the process
- ``mcp/``        the MCP server (``ioa mcp``, stdio or streamable HTTP; trio): ``tools.py`` the tools,
  ``resources.py`` agent cards and chat transcripts, ``server.py`` serving it
- ``views.py``    what both show of a goal: its events as text, bounded JSON, the result and audit verdict
- ``auth.py``     bearer tokens and the ASGI layers in front of both (token, stalled clients)
- ``guards.py``   limits in total on what clients hold: requests at once, body size and time
- ``listen.py``   binding the listening socket (the addresses, the rule against plain HTTP off the
  loopback and the ``[a2a]`` table are pure settings: :mod:`ioa_p2p.config.gateway`)

docs/gateways.md describes both: the mappings, the limits, the security.
"""
