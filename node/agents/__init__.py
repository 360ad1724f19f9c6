"""ioa_p2p.node.agents: several agents (whole nodes) in one process and one trio loop.

- ``config.py``  the ``[[agents]]`` list (of ``config.toml`` or ``ioa node start --agents FILE``) read into
  one :class:`AgentSpec` per agent: its home, key, ``[agent]`` table, addresses, control port
- ``run.py``     :func:`open_agents`: every agent an ``open_node`` in one nursery; a failing agent is recorded
  with its typed error (:class:`~ioa_p2p.errors.AgentFailed`), the others go on; ``agents.json``
"""

from ioa_p2p.node.agents.config import (
    AGENTS_INDEX_NAME,
    AgentSpec,
    AgentsPlan,
    agent_specs,
    plan_of_config,
    read_agents_file,
)
from ioa_p2p.node.agents.run import AgentRun, Agents, open_agents

__all__ = [
    "AGENTS_INDEX_NAME",
    "AgentRun",
    "AgentSpec",
    "Agents",
    "AgentsPlan",
    "agent_specs",
    "open_agents",
    "plan_of_config",
    "read_agents_file",
]
