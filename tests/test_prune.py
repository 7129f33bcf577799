"""`DiskCache.prune` over more rows than one window: every doomed row goes, nothing else."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pwc_local.store import cache as cache_module
from pwc_local.store.cache import KINDS, DiskCache, cache_key


def test_prune_walks_every_window_and_keeps_what_lives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "PRUNE_BATCH", 7)  # many windows and transactions
    cache = DiskCache(tmp_path / "cache")
    expired, live = set(), set()
    for i in range(120):
        kind = KINDS[i % len(KINDS)]
        ttl = -10 if i % 3 == 0 else 600
        cache.put(kind, [i], {"i": i}, ttl=ttl)
        doomed = ttl < 0 and kind in cache_module.PRUNED_KINDS
        (expired if doomed else live).add((kind, i))
    torn = cache_key(KINDS[1], [1])  # a live public entry, damaged on disk
    with sqlite3.connect(cache.directory / "cache.db") as db:
        db.execute("UPDATE Cache SET value = ? WHERE key = ?", (b"junk", torn))
    live.discard((KINDS[1], 1))

    result = cache.prune()

    assert (result.expired, result.corrupt) == (len(expired), 1)
    assert all(cache.get(kind, [i]) is None for kind, i in expired)
    assert all(cache.get(kind, [i]) is not None for kind, i in live)
    assert cache.stats().entries == len(live)
