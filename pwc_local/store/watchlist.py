"""The watch list: what the user watches, and what the catalog showed at the last look.

Two tables in the library database (`library.sqlite3` in the user data directory,
`pwc_local.store.library_db`), reached through connections of this module's own; the
library's schema is untouched:

    watches             one row per watch: kind, canonical key (unique together),
                        the target as the user wrote it, the display name, when it
                        was added and when it was last looked at
    watch_baselines     one row per watch: the snapshot of the last look, as JSON
                        with its digest, holding only what the comparison needs
                        (IDs, the primary metric and its values, content versions,
                        successor IDs: see `pwc_local.queries.watch`), never pages

Guarantees, and how they are kept:

* *User data, not cache.* It lives beside the saved papers, so restarts and
  `cache clear` keep it.
* *A baseline moves whole or not at all.* `move` writes every baseline of one look
  in one `BEGIN IMMEDIATE` transaction: a killed process leaves the previous look.
  Each move names the look it replaces, so a look another process recorded
  meanwhile is never overwritten by an older one.
* *Several processes at once.* WAL mode (readers never wait), writers queue for at
  most `BUSY_TIMEOUT_MS`, then `WatchlistBusy` (`library_busy:`) says to try again.
* *Never a corrupt baseline.* A snapshot whose digest does not match reads as no
  baseline, and the next look takes it again.
* *At most `MAX_WATCHES`.* Checked inside the adding transaction, so two processes
  adding at once cannot pass it together.
* *One look at a time per watch.* `watch_claims` holds, per watch, the look that
  will report it and until when (wall-clock seconds, shared by all processes).
  `claim` takes every watch no other live look holds and reads its baseline in
  the same transaction; `deliver` moves a baseline only while its look still holds
  it, and drops the claim. A process that dies leaves claims that lapse; `close`
  drops the claims of this process's looks.
* *Read-only library.* When the file cannot be written (a read-only mount or
  file, a full disk), the list opens read-only (`read_only` says why): listing
  and peeking work, every write raises `library_read_only` or `disk_full`.

Every method blocks on disk, so async callers run them in a worker thread.
Nothing here logs targets or snapshots.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pwc_local.common.shelf import LibraryError
from pwc_local.common.watches import (
    MAX_WATCHES,
    Baseline,
    Claim,
    Move,
    Watch,
    limit_reached,
)
from pwc_local.failures import CodedError
from pwc_local.store.library_db import (
    DB_FILE_NAME,
    WRITER_PRAGMAS,
    Unwritable,
    connect,
    default_library_dir,
    ensure_private_dir,
    ensure_private_file,
    transaction,
    unwritable_error,
    unwritable_reason,
)
from pwc_local.store.library_schema import open_read_only

BUSY_TIMEOUT_MS = 5_000

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS watches (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        target TEXT NOT NULL,
        name TEXT NOT NULL,
        created_at REAL NOT NULL,
        looked_at REAL NOT NULL,
        UNIQUE (kind, key)
    )""",
    """CREATE TABLE IF NOT EXISTS watch_baselines (
        watch INTEGER PRIMARY KEY REFERENCES watches(id) ON DELETE CASCADE,
        taken_at REAL NOT NULL,
        snapshot TEXT NOT NULL,
        digest TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS watch_claims (
        watch INTEGER PRIMARY KEY REFERENCES watches(id) ON DELETE CASCADE,
        look TEXT NOT NULL,
        until REAL NOT NULL,
        paging INTEGER NOT NULL DEFAULT 0
    )""",
)
_TABLES = ("watches", "watch_baselines", "watch_claims")
_COLUMNS = "w.kind, w.key, w.target, w.name, w.created_at, w.looked_at"


class WatchlistBusy(CodedError):
    """Another process kept the library database locked longer than `BUSY_TIMEOUT_MS`."""

    code = "library_busy"
    shown = True


