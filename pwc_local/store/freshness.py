"""Whether one tool call's answer used cache entries past their lifetime.

When the catalog cannot be reached, the caching source may answer from an expired
entry (`pwc_local.store.cached_catalog`); the tool result must then say so
(`cache: {"stale": true, "cached_at": ...}` plus a sentence in the text). So must a
saved paper's copy served while the catalog was seen with a newer version
(`cache.newer_version_seen`, `store.library_catalog`). The label travels
explicitly, in one direction:

1. the tool layer makes a `Freshness` record for the call and asks for the call's
   view of the catalog, `runtime.catalog.for_call(freshness)` (`ServingSource`);
2. the query layer works with that view like with any `CatalogSource`, knowing
   nothing of the record;
3. each time the view serves an expired entry it calls `freshness.note_stale()`;
4. the tool layer reads the record when it builds the result.

Concurrent calls have separate records because each has its own view. A source
that never serves stale answers (`HttpCatalog`) is its own view.
This module is imported at start-up and stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pwc_local.upstream.source import CatalogSource


@dataclass
class Freshness:
    """`cached_at` is the oldest time among the stale entries that were served.

    `saved_at` and `newer_seen` are set when a saved paper's copy was served while
    the catalog has been seen with a newer version (`note_behind`).
    """

    stale: bool = False
    cached_at: datetime | None = None
    saved_at: datetime | None = None
    newer_seen: datetime | None = None

    def note_stale(self, cached_at: datetime) -> None:
        """Record that an entry stored at `cached_at` was served past its lifetime."""
        self.stale = True
        if self.cached_at is None or cached_at < self.cached_at:
            self.cached_at = cached_at

    def note_behind(self, saved_at: datetime, newer_seen: datetime) -> None:
        """Record that a library copy saved at `saved_at` was served, though a newer
        catalog version was seen at `newer_seen`."""
        self.saved_at, self.newer_seen = saved_at, newer_seen


class ServingSource(CatalogSource, Protocol):
    """The runtime's catalog source: a `CatalogSource` that gives each tool call its view.

    `for_call(freshness)` is the view for one call, noting on `freshness` each expired
    entry it serves. A source that never serves stale answers is its own view.
    """

    def for_call(self, freshness: Freshness) -> ServingSource: ...
