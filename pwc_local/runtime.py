"""The services tools need (catalog source, cursor codec), built on first use.

An MCP client spawns the server and immediately asks for `initialize` and
`tools/list`; neither needs the network, the cache or the cursor key. So nothing
here is built at start-up: the first tool call builds a `Runtime` once per
process (`LazyRuntime.get`), and the server's lifespan closes it at shutdown.
The heavy imports (httpx, and the disk cache and key store behind the catalog)
happen inside the builder functions for the same reason.

Each service has exactly one small builder, so swapping what stands behind it
(a caching source in front of `HttpCatalog`, a per-machine key for the codec)
is a change to one function.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from pwc_local.config import Settings

if TYPE_CHECKING:
    from pwc_local.catalog.cursors import CursorCodec
    from pwc_local.catalog.http import CatalogSource
    from pwc_local.store.library import Library

logger = logging.getLogger(__name__)


@dataclass
class Runtime:
    """What a tool call works with: where catalog data comes from and how cursors are signed.

    The codec is built on first use rather than with the catalog: only `read_paper`
    needs the key file, so a key file with unsafe permissions fails that one tool
    (with the fix in its message) instead of every tool.
    """

    settings: Settings
    catalog: CatalogSource
    codec: CursorCodec | None = None
    library: Library | None = None

    def cursor_codec(self) -> CursorCodec:
        """The cursor codec, loading (or creating) the key on the first call; may block."""
        if self.codec is None:
            self.codec = _build_codec(self.settings)
        return self.codec

    async def aclose(self) -> None:
        close = getattr(self.catalog, "aclose", None)
        if close is not None:
            await close()


def _build_catalog(settings: Settings, library: Library | None = None) -> CatalogSource:
    """The catalog source: the library, then the shared disk cache, then the live HTTP API.

    The outage guard sits right above HTTP, so a catalog that just failed to answer
    is not waited on again for a minute (`store.outage`); the cache and the library
    above it answer meanwhile.
    """
    from pwc_local.catalog.http import HttpCatalog
    from pwc_local.store.cache import DiskCache
    from pwc_local.store.cached_catalog import CachingCatalog
    from pwc_local.store.outage import OutageGuard, OutageMemory

    memory = OutageMemory(hold=settings.outage_hold)
    upstream = OutageGuard(HttpCatalog(settings.api_url, timeout=settings.timeout), memory)
    cached = CachingCatalog(upstream, DiskCache.from_settings(settings), namespace=settings.api_url)
    if library is None:
        return cached
    from pwc_local.store.library_catalog import LibraryCatalog

    return LibraryCatalog(cached, library, namespace=settings.api_url)


def _open_library() -> Library | None:
    """The reading library, or `None` (with a warning) when it cannot be opened."""
    from pwc_local.store.library import Library, LibraryError

    try:
        return Library.open()
    except LibraryError as exc:
        logger.warning("the reading library is unavailable: %s", exc)
        return None


def _build_codec(settings: Settings) -> CursorCodec:
    """The cursor codec, signing with the per-machine key (or the environment's override)."""
    from pwc_local.catalog.cursors import CursorCodec
    from pwc_local.store.keys import load_keyring

    ring = load_keyring()
    return CursorCodec(ring.current, ring.previous, ttl=settings.cursor_ttl)


def build_runtime(settings: Settings) -> Runtime:
    """Build the catalog source; may block briefly (imports, files), so it runs off the loop."""
    library = _open_library()
    return Runtime(settings=settings, catalog=_build_catalog(settings, library), library=library)


class LazyRuntime:
    """Builds the `Runtime` on the first `get()` and hands the same one to every later call.

    Concurrent first calls wait for one build instead of racing to make two. A
    failed build is not remembered, so the next call tries again (after the user
    fixed, say, the key file's permissions). `aclose()` closes what was built and
    lets a later `get()` build afresh.
    """

    def __init__(
        self, settings: Settings, builder: Callable[[Settings], Runtime] = build_runtime
    ) -> None:
        self.settings = settings
        self._builder = builder
        self._runtime: Runtime | None = None
        self._lock: anyio.Lock | None = None

    async def get(self) -> Runtime:
        if self._runtime is not None:
            return self._runtime
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            if self._runtime is None:
                self._runtime = await anyio.to_thread.run_sync(self._builder, self.settings)
            return self._runtime

    async def aclose(self) -> None:
        runtime, self._runtime = self._runtime, None
        if runtime is not None:
            try:
                await runtime.aclose()
            except Exception as exc:  # shutdown must go on; the class name is enough to debug
                logger.warning("closing the catalog failed: %s", type(exc).__name__)
