"""A `CatalogSource` that lets the library answer first, and learns from what is read.

It stands in front of the caching catalog (`runtime._build_catalog`), so the query
layer still sees a plain catalog. Its jobs:

* **Saved papers need no network.** `read_markdown` for a saved paper is cut from
  the saved Markdown (at the saved version) without asking anything below. A saved
  paper that has no catalog Markdown (outside the catalog, or none stored) answers
  the read with `SavedMissing` (the catalog's 404, replayed without HTTP), so
  `read_paper` takes its usual path (the public-metadata page, or `no_markdown`)
  through the saved JSON below.
* **Saved answers cover outages.** When the catalog cannot be reached and nothing
  cached covers a JSON request, the answer recorded when the paper was saved (the
  paper record, the public record, a 404) is replayed. So `get_paper_info` and
  `read_paper` of a saved paper work offline even after `cache clear`.
* **Another spelling of a question asked before.** A search or listing that differs
  from an earlier one only in case or spacing is answered, offline, from the cached
  answer of the earlier spelling (the exact parameters of each are remembered).
* **Everything read is searchable.** Each Markdown chunk that comes back is indexed
  (`Library.index_chunk`), so `search_library` finds passages of papers read
  before; when the catalog is unreachable, a continuation inside an indexed
  chunk is served from it, so a search hit's cursor can be followed offline.

Library calls block on SQLite, so they run in worker threads, except on the path
every cached answer takes: what this process already wrote (`_learned`: spellings,
query parameters, chunks indexed) is not written again, and the probes for a saved
paper (behind resource links and every Markdown read) are one indexed read each,
done in place when no other thread is using the library; so is serving a piece of
a saved paper, which reads only the pieces that hold it. A library that fails (a
locked or damaged database) never costs an answer: the failure is logged by class
and the call goes on as if there were no library.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote

import anyio.to_thread

from pwc_local.common.references import arxiv_without_version
from pwc_local.common.shelf import STATUS_KEY, response_key
from pwc_local.contract import CHUNK_BYTES
from pwc_local.store.freshness import Freshness, ServingSource
from pwc_local.store.library import Library
from pwc_local.store.markdown_chunks import LocalChunk
from pwc_local.upstream.errors import (
    HTTPStatusError,
    SavedMissing,
    UpstreamTimeout,
    UpstreamUnreachable,
)
from pwc_local.upstream.source import Accept, MarkdownChunk, QueryValue, as_is, segment

log = logging.getLogger(__name__)

T = TypeVar("T")

_RECORD_PARAMS: tuple[Mapping[str, QueryValue] | None, ...] = (
    {"include_resources": True},
    {"include_resources": False},
    None,
)


MAX_LEARNED = 10_000
"""Facts (spellings, query parameters, chunks indexed) this process remembers writing."""


class VersionNotes(Protocol):
    """Where the newest content version the catalog showed for a paper is noted
    (`CachingCatalog.latest_version`, written by a watch-list look)."""

    async def latest_version(self, paper: str) -> tuple[str, float] | None:
        """`(version, when it was seen)`, without a request; `None` when none was noted."""
        ...


class LibraryCatalog:
    """`CatalogSource` over `inner` with `library` answering first (see the module docstring).

    `versions` says when the catalog was seen with a newer version of a saved paper;
    `freshness` is the call's record the label goes on (`for_call`).
    """

    def __init__(
        self,
        inner: ServingSource,
        library: Library,
        *,
        namespace: str,
        learned: set[str] | None = None,
        versions: VersionNotes | None = None,
        freshness: Freshness | None = None,
    ) -> None:
        self.inner = inner
        self.library = library
        self.namespace = namespace
        self.versions = versions
        self.freshness = freshness
        # Shared by every per-call view: a fact written once needs no second visit.
        self._learned: set[str] = set() if learned is None else learned

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            await _quietly(self.library.close)

    def for_call(self, freshness: Freshness) -> LibraryCatalog:
        """The view for one tool call: the cache below notes stale answers on `freshness`."""
        return LibraryCatalog(
            self.inner.for_call(freshness),
            self.library,
            namespace=self.namespace,
            learned=self._learned,
            versions=self.versions,
            freshness=freshness,
        )

    async def whole_markdown_cached(self, paper: str, *, limit: int = CHUNK_BYTES) -> bool:
        """Whether `pwc://papers/{paper}/markdown` resolves locally (one read of `limit`).

        A saved paper answers from the library, also after `cache clear`; anything
        else is the cache's to say.
        """
        size = await _in_place(self.library, self.library.saved_markdown_bytes, paper)
        if size is not None:
            return size <= limit
        return await self.inner.whole_markdown_cached(paper, limit=limit)

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T:
        seen: list[Any] = []

        def keep(document: Any) -> T:
            value = accept(document)
            seen.append(document)
            return value

        try:
            value = await self.inner.get_json(path, params, accept=keep)
        except (UpstreamUnreachable, UpstreamTimeout):
            found, document = await self._offline(path, params)
            if not found:
                raise
            if isinstance(document, dict) and STATUS_KEY in document:  # only 404s are saved
                raise SavedMissing() from None
            return accept(document)  # kept answers pass the caller's shape check too
        if seen:
            await self._learn(path, seen[-1])
            await self._learn_query(path, params)
        return value

    async def _offline(
        self, path: str, params: Mapping[str, QueryValue] | None
    ) -> tuple[bool, Any]:
        """An answer for a request the catalog could not take: `(found, document)`.

        In order: the answer recorded when a paper was saved; for `papers/<ref>`, the
        same request for the canonical ID that `<ref>` is known to name (which the
        cache may hold); for the title search `resolve_paper` makes, a one-row answer
        built from the named paper's record.
        """
        stored = await self._stored(path, params)
        if stored[0]:
            return stored
        spelled = await self._as_sent_before(path, params)
        if spelled is not None:
            try:
                return True, await self.inner.get_json(path, spelled, accept=as_is)
            except (UpstreamUnreachable, UpstreamTimeout, HTTPStatusError):
                pass
        reference = _paper_segment(path)
        if reference is not None:
            canonical = await _quietly(self.library.canonical, reference)
            if canonical and canonical != reference:
                return await self._record_of(canonical, params)
            return False, None
        title = _title_query(path, params)
        if title is not None:
            canonical = await _quietly(self.library.canonical, title)
            if canonical:
                found, record = await self._record_of(canonical, None)
                if found and isinstance(record, dict) and STATUS_KEY not in record:
                    return True, {"count": 1, "results": [record], "next_page": None}
        return False, None

    async def _record_of(
        self, paper: str, wanted: Mapping[str, QueryValue] | None
    ) -> tuple[bool, Any]:
        """`papers/<paper>` from the cache (stale or not) or the saved answers.

        The parameters asked for first, then the ones the paper tools use, since any
        copy of the record names the same paper.
        """
        path = f"papers/{segment(paper)}"
        variants: list[Mapping[str, QueryValue] | None] = [wanted]
        variants += [v for v in _RECORD_PARAMS if v != wanted]
        for params in variants:
            try:
                return True, await self.inner.get_json(path, params, accept=as_is)
            except (UpstreamUnreachable, UpstreamTimeout, HTTPStatusError):
                pass
            found = await self._stored(path, params)
            if found[0]:
                return found
        return False, None

    async def _stored(self, path: str, params: Mapping[str, QueryValue] | None) -> tuple[bool, Any]:
        keys = [response_key(self.namespace, path, params)]
        if params is not None:
            keys.append(response_key(self.namespace, path, None))
        for key in keys:
            found = await _quietly(self.library.stored_response, key)
            if found and found[0]:
                return found
        return False, None

    async def _learn_query(self, path: str, params: Mapping[str, QueryValue] | None) -> None:
        """Remember how a text query was spelled, so another spelling finds its cached answer."""
        key = _normalised_key(self.namespace, path, params)
        if key is not None:
            exact = json.dumps(sorted((params or {}).items()), separators=(",", ":"), default=str)
            if self._first_time(f"query {key} {exact}"):
                await _quietly(self.library.learn_query, key, exact)

    async def _as_sent_before(
        self, path: str, params: Mapping[str, QueryValue] | None
    ) -> dict[str, QueryValue] | None:
        """The parameters of an earlier request that differed only in case or spacing."""
        key = _normalised_key(self.namespace, path, params)
        if key is None:
            return None
        exact = await _quietly(self.library.known_query, key)
        if not exact:
            return None
        try:
            pairs = json.loads(exact)
            spelled = {str(name): value for name, value in pairs}
        except (ValueError, TypeError):
            return None
        return None if spelled == dict(params or {}) else spelled

    async def _learn(self, path: str, document: Any) -> None:
        """Remember the spellings of a paper record that just came back (item 3)."""
        reference = _paper_segment(path)
        if reference is None or not isinstance(document, dict):
            return
        arxiv_id = arxiv_without_version(document.get("arxiv_id"))
        own = document.get("id")
        own_id = str(own) if isinstance(own, int | str) and not isinstance(own, bool) else ""
        canonical = arxiv_id or own_id
        if not canonical:
            return
        title = document.get("title")
        aliases = [reference, own_id, title if isinstance(title, str) else ""]
        if arxiv_id:
            aliases.append(f"arXiv:{arxiv_id}")
        if self._first_time(json.dumps(["aliases", canonical, aliases])):
            await _quietly(self.library.learn_aliases, canonical, aliases)

    def _first_time(self, fact: str) -> bool:
        """Whether `fact` is not known to be written (and now remembered, up to MAX_LEARNED).

        What was remembered is forgotten whenever another connection changed the
        library (`cache clear` forgetting what was read, say), so it is written again.
        """
        if self.library.changed_elsewhere() or len(self._learned) >= MAX_LEARNED:
            self._learned.clear()
        if fact in self._learned:
            return False
        self._learned.add(fact)
        return True

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        # Most papers read are not saved: one indexed read in place says so. A saved
        # one is served from the pieces holding the bytes asked for, in place too,
        # unless it is being saved anew (a refresh reads the catalog's copy).
        saved = None
        if not self.library.is_saving(paper):
            saved = await _in_place(
                self.library,
                functools.partial(
                    self.library.read,
                    paper,
                    offset=offset,
                    limit=limit,
                    content_version=content_version,
                ),
            )
        if saved is not None:
            # No catalog Markdown: a first read gets the 404 (replayed), so read_paper
            # answers as it would online (public page, or no_markdown). A continuation
            # pinned to the saved public page's version is served from it.
            if not saved.has_markdown or not (saved.in_catalog or content_version):
                raise SavedMissing()
            if saved.chunk is not None:
                await self._note_behind(paper, saved.chunk.content_version, saved.saved_at)
                return _chunk(saved.chunk)
        try:
            chunk = await self.inner.read_markdown(
                paper, offset=offset, limit=limit, content_version=content_version
            )
        except (UpstreamUnreachable, UpstreamTimeout):
            if content_version is None:
                raise
            indexed = await _quietly(
                self.library.read_indexed,
                paper,
                offset=offset,
                limit=limit,
                content_version=content_version,
            )
            if indexed is None:
                raise
            return _chunk(indexed)
        if self._first_time(f"chunk {paper} {chunk.content_version} {offset} {len(chunk.text)}"):
            await _quietly(
                self.library.index_chunk,
                paper,
                chunk.content_version,
                start=offset,
                text=chunk.text,
                final=not chunk.truncated,
            )
        return chunk

    async def _note_behind(self, paper: str, version: str, saved_at: float) -> None:
        """Label the call when the catalog showed another version after this copy was saved.

        The copy is still what is served (its cursors, its passages, offline the same);
        the label says it is behind, and saving the paper again refreshes it.
        """
        if self.freshness is None or self.versions is None:
            return
        latest = await self.versions.latest_version(paper)
        if latest is not None and latest[0] != version and latest[1] > saved_at:
            self.freshness.note_behind(_utc(saved_at), _utc(latest[1]))


def _utc(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc)


def _normalised_key(
    namespace: str, path: str, params: Mapping[str, QueryValue] | None
) -> str | None:
    """A request's key with its text values trimmed, spaced singly and case folded.

    `None` when the request has no text parameter (nothing to normalise).
    """
    if not params or not any(isinstance(v, str) for v in params.values()):
        return None
    folded = sorted(
        (name, " ".join(value.split()).casefold() if isinstance(value, str) else value)
        for name, value in params.items()
    )
    return json.dumps([namespace, path.strip("/"), folded], separators=(",", ":"), default=str)


def _paper_segment(path: str) -> str | None:
    """`<ref>` of a `papers/<ref>` record path (decoded), else `None`."""
    parts = path.strip("/").split("/")
    if len(parts) != 2 or parts[0] != "papers" or parts[1] in ("search", "recent", "trending"):
        return None
    return unquote(parts[1]) or None


def _title_query(path: str, params: Mapping[str, QueryValue] | None) -> str | None:
    """The title of a `resolve_title` search (first page, keyword mode), else `None`."""
    if path.strip("/") != "papers/search" or not params or params.get("mode") != "keyword":
        return None
    query = params.get("q")
    if not isinstance(query, str) or params.get("page", 1) != 1:
        return None
    return query.strip().strip('"').strip() or None


def _chunk(local: LocalChunk) -> MarkdownChunk:
    return MarkdownChunk(**dataclasses.asdict(local))  # the same fields


async def _in_place(library: Library, fn: Callable[..., T], *args: Any) -> T | None:
    """`fn` (one indexed read) on the event loop when the library is idle, else `_quietly`."""
    with library.unless_busy() as idle:
        if idle:
            try:
                return fn(*args)
            except Exception as exc:
                _unusable(exc)
                return None
    return await _quietly(fn, *args)


async def _quietly(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """`fn` in a worker thread; a failing library is logged by class and reads as `None`."""
    try:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
    except Exception as exc:
        _unusable(exc)
        return None


def _unusable(exc: Exception) -> None:
    """A library that fails costs no answer: say so by class, and go on without it."""
    log.warning("the library could not be used for this call (%s)", type(exc).__name__)
