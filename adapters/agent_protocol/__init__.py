"""Kind ``agent_protocol``: AutoGPT and other Agent Protocol (v1) agents, over plain HTTP.

- ``adapter.py``  options, the step loop, artifacts into files, the failure mapping;
- ``client.py``   the Agent Protocol endpoints this adapter uses (tasks, steps, artifacts).
"""

from ioa_p2p.adapters.agent_protocol.adapter import AgentProtocolAdapter, AgentProtocolOptions

__all__ = ["AgentProtocolAdapter", "AgentProtocolOptions"]
