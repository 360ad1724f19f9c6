"""ioa_p2p.node"""
