"""The query functions behind the library tools: `save_papers`, `list_library`, `search_library`.

Each takes the services its contract entry names (the catalog, the `Shelf`, the
cursor codec, a progress reporter) and its arguments as keywords, and returns a
plain answer for the projection. No MCP here: the reporter is any async callable
`(done, total, message)`, a no-op when the client asked for no progress.

The library's calls block on SQLite, so they run in worker threads.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio.to_thread

from pwc_local.common.cursors import CursorCodec
from pwc_local.common.shelf import LibraryEntry, Shelf
from pwc_local.contract import MAX_SAVE
from pwc_local.queries.library_search import LibraryHit
from pwc_local.queries.library_search import search_library as search_passages
from pwc_local.queries.saving import SaveOutcome, save_paper
from pwc_local.upstream.errors import UsageError
from pwc_local.upstream.source import CatalogSource

T = TypeVar("T")

Progress = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class LibraryPage:
    """One page of saved papers, most recently saved first; `pages` is how many there are."""

    count: int
    page: int
    next_page: int | None
    entries: list[LibraryEntry]
    pages: int


@dataclass(frozen=True)
class LibraryHits:
    query: str
    hits: list[LibraryHit]


async def save_papers(
    catalog: CatalogSource,
    library: Shelf,
    progress: Progress,
    *,
    papers: list[str],
) -> list[SaveOutcome]:
    """Save each reference in turn (see `queries.saving`), reporting progress after each.

    Duplicates (after trimming) are saved once. One paper's failure does not stop
    the others: each outcome says what became of its reference. The catalog's
    `namespace` (its API base) keys the answers recorded for offline use.
    """
    wanted = list(dict.fromkeys(p.strip() for p in papers if isinstance(p, str) and p.strip()))
    if not wanted:
        raise UsageError("papers must name at least one paper")
    if len(wanted) > MAX_SAVE:
        raise UsageError(f"papers must name at most {MAX_SAVE} papers per call")
    outcomes = []
    await progress(0, len(wanted), None)
    for done, reference in enumerate(wanted, 1):
        outcome = await save_paper(catalog, library, reference, namespace=catalog.namespace)
        outcomes.append(outcome)
        status = "refreshed" if outcome.refreshed else outcome.status
        await progress(done, len(wanted), f"{status}: {outcome.paper or '?'}")
    return outcomes


async def list_library(library: Shelf, *, page: int, limit: int) -> LibraryPage:
    """One page of the saved papers, and how many pages of `limit` they fill (at least 1)."""
    count = await _blocking(library.count)
    entries = await _blocking(
        functools.partial(library.entries, offset=(page - 1) * limit, limit=limit)
    )
    next_page = page + 1 if page * limit < count else None
    pages = max(1, -(-count // limit))
    return LibraryPage(count=count, page=page, next_page=next_page, entries=entries, pages=pages)


async def search_library(
    library: Shelf,
    codec: CursorCodec,
    *,
    query: str,
    limit: int,
    paper: str | None,
) -> LibraryHits:
    """Passages of saved and read papers matching `query` (`catalog.library_search`)."""
    hits = await _blocking(
        functools.partial(search_passages, library, codec, query, limit=limit, paper=paper)
    )
    return LibraryHits(query=query, hits=hits)


async def _blocking(fn: Callable[[], T]) -> T:
    return await anyio.to_thread.run_sync(fn)
