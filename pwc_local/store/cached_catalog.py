"""A `CatalogSource` that puts the disk cache in front of the live catalog.

The query layer cannot tell it from `HttpCatalog`: it asks for JSON documents and
Markdown chunks, and this class decides whether the network is needed.

JSON (`get_json(path, params, accept=check)`): a fresh entry answers without a
request. Otherwise the catalog is asked, and its parsed answer goes through the
caller's shape check `accept` *before* it is stored: only a document the check
accepted is kept (public-metadata paths as `public` entries with a 7-day lifetime,
everything else as `response` entries with the hosted lifetimes), so an answer of
the wrong shape is asked for again next time instead of failing from the cache for
its whole lifetime. Errors are never stored. A cached document goes through the
check too; one it refuses (stored for another caller, or by an older version) counts
as not cached.

Markdown (`read_markdown`): a chunk is immutable once its content version is known,
so a continuation (version given) that is in the cache is served without a request,
whatever its age. A first read (no version yet) uses the last version seen for the
paper only when the catalog cannot be reached (labelled stale); whenever it answers,
chunk 0 comes from it, so a changed paper is noticed before a read starts on it.
Chunks are validated by `HttpCatalog` before they reach this class.

Offline: when the catalog cannot be reached (connection refused, DNS failure,
timeout, HTTP 5xx) and an expired entry exists, that entry is served. While the
outage guard below remembers an outage (`outage.answer_from_cache()`), an expired
entry is served at once, without asking the catalog again. Offline, a first page
of `n` rows with nothing cached for it is cut from a cached first page of more rows
with the same other arguments (each stored first page notes its size in a small
"first-page sizes" entry next to it). A tool call
works through its own view of this source (`for_call(freshness)`), and the view
notes each stale answer on the call's `Freshness` record, which the tool layer turns
into the `cache` label (`pwc_local.store.freshness`). With nothing cached, the
upstream error stands. Other failures (404, 409, 429 ...) always stand: they are
answers, not outages.

What a watch-list look saw live (`LiveCatalog`, the source `whats_new` gets) is
written through: each answer replaces the stored answer to the same request, and
a changed one stores a "seen live" mark for its path; a fresh entry of that path
stored before the mark counts as expired. The watch reads 100 rows a page where
`get_benchmark` asks for 20, so only the path ties the two entries together; the
mark costs each cached JSON hit one more read-only lookup (~35 us). A mark that cannot
be stored (another process holds the cache's lock, say) is kept in memory: this
process's views count it at once, the next store tries it again, and closing the
source waits for the lock up to `MARK_WAIT` seconds to store it, so the history tools
in another process agree with the look too (without the mark the old board stayed
fresh for minutes while `get_benchmark`, asked anew, showed the new row).

Lookups run on the event loop when that is cheap (`DiskCache.get_nowait`: one
read-only SELECT, no lock, a small value) and in a worker thread otherwise (a
large value, another process's lock in the way, a damaged entry to delete).
Stores and deletions always run in a worker thread: they take the write lock all
server processes share, which may be held for up to a second, and that must
never stall the event loop that also reads the client's requests.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

import anyio
import anyio.to_thread

from pwc_local.contract import CHUNK_BYTES
from pwc_local.store.cache import (
    KIND_MARKDOWN,
    KIND_PUBLIC,
    KIND_RESPONSE,
    KIND_VERSION,
    PUBLIC_PREFIX,
    VERSION_TTL,
    DiskCache,
    Entry,
    WouldBlock,
    response_ttl,
)
from pwc_local.store.freshness import Freshness
from pwc_local.upstream.documents import PAGE_SIZE_PARAMS, ROW_KEYS, page_size
from pwc_local.upstream.errors import (
    HTTPStatusError,
    InvalidResponse,
    PaperChanged,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnreachable,
)
from pwc_local.upstream.source import Accept, CatalogSource, MarkdownChunk, QueryValue, as_is

log = logging.getLogger(__name__)

T = TypeVar("T")

# First-page sizes remembered per request (`_note_first_page`): the largest ones.
MAX_FIRST_PAGE_SIZES = 8


class OutageState(Protocol):
    """What this source needs to know of the catalog's reachability (`store.outage`)."""

    def answer_from_cache(self) -> bool:
        """Whether an expired entry should be served now, without asking the catalog."""
        ...


