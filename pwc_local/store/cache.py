"""The disk cache: one small interface over diskcache, shared by every server process.

Four kinds of entry live in one `diskcache.Cache` (SQLite plus files, safe for
several processes of the same user), each tagged with its kind:

| kind       | what                                   | lifetime          |
| ---------- | -------------------------------------- | ----------------- |
| `response` | parsed catalog JSON, by path + params  | 60 / 600 / 300 s  |
| `public`   | public-metadata records                | 7 days            |
| `markdown` | Markdown chunks, by paper, content     | never (immutable) |
|            | version, offset and limit              |                   |
| `version`  | last content version seen per paper    | 300 s             |

A lifetime decides when an entry must be *revalidated*, not when it disappears:
expired entries stay until the size bound evicts them (least recently used first,
see below) or `prune()` removes them, because an expired answer is still better than none
when the catalog cannot be reached. Callers decide what to do with an `Entry` by
asking `entry.is_fresh(now)`.

Every value is stored as bytes we wrote ourselves: a header (magic, `cached_at`,
`expires_at`) and the JSON payload, sealed with a BLAKE2b digest of both. An entry
that fails to decode or verify, for whatever reason (a torn file, a flipped bit, a
row edited by hand), is deleted, logged as damaged and reported as a miss, so it is
refetched and never served. A deliberate removal (`discard`, say after the paper's
version changed upstream) is not damage and is not logged as such. A custom `Disk`
refuses anything but raw bytes, so a tampered row can never make us unpickle.
Killing a writer mid-way is covered by SQLite's transactions: a write either
committed or did not happen.

Reading and writing take different roads, so that a hit is cheap and a sick disk
costs only what it must:

| operation | how                                            | waits for a lock?     |
| --------- | ---------------------------------------------- | --------------------- |
| hit/miss  | one `SELECT` on a read-only SQLite connection, | no (WAL readers never |
|           | the value file read directly                   | block on writers)     |
| store     | `diskcache.Cache.set` (size bound, culling)    | up to `LOCK_TIMEOUT`  |
| use mark  | hits noted in memory, written in one batch     | with the next store   |
|           | before the next store and at close             |                       |

Eviction is diskcache's least-recently-used order, kept honest without a write per
hit: the access times of hits are batched into the next store (which takes the
write lock anyway) and into `close()`. A long-unused entry is therefore still the
first to go, while a hit never takes the lock every server process shares.

`get()` and `put()` never raise, and nothing disables the cache for good. A lock
held by another process is waited for at most `LOCK_TIMEOUT` (0.4 s), once: the
operation that met it marks the whole cache *busy*, and from then on every write
(a store, a deletion, the batched access times) is skipped at once, as is any read
that would have to wait (WAL reads, nearly all of them, simply read), until a
non-blocking check (`BEGIN IMMEDIATE` with no wait, rolled back) finds the lock
free (tens of microseconds, made by each write while busy), and caching then
resumes by itself. So a sibling's long transaction (`cache prune`, `library add`,
another server's burst) costs a call at most one such wait, and nothing already
cached is touched: a skipped write stores nothing, it never stores half. A full
disk or a read-only directory stops writes only: reads go on through the read-only
connection. Each such condition is logged once when it starts
and once when it clears, not per call. `get_nowait()` is `get()` for the event
loop: it answers only when that needs no waiting (a small row, no lock, nothing to
delete) and raises `WouldBlock` otherwise, so the caller can retry in a thread.
The maintenance calls (`stats`, `clear`, `prune`) raise `CacheError` instead, so the
command line can say what went wrong, where, and the fix (`CacheFull` for a full disk).
`stats` only reads, so it answers on a full disk or a read-only mount too; `clear` on a
full disk first deletes the value files of what it removes, which gives SQLite the
room its deletions need.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import math
import os
import sqlite3
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import diskcache

from pwc_local.config import DEFAULT_CACHE_SIZE, ConfigError, Settings
from pwc_local.private_files import (
    WRONG_TYPE,
    NotPrivate,
    Refusal,
    exposure,
    make_private_dir,
    narrow_private_dir,
    narrow_private_file,
    open_private,
    refusal,
)
from pwc_local.store.library_db import is_full, unwritable_os_reason, unwritable_reason

log = logging.getLogger(__name__)

T = TypeVar("T")

KIND_RESPONSE = "response"
KIND_PUBLIC = "public"
KIND_MARKDOWN = "markdown"
KIND_VERSION = "version"
KINDS = (KIND_RESPONSE, KIND_PUBLIC, KIND_MARKDOWN, KIND_VERSION)
# What `prune` may remove once expired. Markdown chunks never expire, and a paper's
# "last version seen" is what opens its kept chunks offline, so both stay.
PRUNED_KINDS = (KIND_RESPONSE, KIND_PUBLIC)

LISTING_TTL = 60
TAXONOMY_TTL = 600
REST_TTL = 300
PUBLIC_TTL = 7 * 24 * 3600
VERSION_TTL = REST_TTL

# Paths whose answers change quickly (search and paper listings) ...
_LISTING_PATHS = frozenset({"papers", "papers/search", "papers/recent", "papers/trending"})
# ... and the taxonomy, which hardly changes at all.
_TAXONOMY_PREFIXES = (
    "tasks/",
    "methods/",
    "areas/",
    "conferences/",
    "organizations/",
    "frameworks/",
)
PUBLIC_PREFIX = "public-metadata"

# How long an operation waits for another process's lock before the cache counts as
# busy: well above another server's ordinary write (milliseconds) and one prune batch
# (~0.1 s), and short enough that the one call that meets a long lock loses < 0.5 s.
LOCK_TIMEOUT = 0.4
# A cache that failed to open for another reason than a lock (a file where the
# directory should be, a damaged database) is tried again after this long.
RETRY_AFTER = 5.0
# Values up to this size are read on the caller's thread by `get_nowait`; larger
# ones (decoding takes a while) go to `get` in a worker thread.
INLINE_READ_BYTES = 256 * 1024
# Hits remembered for the next batched access-time update; more are not noted.
MAX_NOTED_HITS = 10_000
# Rows `prune` reads per window and deletes per transaction: about 0.05 s of lock
# each (SQLite spends ~20 us per row on its indexes and triggers), well inside the
# `LOCK_TIMEOUT` a serving process waits.
PRUNE_BATCH = 2000
# `prune`'s checkpoint interval (pages of 4 KiB: ~40 MB of WAL) and the size the WAL
# is cut back to afterwards (what SQLite's default interval leaves).
BULK_CHECKPOINT_PAGES = 10_000
BULK_WAL_BYTES = 4 * 1024 * 1024
# Page caches of our writer connection: normally, and while `prune` runs (16 MiB
# deletes as fast as 64 MiB, 8 MiB costs a fifth more CPU; more only grows the process).
WRITER_CACHE_KIB = 65536
BULK_CACHE_KIB = 16384

# magic, cached_at, expires_at, digest of (the fields before it + payload)
_HEADER = struct.Struct("<4sdd16s")
_SEALED = _HEADER.size - 16
_MAGIC = b"pwc\x01"


class CacheError(ConfigError):
    """The cache directory or database cannot be used; the message says which and why.

    `condition` names the kind of trouble for the once-per-condition log: `busy`
    (another process's lock), `full`, `read-only`, `unusable`, `damaged`, `failed`,
    `unsafe` (the directory or database is not private: see `ensure_directory`), whose
    `refusal` holds the problem and its fix apart. The maintenance commands show it as
    `config_error: <message>` (`CacheFull`: `disk_full:`), the message naming the
    directory and the fix.
    """

    def __init__(
        self, message: str, condition: str = "failed", refusal: Refusal | None = None
    ) -> None:
        super().__init__(message)
        self.condition = condition
        self.refusal = refusal


class CacheFull(CacheError):
    """The disk holding the cache is full (a maintenance command could not write)."""

    code = "disk_full"


class WouldBlock(Exception):
    """`get_nowait` cannot answer without waiting or writing; call `get` in a thread."""


def response_ttl(path: str) -> int:
    """The hosted server's lifetime for a catalog path: listings, taxonomy, the rest."""
    path = path.strip("/")
    if path in _LISTING_PATHS:
        return LISTING_TTL
    if any(path == p.rstrip("/") or path.startswith(p) for p in _TAXONOMY_PREFIXES):
        return TAXONOMY_TTL
    if path == PUBLIC_PREFIX or path.startswith(PUBLIC_PREFIX + "/"):
        return PUBLIC_TTL
    return REST_TTL


def ensure_directory(directory: Path, *, ours: bool = False, create: bool = True) -> None:
    """Create the cache directory 0700 unless it exists; refuse one others may use.

    The cache reveals what was read and searched, and what it holds is served as
    answers, so it follows the key's and the library's rules (`private_files`): a
    directory another user owns or may enter (who could plant resealed entries) is
    refused with a `CacheError` naming the path and the fix, and so is a database
    file (`cache.db`, `-wal`, `-shm`) that is not private. The default directory
    (`ours`) is this app's own, so one whose mode drifted is narrowed to 0700 instead,
    as a database file of ours in a private directory is narrowed to 0600 (older
    versions let SQLite make it 0644). `create=False` only checks (the read path).
    """
    try:
        if create:
            make_private_dir(directory)  # another process may be first
        found = (
            narrow_private_dir(directory) if ours else exposure(os.lstat(directory), directory=True)
        )
    except OSError as exc:
        raise CacheError(
            f"cannot use the cache directory {directory}: {exc.strerror or exc}",
            _write_problem(exc)[0],
        ) from None
    if found is not None:
        condition = "unusable" if found.kind == WRONG_TYPE else "unsafe"
        refused = refusal("cache directory", directory, found, directory=True)
        raise CacheError(str(refused), condition, refused)
    for name in (diskcache.core.DBNAME, *_DATABASE_SIDE_FILES):
        path = directory / name
        try:
            found = narrow_private_file(path)  # not opened: see narrow_private_file
        except FileNotFoundError:
            if create and name == diskcache.core.DBNAME:
                _create_private(path)
            continue
        except OSError as exc:
            raise CacheError(
                f"cannot check {path}: {exc.strerror or exc}", _write_problem(exc)[0]
            ) from None
        if found is not None:
            refused = refusal("cache database", path, found)
            raise CacheError(str(refused), "unsafe", refused)


def _create_private(path: Path) -> None:
    """Create the empty database file 0600, so SQLite (which keeps the mode of an
    existing file, and gives it to `-wal` and `-shm`) never makes it readable."""
    try:
        os.close(open_private(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return  # another process (or thread) was first; the next check covers it
    except (OSError, NotPrivate) as exc:
        raise CacheError(f"cannot create {path}: {exc}", "failed") from None


# SQLite's files beside the database; it gives them the database file's mode.
_DATABASE_SIDE_FILES = tuple(diskcache.core.DBNAME + suffix for suffix in ("-wal", "-shm"))


def cache_key(kind: str, parts: Sequence[Any]) -> str:
    """A stable key for `parts` (JSON-able): the kind, then a digest of the parts.

    Hashing keeps keys short and keeps paper references and queries out of the
    database's key column; mapping order does not matter.
    """
    text = json.dumps(list(parts), sort_keys=True, separators=(",", ":"), default=str)
    return f"{kind}:{hashlib.blake2b(text.encode('utf-8'), digest_size=20).hexdigest()}"


@dataclass(frozen=True)
class Entry:
    """A verified cache entry: its value, when it was stored and when it goes stale."""

    value: Any
    cached_at: float
    expires_at: float

    def is_fresh(self, now: float) -> bool:
        return now < self.expires_at

    @property
    def cached_at_datetime(self) -> datetime:
        return datetime.fromtimestamp(self.cached_at, tz=timezone.utc)


@dataclass(frozen=True)
class KindStats:
    entries: int = 0
    bytes: int = 0
    oldest: float | None = None
    newest: float | None = None


@dataclass(frozen=True)
class CacheStats:
    """What `cache stats` reports; `volume` is diskcache's estimate of the disk use."""

    directory: Path
    size_limit: int
    volume: int
    kinds: dict[str, KindStats]

    @property
    def entries(self) -> int:
        return sum(k.entries for k in self.kinds.values())

    @property
    def bytes(self) -> int:
        return sum(k.bytes for k in self.kinds.values())


@dataclass(frozen=True)
class PruneResult:
    expired: int
    corrupt: int


def encode_entry(value: Any, *, cached_at: float, expires_at: float) -> bytes:
    """The sealed byte form of one entry (see the module docstring)."""
    payload = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    head = _HEADER.pack(_MAGIC, cached_at, expires_at, b"\0" * 16)[:_SEALED]
    return head + _digest(head, payload) + payload


def decode_entry(blob: Any) -> Entry | None:
    """The entry sealed in `blob`, or `None` when it is not exactly what we wrote."""
    times = check_entry(blob)
    if times is None:
        return None
    cached_at, expires_at = times
    try:
        value = json.loads(blob[_HEADER.size :].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return Entry(value=value, cached_at=cached_at, expires_at=expires_at)


def check_entry(blob: Any) -> tuple[float, float] | None:
    """`(cached_at, expires_at)` of a sealed entry whose digest verifies, else `None`.

    `decode_entry` without parsing the JSON: what `prune` needs to judge 100,000
    entries quickly. A verified digest means the payload is the JSON we wrote.
    """
    times = entry_times(blob)
    if times is None:
        return None
    view = memoryview(blob)
    if blob[_SEALED : _HEADER.size] != _digest(view[:_SEALED], view[_HEADER.size :]):
        return None
    return times


def entry_times(blob: Any) -> tuple[float, float] | None:
    """`(cached_at, expires_at)` as the header of `blob` states them, digest unchecked.

    Enough for `prune` to drop an expired row, which goes whether it verifies or not.
    """
    if not isinstance(blob, bytes) or len(blob) < _HEADER.size:
        return None
    magic, cached_at, expires_at, _ = _HEADER.unpack_from(blob)
    if magic != _MAGIC or not math.isfinite(cached_at) or math.isnan(expires_at):
        return None
    return cached_at, expires_at


def _digest(head: bytes | memoryview, payload: bytes | memoryview) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    h.update(head)
    h.update(payload)
    return h.digest()


class _BytesOnlyDisk(diskcache.Disk):
    """diskcache storage restricted to str keys and bytes values: no pickle, ever."""

    def put(self, key: Any) -> tuple[Any, bool]:
        if type(key) is not str:
            raise TypeError("cache keys are strings")
        return super().put(key)

    def get(self, key: Any, raw: bool) -> Any:
        if not raw:
            raise ValueError("pickled key found in the cache")
        return super().get(key, raw)

    def store(self, value: Any, read: bool, key: Any = diskcache.core.UNKNOWN) -> Any:
        if type(value) is not bytes:
            raise TypeError("cache values are bytes")
        return super().store(value, read, key=key)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode not in (diskcache.core.MODE_RAW, diskcache.core.MODE_BINARY):
            raise ValueError("cache entry has an unexpected storage mode")
        return super().fetch(mode, filename, value, read)


class DiskCache:
    """The response, public-metadata and Markdown cache under one directory.

    ```python
    cache = DiskCache(Path("~/.cache/pwc-mcp-local").expanduser())
    cache.put("response", ["papers/755", {}], {"id": "755"}, ttl=300)
    entry = cache.get("response", ["papers/755", {}])
    if entry is not None and entry.is_fresh(time.time()):
        ...
    ```

    `parts` identify an entry within its kind (any JSON-able sequence); `ttl=None`
    means the entry never goes stale. `clock` is injectable for tests. Nothing is
    opened at construction: reads open a read-only connection per thread on first
    use (and find nothing while there is no database), writes open the diskcache
    store, creating the directory, on the first `put`.
    """

    def __init__(
        self,
        directory: Path,
        *,
        size_limit: int = DEFAULT_CACHE_SIZE,
        clock: Callable[[], float] = time.time,
        lock_timeout: float = LOCK_TIMEOUT,
        own_directory: bool = False,
    ) -> None:
        # Absolute, so a relative setting can still be opened as an SQLite URI.
        self.directory = Path(os.path.abspath(directory))
        self.size_limit = size_limit
        # The platform's default directory is ours to narrow; a configured one is not
        # (`ensure_directory`).
        self.own_directory = own_directory
        self.clock = clock
        self._lock_timeout = lock_timeout
        self._cache: diskcache.Cache | None = None
        self._open_lock = threading.Lock()
        self._retry_open_at = 0.0  # monotonic time before which opening is not retried
        self._local = threading.local()  # this thread's SQLite connections
        self._inline: sqlite3.Connection | None = None  # get_nowait's, shared
        self._inline_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._hits: dict[str, float] = {}  # key -> access time, not yet written
        self._conditions = _Conditions()
        self._busy = False  # another process holds the write lock (module docstring)

    @classmethod
    def from_settings(cls, settings: Settings) -> DiskCache:
        return cls(
            settings.resolved_cache_dir(),
            size_limit=settings.cache_size,
            own_directory=settings.cache_dir is None,
        )

    # -- the serving path: never raises -------------------------------------------------

    def get(self, kind: str, parts: Sequence[Any]) -> Entry | None:
        """The verified entry for `parts`, fresh or not, or `None` (miss, busy or dropped).

        May block: up to `LOCK_TIMEOUT` behind another process, longer for a large
        value on a slow disk. Run it in a worker thread, or try `get_nowait` first.
        """
        return self._read(kind, parts, wait=True)

    def get_nowait(self, kind: str, parts: Sequence[Any]) -> Entry | None:
        """`get` when that is cheap now; raises `WouldBlock` instead of waiting or writing.

        Cheap means one indexed `SELECT` that finds no lock in the way and a value of
        at most `INLINE_READ_BYTES`: tens of microseconds, fine on the event loop.
        A damaged entry raises `WouldBlock` too, since deleting it is a write.
        """
        return self._read(kind, parts, wait=False)

    def put(self, kind: str, parts: Sequence[Any], value: Any, *, ttl: float | None) -> bool:
        """Store `value` (JSON-able) for `parts`; whether it was stored.

        Failures (another process's lock, a full disk, a read-only file) are logged
        once, never raised: the answer still goes out.
        """
        cache = self._writer()
        if cache is None:
            return False
        now = self.clock()
        expires_at = math.inf if ttl is None else now + ttl
        try:
            self._write_hits()  # before `set`, whose culling reads the access times
            blob = encode_entry(value, cached_at=now, expires_at=expires_at)
            cache.set(cache_key(kind, parts), blob, tag=kind)
        except Exception as exc:
            self._write_failed(exc)
            return False
        self._conditions.clear("write", "cache writes work again (they had failed: %s)")
        return True

    def discard(self, kind: str, parts: Sequence[Any]) -> None:
        """Delete one entry on purpose, e.g. a paper version the catalog no longer has.

        A deliberate removal, not damage: logged at debug level only.
        """
        cache = self._writer()
        if cache is None:
            return
        try:
            cache.delete(cache_key(kind, parts))
        except Exception as exc:
            self._write_failed(exc)
            return
        log.debug("removed a %s cache entry that no longer applies", kind)

    # -- maintenance: raises CacheError --------------------------------------------------

    def stats(self) -> CacheStats:
        """Entries, bytes and oldest/newest store time per kind, and the disk volume.

        One grouped scan of the index table (no value is read): about a second
        for 100,000 entries.
        """
        path = self.directory / diskcache.core.DBNAME
        if not path.is_file() or path.stat().st_size == 0:  # a new cache: make its tables
            self._maintenance("read", self._maintenance_cache)
        kinds = {kind: KindStats() for kind in KINDS}
        try:
            # Read only: a full disk or a read-only directory still has its figures.
            db = _last_resort_reader(path)
            try:
                # diskcache keeps small values inline (size 0) and large ones in files.
                rows = db.execute(
                    "SELECT tag, COUNT(*),"
                    " SUM(CASE WHEN filename IS NULL THEN length(value) ELSE size END),"
                    " MIN(store_time), MAX(store_time) FROM Cache GROUP BY tag"
                ).fetchall()
                # diskcache's `volume()`: the database's pages and its files' bytes.
                pages = db.execute("PRAGMA page_count").fetchone()[0]
                page_size = db.execute("PRAGMA page_size").fetchone()[0]
                stored = db.execute("SELECT value FROM Settings WHERE key = 'size'").fetchone()
            finally:
                db.close()
            volume = pages * page_size + int(stored[0] if stored else 0)
        except (sqlite3.Error, OSError) as exc:
            raise self._maintenance_error(exc, "read") from None
        for tag, count, size, oldest, newest in rows:
            if tag in kinds:
                kinds[tag] = KindStats(int(count), int(size or 0), oldest, newest)
        return CacheStats(self.directory, self.size_limit, int(volume), kinds)

    def clear(self, kinds: Iterable[str] | None = None) -> int:
        """Remove every entry, or those of the given kinds; returns how many went."""
        chosen = None if kinds is None else [_checked_kind(kind) for kind in kinds]

        def clear() -> int:
            cache = self._maintenance_cache()
            if chosen is None:
                return int(cache.clear(retry=True))
            return sum(int(cache.evict(kind, retry=True)) for kind in chosen)

        try:
            return self._maintenance("clear", clear)
        except CacheFull:
            # Deleting needs room in SQLite's log; the value files of the entries
            # going anyway give it (their rows read as misses meanwhile).
            if not self._free_value_files(chosen):
                raise
            self.close()
            return self._maintenance("clear", clear)

    def prune(self) -> PruneResult:
        """Remove entries past their lifetime, and any that fail to verify on the way.

        Markdown chunks never expire, and the last version seen per paper (a few bytes
        each) is kept with them so a pruned cache still opens those papers offline.
        Only our own rows are judged (string keys of a pruned kind): a row some other
        program wrote is not ours to decode.

        The table is read in windows of `PRUNE_BATCH` rows, newest rowid first,
        outside the write transactions of the connection that deletes them (so the
        pages read are the pages then changed, in one page cache), each row judged by
        its lifetime and, if still live, its digest (no JSON parsing). Doomed rows
        are deleted `PRUNE_BATCH` to a transaction as they come, so memory stays flat
        whatever the cache holds, and running servers wait at most one short batch
        for the lock (past `LOCK_TIMEOUT` they count the cache as busy and go on
        without it). A row stored again since it was read (a new `store_time`) is
        left alone. Newest first, because the newest rows sit at the end of the
        file: SQLite's auto-vacuum then truncates freed pages instead of moving live
        ones into them. `_bulk_writer` has the rest. 100,000 expired entries of
        1.5 KB (220 MB) on a shared 2-core machine: 2.2-2.6 s of CPU, 2.4-3.0 s in
        all (one scan of everything, then deletions with SQLite's default checkpoints
        and page cache, took 4.1 s of CPU and 3.7-5.6 s); most of it is SQLite's
        deletions (four indexes and two triggers per row).
        """
        cache = self._maintenance("prune", self._maintenance_cache)
        now = self.clock()
        gone = {"expired": 0, "corrupt": 0}
        doomed: list[tuple[int, float, str | None, str]] = []
        prefixes = tuple(f"{kind}:" for kind in PRUNED_KINDS)
        marks = ",".join("?" * len(PRUNED_KINDS))
        # The table itself in rowid order (`+tag`: not the tag index, which would
        # sort); rows of other kinds are skipped before their values are read.
        window = (
            "SELECT rowid, key, store_time, mode, filename, value FROM Cache"
            f" WHERE rowid < ? AND raw = 1 AND +tag IN ({marks}) ORDER BY rowid DESC LIMIT ?"
        )
        try:
            with self._bulk_writer() as db:
                below = 2**63 - 1
                raw_mode, unpack, header_size = (
                    diskcache.core.MODE_RAW,
                    _HEADER.unpack_from,
                    _HEADER.size,
                )
                while rows := db.execute(window, (below, *PRUNED_KINDS, PRUNE_BATCH)).fetchall():
                    below = rows[-1][0]
                    for rowid, key, stored, mode, filename, value in rows:
                        if not (isinstance(key, str) and key.startswith(prefixes)):
                            continue
                        # The common case inline (a third of prune's time is this loop):
                        # a row kept in the database whose header says it expired.
                        if (
                            mode == raw_mode
                            and type(value) is bytes
                            and len(value) >= header_size
                            and value[:4] == _MAGIC
                            and unpack(value)[2] <= now
                        ):
                            doomed.append((rowid, stored, filename, "expired"))
                            continue
                        why = self._prune_reason(mode, filename, value, now)
                        if why is not None:
                            doomed.append((rowid, stored, filename, why))
                    if len(doomed) >= PRUNE_BATCH:
                        self._delete_rows(cache, db, doomed, gone)
                        doomed = []
                self._delete_rows(cache, db, doomed, gone)
        except (sqlite3.Error, OSError) as exc:
            raise self._maintenance_error(exc, "prune") from None
        return PruneResult(expired=gone["expired"], corrupt=gone["corrupt"])

    def _maintenance(self, doing: str, action: Callable[[], T]) -> T:
        """`action()`, its failures as the `CacheError` that says why and what to do."""
        try:
            return action()
        except CacheError as exc:
            if exc.condition in ("damaged", "unusable"):
                raise
            raise self._maintenance_error(exc.__context__ or exc, doing) from None
        except (sqlite3.Error, OSError, diskcache.Timeout) as exc:
            raise self._maintenance_error(exc, doing) from None

    def _maintenance_error(self, exc: BaseException, doing: str) -> CacheError:
        """The `CacheError` a maintenance command shows for `exc`: which directory, why, the fix."""
        where = self.directory
        reason: str | None = None
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            return CacheError(
                f"the cache database in {where} is damaged ({exc}); "
                "delete that directory to start a new cache",
                "damaged",
            )
        if isinstance(exc, sqlite3.Error):
            reason = unwritable_reason(exc, where / diskcache.core.DBNAME)
        elif isinstance(exc, OSError):
            reason = unwritable_os_reason(exc)
        if reason is None and isinstance(exc, CacheError):
            reason = {"full": "the disk is full", "read-only": "it is read-only"}.get(exc.condition)
        if reason is not None and is_full(reason):
            return CacheFull(
                f"cannot {doing} the cache in {where}: {reason}; free some space on that disk "
                "(`cache clear` frees the cache's own), then run it again",
                "full",
            )
        if reason is not None and not reason.startswith("SQLite"):
            return CacheError(
                f"cannot {doing} the cache in {where}: {reason}; make the "
                "directory writable, or set PWC_MCP_LOCAL_CACHE_DIR to one that is",
                "read-only",
            )
        condition, meaning = _write_problem(exc)
        if condition == "busy":
            meaning = "another process (a server, a `library add`) holds its write lock"
            return CacheError(
                f"cannot {doing} the cache in {where}: {meaning}; try again in a moment", "busy"
            )
        return CacheError(f"cannot {doing} the cache in {where}: {meaning}", condition)

    def _free_value_files(self, kinds: Sequence[str] | None) -> bool:
        """Delete the value files of the entries of `kinds` (all: `None`); whether any went.

        For `clear` on a full disk: the files are found through a read-only connection
        (which needs no space) and removed before their rows, which then read as misses.
        """
        path = self.directory / diskcache.core.DBNAME
        sql = "SELECT filename FROM Cache WHERE filename IS NOT NULL"
        if kinds is not None:
            sql += f" AND tag IN ({','.join('?' * len(kinds))})"
        try:
            db = _last_resort_reader(path)
            try:
                names = [row[0] for row in db.execute(sql, tuple(kinds or ()))]
            finally:
                db.close()
        except (sqlite3.Error, OSError):
            return False
        freed = False
        for name in names:
            relative = Path(str(name))
            if relative.is_absolute() or ".." in relative.parts:
                continue  # diskcache never writes such a name: not ours to delete
            with contextlib.suppress(OSError):
                (self.directory / relative).unlink()
                freed = True
        return freed

    def close(self) -> None:
        """Write pending access times, close every connection; a later call reopens."""
        with contextlib.suppress(Exception):
            if self._cache is not None:
                self._write_hits()
        with self._open_lock:
            if self._cache is not None:
                self._cache.close()
                self._cache = None
            connections, self._connections = self._connections, []
            self._local = threading.local()
            self._inline = None
        for db in connections:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    # -- reading ---------------------------------------------------------------------------

    def _read(self, kind: str, parts: Sequence[Any], *, wait: bool) -> Entry | None:
        key = cache_key(kind, parts)
        if wait:
            return self._read_key(key, kind, wait=True)
        # The one inline connection serves the event loop; if another thread is
        # using it right now, that is waiting too.
        if not self._inline_lock.acquire(blocking=False):
            raise WouldBlock
        try:
            return self._read_key(key, kind, wait=False)
        finally:
            self._inline_lock.release()

    def _read_key(self, key: str, kind: str, *, wait: bool) -> Entry | None:
        try:
            db = self._reader(wait)
            if db is None:
                return None  # nothing was ever stored here
            if wait:
                self._reader_waits(db, not self._busy)
            row = db.execute(_SELECT_ENTRY, (key,)).fetchone()
        except sqlite3.Error as exc:
            if _is_busy(exc) and not wait:
                raise WouldBlock from None
            if _is_busy(exc):
                self._mark_busy()
                self._conditions.report(
                    "read",
                    "busy",
                    f"cache lookups waited {self._lock_timeout:g} s for another process's "
                    "lock; answering them as misses (from the catalog) until it is released",
                )
            elif "no such table" not in str(exc):  # a database being created right now
                self._conditions.report(
                    "read",
                    "failed",
                    f"cannot read the cache in {self.directory} ({exc}); answering lookups "
                    "as misses and trying again on each call",
                )
            return None
        if row is None:
            self._conditions.clear("read", "cache lookups work again (they had failed: %s)")
            return None
        mode, filename, value, size = row
        if not wait and mode == diskcache.core.MODE_BINARY and (size or 0) > INLINE_READ_BYTES:
            raise WouldBlock
        try:
            blob = self._stored_bytes(mode, filename, value)
        except FileNotFoundError:
            return None  # evicted or replaced since the SELECT: a miss
        except OSError as exc:
            self._conditions.report(
                "read", "file", f"cannot read a cache file ({exc}); answering it as a miss"
            )
            return None
        entry = decode_entry(blob)
        if entry is None:
            if not wait:
                raise WouldBlock  # deleting it is a write: leave that to `get`
            self._drop_damaged(key, kind)
            return None
        if len(self._hits) < MAX_NOTED_HITS:
            self._hits[key] = time.time()  # diskcache's access times are wall-clock
        self._conditions.clear("read", "cache lookups work again (they had failed: %s)")
        return entry

    def _stored_bytes(self, mode: Any, filename: Any, value: Any) -> bytes | None:
        """The bytes a row holds inline or in its file; `None` when it is not our kind of row."""
        if mode == diskcache.core.MODE_RAW and isinstance(value, bytes):
            return value
        if mode == diskcache.core.MODE_BINARY and isinstance(filename, str):
            relative = Path(filename)
            if relative.is_absolute() or ".." in relative.parts:
                return None  # diskcache never writes such a name: a tampered row
            return (self.directory / relative).read_bytes()
        return None

    def _reader_waits(self, db: sqlite3.Connection, wait: bool) -> None:
        """Set this thread's reader to wait `LOCK_TIMEOUT` for a lock, or (busy) not at all."""
        if self._local.__dict__.get("reader_waits", True) != wait:
            timeout = int(self._lock_timeout * 1000) if wait else 0
            db.execute(f"PRAGMA busy_timeout = {timeout}")
            self._local.reader_waits = wait

    def _reader(self, wait: bool) -> sqlite3.Connection | None:
        """A read-only connection: the shared inline one (no busy wait), or this thread's.

        `None` while there is no database yet (nothing was ever stored).
        """
        db: sqlite3.Connection | None = (
            self._inline if not wait else self._local.__dict__.get("reader")
        )
        if db is not None:
            return db
        path = self.directory / diskcache.core.DBNAME
        if not path.is_file():
            return None
        try:
            ensure_directory(self.directory, ours=self.own_directory, create=False)
        except CacheError as exc:
            # Nothing from a cache others could have written is served.
            self._conditions.report(
                "read", exc.condition, f"cache not used: {exc}; answering from the catalog"
            )
            return None
        db = _open_reader(path)
        timeout = int(self._lock_timeout * 1000) if wait else 0
        db.execute(f"PRAGMA busy_timeout = {timeout}")
        if wait:
            self._local.reader = db
        else:
            self._inline = db
        with self._open_lock:
            self._connections.append(db)
        return db

    def warm(self) -> None:
        """Open what the first calls use (the inline read connection, the store), now.

        For a warm-up thread: the first lookup then finds its connection open and
        its statement prepared, and the first store finds the database open.
        Failures are left for those calls to meet and report.
        """
        with self._inline_lock, contextlib.suppress(sqlite3.Error):
            db = self._reader(False)
            if db is not None:
                db.execute(_SELECT_ENTRY, ("",)).fetchone()
        self._writer()

    def _drop_damaged(self, key: str, kind: str) -> None:
        deleted = False
        cache = self._writer()
        if cache is not None:
            try:
                deleted = bool(cache.delete(key))
            except Exception as exc:
                if _write_problem(exc)[0] == "busy":
                    self._mark_busy()
        outcome = "deleted it" if deleted else "could not delete it now (a new store replaces it)"
        log.warning(
            "a %s cache entry failed verification (torn, damaged or edited); %s, and the "
            "data is fetched from the catalog instead",
            kind,
            outcome,
        )

    # -- writing ---------------------------------------------------------------------------

    def _write_hits(self) -> None:
        """Write the access times of the hits since last time, in one transaction."""
        hits, self._hits = self._hits, {}
        if not hits:
            return
        try:
            db = self._writer_connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(_TOUCH_ENTRY, [(at, key) for key, at in hits.items()])
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except Exception:
            for key, at in hits.items():  # keep them for the next attempt
                if len(self._hits) < MAX_NOTED_HITS:
                    self._hits.setdefault(key, at)
            raise

    def _writer_connection(self) -> sqlite3.Connection:
        """This thread's read-write connection for our own statements (access times, prune)."""
        db: sqlite3.Connection | None = getattr(self._local, "writer", None)
        if db is None:
            db = sqlite3.connect(
                str(self.directory / diskcache.core.DBNAME),
                timeout=self._lock_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
            db.execute("PRAGMA synchronous = NORMAL")  # what diskcache uses, WAL-safe
            db.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
            self._local.writer = db
            with self._open_lock:
                self._connections.append(db)
        return db

    def _prune_reason(self, mode: Any, filename: Any, value: Any, now: float) -> str | None:
        """`expired`, `corrupt` or `None` (kept) for one row; only live rows are verified."""
        try:
            blob = self._stored_bytes(mode, filename, value)
        except OSError:  # a missing or unreadable value file
            return "corrupt"
        times = entry_times(blob)
        if times is not None and not now < times[1]:
            return "expired"  # goes either way: no need to verify it
        return "corrupt" if times is None or check_entry(blob) is None else None

    @contextlib.contextmanager
    def _bulk_writer(self) -> Iterator[sqlite3.Connection]:
        """This thread's writer, set up for many deletions in a row (`prune`).

        Checkpoints every `BULK_CHECKPOINT_PAGES` instead of SQLite's 1,000: each
        checkpoint syncs the disk, and 1,000 pages go by every ~2,500 deletions
        (secure delete rewrites each freed page), which made the syncs half of a
        prune. The WAL is cut back to `BULK_WAL_BYTES` after each checkpoint, so it
        never stays large on disk, and the page cache is held to `BULK_CACHE_KIB`, so
        memory stays flat.
        """
        db = self._writer_connection()
        db.execute(f"PRAGMA wal_autocheckpoint = {BULK_CHECKPOINT_PAGES}")
        db.execute(f"PRAGMA journal_size_limit = {BULK_WAL_BYTES}")
        db.execute(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
        try:
            yield db
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                db.execute("PRAGMA wal_autocheckpoint = 1000")
                db.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")

    def _delete_rows(
        self,
        cache: diskcache.Cache,
        db: sqlite3.Connection,
        rows: list[tuple[int, float, str | None, str]],
        gone: dict[str, int],
    ) -> None:
        """Delete rows still stored at the time seen, in one transaction; count them in `gone`.

        diskcache's triggers keep its entry count and size total right; the value
        files are removed after the commit, as diskcache does.
        """
        if not rows:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            for why in ("expired", "corrupt"):
                done = db.executemany(
                    "DELETE FROM Cache WHERE rowid = ? AND store_time = ?",
                    [(rowid, stored) for rowid, stored, _, reason in rows if reason == why],
                )
                gone[why] += max(done.rowcount, 0)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        for _, _, filename, _ in rows:
            if filename:  # gone already if the row was stored again meanwhile
                cache.disk.remove(filename)

    def _write_failed(self, exc: BaseException) -> None:
        condition, meaning = _write_problem(exc)
        if condition == "busy":
            self._mark_busy()
        self._conditions.report(
            "write",
            condition,
            f"cache writes failing: {meaning}; answers go out without being stored, "
            "and each later call tries to store again",
        )

    def _mark_busy(self) -> None:
        self._busy = True

    def _lock_free_now(self) -> bool:
        """While busy: whether the write lock is free now, checked without waiting.

        A free lock ends the busy state. The check uses this thread's own connection
        that never waits (`BEGIN IMMEDIATE`, then `ROLLBACK`).
        """
        try:
            db: sqlite3.Connection | None = getattr(self._local, "checker", None)
            if db is None:
                db = sqlite3.connect(
                    str(self.directory / diskcache.core.DBNAME),
                    timeout=0,
                    isolation_level=None,
                    check_same_thread=False,
                )
                self._local.checker = db
                with self._open_lock:
                    self._connections.append(db)
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        except sqlite3.Error:
            return False
        self._busy = False
        return True

    # -- opening ---------------------------------------------------------------------------

    def _writer(self) -> diskcache.Cache | None:
        """The diskcache store for writes, or `None` while it cannot be opened or is busy.

        Contention is retried on the next call; any other failure (a file where the
        directory should be, a damaged database, a read-only directory) after
        `RETRY_AFTER` seconds, so a sick cache costs one attempt now and then, not
        one per call. Reads never depend on this.
        """
        if self._busy and not self._lock_free_now():
            return None
        if self._cache is not None:
            return self._cache
        if time.monotonic() < self._retry_open_at:
            return None
        try:
            return self._open()
        except CacheError as exc:
            busy = exc.condition == "busy"
            again = "once the lock is free" if busy else f"in {RETRY_AFTER:g} s"
            if busy:
                self._mark_busy()
            else:
                self._retry_open_at = time.monotonic() + RETRY_AFTER
            self._conditions.report(
                "write",
                exc.condition,
                f"cache unavailable for storing: {exc}; answers go out without being "
                f"stored, trying again {again}",
            )
            return None

    def _maintenance_cache(self) -> diskcache.Cache:
        return self._open()

    def _open(self) -> diskcache.Cache:
        with self._open_lock:
            if self._cache is None:
                try:
                    ensure_directory(self.directory, ours=self.own_directory)
                    self._cache = self._open_shared()
                except sqlite3.OperationalError as exc:  # locked, unreadable, no space ...
                    raise CacheError(
                        f"cannot open the cache in {self.directory}: {exc}",
                        _write_problem(exc)[0],
                    ) from None
                except sqlite3.DatabaseError as exc:  # not a database, malformed image
                    raise CacheError(
                        f"the cache database in {self.directory} is damaged ({exc}); "
                        f"delete that directory to start a new cache",
                        "damaged",
                    ) from None
                except (OSError, sqlite3.Error, diskcache.Timeout) as exc:
                    raise CacheError(
                        f"cannot open the cache in {self.directory}: {exc}",
                        _write_problem(exc)[0],
                    ) from None
            self._retry_open_at = 0.0
            return self._cache

    def _open_shared(self) -> diskcache.Cache:
        """Open the database, waiting out other processes that are opening it too.

        diskcache retries most of its set-up statements on a busy database, but not
        all of them, so several servers starting at the same moment (a client spawning
        a server per window) can still see "database is locked". Retry the whole
        open until the lock timeout instead of giving up on the first refusal.

        diskcache's own set-up retries a locked database for up to 60 s, so the
        write lock is probed first (`_probe_write_lock`): a lock another process
        holds for long costs this call one `LOCK_TIMEOUT`, not a minute. (A lock
        taken in the instant between probe and open still meets diskcache's wait.)
        """
        self._probe_write_lock()
        deadline = time.monotonic() + self._lock_timeout
        pause = 0.005
        while True:
            try:
                return diskcache.Cache(
                    str(self.directory),
                    timeout=self._lock_timeout,
                    disk=_BytesOnlyDisk,
                    size_limit=self.size_limit,
                    eviction_policy="least-recently-used",
                    tag_index=True,
                    statistics=False,
                )
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

    def _probe_write_lock(self) -> None:
        """Take and release the write lock of an existing database, waiting `LOCK_TIMEOUT`.

        Raises `sqlite3.OperationalError` (locked, read-only, ...) when it cannot.
        """
        path = self.directory / diskcache.core.DBNAME
        if not path.is_file():
            return  # a new cache: nothing to wait for yet
        db = sqlite3.connect(str(path), timeout=self._lock_timeout, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        finally:
            db.close()


_SELECT_ENTRY = "SELECT mode, filename, value, size FROM Cache WHERE key = ? AND raw = 1"
_TOUCH_ENTRY = "UPDATE Cache SET access_time = ? WHERE key = ? AND raw = 1"


class _Conditions:
    """What is wrong with the cache right now, per area, so each problem is logged once.

    `report` logs a warning when an area's condition changes (say writes go from
    working to "full"), not on every call that meets it; `clear` logs once that the
    area works again.
    """

    def __init__(self) -> None:
        self._current: dict[str, str] = {}
        self._lock = threading.Lock()

    def report(self, area: str, condition: str, message: str) -> None:
        with self._lock:
            if self._current.get(area) == condition:
                return
            self._current[area] = condition
        log.warning("%s", message)

    def clear(self, area: str, message: str) -> None:
        if area not in self._current:  # the common case, without the lock
            return
        with self._lock:
            previous = self._current.pop(area, None)
        if previous is not None:
            log.info(message, previous)


def _open_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to the database, even in a directory we cannot write.

    SQLite's WAL mode needs the `-shm` file to exist or be creatable; in a read-only
    directory without one, fall back to `immutable=1`, which reads the file as it is.
    """
    uri = path.as_uri()
    for options in ("mode=ro", "mode=ro&immutable=1"):
        db = sqlite3.connect(
            f"{uri}?{options}", uri=True, isolation_level=None, check_same_thread=False
        )
        try:
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return db
        except sqlite3.OperationalError as exc:
            db.close()
            if "unable to open" not in str(exc) and "readonly" not in str(exc):
                raise
    raise sqlite3.OperationalError(f"cannot open {path} for reading")


def _last_resort_reader(path: Path) -> sqlite3.Connection:
    """`_open_reader`, or where even that fails (a full disk has no room for the `-shm`
    file) the file as it is, `immutable=1`: for the maintenance commands only, which
    read once and may miss what the WAL holds, never for serving."""
    try:
        return _open_reader(path)
    except sqlite3.OperationalError:
        uri = f"{path.as_uri()}?mode=ro&immutable=1"
        return sqlite3.connect(uri, uri=True, isolation_level=None)


def _is_busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _write_problem(exc: BaseException) -> tuple[str, str]:
    """A failed write (or open) as (condition, what it means to a reader of the log)."""
    errno_ = getattr(exc, "errno", None)
    text = str(exc).lower()
    if isinstance(exc, diskcache.Timeout) or _is_busy(exc):
        return "busy", (
            f"another process held the cache lock for more than {LOCK_TIMEOUT:g} s, so the "
            "cache counts as busy until the lock is free"
        )
    if errno_ == errno.ENOSPC or "full" in text:
        return "full", "the disk is full"
    if errno_ in (errno.EROFS, errno.EACCES, errno.EPERM) or "readonly" in text:
        return "read-only", "the cache directory or database is not writable"
    return "failed", f"{type(exc).__name__}: {exc}"


def _checked_kind(kind: str) -> str:
    if kind not in KINDS:
        raise CacheError(f"unknown cache kind {kind!r} (known: {', '.join(KINDS)})")
    return kind
