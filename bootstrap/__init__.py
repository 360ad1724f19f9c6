"""ioa_p2p.bootstrap"""
