"""ioa_p2p.testing.netns: multi-host tests and benchmarks in Linux network namespaces (root only).

- ``lab.py``       :class:`Lab`: namespaces named ``ioatest-<pid>-...``, removed with all they hold even on
  failure; :func:`sweep_leftovers` for crashed runs; :func:`netns_unavailable` (a skip reason);
  :class:`NetnsThreads`: threads inside a namespace (``setns``), for control API calls
- ``topology.py``  :class:`Internet` (a bridge), public hosts, :class:`Home` (a NAT router: ``masquerade`` or
  ``symmetric``; partition / heal; a port forward) and its machines; which NAT behaviours are simulated
  and which are not
- ``nodes.py``     :class:`NsNode`: an ``ioa node start`` / ``ioa bootstrap start`` process on a host, its
  control API and CLI run inside the namespace; start / kill / restart
- ``delay.py``     link delay: ``tc netem`` where the kernel has it, else a userspace NFQUEUE delay line

Nothing here runs unless a test or benchmark asks; product code never imports it.
"""

from ioa_p2p.testing.netns.lab import Lab, LabError, nat_unavailable, netns_unavailable, sweep_leftovers
from ioa_p2p.testing.netns.nodes import PORT, NsNode, in_parallel, poll, start_all, stop_all
from ioa_p2p.testing.netns.topology import Home, Host, Internet

__all__ = [
    "PORT",
    "Home",
    "Host",
    "Internet",
    "Lab",
    "LabError",
    "NsNode",
    "in_parallel",
    "nat_unavailable",
    "netns_unavailable",
    "poll",
    "start_all",
    "stop_all",
    "sweep_leftovers",
]
