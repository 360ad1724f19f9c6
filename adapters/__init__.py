"""ioa_p2p.adapters"""
