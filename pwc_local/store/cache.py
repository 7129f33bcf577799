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
expired entries stay until the size bound evicts them (least recently used first)
or `prune()` removes them, because an expired answer is still better than none
when the catalog cannot be reached. Callers decide what to do with an `Entry` by
asking `entry.is_fresh(now)`.

Every value is stored as bytes we wrote ourselves: a header (magic, `cached_at`,
`expires_at`) and the JSON payload, sealed with a BLAKE2b digest of both. An entry
that fails to decode or verify, for whatever reason (a torn file, a flipped bit, a
row edited by hand), is deleted and reported as a miss, so it is refetched and never
served. A custom `Disk` refuses anything but raw bytes, so a tampered row can never
make us unpickle. Killing a writer mid-way is covered by SQLite's transactions: a
write either committed or did not happen.

`get()` and `put()` never raise: a cache that cannot be opened or is locked for too
long degrades to "no cache" with a warning, because it must never cost an answer.
The maintenance calls (`stats`, `clear`, `prune`) raise `CacheError` instead, so the
command line can say what went wrong.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import sqlite3
import struct
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import diskcache

from pwc_local.config import DEFAULT_CACHE_SIZE, Settings

log = logging.getLogger(__name__)

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

# How long one process waits for another's write lock before treating it as a miss.
LOCK_TIMEOUT = 10.0

# magic, cached_at, expires_at, digest of (the fields before it + payload)
_HEADER = struct.Struct("<4sdd16s")
_SEALED = _HEADER.size - 16
_MAGIC = b"pwc\x01"


class CacheError(Exception):
    """The cache directory or database cannot be used; the message says which and why."""


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


