"""Per-call record of whether an answer used cache entries past their lifetime.

A tool call opens `track_freshness()`; while it runs, the cache calls `note_stale()`
each time it serves an expired entry because the catalog could not be reached. The
tool layer then labels the answer (`cache: {"stale": true, "cached_at": ...}`).
The record lives in a context variable, so concurrent calls never mix their labels
and the query layer in between needs to know nothing about it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime


@dataclass
class Freshness:
    """`cached_at` is the oldest time among the stale entries that were served."""

    stale: bool = False
    cached_at: datetime | None = None


_current: ContextVar[Freshness | None] = ContextVar("pwc_local_freshness", default=None)


@contextmanager
def track_freshness() -> Iterator[Freshness]:
    """Collect stale-serving notes for the duration of the block."""
    record = Freshness()
    token = _current.set(record)
    try:
        yield record
    finally:
        _current.reset(token)


def note_stale(cached_at: datetime) -> None:
    """Record that an entry stored at `cached_at` was served past its lifetime."""
    record = _current.get()
    if record is None:
        return
    record.stale = True
    if record.cached_at is None or cached_at < record.cached_at:
        record.cached_at = cached_at
