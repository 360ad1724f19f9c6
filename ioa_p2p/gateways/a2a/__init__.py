"""ioa_p2p.gateways.a2a: the A2A v1.0 gateway of a node (``ioa a2a serve``); see ``ioa_p2p.gateways``."""