def ensure_directory(directory: Path) -> None:
    """Create the cache directory, readable by its owner only, unless it exists already.

    The cache reveals what was read and searched, so whoever makes the directory first
    (a server, `doctor`, a cache command) makes it 0700; an existing one is left as the
    person set it up.
    """
    directory.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # another process was first
        os.mkdir(directory, 0o700)


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
    if not isinstance(blob, bytes) or len(blob) < _HEADER.size:
        return None
    magic, cached_at, expires_at, digest = _HEADER.unpack_from(blob)
    view = memoryview(blob)
    if magic != _MAGIC or digest != _digest(view[:_SEALED], view[_HEADER.size :]):
        return None
    if not math.isfinite(cached_at) or math.isnan(expires_at):
        return None
    try:
        value = json.loads(blob[_HEADER.size :].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return Entry(value=value, cached_at=cached_at, expires_at=expires_at)


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
    means the entry never goes stale. `clock` is injectable for tests. The database
    opens on first use, so constructing a `DiskCache` touches nothing on disk.
    """

    def __init__(
        self,
        directory: Path,
        *,
        size_limit: int = DEFAULT_CACHE_SIZE,
        clock: Callable[[], float] = time.time,
        lock_timeout: float = LOCK_TIMEOUT,
    ) -> None:
        # Absolute, so a relative setting can still be opened as an SQLite URI.
        self.directory = Path(os.path.abspath(directory))
        self.size_limit = size_limit
        self.clock = clock
        self._lock_timeout = lock_timeout
        self._cache: diskcache.Cache | None = None
        self._open_lock = threading.Lock()
        self._disabled = False

    @classmethod
    def from_settings(cls, settings: Settings) -> DiskCache:
        return cls(settings.resolved_cache_dir(), size_limit=settings.cache_size)

    # -- the serving path: never raises -------------------------------------------------

    def get(self, kind: str, parts: Sequence[Any]) -> Entry | None:
        """The verified entry for `parts`, fresh or not, or `None` (miss or dropped)."""
        cache = self._serving_cache()
        if cache is None:
            return None
        key = cache_key(kind, parts)
        try:
            blob = cache.get(key)
        except diskcache.Timeout:
            log.warning("cache busy; treating a %s lookup as a miss", kind)
            return None
        except Exception as exc:  # an unreadable entry, whatever the cause, is dropped
            self._drop(cache, key, kind, exc)
            return None
        if blob is None:
            return None
        entry = decode_entry(blob)
        if entry is None:
            self._drop(cache, key, kind, None)
        return entry

    def put(self, kind: str, parts: Sequence[Any], value: Any, *, ttl: float | None) -> None:
        """Store `value` (JSON-able) for `parts`; failures are logged, never raised."""
        cache = self._serving_cache()
        if cache is None:
            return
        now = self.clock()
        expires_at = math.inf if ttl is None else now + ttl
        try:
            blob = encode_entry(value, cached_at=now, expires_at=expires_at)
            cache.set(cache_key(kind, parts), blob, tag=kind)
        except diskcache.Timeout:
            log.warning("cache busy; a %s entry was not stored", kind)
        except Exception as exc:  # a full disk, say: the answer still goes out
            log.warning("could not store a %s entry (%s)", kind, type(exc).__name__)

    def discard(self, kind: str, parts: Sequence[Any]) -> None:
        """Delete one entry, e.g. one that verified but no longer makes sense."""
        cache = self._serving_cache()
        if cache is not None:
            self._drop(cache, cache_key(kind, parts), kind, None)

    # -- maintenance: raises CacheError --------------------------------------------------

    def stats(self) -> CacheStats:
        """Entries, bytes and oldest/newest store time per kind, and the disk volume."""
        cache = self._maintenance_cache()
        kinds = {kind: KindStats() for kind in KINDS}
        try:
            # diskcache keeps small values inline (size 0) and large ones in files.
            with _read_only(self.directory / diskcache.core.DBNAME) as db:
                rows = db.execute(
                    "SELECT tag, COUNT(*),"
                    " SUM(CASE WHEN filename IS NULL THEN length(value) ELSE size END),"
                    " MIN(store_time), MAX(store_time) FROM Cache GROUP BY tag"
                ).fetchall()
            volume = cache.volume()
        except (sqlite3.Error, OSError) as exc:
            raise CacheError(f"cannot read the cache in {self.directory}: {exc}") from None
        for tag, count, size, oldest, newest in rows:
            if tag in kinds:
                kinds[tag] = KindStats(int(count), int(size or 0), oldest, newest)
        return CacheStats(self.directory, self.size_limit, int(volume), kinds)

    def clear(self, kinds: Iterable[str] | None = None) -> int:
        """Remove every entry, or those of the given kinds; returns how many went."""
        cache = self._maintenance_cache()
        try:
            if kinds is None:
                return int(cache.clear(retry=True))
            return sum(int(cache.evict(_checked_kind(kind), retry=True)) for kind in kinds)
        except (sqlite3.Error, OSError) as exc:
            raise CacheError(f"cannot clear the cache in {self.directory}: {exc}") from None

    def prune(self) -> PruneResult:
        """Remove entries past their lifetime, and any that fail to verify on the way.

        Markdown chunks never expire, and the last version seen per paper (a few bytes
        each) is kept with them so a pruned cache still opens those papers offline.
        Each entry is checked and removed in its own short transaction, so running
        servers barely notice.
        """
        cache = self._maintenance_cache()
        now = self.clock()
        expired = corrupt = 0
        prefixes = tuple(f"{kind}:" for kind in PRUNED_KINDS)
        try:
            # Our keys only: a row some other program wrote (a pickled key) is not ours
            # to decode, and diskcache's own key iterator would try.
            with _read_only(self.directory / diskcache.core.DBNAME) as db:
                rows = db.execute("SELECT key FROM Cache WHERE raw = 1").fetchall()
            keys = [k for (k,) in rows if isinstance(k, str) and k.startswith(prefixes)]
            for key in keys:
                with cache.transact(retry=True):
                    try:
                        blob = cache.get(key, retry=True)
                    except (TypeError, ValueError, OSError):
                        blob = b""
                    if blob is None:
                        continue  # gone meanwhile
                    entry = decode_entry(blob)
                    if entry is None:
                        corrupt += 1
                    elif entry.is_fresh(now):
                        continue
                    else:
                        expired += 1
                    cache.delete(key, retry=True)
        except (sqlite3.Error, OSError) as exc:
            raise CacheError(f"cannot prune the cache in {self.directory}: {exc}") from None
        return PruneResult(expired=expired, corrupt=corrupt)

    def close(self) -> None:
        with self._open_lock:
            if self._cache is not None:
                self._cache.close()
                self._cache = None

    # -- internals -----------------------------------------------------------------------

    def _serving_cache(self) -> diskcache.Cache | None:
        if self._disabled:
            return None
        try:
            return self._open()
        except CacheError as exc:
            # Once per process: the answers keep coming, just without a cache.
            self._disabled = True
            log.warning("disk cache disabled for this process: %s", exc)
            return None

    def _maintenance_cache(self) -> diskcache.Cache:
        return self._open()

    def _open(self) -> diskcache.Cache:
        with self._open_lock:
            if self._cache is None:
                try:
                    ensure_directory(self.directory)
                    if not self.directory.is_dir():
                        raise CacheError(f"{self.directory} exists but is not a directory")
                    self._cache = self._open_shared()
                except sqlite3.OperationalError as exc:  # locked, unreadable, no space ...
                    raise CacheError(f"cannot open the cache in {self.directory}: {exc}") from None
                except sqlite3.DatabaseError as exc:  # not a database, malformed image
                    raise CacheError(
                        f"the cache database in {self.directory} is damaged ({exc}); "
                        f"delete that directory to start a new cache"
                    ) from None
                except (OSError, sqlite3.Error, diskcache.Timeout) as exc:
                    raise CacheError(f"cannot open the cache in {self.directory}: {exc}") from None
            return self._cache

    def _open_shared(self) -> diskcache.Cache:
        """Open the database, waiting out other processes that are opening it too.

        diskcache retries most of its set-up statements on a busy database, but not
        all of them, so several servers starting at the same moment (a client spawning
        a server per window) can still see "database is locked". Retry the whole
        open until the lock timeout instead of giving up the cache for the process.
        """
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

    def _drop(self, cache: diskcache.Cache, key: str, kind: str, exc: BaseException | None) -> None:
        reason = type(exc).__name__ if exc is not None else "failed verification"
        log.warning("dropping an unreadable %s cache entry (%s)", kind, reason)
        # If the delete fails too, the next successful put replaces the entry anyway.
        with contextlib.suppress(Exception):
            cache.delete(key)


def _checked_kind(kind: str) -> str:
    if kind not in KINDS:
        raise CacheError(f"unknown cache kind {kind!r} (known: {', '.join(KINDS)})")
    return kind


class _read_only:
    """A short-lived query-only SQLite connection, closed on exit."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=LOCK_TIMEOUT)

    def __enter__(self) -> sqlite3.Connection:
        return self._db

    def __exit__(self, *exc_info: object) -> None:
        self._db.close()