class Watchlist:
    """The watch list of one process (see the module docstring); open with `Watchlist.open()`."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        path: Path,
        busy_ms: int,
        read_only: str | None = None,
    ) -> None:
        self._db = connection
        self.path = path
        self._busy_ms = busy_ms
        self._lock = threading.Lock()
        self.read_only = read_only  # why it cannot be written, or None
        self._looks: set[str] = set()  # looks of this process that may hold claims

    @classmethod
    def open(cls, directory: Path | None = None, *, busy_ms: int = BUSY_TIMEOUT_MS) -> Watchlist:
        """Open (creating when missing) the watch tables in the library database.

        `busy_ms` bounds the wait for another process's write lock (tests shorten it).
        """
        directory = default_library_dir() if directory is None else Path(directory)
        ensure_private_dir(directory)
        path = directory / DB_FILE_NAME
        try:
            ensure_private_file(path)
        except Unwritable as exc:
            if not path.is_file() or path.stat().st_size == 0:
                raise unwritable_error(
                    exc.reason, f"cannot create the library database {path}: {exc.reason}"
                ) from None
            return cls._open_read_only(path, exc.reason, busy_ms)
        try:
            connection = connect(path, busy_ms, pragmas=WRITER_PRAGMAS)
        except sqlite3.DatabaseError as exc:
            return cls._read_only_after(path, exc, busy_ms)
        try:
            with transaction(connection):
                for statement in _SCHEMA:
                    connection.execute(statement)
        except sqlite3.DatabaseError as exc:
            connection.close()
            return cls._read_only_after(path, exc, busy_ms)
        return cls(connection, path, busy_ms)

    @classmethod
    def _read_only_after(cls, path: Path, exc: sqlite3.DatabaseError, busy_ms: int) -> Watchlist:
        """The list opened read-only when `exc` says the file cannot be written; else its error."""
        if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
            raise _busy(path, busy_ms) from None
        reason = unwritable_reason(exc, path)
        if reason is None:
            raise _unusable(path, exc) from None
        return cls._open_read_only(path, reason, busy_ms)

    @classmethod
    def _open_read_only(cls, path: Path, reason: str, busy_ms: int) -> Watchlist:
        """The list of a library that cannot be written (`reason`): read, never written.

        Tables an older library lacks are stood in for by empty temporary ones.
        """
        connection, _ = open_read_only(path, reason, busy_ms)
        try:
            present = {
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            for name, statement in zip(_TABLES, _SCHEMA, strict=True):
                if name not in present:
                    connection.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
        except sqlite3.DatabaseError as exc:
            connection.close()
            raise _unusable(path, exc) from None
        return cls(connection, path, busy_ms, read_only=reason)

    def close(self) -> None:
        """Drop the claims of this process's looks (best effort), then close."""
        looks = sorted(self._looks)
        if looks and self.read_only is None:
            try:
                with self._write() as db:
                    db.executemany("DELETE FROM watch_claims WHERE look = ?", [(x,) for x in looks])
            except CodedError:
                pass  # they lapse on their own
        with self._lock:
            self._db.close()

    def __enter__(self) -> Watchlist:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------

    def watches(self) -> list[Watch]:
        """Every watch, oldest first."""
        with self._read() as db:
            rows = db.execute(f"SELECT {_COLUMNS} FROM watches w ORDER BY w.id").fetchall()
        return [Watch(*row) for row in rows]

    def find(self, kind: str, key: str) -> Watch | None:
        with self._read() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM watches w WHERE w.kind = ? AND w.key = ?", (kind, key)
            ).fetchone()
        return None if row is None else Watch(*row)

    def looks(self) -> list[tuple[Watch, Baseline]]:
        """Every watch with its baseline, oldest first, in one read."""
        with self._read() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS}, b.taken_at, b.snapshot, b.digest FROM watches w "
                "LEFT JOIN watch_baselines b ON b.watch = w.id ORDER BY w.id"
            ).fetchall()
        return [(Watch(*row[:6]), _baseline(*row[6:])) for row in rows]

    def baselines(self) -> dict[tuple[str, str], Baseline]:
        """Each watch's baseline by `(kind, key)` (its snapshot `None` when missing or corrupt)."""
        return {(watch.kind, watch.key): baseline for watch, baseline in self.looks()}

    # -- writing -------------------------------------------------------------------------

    def add(
        self,
        kind: str,
        key: str,
        *,
        target: str,
        name: str,
        snapshot: dict[str, Any],
        now: float | None = None,
    ) -> tuple[Watch, bool]:
        """Add a watch with `snapshot` as its baseline; `(watch, added)`.

        A watch already on the list is kept as it is, baseline and all (`added` false).
        A new one beyond `MAX_WATCHES` raises `WatchLimitReached`.
        """
        instant = time.time() if now is None else now
        with self._write() as db:
            existing = db.execute(
                f"SELECT {_COLUMNS} FROM watches w WHERE w.kind = ? AND w.key = ?", (kind, key)
            ).fetchone()
            if existing is not None:
                return Watch(*existing), False
            (count,) = db.execute("SELECT COUNT(*) FROM watches").fetchone()
            if count >= MAX_WATCHES:
                raise limit_reached()
            cursor = db.execute(
                "INSERT INTO watches(kind, key, target, name, created_at, looked_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (kind, key, target, name, instant, instant),
            )
            _store_baseline(db, int(cursor.lastrowid or 0), instant, snapshot)
        return Watch(kind, key, target, name, instant, instant), True

    def remove(self, kind: str, key: str) -> bool:
        """Remove a watch and its baseline; false when it was not on the list."""
        with self._write() as db:
            cursor = db.execute("DELETE FROM watches WHERE kind = ? AND key = ?", (kind, key))
        return cursor.rowcount > 0

    def move(self, moves: Sequence[Move], now: float | None = None) -> int:
        """Move the baselines of one look, all in one transaction; how many moved.

        A watch removed meanwhile, or whose baseline another process moved since
        `replaces` was read, is left alone.
        """
        instant = time.time() if now is None else now
        moved = 0
        with self._write() as db:
            for move in moves:
                row = db.execute(
                    "SELECT w.id, b.taken_at FROM watches w "
                    "LEFT JOIN watch_baselines b ON b.watch = w.id WHERE w.kind = ? AND w.key = ?",
                    (move.kind, move.key),
                ).fetchone()
                if row is None or row[1] != move.replaces:
                    continue
                _store_baseline(db, int(row[0]), instant, move.snapshot)
                db.execute("UPDATE watches SET looked_at = ? WHERE id = ?", (instant, row[0]))
                moved += 1
        return moved

    # -- claims: one look at a time per watch ---------------------------------------------

    def claim(self, look: str, until: float, now: float) -> Claim:
        """Hold every watch that no other live look holds for `look` until `until`.

        Watches `look` holds already are kept (their claims extended); expired
        claims of other looks are taken over. Baselines are read in the same
        transaction, so no other look can move them between the read and the claim.
        """
        self._looks.add(look)
        found: list[tuple[Watch, Baseline | None]] = []
        looking = 0
        with self._write() as db:
            rows = db.execute(
                f"SELECT w.id, {_COLUMNS}, b.taken_at, b.snapshot, b.digest, "
                "c.look, c.until, c.paging FROM watches w "
                "LEFT JOIN watch_baselines b ON b.watch = w.id "
                "LEFT JOIN watch_claims c ON c.watch = w.id ORDER BY w.id"
            ).fetchall()
            for row in rows:
                item = Watch(*row[1:7])
                holder, held_until, held_paging = row[10:13]
                if holder is not None and holder != look and held_until > now:
                    found.append((item, None))
                    looking += not held_paging
                    continue
                db.execute(
                    "INSERT OR REPLACE INTO watch_claims(watch, look, until, paging) "
                    "VALUES (?, ?, ?, 0)",
                    (row[0], look, until),
                )
                found.append((item, _baseline(*row[7:10])))
        return Claim(found, looking)

    def deliver(
        self,
        look: str,
        moves: Sequence[Move],
        keep: Sequence[Move] = (),
        until: float = 0.0,
        now: float | None = None,
    ) -> set[tuple[str, str]]:
        """Move the baselines `moves` name and drop their claims; hold `keep` until `until`.

        Only watches `look` still holds, with the baseline `replaces` names, take
        part (one transaction); the others were taken over by another look after
        this one's claim lapsed, or removed. Returns the `(kind, key)` that took part.
        """
        instant = time.time() if now is None else now
        taking: set[tuple[str, str]] = set()
        with self._write() as db:
            for move, moving in [(m, True) for m in moves] + [(m, False) for m in keep]:
                row = db.execute(
                    "SELECT w.id, b.taken_at FROM watches w "
                    "JOIN watch_claims c ON c.watch = w.id AND c.look = ? "
                    "LEFT JOIN watch_baselines b ON b.watch = w.id WHERE w.kind = ? AND w.key = ?",
                    (look, move.kind, move.key),
                ).fetchone()
                if row is None or row[1] != move.replaces:
                    continue
                taking.add((move.kind, move.key))
                if moving:
                    _store_baseline(db, int(row[0]), instant, move.snapshot)
                    db.execute("UPDATE watches SET looked_at = ? WHERE id = ?", (instant, row[0]))
                    db.execute("DELETE FROM watch_claims WHERE watch = ?", (row[0],))
                else:
                    db.execute(
                        "UPDATE watch_claims SET until = ?, paging = 1 WHERE watch = ?",
                        (until, row[0]),
                    )
            left = db.execute("SELECT 1 FROM watch_claims WHERE look = ? LIMIT 1", (look,))
            if left.fetchone() is None:
                self._looks.discard(look)
        return taking

    def release(self, look: str) -> None:
        """Drop every claim of `look`; its watches keep their baselines."""
        with self._write() as db:
            db.execute("DELETE FROM watch_claims WHERE look = ?", (look,))
        self._looks.discard(look)

    # -- internals -----------------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._busy_is_clear():
            yield self._db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        if self.read_only is not None:
            raise unwritable_error(
                self.read_only,
                f"the watch list in {self.path} cannot be changed ({self.read_only}); "
                "listing it and looking without marking seen (whats-new --peek, "
                "whats_new with mark_seen=false) still work",
            )
        with self._lock, self._busy_is_clear(), transaction(self._db):
            yield self._db

    @contextmanager
    def _busy_is_clear(self) -> Iterator[None]:
        """A lock held past the busy timeout is `WatchlistBusy`; other failures `LibraryError`."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise _busy(self.path, self._busy_ms) from None
            raise _unusable(self.path, exc) from None
        except sqlite3.DatabaseError as exc:
            raise _unusable(self.path, exc) from None


def _seal(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _store_baseline(
    db: sqlite3.Connection, watch: int, taken_at: float, snapshot: dict[str, Any]
) -> None:
    text = json.dumps(snapshot, separators=(",", ":"), sort_keys=True)
    db.execute(
        "INSERT OR REPLACE INTO watch_baselines(watch, taken_at, snapshot, digest) "
        "VALUES (?, ?, ?, ?)",
        (watch, taken_at, text, _seal(text)),
    )


def _baseline(taken_at: Any, text: Any, sealed: Any) -> Baseline:
    taken = float(taken_at) if isinstance(taken_at, int | float) else None
    if not isinstance(text, str) or sealed != _seal(text):
        return Baseline(taken, None)
    try:
        snapshot = json.loads(text)
    except ValueError:
        return Baseline(taken, None)
    return Baseline(taken, snapshot if isinstance(snapshot, dict) else None)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).casefold()
    return "locked" in text or "busy" in text


def _busy(path: Path, busy_ms: int) -> WatchlistBusy:
    return WatchlistBusy(
        f"the library database {path} stayed locked by another process for "
        f"{busy_ms / 1000:g} s; try again in a moment"
    )


def _unusable(path: Path, exc: sqlite3.DatabaseError) -> LibraryError:
    reason = unwritable_reason(exc, path)
    if reason is not None:  # a full disk or a read-only file: the file is fine, keep it
        return unwritable_error(
            reason, f"the watch list in {path} cannot be changed ({reason}); try again once it can"
        )
    return LibraryError(
        f"cannot use the watch list in the library database {path}: {exc}; move the file "
        "aside to start an empty library"
    )
