"""The services tools need (catalog source, cursor codec), built off the critical path.

An MCP client spawns the server and immediately asks for `initialize` and
`tools/list`; neither needs the network, the cache or the cursor key. So nothing
here is built at start-up. Once the session is initialized, the server's warm-up
thread calls `LazyRuntime.build_now()`, which builds the `Runtime` there (the
httpx import and client, the cache's connections) and, once it is handed out, loads
an existing cursor key and the query modules, so that the first tool call,
typically a second later, finds it ready. A call that comes sooner waits for that
one build (`LazyRuntime.get`); without a warm-up (tests), the first call builds
it. The server's lifespan closes it at shutdown.

Each service has exactly one small builder, so swapping what stands behind it
(a caching source in front of `HttpCatalog`, a per-machine key for the codec)
is a change to one function.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from pwc_local.config import Settings

if TYPE_CHECKING:
    from pwc_local.common.cursors import CursorCodec
    from pwc_local.store.freshness import ServingSource
    from pwc_local.store.library import Library
    from pwc_local.store.outage import OutageGuard
    from pwc_local.store.vocabulary import Vocabulary
    from pwc_local.store.watchlist import Watchlist
    from pwc_local.upstream.source import CatalogSource

logger = logging.getLogger(__name__)


@dataclass
class Runtime:
    """What a tool call works with: where catalog data comes from and how cursors are signed.

    The codec is built on first use rather than with the catalog: only `read_paper`
    needs the key file, so a key file with unsafe permissions fails that one tool
    (with the fix in its message) instead of every tool. `vocabulary` holds the
    names answers showed, for completions; `outage` is the catalog's outage memory,
    which completions tell when the catalog kept them waiting. `live` is the catalog
    the watch list compares with: HTTP behind the guard, writing what it fetched
    through to the cache (`store.cached_catalog.LiveCatalog`); `live_catalog()` says
    which source that is. `watchlist` is opened by the first watch-list call
    (`open_watchlist`), one per process.
    """

    settings: Settings
    catalog: ServingSource
    codec: CursorCodec | None = None
    library: Library | None = None
    vocabulary: Vocabulary | None = None
    outage: OutageGuard | None = None
    watchlist: Watchlist | None = None
    live: CatalogSource | None = None
    # Two first calls at once open one library and one watch list between them.
    _opening: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def cursor_codec(self) -> CursorCodec:
        """The cursor codec, loading (or creating) the key on the first call; may block."""
        if self.codec is None:
            self.codec = _build_codec(self.settings)
        return self.codec

    def open_library(self) -> Library:
        """The library, opening it when the runtime's build could not (the error says why)."""
        from pwc_local.store.library import Library

        with self._opening:
            if self.library is None:
                self.library = Library.open()
            return self.library

    def live_catalog(self) -> CatalogSource:
        """The live catalog for the watch list: `live`, else the bare outage guard."""
        source = self.live if self.live is not None else self.outage
        if source is None:
            raise RuntimeError("this runtime has no live catalog for the watch list")
        return source

    def open_watchlist(self) -> Watchlist:
        """The watch list, opened by its first use; one per process."""
        from pwc_local.store.watchlist import Watchlist

        with self._opening:
            if self.watchlist is None:
                self.watchlist = Watchlist.open()
            return self.watchlist

    async def aclose(self) -> None:
        try:
            await self.catalog.aclose()
        finally:
            if self.vocabulary is not None:  # writes what is queued, a moment at most
                await anyio.to_thread.run_sync(self.vocabulary.close)
            if self.watchlist is not None:  # waits for a write in progress, if any
                await anyio.to_thread.run_sync(self.watchlist.close)


def outage_guard(settings: Settings) -> OutageGuard:
    """The live HTTP catalog behind the outage memory (`store.outage`)."""
    from pwc_local.store.outage import OutageGuard
    from pwc_local.upstream.http import HttpCatalog

    return OutageGuard(
        HttpCatalog(
            settings.api_url, timeout=settings.timeout, setting=settings.setting_words("api_url")
        ),
        budget=min(settings.outage_budget, settings.timeout),
    )


def live_catalog(settings: Settings) -> CatalogSource:
    """The live catalog for a command's watch-list look: it writes through to the cache
    the servers share, so their answers agree with what the look saw (`Runtime.live`)."""
    from pwc_local.store.cache import DiskCache
    from pwc_local.store.cached_catalog import CachingCatalog

    guard = outage_guard(settings)
    cache = DiskCache.from_settings(settings)
    return CachingCatalog(guard, cache, namespace=settings.api_url, outage=guard).live()


def _build_catalog(
    settings: Settings, library: Library | None = None, upstream: OutageGuard | None = None
) -> tuple[ServingSource, CatalogSource]:
    """The catalog source (the library, then the shared disk cache, then the live HTTP
    API) and the live source the watch list uses (HTTP, writing through to that cache).

    The outage guard sits right above HTTP, so a catalog that just failed to answer
    is waited on only briefly until it answers again (`store.outage`); the cache
    serves its expired entries at once meanwhile, and the library above it answers.
    """
    from pwc_local.store.cache import DiskCache
    from pwc_local.store.cached_catalog import CachingCatalog

    if upstream is None:
        upstream = outage_guard(settings)
    cache = DiskCache.from_settings(settings)
    cache.warm()  # open its connections now, in this builder's thread
    cached = CachingCatalog(upstream, cache, namespace=settings.api_url, outage=upstream)
    if library is None:
        return cached, cached.live()
    from pwc_local.store.library_catalog import LibraryCatalog

    catalog = LibraryCatalog(cached, library, namespace=settings.api_url, versions=cached)
    return catalog, cached.live()


