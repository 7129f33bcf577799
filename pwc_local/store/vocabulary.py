"""The completion vocabulary: papers, tasks and benchmarks this machine's servers answered about.

Completions (`pwc_local.server.completions`) suggest these names as the user types,
with no network at all, so they keep working offline and after a restart. Every
tool answer feeds it (`pwc_local.server.named.learn`: the papers, tasks and
benchmarks a result shows, served fresh, from the cache or from the library), and
so do the catalog's own listings that completions ask for.

Where it lives: one table, `vocabulary`, in the library database
(`library.sqlite3` in the user data directory, private like the rest of the
library), reached through connections of this module's own. The library's schema
and code do not know it; the file exists and has its modes once `Library.open`
ran, and this module never creates it (`mode=rw`).

    vocabulary(kind, ident, label, folded, seen_at)   primary key (kind, ident)
      kind     "paper", "task" or "benchmark"
      ident    what a URI names it by: arXiv ID or catalog ID, a slug
      label    what people call it: a title, a name (the ident when only that is known)
      folded   " " + label + " " + ident, case folded: " " + a typed prefix is in it
               when it starts the label, one of its words or the ident
      seen_at  when it was last answered about: recent names rank first

Recording never slows or fails a call. `note()` only queues the names in memory
(and returns at once); one writer thread per process writes them in small
transactions that wait at most `WRITE_WAIT_MS` for another process's write lock.
A busy, read-only or damaged database skips the write (tried again a little
later); the queue is bounded, and until written its names are matched from
memory, so this process still suggests them. `MAX_NAMES` per kind are kept, the
least recently seen go first. Nothing here logs a name.

Lookups match in this process's copy of the table (`_Copy`, about 1 MB per kind when
full), which each lookup first brings up to date with what other connections
committed, reading only the changed rows: a completion answers in a few
milliseconds however full the table is (`benchmarks/completions.py`).
"""

from __future__ import annotations

import heapq
import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

from pwc_local.safe_text import one_line
from pwc_local.store.library_db import connect

log = logging.getLogger(__name__)

PAPER, TASK, BENCHMARK = "paper", "task", "benchmark"
KINDS = (PAPER, TASK, BENCHMARK)
MAX_NAMES = 10_000
"""Names kept per kind; the least recently seen are dropped beyond it."""
MAX_CHARS = 200
"""Labels and idents are cut to this many characters (they are hints, not records)."""
MAX_PENDING = 5_000
"""Names waiting for the writer; the oldest are dropped when a database stays unwritable."""
CANDIDATES = 500
"""Rows one lookup reads at most, most recent first, before the caller ranks them."""
WRITE_WAIT_MS = 50
READ_WAIT_MS = 200
FORGET_WAIT_MS = 5_000
RETRY_SECONDS = 5.0
"""After a failed write, the writer waits this long before it tries again."""
MAX_REMEMBERED = 20_000
"""Names this process knows it wrote (and need not write again soon)."""
REWRITE_SECONDS = 600.0
"""A name written this long ago is written again when seen, to refresh its rank."""
CLOSE_WAIT_SECONDS = 2.0

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS vocabulary (
        kind TEXT NOT NULL,
        ident TEXT NOT NULL,
        label TEXT NOT NULL,
        folded TEXT NOT NULL,
        seen_at REAL NOT NULL,
        PRIMARY KEY (kind, ident)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS vocabulary_recent ON vocabulary(kind, seen_at)",
)
# A label that is only the ident (a paper read before its title was seen) never
# replaces a real one.
_UPSERT = """
INSERT INTO vocabulary(kind, ident, label, folded, seen_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT(kind, ident) DO UPDATE SET
    seen_at = excluded.seen_at,
    label = CASE WHEN excluded.label = excluded.ident THEN label ELSE excluded.label END,
    folded = CASE WHEN excluded.label = excluded.ident THEN folded ELSE excluded.folded END
"""
_PRUNE = """
DELETE FROM vocabulary WHERE kind = ?1 AND seen_at <= (
    SELECT seen_at FROM vocabulary WHERE kind = ?1 ORDER BY seen_at DESC LIMIT 1 OFFSET ?2
)"""
_SINCE = "SELECT ident, label, folded, seen_at FROM vocabulary WHERE kind = ? AND seen_at >= ?"
_COUNT = "SELECT COUNT(*) FROM vocabulary WHERE kind = ?"


