"""Read repair of DHT records (pure): after a ``GET_VALUE`` lookup, which storing peers to give the newest.

py-libp2p never re-replicates a record: a storing peer that was offline when its owner put a withdrawal or
a newer card version keeps serving the old copy, and a peer that became one of the closest later holds
nothing, until the owner puts again (a withdrawn owner may never come back). So a reader that found a
record puts the newest it found back at the peers among the lookup's closest ``K`` that answered with
an older version or with none (go-libp2p's ``GetValue`` does the same). Each storing peer's own
validator still decides (signature, owner, a newer version only, rate limits), so a repair can only
move a peer forward. Only peers that answered are repaired: a silent one may be gone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ioa_p2p.dht.keyspace import K


def stale_replicas(
    answers: Mapping[bytes, bytes | None],
    closest: Sequence[bytes],
    newest: int,
    version_of: Callable[[bytes, int], int | None],
    now_ms: int,
    *,
    width: int = K,
) -> list[bytes]:
    """The peers of ``answers`` (peer -> the value it returned, None for none) that are among the first
    ``width`` of ``closest`` and hold no record or one older than version ``newest``. ``version_of``
    returns a value's version, or None when it is not a valid record (treated as none)."""
    near = set(closest[:width])
    out = []
    for peer, value in answers.items():
        if peer not in near:
            continue
        version = None if value is None else version_of(value, now_ms)
        if version is None or version < newest:
            out.append(peer)
    return out


__all__ = ["stale_replicas"]
