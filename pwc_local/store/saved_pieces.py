"""A saved paper's Markdown as sealed pieces: writing them, and checking them on the way out.

A saved paper's Markdown is stored as the pieces it came in (`saved_pieces` rows,
each at most `CHUNK_BYTES`, with a BLAKE2b `digest`), and its `papers` row is sealed
by one digest over its metadata, version, size and the pieces' digests (`seal`).
`verified` checks a row's seal (a few KiB of digests, whatever the paper's size)
and that its pieces tile the document; whoever reads a piece's text checks that
piece's digest (`texts` checks them all). A row of schema 1 (`LAYOUT_WHOLE`) holds
the whole Markdown in one column under a digest of its own; `migrate_whole_rows`
moves such rows into pieces.

Used by `Library`, inside its transactions (the caller holds the lock).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pwc_local.contract import CHUNK_BYTES
from pwc_local.store.markdown_chunks import LocalChunk, cut
from pwc_local.store.passage_index import index_passages
from pwc_local.store.passages import Headings, split_passages

log = logging.getLogger(__name__)

LAYOUT_WHOLE = 1  # schema 1: the whole Markdown in `papers.markdown`, one digest
LAYOUT_PIECES = 2  # `saved_pieces` rows, sealed by `papers.digest` (`seal`)


@dataclass(frozen=True)
class SavedRow:
    """A saved paper's row, verified, without its Markdown text (`verified`).

    `size` is `None` when it has no Markdown; `whole` is the text of a row of the
    first layout (`LAYOUT_WHOLE`), which holds it in one column.
    """

    paper: str
    title: str
    in_catalog: bool
    metadata: str
    citation: str
    content_version: str | None
    saved_at: float
    size: int | None
    whole: str | None = None


def digest(text: str) -> str:
    """The BLAKE2b digest every stored text is checked with (16 bytes, in hex)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def verified(db: sqlite3.Connection, paper: str) -> SavedRow | None:
    """The row of saved `paper` if its seal holds (the caller holds the lock).

    For the pieces layout the seal covers the pieces' digests, which must also
    tile the document exactly; the pieces' texts are checked by whoever reads them.
    """
    row = db.execute(
        "SELECT paper, title, in_catalog, metadata, citation, content_version, digest, "
        "saved_at, layout, size FROM papers WHERE paper = ?",
        (paper,),
    ).fetchone()
    if row is None:
        return None
    found = SavedRow(
        paper=row[0],
        title=row[1],
        in_catalog=bool(row[2]),
        metadata=row[3],
        citation=row[4],
        content_version=row[5],
        saved_at=float(row[7]),
        size=row[9],
    )
    if row[8] == LAYOUT_WHOLE:
        (whole,) = db.execute("SELECT markdown FROM papers WHERE paper = ?", (paper,)).fetchone()
        if _whole_digest(row[3], row[4], whole, row[5]) != row[6]:
            log.warning("a saved paper failed verification; it is treated as missing")
            return None
        size = None if whole is None else len(whole.encode("utf-8"))
        return dataclasses.replace(found, size=size, whole=whole)
    expected = 0
    digests = []
    for start, stop, piece_digest in db.execute(
        "SELECT start, stop, digest FROM saved_pieces WHERE paper = ? ORDER BY start", (paper,)
    ):
        if start != expected or stop <= start:
            expected = -1
            break
        expected = stop
        digests.append(piece_digest)
    tiled = expected == (row[9] or 0) and (row[9] is not None or not digests)
    if not tiled or seal(row[3], row[4], row[5], row[9], digests) != row[6]:
        log.warning("a saved paper failed verification; it is treated as missing")
        return None
    return found


def texts(db: sqlite3.Connection, paper: str) -> list[tuple[int, str]] | None:
    """Every piece of saved `paper` as `(start, text)`, each verified; `None` if one fails."""
    pieces = []
    for start, text, piece_digest in db.execute(
        "SELECT start, text, digest FROM saved_pieces WHERE paper = ? ORDER BY start", (paper,)
    ):
        if digest(text) != piece_digest:
            log.warning("a saved paper failed verification; it is treated as missing")
            return None
        pieces.append((int(start), str(text)))
    return pieces


def pieces_around(
    db: sqlite3.Connection, paper: str, offset: int, limit: int
) -> list[tuple[int, str, str]]:
    """The saved pieces of `paper` a chunk of `limit` bytes from `offset` can touch.

    As `(start, text, digest)`, not yet verified (`chunk_of` checks what it serves).
    """
    return db.execute(
        "SELECT start, text, digest FROM saved_pieces WHERE paper = ? AND start > ? "
        "AND start < ? AND stop > ? ORDER BY start",
        # No saved piece is longer than a chunk, so one starting a chunk
        # before `offset` is the earliest that can hold it.
        (paper, offset - CHUNK_BYTES, _reach(offset, limit), offset),
    ).fetchall()


