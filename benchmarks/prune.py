"""`cache prune` and `cache stats` over a large scratch cache, in two shapes.

* **all expired**: every entry a response or public-metadata entry of about 1.5 KB,
  all past their lifetime (100,000 make about 220 MB): the case of a cache left
  alone for a week, where prune deletes everything it judges.
* **one in six**: a quarter of each kind, a third of the response and public
  entries expired, so prune judges every pruneable entry and deletes a sixth of all.

The entries are written in one diskcache transaction per cache (a real cache grows
one store at a time; only the maintenance calls are timed), and the disk is synced
before each timing so writeback of the fill is not charged to prune. The CPU time
is shown beside the wall time: on a shared machine it is the steadier of the two,
and what remains of the wall time is mostly waiting for the disk. Memory is the
growth of the process's resident set while prune runs, sampled every 5 ms (Linux
`/proc`; elsewhere not shown).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pwc_local.store.cache import (
    KIND_PUBLIC,
    KIND_RESPONSE,
    KINDS,
    DiskCache,
    cache_key,
    encode_entry,
)


@dataclass(frozen=True)
class PruneFigure:
    shape: str
    prune_seconds: float
    prune_cpu_seconds: float
    stats_seconds: float
    growth_bytes: int | None


def fill_one_in_six(directory: Path, entries: int) -> None:
    now = time.time()

    def entry(i: int) -> tuple[str, bytes]:
        ttl = -10 if i % 3 == 0 else 600
        blob = encode_entry({"i": i, "pad": "p" * 200}, cached_at=now, expires_at=now + ttl)
        return KINDS[i % len(KINDS)], blob

    _fill(directory, entries, entry)


def fill_all_expired(directory: Path, entries: int) -> None:
    now = time.time()

    def entry(i: int) -> tuple[str, bytes]:
        value = {"i": i, "pad": "p" * 1400}
        blob = encode_entry(value, cached_at=now - 3600, expires_at=now - 10)
        return (KIND_RESPONSE, KIND_PUBLIC)[i % 2], blob

    _fill(directory, entries, entry)


def _fill(directory: Path, entries: int, entry: Callable[[int], tuple[str, bytes]]) -> None:
    cache = DiskCache(directory)
    cache.put(KINDS[0], ["seed"], 0, ttl=60)
    store = cache._maintenance_cache()  # the diskcache underneath, for one bulk transaction
    with store.transact():
        for i in range(entries):
            kind, blob = entry(i)
            store.set(cache_key(kind, [i]), blob, tag=kind)
    cache.close()


def prune_figures(directory: Path, entries: int) -> list[PruneFigure]:
    """Seconds for `prune()` and then `stats()`, each through a fresh `DiskCache`, per shape."""
    figures = []
    for shape, fill in (("all expired", fill_all_expired), ("1 in 6 expired", fill_one_in_six)):
        cache_dir = directory / shape.replace(" ", "-")
        fill(cache_dir, entries)
        os.sync()
        with _RssGrowth() as growth:
            started, cpu = time.perf_counter(), time.process_time()
            DiskCache(cache_dir).prune()
            pruned, cpu = time.perf_counter() - started, time.process_time() - cpu
        started = time.perf_counter()
        DiskCache(cache_dir).stats()
        stats = time.perf_counter() - started
        figures.append(PruneFigure(shape, pruned, cpu, stats, growth.peak))
    return figures


class _RssGrowth:
    """The largest growth of this process's resident set while the block runs."""

    def __init__(self) -> None:
        self.peak: int | None = None
        self._done = threading.Event()

    def __enter__(self) -> _RssGrowth:
        start = _rss()
        if start is None:
            return self
        self.peak = 0

        def sample() -> None:
            while not self._done.wait(0.005):
                now = _rss()
                if now is not None and self.peak is not None:
                    self.peak = max(self.peak, now - start)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._done.set()
        if self.peak is not None:
            self._thread.join()


def _rss() -> int | None:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
