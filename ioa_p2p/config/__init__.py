"""ioa_p2p.config: ``$IOA_HOME``, ``config.toml`` and the tables parsed here.

- ``node_config.py``  the node home, :class:`NodeConfig` (the ``[node]`` table; every other table is handed
  to the service that owns it through :meth:`NodeConfig.section`), loading and writing the file
- ``limits.py``       the ``[limits]`` table: every resource budget of a node, typed, with defaults
- ``sections.py``     the one typed parser of a TOML table into a frozen dataclass (:func:`parse_section`,
  field constraints with :func:`setting`): every table of ``config.toml`` and every adapter's options
- ``gateway.py``      the gateways' listen addresses, their rule of exposure, and the ``[a2a]`` table
- ``template.py``     a commented TOML template made from those dataclasses (the node lists its tables in
  :mod:`ioa_p2p.node.config_check`)

Imports: :mod:`ioa_p2p.errors` only (and ``tomli_w``).
"""

from ioa_p2p.config.limits import Limits
from ioa_p2p.config.node_config import (
    CONFIG_FILE_NAME,
    NODE_INFO_FILE_NAME,
    TOKEN_FILE_NAME,
    NodeConfig,
    ioa_home,
    load_config,
    parse_config,
)
from ioa_p2p.config.sections import parse_section, setting

__all__ = [
    "CONFIG_FILE_NAME",
    "NODE_INFO_FILE_NAME",
    "TOKEN_FILE_NAME",
    "Limits",
    "NodeConfig",
    "ioa_home",
    "load_config",
    "parse_config",
    "parse_section",
    "setting",
]
