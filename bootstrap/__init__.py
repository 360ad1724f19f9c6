"""ioa_p2p.bootstrap: bootstrap/relay nodes and local testnets (installed from the top-level ``bootstrap/``).

Circuit relay v2 itself, the ``relay`` service every node runs, is :mod:`ioa_p2p.node.relay`.

- ``bootnode.py`` a bootstrap node: a normal node without an agent, relaying by default
                  (``ioa bootstrap start``)
- ``testnet.py``  :func:`open_testnet`: a bootstrap node and agent nodes as separate OS processes on
                  127.0.0.1 (``ioa testnet up``), with kill / restart and clean shutdown; ``per_process``:
                  several agents to a process
- ``testnet_node.py`` :class:`TestnetNode`, one node process of a testnet, and stopping and signalling
                  those processes
- ``specs.py``    the testnet's node specs and the ``config.toml`` each node (or shared process) gets
- ``agents.py``   the agents of ``ioa testnet up``: ``--agent KIND:KEY=VALUE,...``, an agents file, the
                  sample agents
"""
