"""Chunks of stored Markdown, cut the way the catalog cuts them.

The library serves saved papers and the indexed chunks of read ones in the same
shape the catalog's Markdown endpoint has: at most so many bytes from a byte offset,
ending on a character boundary, with the offset to continue from (`cut`, returning
a `LocalChunk`, which mirrors `MarkdownChunk`). Saving uses the same rule to split
a long part into pieces of at most `CHUNK_BYTES`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LocalChunk:
    """A piece of Markdown served from the library; mirrors `MarkdownChunk`."""

    text: str
    content_version: str
    truncated: bool
    next_offset: int | None


def cut(
    document: bytes,
    version: str,
    offset: int,
    limit: int,
    *,
    base: int = 0,
    size: int | None = None,
    decoded: tuple[str, int] | None = None,
) -> LocalChunk:
    """At most `limit` bytes of `document` from `offset`, ending on a character boundary.

    The catalog's own chunking rule: the end moves back to the previous
    boundary; a character longer than `limit` is returned whole; an offset at or past
    the end gives an empty final chunk. An offset inside a character moves forward
    to the next boundary.

    `document` may be a window of a longer one: its bytes from `base`, of `size` in
    all. Offsets stay the whole document's; the window must hold every byte from
    `offset` up to `offset + limit` (or to the end), and end on a character boundary.
    `decoded` is the text the window starts with, already decoded, and its size in
    bytes: a chunk that is exactly that text is served without decoding it again.
    """
    total = base + len(document) if size is None else size
    at = offset - base
    while at < len(document) and _continues(document[at]):
        at += 1
    if base + at >= total:
        return LocalChunk("", version, False, None)
    end = min(len(document), at + limit)
    while at < end < len(document) and _continues(document[end]):
        end -= 1
    if end == at:
        end = at + 1
        while end < len(document) and _continues(document[end]):
            end += 1
    if decoded is not None and at == 0 and end == decoded[1]:
        text = decoded[0]
    else:
        text = document[at:end].decode("utf-8")
    more = base + end < total
    return LocalChunk(text, version, more, base + end if more else None)


def _continues(byte: int) -> bool:
    return byte & 0xC0 == 0x80