@dataclass(frozen=True)
class Name:
    """One completable thing: what people call it and how a URI names it."""

    label: str
    ident: str

    def value(self, identifiers: bool) -> str:
        return self.ident if identifiers else self.label

    @classmethod
    def of(cls, label: object, ident: object) -> Name | None:
        """A name from untrusted text (`one_line`: printable, one line, cut), or `None`.

        The values go to a client that shows them as the user types.
        """
        ident = one_line(ident, MAX_CHARS) if isinstance(ident, str) else ""
        if not ident:
            return None
        text = one_line(label, MAX_CHARS) if isinstance(label, str) else ""
        return cls(text or ident, ident)


def folded(name: Name) -> str:
    return f" {name.label.casefold()} {name.ident.casefold()}"


class Vocabulary:
    """The vocabulary table of one process (see the module docstring).

    `note()` may be called from the event loop; `lookup()` blocks briefly on SQLite,
    so async callers run it in a worker thread. `clock` dates what is seen.
    """

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()  # the queue and the memo; held for microseconds
        self._wake = threading.Condition(self._lock)
        self._reading = threading.Lock()  # the reader connection, held across a query
        self._pending: OrderedDict[tuple[str, str], tuple[Name, float]] = OrderedDict()
        self._written: dict[tuple[str, str], tuple[str, float]] = {}
        self._reader: sqlite3.Connection | None = None
        self._copies: dict[str, _Copy] = {}
        self._writer: threading.Thread | None = None
        self._closing = False

    # -- recording -----------------------------------------------------------------------

    def note(self, kind: str, names: Iterable[Name]) -> None:
        """Queue `names` of `kind` for the writer; returns at once and never raises."""
        now = self._clock()
        with self._lock:
            if self._closing:
                return
            queued = False
            for name in names:
                key = (kind, name.ident)
                if self._written_lately(key, name, now):
                    continue
                self._pending[key] = (name, now)
                self._pending.move_to_end(key)
                queued = True
            while len(self._pending) > MAX_PENDING:
                self._pending.popitem(last=False)
            if not queued:
                return
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_loop, name="pwc-vocabulary", daemon=True
                )
                self._writer.start()
            self._wake.notify()

    def _written_lately(self, key: tuple[str, str], name: Name, now: float) -> bool:
        """Whether this process wrote `name` as it is less than `REWRITE_SECONDS` ago."""
        label, written_at = self._written.get(key, ("", -REWRITE_SECONDS))
        return label == name.label and now - written_at < REWRITE_SECONDS

    def _write_loop(self) -> None:
        db: sqlite3.Connection | None = None
        retry_at = 0.0
        try:
            while True:
                with self._lock:
                    while not self._closing and (not self._pending or time.monotonic() < retry_at):
                        wait = max(0.0, retry_at - time.monotonic()) if self._pending else None
                        self._wake.wait(wait)
                    batch = list(self._pending.items())
                    closing = self._closing
                if batch:
                    if db is None:
                        db = _connect(self.path, WRITE_WAIT_MS)
                    if db is not None and _write(db, batch):
                        self._written_now(batch)
                        retry_at = 0.0
                    else:
                        if db is not None:
                            db.close()
                        db = None
                        retry_at = time.monotonic() + RETRY_SECONDS
                if closing:
                    return
        finally:
            if db is not None:
                db.close()

    def _written_now(self, batch: list[tuple[tuple[str, str], tuple[Name, float]]]) -> None:
        with self._lock:
            if len(self._written) + len(batch) > MAX_REMEMBERED:
                self._written.clear()
            for key, (name, seen_at) in batch:
                self._written[key] = (name.label, seen_at)
                if self._pending.get(key) == (name, seen_at):  # not noted again meanwhile
                    del self._pending[key]

    # -- matching ------------------------------------------------------------------------

    def lookup(self, kind: str, prefix: str) -> list[Name]:
        """Names of `kind` with a label, word or ident starting with `prefix`, recent first.

        A superset the caller ranks (`completions.matching`): what is still queued,
        then at most `CANDIDATES` stored names. Matched in this process's copy of the
        table (`_Copy`), brought up to date first: a scan of 10,000 short strings
        costs about a millisecond, where SQLite's `LIKE` over the rows cost tens.
        An unusable database gives the queue and what was read before.
        """
        needle = " " + prefix.casefold()
        with self._lock:
            queued = [
                name
                for (queued_kind, _ident), (name, _at) in reversed(self._pending.items())
                if queued_kind == kind and needle in folded(name)
            ]
        with self._reading:
            copy = self._refreshed(kind)
            hits = [(at, name) for name, fold, at in copy.names.values() if needle in fold]
        stored = [name for _at, name in heapq.nlargest(CANDIDATES, hits, key=itemgetter(0))]
        seen = {name.ident for name in queued}
        return queued + [name for name in stored if name.ident not in seen]

    def _refreshed(self, kind: str) -> _Copy:
        """The copy of `kind`, with what other connections committed since read in."""
        copy = self._copies.setdefault(kind, _Copy())
        if self._reader is None:
            self._reader = _connect(self.path, READ_WAIT_MS)
            if self._reader is None:
                return copy
        try:
            copy.update(self._reader, kind)
        except sqlite3.Error as exc:  # no table yet, busy, damaged: what was read stands
            log.debug("the completion vocabulary could not be read (%s)", type(exc).__name__)
        return copy

    def forget(self) -> None:
        """Drop every name on disk (`cache clear`); raises `sqlite3.Error` when it cannot.

        Blocking, for a command: it waits for another process's write a while.
        """
        db = _connect(self.path, FORGET_WAIT_MS)
        if db is None:
            raise sqlite3.OperationalError("the library database cannot be opened")
        try:
            db.execute("DELETE FROM vocabulary")
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise
        finally:
            db.close()

    def close(self) -> None:
        """Write what is queued (waiting a little at most) and close the connections."""
        with self._lock:
            self._closing = True
            self._wake.notify()
            writer = self._writer
        if writer is not None:
            writer.join(CLOSE_WAIT_SECONDS)
        with self._reading:
            if self._reader is not None:
                self._reader.close()
                self._reader = None


