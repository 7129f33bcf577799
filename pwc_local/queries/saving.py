"""Saving a paper into the library: fetch everything through the catalog, then store it at once.

`save_paper` is shared by `library add` and the `save_papers` tool. It does no HTTP
of its own: metadata comes from `catalog.public.paper_info_or_public` (catalog
record, or public metadata for a paper outside the catalog) and the Markdown from
`CatalogSource.read_markdown`, chunk after chunk, through whatever source it is
given (the caching catalog of `runtime`, so the chunks land in the cache too).

Order of events, and why:

1. A reference the library already knows costs one small request, the first KiB
   of its Markdown, which says the catalog's content version: the same as the
   saved copy's, the paper is kept as it is (so an interrupted `library add` is
   resumed by running it again); another, it is fetched again and replaces the
   copy (`refresh`), passages included. Offline it is kept.
2. The metadata request and every chunk are fetched into memory; the JSON answers
   are recorded on the way, so the same requests can be answered offline later.
3. One `Shelf.save` transaction stores it all, unless the paper turned out to be
   saved already under another spelling (another process may have saved it
   meanwhile): then it only learns this spelling, in the same transaction. Until
   then nothing is listed, so a process killed in step 2 leaves no half-saved paper.

The Markdown stays in the chunks it came in, from the catalog to `saved_pieces`:
a long paper is held in memory once, never joined into a second copy.

A paper outside the catalog is saved with its public metadata and, as its
Markdown, the public page `read_paper` shows for it (title, note, links,
abstract): the catalog holds no full text for it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio.to_thread

from pwc_local.common.references import (
    arxiv_without_version,
    spelled_identifier,
)
from pwc_local.common.shelf import (
    STATUS_KEY,
    LibraryEntry,
    LibraryError,
    SavedPaper,
    Shelf,
    response_key,
    shown_title,
)
from pwc_local.contract import CHUNK_BYTES
from pwc_local.queries.citations import SourceCitation, citation_fields
from pwc_local.queries.public import paper_info_or_public, public_markdown
from pwc_local.queries.whole_markdown import MAX_DOCUMENT_BYTES
from pwc_local.safe_text import one_line
from pwc_local.upstream.errors import (
    CatalogError,
    HTTPStatusError,
    InvalidResponse,
    NotFound,
    PaperChanged,
    RecordMissing,
)
from pwc_local.upstream.source import Accept, CatalogSource, MarkdownChunk, QueryValue

log = logging.getLogger(__name__)

T = TypeVar("T")

VERSION_PROBE_BYTES = 1024  # a first chunk this small still carries the content version

SAVED = "saved"
ALREADY = "already saved"
FAILED = "failed"


@dataclass(frozen=True)
class SaveOutcome:
    """What became of one reference: `status` is `saved`, `already saved` or `failed`.

    `error` is the exception of a failure, for the caller to word (the command line
    and the MCP layer each have their own wording); `size` is the Markdown's bytes;
    `title` is bounded like a listing's (`library.shown_title`). `refreshed`: saved
    again over an older copy, the catalog having a newer version.
    """

    reference: str
    status: str
    paper: str | None = None
    title: str = ""
    in_catalog: bool = True
    size: int = 0
    error: BaseException | None = None
    refreshed: bool = False

    @property
    def ok(self) -> bool:
        return self.status != FAILED


class RecordingCatalog:
    """A `CatalogSource` that remembers every JSON answer it passed on, by request."""

    def __init__(self, inner: CatalogSource, namespace: str) -> None:
        self.inner = inner
        self.namespace = namespace
        self.recorded: dict[str, Any] = {}

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T:
        seen: list[Any] = []

        def keep(document: Any) -> T:
            value = accept(document)  # a document of the wrong shape is not recorded
            seen.append(document)
            return value

        try:
            value = await self.inner.get_json(path, params, accept=keep)
        except RecordMissing:  # "no such record" is an answer worth replaying too
            self._record(path, params, {STATUS_KEY: 404})
            raise
        if seen:
            self._record(path, params, seen[-1])
        return value

    def _record(self, path: str, params: Mapping[str, QueryValue] | None, document: Any) -> None:
        self.recorded[response_key(self.namespace, path, params)] = document
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "papers" and parts[1] != "search":
            # A paper record, whatever the flags: the probe of a Markdown 404 asks without.
            self.recorded.setdefault(response_key(self.namespace, path, None), document)

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        return await self.inner.read_markdown(
            paper, offset=offset, limit=limit, content_version=content_version
        )

    async def whole_markdown_cached(self, paper: str, *, limit: int = CHUNK_BYTES) -> bool:
        return await self.inner.whole_markdown_cached(paper, limit=limit)

    async def aclose(self) -> None:
        """Nothing: a recorder lives for one save and owns nothing of the source it wraps."""


async def save_paper(
    catalog: CatalogSource,
    library: Shelf,
    reference: str,
    *,
    namespace: str,
    source: SourceCitation | None = None,
) -> SaveOutcome:
    """Save one paper (see the module docstring); never raises for a failed paper.

    `source` is what the user's BibTeX entry said of the paper's kind and venue; its
    citation keeps that (`citations.SourceCitation`).
    """
    text = reference.strip()
    try:
        known = await _blocking(library.resolve, text) if text else None
        if known is None and text:
            known = await _blocking(library.resolve, _identifier(text))
        if known is not None:
            entry = await _blocking(library.entry, known)
            if entry is not None:
                if not await _behind_catalog(catalog, library, entry):
                    return SaveOutcome(
                        text, ALREADY, entry.paper, entry.title, entry.in_catalog, entry.size
                    )
                return await _refresh(catalog, library, text, entry.paper, namespace, source)
        library.check_writable()  # before any request: a read-only library saves nothing
        paper = await fetch_paper(
            catalog, text, namespace=namespace, source=source, library=library
        )
        saved = paper.saved
        if not await _blocking(library.save, saved, paper.responses):
            # Saved before under another spelling: that copy stays, this spelling joins it.
            kept = await _blocking(library.entry, saved.paper)
            size = kept.size if kept is not None and kept.has_markdown else 0
            title = shown_title(saved.title)
            return SaveOutcome(text, ALREADY, saved.paper, title, saved.in_catalog, size)
        return SaveOutcome(
            text, SAVED, saved.paper, shown_title(saved.title), saved.in_catalog, _size(saved)
        )
    except (CatalogError, LibraryError, OSError) as exc:
        return SaveOutcome(text, FAILED, error=exc)
    except Exception as exc:  # the library (sqlite3) or a bug: the paper failed, not the run
        log.warning("saving a paper failed: %s", type(exc).__name__)
        return SaveOutcome(text, FAILED, error=exc)


async def refresh_paper(
    catalog: CatalogSource, library: Shelf, reference: str, *, namespace: str
) -> SaveOutcome:
    """Save the saved paper `reference` again when the catalog has a newer version.

    `already saved` when it has not (or cannot say: offline), `saved` with
    `refreshed` when it had; `failed` for a reference the library does not hold.
    """
    text = reference.strip()
    try:
        known = await _blocking(library.resolve, text) if text else None
        entry = None if known is None else await _blocking(library.entry, known)
        if entry is None:
            raise NotFound(f"Paper not found in the library: {one_line(text, 200)}")
        if not await _behind_catalog(catalog, library, entry):
            return SaveOutcome(
                text, ALREADY, entry.paper, entry.title, entry.in_catalog, entry.size
            )
        return await _refresh(catalog, library, text, entry.paper, namespace, None)
    except (CatalogError, LibraryError, OSError) as exc:
        return SaveOutcome(text, FAILED, error=exc)


async def _behind_catalog(catalog: CatalogSource, library: Shelf, entry: LibraryEntry) -> bool:
    """Whether the catalog's content version of a saved paper is another than its copy's.

    One first chunk of `VERSION_PROBE_BYTES`, read past the saved copy (`Shelf.saving`);
    a paper saved from its public page, or without Markdown, is not asked about.
    """
    if not entry.in_catalog or not entry.has_markdown or entry.content_version is None:
        return False
    with library.saving(entry.paper):
        try:
            chunk = await catalog.read_markdown(
                entry.paper, offset=0, limit=VERSION_PROBE_BYTES, content_version=None
            )
        except CatalogError:  # unreachable, gone, no Markdown now: the copy stays as it is
            return False
    return chunk.content_version != entry.content_version


async def _refresh(
    catalog: CatalogSource,
    library: Shelf,
    reference: str,
    paper: str,
    namespace: str,
    source: SourceCitation | None,
) -> SaveOutcome:
    """Fetch `paper` again and replace its saved copy in one transaction."""
    library.check_writable()
    fetched = await fetch_paper(catalog, paper, namespace=namespace, source=source, library=library)
    saved = fetched.saved
    await _blocking(functools.partial(library.save, saved, fetched.responses, replace=True))
    return SaveOutcome(
        reference,
        SAVED,
        saved.paper,
        shown_title(saved.title),
        saved.in_catalog,
        _size(saved),
        refreshed=True,
    )


@dataclass(frozen=True)
class FetchedPaper:
    """A paper ready to store, and the catalog answers recorded while fetching it."""

    saved: SavedPaper
    responses: dict[str, Any]


async def fetch_paper(
    catalog: CatalogSource,
    reference: str,
    *,
    namespace: str,
    source: SourceCitation | None = None,
    library: Shelf | None = None,
) -> FetchedPaper:
    """Everything `Shelf.save` needs for `reference`; raises the catalog's errors.

    `source` is what the user's BibTeX entry said of the paper's kind and venue.
    `library`, the one the paper will be saved in, is told which paper is being
    fetched (`Shelf.saving`), so that its chunks are indexed once, when saved.
    """
    recorder = RecordingCatalog(catalog, namespace)
    answer = await paper_info_or_public(recorder, reference, include_evaluations=False)
    detail = answer.paper
    if answer.public is not None:
        record = answer.public
        canonical = record.arxiv_id or record.doi or reference
        page = public_markdown(record)
        markdown: str | tuple[bytes, ...] | None = page
        version: str | None = hashlib.sha256(page.encode("utf-8")).hexdigest()
        title = record.title or canonical
        aliases = [reference, record.arxiv_id or "", record.doi or "", record.title or ""]
        if record.arxiv_id:
            aliases.append(f"arXiv:{record.arxiv_id}")
    else:
        payload = answer.payload or {}
        own_id = str(payload.get("id") or "").strip()
        canonical = arxiv_without_version(payload.get("arxiv_id")) or own_id or reference
        with library.saving(canonical) if library is not None else contextlib.nullcontext():
            markdown, version = await read_whole(catalog, canonical)
        title = str(payload.get("title") or canonical)
        aliases = [reference, own_id, title, f"arXiv:{canonical}" if canonical != own_id else ""]
    saved = SavedPaper(
        paper=canonical,
        title=title,
        in_catalog=answer.in_catalog,
        metadata=dict(detail),
        citation=citation_fields(detail).with_source(source).as_dict(),
        markdown=markdown,
        content_version=version,
        aliases=tuple(a for a in aliases if a),
    )
    return FetchedPaper(saved, recorder.recorded)


async def read_whole(
    catalog: CatalogSource, paper: str
) -> tuple[tuple[bytes, ...] | None, str | None]:
    """Every chunk of a paper's Markdown in order, as UTF-8, with its version; `(None, None)`
    without any. Bytes, not `str`: a chunk of text outside Latin-1 is half the size so.

    Chunks are pinned to the first chunk's version; if the paper changes half-way
    (`PaperChanged`) the read starts over once, then gives up.
    """
    for _attempt in range(2):
        try:
            return await _read_chunks(catalog, paper)
        except PaperChanged:
            continue
        except RecordMissing:
            return None, None  # the record exists (it was just fetched): no Markdown
        except HTTPStatusError as exc:
            if exc.status == 409:
                continue
            raise
    raise PaperChanged("the paper's Markdown kept changing while it was saved; retry")


async def _read_chunks(catalog: CatalogSource, paper: str) -> tuple[tuple[bytes, ...], str]:
    pieces: list[bytes] = []
    offset = 0
    version: str | None = None
    while True:
        chunk = await catalog.read_markdown(
            paper, offset=offset, limit=CHUNK_BYTES, content_version=version
        )
        if version is not None and chunk.content_version != version:
            raise PaperChanged("the paper's Markdown changed while it was saved")
        version = chunk.content_version
        pieces.append(chunk.text.encode("utf-8"))
        if not chunk.truncated or chunk.next_offset is None:
            return tuple(pieces), version
        if chunk.next_offset <= offset:
            raise PaperChanged("the Markdown offsets did not advance")
        if chunk.next_offset > MAX_DOCUMENT_BYTES:
            raise InvalidResponse("paper Markdown exceeds the local size bound")
        offset = chunk.next_offset


def _identifier(reference: str) -> str:
    """The ID a reference spells without asking anyone (arXiv forms, URLs), else itself."""
    return spelled_identifier(reference) or reference


def _size(paper: SavedPaper) -> int:
    if isinstance(paper.markdown, str):
        return len(paper.markdown.encode("utf-8"))
    return sum(len(piece) for piece in paper.markdown or ())


async def _blocking(fn: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(functools.partial(fn, *args))