def _open_library() -> Library | None:
    """The reading library, or `None` (with a warning) when it cannot be opened."""
    from pwc_local.common.shelf import LibraryError
    from pwc_local.store.library import Library

    try:
        return Library.open()
    except LibraryError as exc:
        logger.warning("the reading library is unavailable: %s", exc)
        return None


def _build_codec(settings: Settings) -> CursorCodec:
    """The cursor codec, signing with the per-machine key (or the environment's override)."""
    from pwc_local.common.cursors import CursorCodec
    from pwc_local.store.keys import load_keyring

    ring = load_keyring()
    return CursorCodec(ring.current, ring.previous, ttl=settings.cursor_ttl)


def _existing_codec(settings: Settings) -> CursorCodec | None:
    """The cursor codec when its key exists and is sound, else `None` (built on first use).

    Never creates the key: a session that reads no paper leaves no key file behind,
    and a key with a problem is reported by the `read_paper` call that needs it.
    """
    from pwc_local.common.cursors import CursorCodec
    from pwc_local.store.keys import load_keyring

    try:
        ring = load_keyring(create=False)
    except Exception:
        return None
    return CursorCodec(ring.current, ring.previous, ttl=settings.cursor_ttl)


def build_runtime(settings: Settings) -> Runtime:
    """Build the catalog source; blocks for a while (imports, files), so it runs off the loop."""
    from pwc_local.store.vocabulary import Vocabulary

    library = _open_library()
    guard = outage_guard(settings)
    catalog, live = _build_catalog(settings, library, guard)
    return Runtime(
        settings=settings,
        catalog=catalog,
        library=library,
        # Kept in the library's database: no library, no vocabulary.
        vocabulary=Vocabulary(library.path) if library is not None else None,
        outage=guard,
        live=live,
    )


def finish_runtime(runtime: Runtime) -> None:
    """Load what only some calls need: an existing cursor key, the query modules.

    The warm-up does this once the runtime is handed out, so a first call that
    comes meanwhile waits for none of it; each is loaded on first use otherwise.
    """
    if runtime.codec is None:
        runtime.codec = _existing_codec(runtime.settings)
    import pwc_local.queries.benchmarks
    import pwc_local.queries.papers
    import pwc_local.queries.public
    import pwc_local.queries.reading
    import pwc_local.queries.taxonomy  # noqa: F401


class LazyRuntime:
    """Builds the `Runtime` once, in a background thread, and hands it to every call.

    `build_now()` builds it in the calling (warm-up) thread; `get()` returns the
    runtime, waiting for a build in progress (in a worker thread, never blocking the
    event loop) or starting one. Concurrent first calls wait for one build instead of
    racing to make two. A failed build is not remembered, so the next call tries
    again (after the user fixed, say, the cache directory). `aclose()` closes what
    was built and lets a later `get()` build afresh.
    """

    def __init__(
        self, settings: Settings, builder: Callable[[Settings], Runtime] = build_runtime
    ) -> None:
        self.settings = settings
        self._builder = builder
        # Only for the real runtime: a test's builder supplies its own services.
        self._finisher = finish_runtime if builder is build_runtime else None
        self._runtime: Runtime | None = None
        self._pending: Future[Runtime] | None = None
        self._guard = threading.Lock()

    def build_now(self) -> None:
        """Build the runtime in this thread (a warm-up thread), unless it is built or being built.

        Once it is handed out, what only some calls need is loaded too (`finish_runtime`).
        A failure is left for the first call, which builds again and reports it.
        """
        future = self._begin()
        if future is not None:
            self._build(future)
        runtime = self._runtime
        if runtime is not None and self._finisher is not None:
            try:
                self._finisher(runtime)
            except Exception as exc:  # each is loaded again on first use, and reported there
                logger.debug("finishing the runtime failed: %s", type(exc).__name__)

    def _begin(self) -> Future[Runtime] | None:
        """A new pending build to run, or `None` when one exists or the runtime is ready."""
        with self._guard:
            if self._runtime is not None or self._pending is not None:
                return None
            self._pending = Future()
            return self._pending

    def _build(self, future: Future[Runtime]) -> None:
        try:
            runtime = self._builder(self.settings)
        except BaseException as exc:
            with self._guard:
                self._pending = None  # not remembered: the next get() builds again
            future.set_exception(exc)
        else:
            with self._guard:
                self._runtime, self._pending = runtime, None
            future.set_result(runtime)

    async def get(self) -> Runtime:
        runtime = self._runtime
        if runtime is not None:
            return runtime
        future = self._begin()
        if future is not None:  # nobody started it: build it here, in a worker thread
            await anyio.to_thread.run_sync(self._build, future)
        else:
            with self._guard:
                future = self._pending
            if future is None:  # finished between the two looks
                return await self.get()
        if future.done():
            return future.result()
        return await anyio.to_thread.run_sync(future.result)

    async def aclose(self) -> None:
        with self._guard:
            pending = self._pending
        if pending is not None:  # a warm-up still running: close what it builds
            with contextlib.suppress(Exception):
                await anyio.to_thread.run_sync(pending.result)
        with self._guard:
            runtime, self._runtime = self._runtime, None
        if runtime is not None:
            try:
                await runtime.aclose()
            except Exception as exc:  # shutdown must go on; the class name is enough to debug
                logger.warning("closing the catalog failed: %s", type(exc).__name__)