def is_outage(exc: BaseException) -> bool:
    """Whether a failure means "the catalog is not there", which a stale entry may cover."""
    if isinstance(exc, UpstreamUnreachable | UpstreamTimeout):
        return True
    return isinstance(exc, HTTPStatusError) and exc.status >= 500


MARK_WAIT = 5.0  # seconds closing waits for the cache's lock to store unsaved marks
MARK_POLL = 0.1


class CachingCatalog:
    """`CatalogSource` over `upstream` with `cache` in front (see the module docstring).

    `namespace` (normally the API base URL) is part of every key, so pointing the
    server at another catalog never serves the first catalog's answers. `freshness`
    is the record stale answers are noted on: `None` for the process-wide source
    (nobody labels its answers), a call's own record in the view `for_call` makes.
    `outage` (the outage guard below, normally) says when the catalog is known to be
    down: an expired entry is then served at once instead of asking again.
    """

    def __init__(
        self,
        upstream: CatalogSource,
        cache: DiskCache,
        *,
        namespace: str,
        clock: Callable[[], float] = time.time,
        freshness: Freshness | None = None,
        outage: OutageState | None = None,
        unsaved: dict[str, float] | None = None,
    ) -> None:
        self.upstream = upstream
        self.cache = cache
        self.namespace = namespace
        self.clock = clock
        self.freshness = freshness
        self.outage = outage
        # "seen live" marks not stored yet, by path, with when they were seen: shared
        # by this source and its views (module docstring).
        self.unsaved: dict[str, float] = {} if unsaved is None else unsaved

    def for_call(self, freshness: Freshness) -> CachingCatalog:
        """A view for one tool call: same upstream and cache, stale answers noted on `freshness`.

        Views are cheap and are never closed; the process-wide source owns the client
        and the cache.
        """
        return CachingCatalog(
            self.upstream,
            self.cache,
            namespace=self.namespace,
            clock=self.clock,
            freshness=freshness,
            outage=self.outage,
            unsaved=self.unsaved,
        )

    async def aclose(self) -> None:
        try:
            await self.upstream.aclose()
        finally:
            try:
                await self._store_unsaved(wait=MARK_WAIT)
            finally:
                await _blocking(self.cache.close)

    # -- JSON ----------------------------------------------------------------------------

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T:
        kind = KIND_PUBLIC if _is_public(path) else KIND_RESPONSE
        parts = [self.namespace, path.strip("/"), _params_key(params)]
        entry = await _lookup(self.cache, kind, parts)
        if entry is not None and entry.is_fresh(self.clock()):
            cached = None if await self._overtaken(kind, path, entry) else _accepted(entry, accept)
            if cached is not None:
                return cached[0]
        if self._known_down():
            stale = await self._stale(kind, entry, path, params, accept, "a remembered outage")
            if stale is not None:
                return stale[0]
        try:
            document = await self.upstream.get_json(path, params, accept=as_is)
        except UpstreamError as exc:
            if not is_outage(exc):
                raise
            stale = await self._stale(kind, entry, path, params, accept, type(exc).__name__)
            if stale is None:
                raise
            return stale[0]
        value = accept(document)  # InvalidResponse leaves here, and nothing is stored
        await self._store(kind, path, params, document)
        return value

    async def _store(
        self,
        kind: str,
        path: str,
        params: Mapping[str, QueryValue] | None,
        document: Any,
        *,
        live: bool = False,
    ) -> None:
        """Store an accepted answer; a `live` one that differs from the stored answer to
        the same request first marks the path "seen live" (`_overtaken`)."""
        parts = [self.namespace, path.strip("/"), _params_key(params)]
        await self._store_unsaved()
        if live:
            before = await _lookup(self.cache, kind, parts)
            if before is None or before.value != document:
                for changed in _related_paths(path):
                    await self._mark(kind, changed, self.clock())
        await _blocking(self.cache.put, kind, parts, document, ttl=response_ttl(path))
        await self._note_first_page(kind, path, params)

    async def _mark(self, kind: str, path: str, seen: float) -> bool:
        """Store the "seen live" mark of `path`, or keep it in memory; whether it was stored."""
        marker = self._seen_live_parts(path)
        stored = await _blocking(self.cache.put, kind, marker, True, ttl=response_ttl(path))
        key = path.strip("/")
        if stored:
            self.unsaved.pop(key, None)
        else:
            self.unsaved[key] = max(seen, self.unsaved.get(key, seen))
        return stored

    async def _store_unsaved(self, *, wait: float = 0.0) -> None:
        """Store the marks kept in memory, waiting up to `wait` seconds for the cache's lock."""
        give_up = time.monotonic() + wait
        while self.unsaved:
            for key, seen in list(self.unsaved.items()):
                kind = KIND_PUBLIC if _is_public(key) else KIND_RESPONSE
                if not await self._mark(kind, key, seen):
                    break
            if not self.unsaved or time.monotonic() >= give_up:
                return
            await anyio.sleep(MARK_POLL)

    async def _overtaken(self, kind: str, path: str, entry: Entry) -> bool:
        """Whether a look at the live catalog (`LiveCatalog`) saw this path change since
        `entry` was stored: the same leaderboard or search asked with other parameters
        (a watch reads 100 rows a page, `get_benchmark` 20), so keys alone cannot say."""
        unsaved = self.unsaved.get(path.strip("/"))
        if unsaved is not None and entry.cached_at < unsaved:
            return True
        marker = await _lookup(self.cache, kind, self._seen_live_parts(path))
        return (
            marker is not None
            and marker.is_fresh(self.clock())
            and (entry.cached_at < marker.cached_at)
        )

    def _seen_live_parts(self, path: str) -> list[Any]:
        return [self.namespace, path.strip("/"), "seen live"]

    async def _stale(
        self,
        kind: str,
        entry: Entry | None,
        path: str,
        params: Mapping[str, QueryValue] | None,
        accept: Accept[T],
        why: str,
    ) -> tuple[T] | None:
        """The offline answer: the request's own expired entry, else a larger first page.

        A first page of `n` rows is the first `n` rows of a first page of more rows
        with the same other arguments (`get_benchmark limit=3` after `limit=20`).
        """
        if entry is not None and (stale := _accepted(entry, accept)) is not None:
            self._note_stale(entry, why)
            return stale
        first = _first_page(params)
        if first is None:
            return None
        size_name, size, rest = first
        sizes = await _lookup(self.cache, kind, self._sizes_parts(path, rest))
        for larger in sorted(_sizes(sizes)):
            if larger <= size:
                continue
            parts = [self.namespace, path.strip("/"), _params_key({**rest, size_name: larger})]
            bigger = await _lookup(self.cache, kind, parts)
            if bigger is None:
                continue
            cut = Entry(_first_rows(bigger.value, size), bigger.cached_at, bigger.expires_at)
            if (stale := _accepted(cut, accept)) is not None:
                self._note_stale(cut, why)
                return stale
        return None

    async def _note_first_page(
        self, kind: str, path: str, params: Mapping[str, QueryValue] | None
    ) -> None:
        """After storing a first page, remember its size among those cached (`_stale`)."""
        first = _first_page(params)
        if first is None:
            return
        _, size, rest = first
        parts = self._sizes_parts(path, rest)
        known = _sizes(await _lookup(self.cache, kind, parts))
        if size not in known:
            sizes = sorted({*known, size})[-MAX_FIRST_PAGE_SIZES:]
            await _blocking(self.cache.put, kind, parts, sizes, ttl=None)

    def _sizes_parts(self, path: str, rest: Mapping[str, QueryValue]) -> list[Any]:
        return [self.namespace, path.strip("/"), _params_key(rest), "first-page sizes"]

    # -- Markdown ------------------------------------------------------------------------

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        if content_version is not None:
            cached = await self._cached_chunk(paper, content_version, offset, limit)
            if cached is not None:
                return cached
            try:
                chunk = await self.upstream.read_markdown(
                    paper, offset=offset, limit=limit, content_version=content_version
                )
            except PaperChanged:
                # The version is gone upstream: forget it as "last seen", or a restart
                # would serve its cached first chunk and walk into the same 409 again.
                await _blocking(self.cache.discard, KIND_VERSION, [self.namespace, paper])
                raise
            await self._store_chunk(paper, offset, limit, chunk)
            return chunk
        return await self._first_read(paper, offset=offset, limit=limit)

    async def _first_read(self, paper: str, *, offset: int, limit: int) -> MarkdownChunk:
        """Chunk 0 always from the catalog when it answers; the cached one only offline.

        A first read pins the version every continuation cursor carries, so it must be
        the current one: a cached chunk of an old version would let the read start and
        then fail its continuation with `paper_changed`. The request is the one an
        uncached read makes; only an outage falls back to the last version seen.
        """
        version_parts = [self.namespace, paper]
        seen = await _lookup(self.cache, KIND_VERSION, version_parts)
        cached: MarkdownChunk | None = None
        if seen is not None and isinstance(seen.value, str):
            cached = await self._cached_chunk(paper, seen.value, offset, limit)
        if cached is not None and seen is not None and self._known_down():
            self._note_stale(Entry(cached, seen.cached_at, seen.expires_at), "a remembered outage")
            return cached
        try:
            chunk = await self.upstream.read_markdown(
                paper, offset=offset, limit=limit, content_version=None
            )
        except UpstreamError as exc:
            if cached is None or seen is None or not is_outage(exc):
                raise
            self._note_stale(Entry(cached, seen.cached_at, seen.expires_at), type(exc).__name__)
            return cached
        if chunk != cached:  # an unchanged chunk is stored already, and kept for good
            await self._store_chunk(paper, offset, limit, chunk)
        await _blocking(
            self.cache.put, KIND_VERSION, version_parts, chunk.content_version, ttl=VERSION_TTL
        )
        return chunk

    async def whole_markdown_cached(self, paper: str, *, limit: int = CHUNK_BYTES) -> bool:
        """Whether `paper`'s last-seen Markdown is cached whole in one first chunk of `limit`.

        No request is made. Used to offer a `pwc://papers/{paper}/markdown` link only
        when that resource would resolve (it refuses documents longer than one chunk).
        The sources below keep nothing, so they are not asked.
        """
        seen = await _lookup(self.cache, KIND_VERSION, [self.namespace, paper])
        if seen is None or not isinstance(seen.value, str):
            return False
        chunk = await self._cached_chunk(paper, seen.value, 0, limit)
        return chunk is not None and not chunk.truncated

    def live(self) -> LiveCatalog:
        """This catalog's upstream, writing through to its cache (`LiveCatalog`)."""
        return LiveCatalog(self)

    async def note_latest_version(self, paper: str, version: str) -> None:
        """Remember `version` as the newest content version the catalog showed for `paper`.

        Kept apart from the "last version seen" entry, which opens the cached chunks
        offline: a look reads no chunk worth keeping, and must not hide those.
        """
        parts = [self.namespace, paper, "latest"]
        seen = await _lookup(self.cache, KIND_VERSION, parts)
        if seen is None or seen.value != version:
            await _blocking(self.cache.put, KIND_VERSION, parts, version, ttl=None)

    async def latest_version(self, paper: str) -> tuple[str, float] | None:
        """`(version, when seen)` as `note_latest_version` stored it for `paper` (no request)."""
        seen = await _lookup(self.cache, KIND_VERSION, [self.namespace, paper, "latest"])
        if seen is None or not isinstance(seen.value, str):
            return None
        return seen.value, seen.cached_at

    async def _cached_chunk(
        self, paper: str, version: str, offset: int, limit: int
    ) -> MarkdownChunk | None:
        parts = [self.namespace, paper, version, offset, limit]
        entry = await _lookup(self.cache, KIND_MARKDOWN, parts)
        if entry is None:
            return None
        chunk = _chunk_from(entry.value, version)
        if chunk is None:  # verified bytes, wrong shape: written by something else
            await _blocking(self.cache.discard, KIND_MARKDOWN, parts)
        return chunk

    def _known_down(self) -> bool:
        return self.outage is not None and self.outage.answer_from_cache()

    def _note_stale(self, entry: Entry, why: str) -> None:
        log.info("catalog unavailable (%s); serving a cached answer", why)
        if self.freshness is not None:
            self.freshness.note_stale(entry.cached_at_datetime)

    async def _store_chunk(self, paper: str, offset: int, limit: int, chunk: MarkdownChunk) -> None:
        parts = [self.namespace, paper, chunk.content_version, offset, limit]
        value = {"text": chunk.text, "truncated": chunk.truncated, "next_offset": chunk.next_offset}
        await _blocking(self.cache.put, KIND_MARKDOWN, parts, value, ttl=None)