@dataclass
class _Copy:
    """This process's copy of one kind's stored names: ident -> (name, folded, seen_at).

    `update` reads only what changed: nothing while `PRAGMA data_version` says no
    other connection committed, else the rows seen since the newest one held. When
    the row count then disagrees (a `forget`, a prune elsewhere) it reads them all.
    """

    names: dict[str, tuple[Name, str, float]] = field(default_factory=dict)
    version: int | None = None
    newest: float = 0.0

    def update(self, db: sqlite3.Connection, kind: str) -> None:
        version = db.execute("PRAGMA data_version").fetchone()[0]
        if version == self.version:
            return
        self._add(db.execute(_SINCE, (kind, self.newest)).fetchall())
        if len(self.names) > MAX_NAMES:  # the writer's prune (`_PRUNE`), done here too
            times = heapq.nlargest(MAX_NAMES + 1, (at for _n, _f, at in self.names.values()))
            self.names = {i: row for i, row in self.names.items() if row[2] > times[-1]}
        if db.execute(_COUNT, (kind,)).fetchone()[0] != len(self.names):
            self.names, self.newest = {}, 0.0
            self._add(db.execute(_SINCE, (kind, 0.0)).fetchall())
        self.version = version

    def _add(self, rows: list[tuple[str, str, str, float]]) -> None:
        for ident, label, fold, seen_at in rows:
            self.names[ident] = (Name(label, ident), fold, seen_at)
            self.newest = max(self.newest, seen_at)


def _connect(path: Path, wait_ms: int) -> sqlite3.Connection | None:
    """A connection to the existing library database, or `None` when it cannot be opened."""
    try:
        return connect(path.resolve(), wait_ms, mode="mode=rw")
    except (sqlite3.Error, OSError, ValueError) as exc:
        log.debug("the completion vocabulary is unavailable (%s)", type(exc).__name__)
        return None


def _write(db: sqlite3.Connection, batch: list[tuple[tuple[str, str], tuple[Name, float]]]) -> bool:
    """Write `batch` in one transaction and keep each kind within `MAX_NAMES`; False on failure."""
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA:
                db.execute(statement)
            db.executemany(
                _UPSERT,
                [
                    (kind, name.ident, name.label, folded(name), seen_at)
                    for (kind, _ident), (name, seen_at) in batch
                ],
            )
            for kind in {kind for (kind, _ident), _value in batch}:
                db.execute(_PRUNE, (kind, MAX_NAMES))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return True
    except sqlite3.Error as exc:  # busy, read-only, full or damaged: skip, try later
        log.debug("the completion vocabulary was not written (%s)", type(exc).__name__)
        return False
