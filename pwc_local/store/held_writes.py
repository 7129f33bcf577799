"""Cache writes held back until a tool call shows its responses were usable.

The HTTP layer stores a catalog response as soon as it parses as JSON, but whether it
has the right *shape* (an object with a `results` list, a `task` object ...) is only
checked afterwards, by the query layer. A response that parsed but failed that check
must not be cached (catalog-api.md §5): it would fail again on every hit for its
whole lifetime, and offline it would stand in for a good answer.

So a tool call runs inside `hold_cache_writes()`. While it runs, the caching source
hands its JSON writes to `hold()` instead of writing at once; when the call ends,
the held writes are made, unless the call failed with `InvalidResponse`, the
query layer's verdict that some response was unusable. Cancelled calls write
nothing. Outside such a block (the cache commands, unit tests) writes happen at once.

The record lives in a context variable, like `freshness`, so concurrent calls keep
their writes apart. This module is imported at start-up and stays light.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar

from pwc_local.catalog.errors import InvalidResponse

Write = Callable[[], Awaitable[None]]

_held: ContextVar[list[Write] | None] = ContextVar("pwc_local_held_writes", default=None)


def hold(write: Write) -> bool:
    """Keep `write` for the end of the current tool call; `False` when none is running."""
    held = _held.get()
    if held is None:
        return False
    held.append(write)
    return True


@asynccontextmanager
async def hold_cache_writes() -> AsyncIterator[None]:
    """Run a block whose cache writes are made only if it does not end in `InvalidResponse`."""
    held: list[Write] = []
    token = _held.set(held)
    keep = False
    try:
        yield
        keep = True
    except InvalidResponse:
        raise  # some response of this call was unusable: keep none of them
    except Exception:
        keep = True  # a not-found or an upstream error says nothing against the others
        raise
    finally:
        _held.reset(token)
        if keep:  # not on cancellation: nothing may be awaited then
            await _make(held)


async def _make(writes: list[Write]) -> None:
    for write in writes:
        await write()