class LiveCatalog:
    """The catalog as it is now, for the watch list, writing what it sees into the cache.

    Every request goes to `caching.upstream` (the outage guard over HTTP): a look
    must not be hidden by a fresh entry. Each answer then replaces the cached
    answer to the same request, and a changed one marks its path, so an entry of
    the same path stored earlier under other parameters is asked for again
    (`CachingCatalog._overtaken`): `get_benchmark` right after `whats_new` agrees
    with it. A first Markdown read notes the paper's latest content version
    (`CachingCatalog.latest_version`), which the library compares with a saved copy.
    """

    def __init__(self, caching: CachingCatalog) -> None:
        self.caching = caching

    @property
    def namespace(self) -> str:
        return self.caching.namespace

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T:
        document = await self.caching.upstream.get_json(path, params, accept=as_is)
        value = accept(document)  # only an accepted answer is stored, as below
        kind = KIND_PUBLIC if _is_public(path) else KIND_RESPONSE
        await self.caching._store(kind, path, params, document, live=True)
        return value

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        chunk = await self.caching.upstream.read_markdown(
            paper, offset=offset, limit=limit, content_version=content_version
        )
        if content_version is None:
            await self.caching.note_latest_version(paper, chunk.content_version)
        return chunk

    async def whole_markdown_cached(self, paper: str, *, limit: int = CHUNK_BYTES) -> bool:
        return await self.caching.whole_markdown_cached(paper, limit=limit)

    async def aclose(self) -> None:
        """Closes the caching catalog (a command's own); the server closes its catalog itself."""
        await self.caching.aclose()


