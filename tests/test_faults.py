"""``single_error``: a lone error leaves trio's exception group bare; cancellations are not errors."""

from __future__ import annotations

import pytest
import trio

from ioa_p2p.faults import single_error


class _Cancellation(BaseException):
    """A cancellation-like leaf (neither an error nor Ctrl-C / exit), as trio's ``Cancelled`` is."""


def test_a_lone_error_from_a_nursery_is_raised_bare() -> None:
    async def run() -> None:
        with pytest.raises(ValueError, match="lone"), single_error():
            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.sleep_forever)
                raise ValueError("lone")

    trio.run(run)


def test_a_lone_error_beside_cancellations_is_raised_bare_and_several_stay_grouped() -> None:
    with pytest.raises(KeyError), single_error():
        raise BaseExceptionGroup("one error", [_Cancellation(), KeyError("k"), _Cancellation()])
    with pytest.raises(BaseExceptionGroup), single_error():
        raise BaseExceptionGroup("two", [ValueError("a"), KeyError("b")])
    with pytest.raises(KeyboardInterrupt), single_error():
        raise BaseExceptionGroup("ctrl-c", [KeyboardInterrupt()])
    with pytest.raises(BaseExceptionGroup), single_error():
        raise BaseExceptionGroup("only a cancellation", [_Cancellation()])
