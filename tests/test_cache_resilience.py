"""The disk cache under a crowded disk: a sibling's lock, a full disk, a read-only directory.

What must hold (issue 11 item 3, issue 18 item 2): a hit takes no write lock; a held
lock costs one short wait (`LOCK_TIMEOUT`), then the cache is busy and writes are
skipped at once until a non-blocking check finds the lock free; reads keep working
when writes cannot; each trouble is logged once, not per call, and its end is logged
too. And (item 8) a deliberate removal is not reported
as damage.

The lock is held by a real second process (`BEGIN EXCLUSIVE` through plain sqlite3),
synchronised through its stdin and stdout, never by sleeping. The full disk and the
read-only directory are a real 1 MiB tmpfs, which needs root and permission to
mount; where that is missing those two tests skip, and the monkeypatched write
failure below still checks the once-per-condition logging.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import diskcache
import pytest

from pwc_local.store.cache import (
    INLINE_READ_BYTES,
    KIND_MARKDOWN,
    KIND_RESPONSE,
    KIND_VERSION,
    LOCK_TIMEOUT,
    DiskCache,
    WouldBlock,
    cache_key,
)

LOCKER = textwrap.dedent(
    """
    import sqlite3, sys
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    sys.stdin.readline()
    db.execute("COMMIT")
    """
)


@contextlib.contextmanager
def lock_held_by_another_process(directory: Path, name: str = "cache.db") -> Iterator[None]:
    """Another process holds an exclusive transaction on `directory / name` meanwhile."""
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(directory / name)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.stdin.write("release\n")
        holder.stdin.close()
        holder.wait(timeout=30)
        holder.stdout.close()
    assert holder.returncode == 0


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def seeded(directory: Path) -> DiskCache:
    cache = DiskCache(directory)
    cache.put(KIND_RESPONSE, ["kept"], {"x": 1}, ttl=60)
    cache.put(KIND_MARKDOWN, ["chunk"], {"text": "Ω" * 40_000}, ttl=None)
    return cache


# -- a sibling holding the lock ---------------------------------------------------------


@pytest.mark.e2e
def test_hits_take_no_lock_and_writes_give_up_then_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = tmp_path / "cache"
    cache = seeded(directory)
    caplog.set_level(logging.INFO, logger="pwc_local")
    with lock_held_by_another_process(directory):
        # A hit is a plain read: answered on the spot, not deferred and not a miss.
        assert cache.get_nowait(KIND_RESPONSE, ["kept"]).value == {"x": 1}  # type: ignore[union-attr]
        assert cache.get(KIND_MARKDOWN, ["chunk"]) is not None
        # A write waits LOCK_TIMEOUT, then is skipped; the cache is busy from then on:
        # later writes are skipped at once, quietly, and reads still read.
        cache.put(KIND_RESPONSE, ["new"], {"x": 2}, ttl=60)
        started = time.monotonic()
        for i in range(5):
            cache.put(KIND_RESPONSE, ["newer", i], {"x": 3}, ttl=60)
            cache.discard(KIND_RESPONSE, ["kept"])
        assert time.monotonic() - started < LOCK_TIMEOUT  # not one more wait
        assert cache.get(KIND_RESPONSE, ["new"]) is None
        assert cache.get(KIND_RESPONSE, ["kept"]) is not None  # the discards were skipped
    busy = [m for m in warnings_of(caplog) if "lock" in m]
    assert len(busy) == 1 and "without being stored" in busy[0]
    # The lock is gone: the very next call stores again, and says writes are back.
    cache.put(KIND_RESPONSE, ["new"], {"x": 2}, ttl=60)
    assert cache.get(KIND_RESPONSE, ["new"]).value == {"x": 2}  # type: ignore[union-attr]
    assert any("work again" in r.getMessage() for r in caplog.records)


@pytest.mark.e2e
def test_a_cache_first_opened_under_a_held_lock_is_not_disabled(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    seeded(directory).close()
    cache = DiskCache(directory)  # this process has not opened the store yet
    with lock_held_by_another_process(directory):
        cache.put(KIND_RESPONSE, ["later"], {"x": 1}, ttl=60)  # cannot open: skipped
        assert cache.get(KIND_RESPONSE, ["kept"]) is not None  # reads never needed it
    cache.put(KIND_RESPONSE, ["later"], {"x": 1}, ttl=60)
    assert cache.get(KIND_RESPONSE, ["later"]) is not None


def test_hit_access_times_are_written_in_one_batch_with_the_next_store(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    cache = seeded(directory)
    key = cache_key(KIND_RESPONSE, ["kept"])

    def access_time() -> float:
        with sqlite3.connect(directory / "cache.db") as db:
            return db.execute("SELECT access_time FROM Cache WHERE key = ?", (key,)).fetchone()[0]

    before = access_time()
    assert cache.get(KIND_RESPONSE, ["kept"]) is not None
    assert access_time() == before  # the hit itself wrote nothing
    cache.put(KIND_RESPONSE, ["other"], {"x": 2}, ttl=60)
    assert access_time() > before


def test_get_nowait_defers_what_is_not_cheap(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path / "cache")
    assert cache.get_nowait(KIND_RESPONSE, ["none"]) is None  # no database yet: a miss
    cache.put(KIND_MARKDOWN, ["big"], {"text": "x" * (INLINE_READ_BYTES + 1)}, ttl=None)
    with pytest.raises(WouldBlock):
        cache.get_nowait(KIND_MARKDOWN, ["big"])
    assert cache.get(KIND_MARKDOWN, ["big"]) is not None
    cache.put(KIND_RESPONSE, ["torn"], {"x": 1}, ttl=60)
    with sqlite3.connect(cache.directory / "cache.db") as db:
        db.execute(
            "UPDATE Cache SET value = ? WHERE key = ?",
            (b"junk", cache_key(KIND_RESPONSE, ["torn"])),
        )
    with pytest.raises(WouldBlock):  # deleting it is a write
        cache.get_nowait(KIND_RESPONSE, ["torn"])
    assert cache.get(KIND_RESPONSE, ["torn"]) is None


# -- honest logs ------------------------------------------------------------------------


def test_a_deliberate_removal_is_not_reported_as_damage(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = DiskCache(tmp_path / "cache")
    cache.put(KIND_VERSION, ["paper"], "a" * 64, ttl=300)
    cache.discard(KIND_VERSION, ["paper"])
    assert cache.get(KIND_VERSION, ["paper"]) is None
    assert warnings_of(caplog) == []


def test_damage_is_reported_once_with_what_was_done(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = DiskCache(tmp_path / "cache")
    cache.put(KIND_RESPONSE, ["torn"], {"x": 1}, ttl=60)
    with sqlite3.connect(cache.directory / "cache.db") as db:
        db.execute(
            "UPDATE Cache SET value = ? WHERE key = ?",
            (b"junk", cache_key(KIND_RESPONSE, ["torn"])),
        )
    assert cache.get(KIND_RESPONSE, ["torn"]) is None
    assert cache.get(KIND_RESPONSE, ["torn"]) is None  # gone now: a plain miss
    (message,) = warnings_of(caplog)
    assert "failed verification" in message and "deleted it" in message
    assert "fetched from the catalog" in message


def test_write_failures_warn_once_per_condition_and_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A simulated ENOSPC, for machines where the tmpfs test below cannot mount.
    cache = seeded(tmp_path / "cache")
    caplog.set_level(logging.INFO, logger="pwc_local")
    real_set = diskcache.Cache.set

    def full(*args: object, **kwargs: object) -> bool:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(diskcache.Cache, "set", full)
    for i in range(5):
        cache.put(KIND_RESPONSE, ["x", i], {"i": i}, ttl=60)
    assert cache.get(KIND_RESPONSE, ["kept"]) is not None
    monkeypatch.setattr(diskcache.Cache, "set", real_set)
    cache.put(KIND_RESPONSE, ["x", 9], {"i": 9}, ttl=60)
    assert cache.get(KIND_RESPONSE, ["x", 9]) is not None
    (warning,) = warnings_of(caplog)
    assert "disk is full" in warning
    assert any("work again" in r.getMessage() and "full" in r.getMessage() for r in caplog.records)


# -- a real small filesystem ------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs mounted for this test (root only), unmounted afterwards."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount_point = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(path: Path) -> None:
    """Write into `path` until the filesystem refuses."""
    with open(path, "wb") as filler, contextlib.suppress(OSError):
        while True:
            filler.write(b"\0" * 65536)
            filler.flush()
            os.fsync(filler.fileno())


@pytest.mark.e2e
def test_a_full_disk_stops_writes_only_and_they_resume(
    small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = seeded(small_disk / "cache")
    caplog.set_level(logging.INFO, logger="pwc_local")
    fill(small_disk / "filler")
    for i in range(5):
        cache.put(KIND_MARKDOWN, ["more", i], {"text": "y" * 50_000}, ttl=None)
    assert cache.get(KIND_RESPONSE, ["kept"]).value == {"x": 1}  # type: ignore[union-attr]
    assert cache.get(KIND_MARKDOWN, ["chunk"]) is not None
    full = [m for m in warnings_of(caplog) if "full" in m]
    assert len(full) == 1, warnings_of(caplog)
    (small_disk / "filler").unlink()
    cache.put(KIND_MARKDOWN, ["more", 9], {"text": "y" * 50_000}, ttl=None)
    assert cache.get(KIND_MARKDOWN, ["more", 9]) is not None
    assert any("work again" in r.getMessage() for r in caplog.records)
    cache.close()


@pytest.mark.e2e
def test_a_read_only_directory_still_serves_what_it_holds(
    small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    seeded(small_disk / "cache").close()
    remounted = subprocess.run(
        ["mount", "-o", "remount,ro", str(small_disk)], capture_output=True, check=False
    )
    if remounted.returncode != 0:
        pytest.skip("cannot remount the tmpfs read-only here")
    cache = DiskCache(small_disk / "cache")
    for i in range(3):
        cache.put(KIND_RESPONSE, ["new", i], {"i": i}, ttl=60)
    assert cache.get(KIND_RESPONSE, ["kept"]).value == {"x": 1}  # type: ignore[union-attr]
    assert cache.get_nowait(KIND_MARKDOWN, ["chunk"]) is not None
    assert cache.get(KIND_RESPONSE, ["new", 0]) is None
    assert len(warnings_of(caplog)) == 1, warnings_of(caplog)
    cache.close()