def _related_paths(path: str) -> list[str]:
    """`path` and the paths whose answers change with it: a leaderboard's rows are also
    the `evaluations/` rows of their papers (`get_paper_info`) and of size-filtered
    boards (`get_benchmark max_parameters`)."""
    parts = path.strip("/").split("/")
    if len(parts) == 3 and parts[0] == "datasets" and parts[2] == "evaluations":
        return [path, "evaluations/"]
    return [path]


def _first_page(
    params: Mapping[str, QueryValue] | None,
) -> tuple[str, int, dict[str, QueryValue]] | None:
    """`(size parameter, size, the other parameters)` of a first-page request, else `None`."""
    size = page_size(params)
    if params is None or size is None or params.get("page", 1) != 1:
        return None
    name = next(n for n in PAGE_SIZE_PARAMS if params.get(n) == size)
    return name, size, {k: v for k, v in params.items() if k != name}


def _sizes(entry: Entry | None) -> list[int]:
    """The page sizes a "first-page sizes" entry lists (nothing when absent or odd)."""
    if entry is None or not isinstance(entry.value, list):
        return []
    return [n for n in entry.value if isinstance(n, int) and not isinstance(n, bool)]


def _first_rows(document: Any, size: int) -> Any:
    """`document` (a stored first page) as a first page of `size` rows.

    A page that loses rows gets `next_page: 2` where it names a next page at all.
    """
    if isinstance(document, list):
        return document[:size]
    if not isinstance(document, dict):
        return document
    cut = dict(document)
    for key in ROW_KEYS:
        rows = cut.get(key)
        if isinstance(rows, list) and len(rows) > size:
            cut[key] = rows[:size]
            if "next_page" in cut:
                cut["next_page"] = 2
    return cut


