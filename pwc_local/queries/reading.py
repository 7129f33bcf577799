"""`read_paper`: a paper's stored Markdown, one chunk per call, resumable by cursor.

A call without a cursor resolves the reference, reads the first chunk (64 KiB by
default) and, when more follows, returns a signed `next_cursor`. A call with that
cursor continues exactly where the previous one stopped, pinned to the same content
version, so a paper that changes in between fails with "paper changed" rather than
splicing two versions together. Every call makes exactly one Markdown read, and
cursors expire after the configured `cursor_ttl` (`PWC_CURSOR_TTL`).

Decisions worth knowing:

* Placeholder cursors (`next`, `start`, `0`, ...) and empty strings mean "no cursor":
  a model that invents one gets the beginning instead of an error.
* A cursor may be presented with another spelling of its paper (the catalog ID
  instead of the arXiv ID); the spelling is resolved and compared by canonical ID.
* Legacy arXiv IDs (`math.GT/0309136`) are valid in cursors, so long legacy papers
  can be continued (the hosted server cannot).
* The expiry set at the first chunk carries over to every later cursor; if the
  configured lifetime has since been shortened, the shorter limit applies.
* On a first read, a paper the catalog does not hold goes through the public-metadata
  fallback (`pwc_local.queries.public`); on a continuation it is just not found.
* `read_paper_section` (`pwc_local.queries.sections`) mints ordinary cursors at the
  byte where a cut section stopped; during an outage such a chunk is cut from the
  cached standard chunks (`_fetch_chunk`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pwc_local.common.cursors import (
    INVALID_MESSAGE,
    MISMATCH_MESSAGE,
    CursorCodec,
    CursorReferenceMismatch,
    CursorState,
    source_for,
)
from pwc_local.common.references import paper_text, resolve_paper, shown
from pwc_local.contract import CHUNK_BYTES
from pwc_local.queries.public import Link, catalog_or_public, public_markdown
from pwc_local.queries.whole_markdown import read_document, slice_chunk
from pwc_local.upstream.errors import (
    CatalogError,
    CursorMismatch,
    HTTPStatusError,
    InvalidCursor,
    InvalidResponse,
    NoMarkdown,
    NotFound,
    PaperChanged,
    PaperMissing,
    RecordMissing,
    UpstreamTimeout,
    UpstreamUnreachable,
    UsageError,
    translate_404,
)
from pwc_local.upstream.source import CatalogSource, MarkdownChunk, as_is, segment

PLACEHOLDER_CURSORS = frozenset(
    {"next", "start", "begin", "beginning", "first", "0", "1", "none", "null"}
)
CHANGED_MESSAGE = (
    "paper changed since this cursor was issued; call read_paper again without cursor "
    "to restart from the beginning"
)
NO_MARKDOWN_MESSAGE = (
    "no stored Markdown is available for this paper; use get_paper_info for its metadata and links"
)


@dataclass
class ReadResult:
    """One `read_paper` answer.

    `paper` is the trimmed reference this read was made with (for a public-metadata
    retry, the catalog ID that was followed); `next_cursor` is set exactly when
    `truncated` is true. `in_catalog` is false, with `available_at` links, when the
    Markdown is the public-metadata page of a paper outside the catalog.
    """

    paper: str
    markdown: str
    truncated: bool
    next_cursor: str | None
    in_catalog: bool = True
    available_at: list[Link] = field(default_factory=list)
    start: int = 0  # the byte of the whole Markdown this chunk starts at


@dataclass(frozen=True)
class _Plan:
    """The one chunk a call is about to read, and the read it belongs to."""

    paper: str
    version: str | None
    offset: int
    limit: int
    exp: int
    first: bool


async def read_paper(
    catalog: CatalogSource,
    codec: CursorCodec,
    chunk_limit: int = CHUNK_BYTES,
    *,
    paper: str,
    cursor: str | None,
    now: float | None = None,
) -> ReadResult:
    """Read one chunk of a paper's Markdown, from the start or from `cursor`.

    `now` (Unix seconds) defaults to the clock; `chunk_limit` is the size of a first
    read (continuations keep the size their cursor carries).

    Raises `InvalidCursor` and `ExpiredCursor` without any catalog request,
    `CursorMismatch` when the cursor names another paper than `paper` resolves to,
    `PaperChanged` when the content moved on, `NoMarkdown` when the paper exists
    without Markdown, and the usual reference and upstream errors. A paper the
    catalog does not hold is answered from public metadata on a first read.
    """
    reference = paper_text(paper)
    if isinstance(chunk_limit, bool) or not 1 <= chunk_limit <= CHUNK_BYTES:
        raise UsageError(f"chunk limit must be from 1 to {CHUNK_BYTES} bytes")
    instant = time.time() if now is None else now
    token = _cursor_token(cursor)
    if token is None:
        return await _first_read_or_public(catalog, codec, reference, instant, chunk_limit)
    state = await _verified_state(catalog, codec, token, reference, instant)
    plan = _Plan(
        paper=state.paper,
        version=state.version,
        offset=state.offset,
        limit=state.limit,
        exp=min(state.exp, codec.expiry_for_new_read(instant)),
        first=False,
    )
    return await _read(catalog, codec, reference, plan, instant)


def _cursor_token(cursor: object) -> str | None:
    """The token to verify, or `None` when the call starts from the beginning."""
    if cursor is None:
        return None
    if not isinstance(cursor, str):
        raise InvalidCursor(INVALID_MESSAGE)
    token = cursor.strip()
    return None if token.casefold() in PLACEHOLDER_CURSORS or not token else token


async def _verified_state(
    catalog: CatalogSource, codec: CursorCodec, cursor: str, reference: str, now: float
) -> CursorState:
    try:
        return codec.verify(cursor, reference=reference, now=now)
    except CursorReferenceMismatch as mismatch:
        # Another spelling of the same paper is fine; find out which paper it names.
        # One the catalog does not know (a DOI of a paper outside it, saved or not)
        # cannot be the cursor's paper, which was in the catalog when it was read.
        try:
            canonical = await resolve_paper(catalog, reference)
        except NotFound:
            raise CursorMismatch(MISMATCH_MESSAGE) from None
        if canonical.casefold() != mismatch.state.paper.casefold():
            raise CursorMismatch(MISMATCH_MESSAGE) from None
        return mismatch.state


async def _first_read_or_public(
    catalog: CatalogSource, codec: CursorCodec, reference: str, now: float, limit: int
) -> ReadResult:
    async def first_read(spelling: str) -> ReadResult:
        canonical = await resolve_paper(catalog, spelling)
        plan = _Plan(
            paper=canonical,
            version=None,
            offset=0,
            limit=limit,
            exp=codec.expiry_for_new_read(now),
            first=True,
        )
        return await _read(catalog, codec, spelling, plan, now)

    outcome = await catalog_or_public(catalog, reference, first_read)
    if isinstance(outcome, ReadResult):
        return outcome
    return ReadResult(
        paper=reference,
        markdown=public_markdown(outcome),
        truncated=False,
        next_cursor=None,
        in_catalog=False,
        available_at=list(outcome.links),
    )


async def _read(
    catalog: CatalogSource, codec: CursorCodec, reference: str, plan: _Plan, now: float
) -> ReadResult:
    """The one upstream Markdown read of a call, and the cursor that continues it."""
    try:
        chunk = await _fetch_chunk(catalog, plan)
    except PaperChanged:
        raise PaperChanged(CHANGED_MESSAGE) from None
    except RecordMissing as exc:
        raise await missing_markdown_error(
            catalog, reference, plan.paper, first=plan.first
        ) from exc
    except HTTPStatusError as exc:
        if exc.status == 409 and plan.version is not None:
            raise PaperChanged(CHANGED_MESSAGE) from exc
        raise
    # A source that served another version than the one pinned has drifted.
    if plan.version is not None and chunk.content_version != plan.version:
        raise PaperChanged(CHANGED_MESSAGE)
    next_cursor = None
    if chunk.truncated:
        if chunk.next_offset is None or chunk.next_offset <= plan.offset:
            raise InvalidResponse("chunk offset did not advance")
        state = CursorState(
            ref=reference,
            paper=plan.paper,
            source=source_for(plan.paper),
            version=chunk.content_version,
            offset=chunk.next_offset,
            limit=plan.limit,
            exp=plan.exp,
        )
        try:
            next_cursor = codec.mint(state, now=now)
        except ValueError as exc:
            # References and canonical IDs were checked before; what is left is chunk data.
            raise InvalidResponse("chunk cannot be continued by a cursor") from exc
    return ReadResult(
        paper=reference,
        markdown=chunk.text,
        truncated=chunk.truncated,
        next_cursor=next_cursor,
        start=plan.offset,
    )


async def _fetch_chunk(catalog: CatalogSource, plan: _Plan) -> MarkdownChunk:
    """The planned chunk; during an outage, cut from the cached document if need be.

    A `read_paper_section` cursor continues at an arbitrary byte offset, whose chunk
    the cache holds only if that very read was made online before. When the catalog
    is unreachable, the same chunk is cut from the paper's cached standard chunks
    (`whole_markdown.read_document`, pinned to the cursor's version), so a section read
    offline continues offline. If those are not all cached, the outage stands.
    """
    try:
        return await catalog.read_markdown(
            plan.paper, offset=plan.offset, limit=plan.limit, content_version=plan.version
        )
    except (UpstreamUnreachable, UpstreamTimeout, HTTPStatusError) as exc:
        outage = not isinstance(exc, HTTPStatusError) or exc.status >= 500
        if plan.version is None or not outage:
            raise
        try:
            document = await read_document(catalog, plan.paper, version=plan.version)
        except CatalogError:
            raise exc from None
        return slice_chunk(document, plan.offset, plan.limit)


async def missing_markdown_error(
    catalog: CatalogSource, reference: str, paper: str, *, first: bool = True
) -> CatalogError:
    """After a read 404: is the paper missing, or only its Markdown? One probe decides.

    `paper` is the canonical ID that was read, `reference` the spelling to quote, and
    `first` whether this was a first read (a continuation's paper is "no longer in
    the catalog"). Any answer but a 404 means the paper is there, so the probe
    accepts any JSON.
    """
    missing: NotFound = PaperMissing(f"Paper not found: {shown(reference)}")
    if not first:
        missing = NotFound(
            f"Paper not found: {shown(reference)}; it is no longer in the catalog, so the "
            "cursor cannot be continued"
        )
    with translate_404(missing):
        await catalog.get_json(f"papers/{segment(paper)}", accept=as_is)
    return NoMarkdown(NO_MARKDOWN_MESSAGE)