def chunk_of(
    pieces: Sequence[tuple[int, str, str]], version: str, offset: int, limit: int, size: int
) -> LocalChunk | None:
    """The chunk from `offset` cut out of `pieces` (`pieces_around`), of a paper of `size`.

    `None` when there are none, or when a piece whose bytes it serves fails its digest.
    """
    if not pieces:
        return None
    reach = _reach(offset, limit)
    # The window: whole pieces, but of the last one only what the cut can look at
    # (a piece that starts just before `reach` lends a few bytes).
    parts: list[tuple[bytes, bool]] = []  # (UTF-8, whether all of the piece)
    for start, text, _digest in pieces:
        need = reach - int(start)  # in characters: at least as many as bytes
        whole = need >= len(text)
        parts.append(((text if whole else text[:need]).encode("utf-8"), whole))
    window = b"".join(data for data, _whole in parts)
    # The usual chunk is one whole piece.
    first = (pieces[0][1], len(parts[0][0])) if parts[0][1] else None
    chunk = cut(window, version, offset, limit, base=int(pieces[0][0]), size=size, decoded=first)
    served_end = size if chunk.next_offset is None else chunk.next_offset
    for (start, text, sealed), (data, whole) in zip(pieces, parts, strict=True):
        if start >= served_end:
            break  # none of its bytes is served
        data = data if whole else text.encode("utf-8")
        if hashlib.blake2b(data, digest_size=16).hexdigest() != sealed:
            log.warning("a saved paper failed verification; it is treated as missing")
            return None
    return chunk


def _reach(offset: int, limit: int) -> int:
    """Where a chunk from `offset` may look up to: an offset inside a character moves on
    to its end (3 bytes at most), and the cut may look one byte past the limit."""
    return offset + limit + 4


def store_pieces(
    db: sqlite3.Connection,
    paper: str,
    doc: int | None,
    markdown: str | Sequence[bytes],
    title: str = "",
) -> tuple[int, list[str]]:
    """Write `markdown` as `saved_pieces` (indexing it as document `doc`, if given).

    One piece at a time, so a long paper is never copied whole; returns its size
    in bytes and the pieces' digests, for the seal.
    """
    start = 0
    digests: list[str] = []
    headings: Headings = ()
    for text, data in _pieces_of(markdown):
        piece_digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        db.execute(
            "INSERT INTO saved_pieces(paper, start, stop, digest, text) VALUES (?,?,?,?,?)",
            (paper, start, start + len(data), piece_digest, text),
        )
        if doc is not None:
            split = split_passages(text, base=start, headings=headings, title=title)
            index_passages(db, doc, split.passages)
            headings = split.headings
        digests.append(piece_digest)
        start += len(data)
    return start, digests


def migrate_whole_rows(db: sqlite3.Connection) -> None:
    """Move papers saved by schema 1 (one Markdown column) into pieces, once.

    Their passages stay as they are; a row that fails verification is left for
    `get` to report missing and a new save to replace.
    """
    legacy = db.execute("SELECT paper FROM papers WHERE layout = ?", (LAYOUT_WHOLE,)).fetchall()
    for (paper,) in legacy:
        row = verified(db, paper)
        if row is None:
            continue
        size, digests = (
            (None, []) if row.whole is None else (store_pieces(db, paper, None, row.whole))
        )
        db.execute(
            "UPDATE papers SET markdown = NULL, layout = ?, size = ?, digest = ? WHERE paper = ?",
            (
                LAYOUT_PIECES,
                size,
                seal(row.metadata, row.citation, row.content_version, size, digests),
                paper,
            ),
        )


def seal(
    metadata: str, citation: str, version: str | None, size: int | None, pieces: Sequence[str]
) -> str:
    """The digest of a saved paper's row: its stored JSON, version, size, pieces' digests."""
    sealed = json.dumps([metadata, citation, version, size, list(pieces)], ensure_ascii=False)
    return digest(sealed)


def _whole_digest(metadata: str, citation: str, markdown: str | None, version: str | None) -> str:
    """The digest of a schema-1 row (`LAYOUT_WHOLE`), over its parsed JSON and whole text."""
    try:
        fields = [json.loads(metadata), json.loads(citation), markdown, version]
    except ValueError:
        return ""
    return digest(json.dumps(fields, sort_keys=True, ensure_ascii=False))


def _pieces_of(markdown: str | Sequence[bytes]) -> Iterator[tuple[str, bytes]]:
    """`markdown`'s pieces as `(text, UTF-8)`, none empty, none over `CHUNK_BYTES`."""
    for part in (markdown.encode("utf-8"),) if isinstance(markdown, str) else markdown:
        data = bytes(part)
        if len(data) <= CHUNK_BYTES:
            if data:
                yield data.decode("utf-8"), data
            continue
        offset = 0
        while offset < len(data):
            piece = cut(data, "", offset, CHUNK_BYTES)
            end = len(data) if piece.next_offset is None else piece.next_offset
            yield piece.text, data[offset:end]
            offset = end