def _accepted(entry: Entry, accept: Accept[T]) -> tuple[T] | None:
    """`(accept(entry.value),)`, or `None` when the check refuses the stored document.

    The one-element tuple keeps "refused" apart from a check that returns `None`.
    """
    try:
        return (accept(entry.value),)
    except InvalidResponse:
        return None


def _is_public(path: str) -> bool:
    path = path.strip("/")
    return path == PUBLIC_PREFIX or path.startswith(PUBLIC_PREFIX + "/")


def _params_key(params: Mapping[str, QueryValue] | None) -> list[list[Any]]:
    """The parameter mapping as sorted pairs; `None` values stay, as the hosted key has them."""
    if not params:
        return []
    return [
        [key, list(value) if isinstance(value, list | tuple) else value]
        for key, value in sorted(params.items())
    ]


def _chunk_from(value: Any, version: str) -> MarkdownChunk | None:
    if not isinstance(value, dict):
        return None
    text, truncated, next_offset = (value.get(k) for k in ("text", "truncated", "next_offset"))
    if not isinstance(text, str) or not isinstance(truncated, bool):
        return None
    if truncated != isinstance(next_offset, int) or isinstance(next_offset, bool):
        return None
    return MarkdownChunk(
        text=text, content_version=version, truncated=truncated, next_offset=next_offset
    )


async def _lookup(cache: DiskCache, kind: str, parts: list[Any]) -> Entry | None:
    """A cache read: on the event loop when it is cheap (most hits), else in a thread."""
    try:
        return cache.get_nowait(kind, parts)
    except WouldBlock:
        return await _blocking(cache.get, kind, parts)


async def _blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
