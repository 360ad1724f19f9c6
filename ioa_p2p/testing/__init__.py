"""ioa_p2p.testing: test doubles, kept out of the product modules.

- ``echo.py``    :class:`EchoAdapter`: answers with its input, or fails on demand (``mode`` option): the
  ``echo`` adapter kind, which tests and benchmarks run nodes with (``--adapter echo``)
- ``kinds.py``   :func:`~ioa_p2p.testing.kinds.register_test_kinds`: makes ``echo`` a kind in this process and
  the processes it starts (it is no entry point of the installed product)
- ``models.py``  :class:`ScriptedModel`: a :class:`~ioa_p2p.llm.model.Model` replaying scripted replies
- ``memnet.py``  :class:`~ioa_p2p.testing.memnet.MemoryNetwork`: an in-memory transport fake (in-process
  nodes implementing ``NodePort``, streams as byte pipes, partition/heal, a virtual wall clock) for fast
  tests on trio's ``MockClock``
- ``memcards.py`` :class:`~ioa_p2p.testing.memcards.MemoryCards`: discovery's DHT records and card topic on
  that network (``CardNetPort``; records checked by the validator discovery registers)
- ``memagents.py`` :func:`~ioa_p2p.testing.memagents.open_memory_agent`: a memory node running every node
  service, composed by ``open_services`` as ``open_node`` does (chats, discovery, goals on virtual time)
- ``natsim.py``  :func:`~ioa_p2p.testing.natsim.put_behind_nat`: a simulated NAT in front of one in-process
  node on 127.0.0.1 (inbound direct connections refused unless hole-punched)

The three ``mem*`` modules and ``natsim`` are not imported here: they load the node layer.

Imports anything below it (this is the top layer, with the CLI); product code never imports it.
"""

from ioa_p2p.testing.echo import EchoAdapter
from ioa_p2p.testing.models import ScriptedModel

__all__ = ["EchoAdapter", "ScriptedModel"]
