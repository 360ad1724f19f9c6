"""ioa_p2p.dht"""
