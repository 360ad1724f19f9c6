"""ioa_p2p.bootstrap: bootstrap/relay nodes and local testnets (installed from the top-level ``bootstrap/``).

- ``relay.py``    circuit relay v2: the ``[relay]`` config table and the ``relay`` node service (hop for
                  others, reservations, dialing ``/p2p-circuit`` addresses; ``GET /relay``,
                  ``POST /relay/connect``)
- ``bootnode.py`` a bootstrap node: a normal node without an agent, relaying by default
                  (``ioa bootstrap start``)
- ``testnet.py``  :func:`open_testnet`: a bootstrap node and agent nodes as separate OS processes on
                  127.0.0.1 (``ioa testnet up``), with kill / restart and clean shutdown
"""
