"""The ``ioa`` command: a thin click layer over the library.

Each module registers its commands on :data:`main`, imported when its command is asked for
(``lazy_group.py``: ``ioa node start`` holds no other command's module):

- ``_base.py``           the ``main`` group, output and error handling shared by every command
- ``lazy_group.py``      which module registers each command (``COMMANDS``), loaded on first use
- ``identity_cmds.py``   ``ioa init``, ``ioa id``
- ``node_cmds.py``       ``ioa node start``, ``ioa peers``, ``ioa faults``, ``ioa send``, ``ioa inbox``
- ``adapter_cmds.py``    ``ioa adapters``
- ``config_cmds.py``     ``ioa config check``
- ``chat_cmds.py``       ``ioa chats``, ``ioa history show|export``, ``ioa audit``
- ``find_cmds.py``       ``ioa find``
- ``card_cmds.py``       ``ioa card show|set|withdraw``
- ``goal_cmds.py``       ``ioa goal``
- ``demo_cmds.py``       ``ioa demo``
- ``bootstrap_cmds.py``  ``ioa bootstrap start``, ``ioa relay status|connect``
- ``testnet_cmds.py``    ``ioa testnet up``
- ``gateway_cmds.py``    ``ioa a2a serve``, ``ioa mcp`` (the gateways: ``ioa_p2p.gateways``)
- ``ui_cmds.py``         ``ioa ui``: the dashboard's URL with a one-time login code
- ``stacks.py``          ``kill -USR1`` / ``-USR2`` on a node: its threads' stacks / its trio task tree

Exit codes: 0 ok, 1 failure, 2 usage error or unreadable input. Errors print one line ``error: ...`` on
stderr (with ``--json``, a JSON object ``{"error": {"type", "message"}}`` on stdout instead).
"""

from __future__ import annotations

from ioa_p2p.cli._base import main

__all__ = ["main"]
