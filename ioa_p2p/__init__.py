"""ioa-p2p core."""
