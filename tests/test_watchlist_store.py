"""The watch list's storage (pwc_local/store/watchlist.py): keep, limit, move whole, share."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pwc_local.common.watches import MAX_WATCHES, Move, WatchLimitReached
from pwc_local.store.library import Library
from pwc_local.store.library_db import DB_FILE_NAME
from pwc_local.store.watchlist import Watchlist, WatchlistBusy

FIRST = {"results": {"a": 1.0}, "leader": "a"}
SECOND = {"results": {"a": 1.0, "b": 2.0}, "leader": "b"}


def _add(watchlist: Watchlist, key: str = "72", snapshot: dict | None = None) -> None:
    watchlist.add(
        "benchmark", key, target=f"bench {key}", name=f"Bench {key}", snapshot=snapshot or FIRST
    )


def test_adding_again_keeps_the_watch_and_its_baseline(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as watchlist:
        first, added = watchlist.add(
            "benchmark", "72", target="imagenet", name="ImageNet-1k", snapshot=FIRST, now=10.0
        )
        again, added_again = watchlist.add(
            "benchmark", "72", target="ImageNet-1k", name="ImageNet-1k", snapshot=SECOND, now=20.0
        )
        assert (added, added_again) == (True, False)
        assert again == first and again.target == "imagenet"
        assert watchlist.baselines()[("benchmark", "72")].snapshot == FIRST
        assert [w.key for w in watchlist.watches()] == ["72"]


def test_at_most_one_hundred_watches(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as watchlist:
        for index in range(MAX_WATCHES):
            _add(watchlist, str(index))
        with pytest.raises(WatchLimitReached, match="holds 100 watches"):
            _add(watchlist, "one-more")
        _add(watchlist, "5")  # one already there is still kept, not refused
        assert watchlist.remove("benchmark", "5")
        _add(watchlist, "one-more")
        assert len(watchlist.watches()) == MAX_WATCHES


def test_remove_takes_the_baseline_with_it(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as watchlist:
        _add(watchlist)
        assert watchlist.remove("benchmark", "72")
        assert not watchlist.remove("benchmark", "72")
        assert watchlist.baselines() == {}
        rows = watchlist._db.execute("SELECT COUNT(*) FROM watch_baselines").fetchone()
        assert rows == (0,)


def test_a_move_is_all_or_nothing(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as watchlist:
        _add(watchlist, "1")
        _add(watchlist, "2")
        taken = {key[1]: base.taken_at for key, base in watchlist.baselines().items()}
        broken = {"results": {object()}}  # not JSON: the second write fails mid-transaction
        with pytest.raises(TypeError):
            watchlist.move(
                [
                    Move("benchmark", "1", taken["1"], SECOND),
                    Move("benchmark", "2", taken["2"], broken),
                ]
            )
        assert all(base.snapshot == FIRST for base in watchlist.baselines().values())
        assert watchlist.move([Move("benchmark", "1", taken["1"], SECOND)], now=99.0) == 1
        assert watchlist.baselines()[("benchmark", "1")].snapshot == SECOND
        assert watchlist.find("benchmark", "1").looked_at == 99.0  # type: ignore[union-attr]


def test_an_older_look_does_not_overwrite_a_newer_one(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as one, Watchlist.open(tmp_path) as other:
        _add(one)
        read_by_one = one.baselines()[("benchmark", "72")].taken_at
        assert other.move([Move("benchmark", "72", read_by_one, SECOND)], now=50.0) == 1
        assert one.move([Move("benchmark", "72", read_by_one, FIRST)], now=60.0) == 0
        assert one.baselines()[("benchmark", "72")].snapshot == SECOND


@pytest.mark.e2e
def test_a_killed_process_leaves_the_previous_baseline(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as watchlist:
        _add(watchlist)
    script = f"""
import os
from pathlib import Path
from pwc_local.store.watchlist import Watchlist, _store_baseline
watchlist = Watchlist.open(Path({str(tmp_path)!r}))
with watchlist._write() as db:
    _store_baseline(db, 1, 5.0, {SECOND!r})
    os._exit(9)  # killed mid-move: no COMMIT, no ROLLBACK
"""
    done = subprocess.run([sys.executable, "-c", script], timeout=60)
    assert done.returncode == 9
    with Watchlist.open(tmp_path) as watchlist:
        assert watchlist.baselines()[("benchmark", "72")].snapshot == FIRST


def test_a_tampered_baseline_reads_as_none_and_can_be_taken_again(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as watchlist:
        _add(watchlist)
        watchlist._db.execute('UPDATE watch_baselines SET snapshot = \'{"leader": "x"}\'')
        baseline = watchlist.baselines()[("benchmark", "72")]
        assert baseline.snapshot is None and baseline.taken_at is not None
        assert watchlist.move([Move("benchmark", "72", baseline.taken_at, SECOND)]) == 1
        assert watchlist.baselines()[("benchmark", "72")].snapshot == SECOND


def test_a_held_lock_is_a_clear_busy_error(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path, busy_ms=100) as watchlist:
        holder = sqlite3.connect(tmp_path / DB_FILE_NAME, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            assert watchlist.watches() == []  # WAL: reading does not wait
            with pytest.raises(WatchlistBusy) as caught:
                _add(watchlist)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert caught.value.code == "library_busy"
        assert "locked by another process for 0.1 s; try again" in caught.value.public_message()
        _add(watchlist)


def test_it_shares_the_library_file_and_survives_forgetting_reading(tmp_path: Path) -> None:
    with Watchlist.open(tmp_path) as watchlist:
        _add(watchlist)
    library = Library.open(tmp_path)
    try:
        library.forget_reading()  # what `cache clear` does to the library
    finally:
        library.close()
    with Watchlist.open(tmp_path) as watchlist:
        assert [w.name for w in watchlist.watches()] == ["Bench 72"]
    assert (tmp_path / DB_FILE_NAME).stat().st_mode & 0o077 == 0
