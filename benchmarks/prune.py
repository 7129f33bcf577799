"""`cache prune` and `cache stats` over a large scratch cache.

The entries are written in one diskcache transaction (a real cache grows one store
at a time; only the timing of the maintenance calls matters here): a quarter of
each kind, and a third of the response and public entries already expired, so
prune has to judge every pruneable entry and delete a sixth of all of them.
"""

from __future__ import annotations

import time
from pathlib import Path

from pwc_local.store.cache import KINDS, DiskCache, cache_key, encode_entry


def fill(directory: Path, entries: int) -> None:
    cache = DiskCache(directory)
    cache.put(KINDS[0], ["seed"], 0, ttl=60)
    store = cache._maintenance_cache()  # the diskcache underneath, for one bulk transaction
    now = time.time()
    with store.transact():
        for i in range(entries):
            kind = KINDS[i % len(KINDS)]
            ttl = -10 if i % 3 == 0 else 600
            blob = encode_entry({"i": i, "pad": "p" * 200}, cached_at=now, expires_at=now + ttl)
            store.set(cache_key(kind, [i]), blob, tag=kind)
    cache.close()


def prune_figures(directory: Path, entries: int) -> tuple[float, float]:
    """Seconds for `prune()` and then `stats()`, each through a fresh `DiskCache`."""
    fill(directory / "cache", entries)
    started = time.perf_counter()
    DiskCache(directory / "cache").prune()
    pruned = time.perf_counter() - started
    started = time.perf_counter()
    DiskCache(directory / "cache").stats()
    return pruned, time.perf_counter() - started
