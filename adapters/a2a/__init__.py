"""Kind ``a2a``: a remote Agent2Agent agent as this node's adapter (``a2a-sdk`` client).

- ``adapter.py``   options, start-up (the remote's agent card -> our card), one task per remote task;
- ``remote.py``    fetching and parsing the agent card, building the SDK client, card mapping;
- ``exchange.py``  one task: stream or send + poll, progress, cancel at the deadline, errors translated;
- ``tracking.py``  the remote task folded from its events; A2A states -> our result.
"""

from ioa_p2p.adapters.a2a.adapter import A2AAdapter, A2AOptions

__all__ = ["A2AAdapter", "A2AOptions"]
