"""A paper's complete Markdown, gathered chunk by chunk for one content version.

The outline and section tools need the whole document, but the catalog serves it
only in chunks (catalog-api.md §3.3). `read_document` walks the same chunk sequence
a `read_paper` reader walks (offset 0, 64 KiB, then each `next_offset`), so every
chunk it needs is the very chunk the disk cache holds after a complete read, and
vice versa: a paper read once is outlined offline, and an outline leaves the paper
readable offline.

All chunks are pinned to the content version of the first one. If the paper
changes half-way (a 409 or another version), the walk starts over once; a paper
that keeps changing is `PaperChanged`.

`slice_chunk` cuts a read-protocol chunk out of a gathered document, exactly as the
catalog would (end moved back to a character boundary); `read_paper` uses it to
continue a section cursor (an arbitrary offset) from cached chunks during an outage.
"""

from __future__ import annotations

from dataclasses import dataclass

from pwc_local.contract import CHUNK_BYTES
from pwc_local.upstream.errors import HTTPStatusError, InvalidResponse, PaperChanged
from pwc_local.upstream.source import CatalogSource, MarkdownChunk

# A paper's Markdown is rarely above 1 MiB; this only stops a runaway upstream. The
# library saves no longer paper (`queries.saving`), so every saved paper can be outlined.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Document:
    """The whole Markdown of `paper` (a canonical ID) at content `version`."""

    paper: str
    version: str
    text: str

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")


async def read_document(
    catalog: CatalogSource, paper: str, *, version: str | None = None
) -> Document:
    """Every chunk of `paper`'s Markdown, joined; pinned to `version` when given.

    Errors of the read protocol propagate unchanged (a `RecordMissing` for a
    missing paper or missing Markdown, upstream failures ...), so the caller decides
    what they mean, as `read_paper` does. Raises `PaperChanged` when the content
    moves on twice during the walk, or at all when `version` was pinned.
    """
    for _attempt in range(2):
        try:
            return await _walk(catalog, paper, version)
        except PaperChanged:
            if version is not None:
                raise
        except HTTPStatusError as exc:
            if exc.status != 409 or version is not None:
                raise
    raise PaperChanged("paper changed twice while its Markdown was being read")


async def _walk(catalog: CatalogSource, paper: str, version: str | None) -> Document:
    chunk = await catalog.read_markdown(paper, offset=0, limit=CHUNK_BYTES, content_version=version)
    pinned = chunk.content_version
    if version is not None and pinned != version:
        raise PaperChanged("paper changed")
    parts = [chunk.text]
    offset = 0
    while chunk.truncated:
        if chunk.next_offset is None or chunk.next_offset <= offset:
            raise InvalidResponse("chunk offset did not advance")
        offset = chunk.next_offset  # the bytes read so far
        if offset > MAX_DOCUMENT_BYTES:
            raise InvalidResponse("paper Markdown exceeds the local size bound")
        chunk = await catalog.read_markdown(
            paper, offset=offset, limit=CHUNK_BYTES, content_version=pinned
        )
        if chunk.content_version != pinned:
            raise PaperChanged("paper changed")
        parts.append(chunk.text)
    return Document(paper, pinned, "".join(parts))


def char_boundary(data: bytes, position: int) -> int:
    """The largest UTF-8 character boundary of `data` at or before `position`."""
    position = max(0, min(position, len(data)))
    while 0 < position < len(data) and data[position] & 0xC0 == 0x80:
        position -= 1
    return position


def slice_chunk(document: Document, offset: int, limit: int) -> MarkdownChunk:
    """The chunk the catalog serves for `offset`/`limit` of `document`.

    Raises `InvalidResponse` when `offset` is past the end or inside a character:
    no cursor this server signs points there.
    """
    data = document.data
    if not 0 <= offset < len(data) or char_boundary(data, offset) != offset:
        raise InvalidResponse("cursor offset is not a character boundary of the document")
    end = char_boundary(data, offset + limit)
    if end <= offset:  # one character longer than `limit`: serve it whole
        end = offset + 1
        while end < len(data) and data[end] & 0xC0 == 0x80:
            end += 1
    truncated = end < len(data)
    return MarkdownChunk(
        text=data[offset:end].decode("utf-8"),
        content_version=document.version,
        truncated=truncated,
        next_offset=end if truncated else None,
    )
