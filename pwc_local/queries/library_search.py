"""`search_library`: full-text search over saved and read papers, answered offline.

The query is plain words. It is cut into word tokens (letters and digits, any
script); everything else, quotes, `*`, `-`, `NEAR`, parentheses, is a separator, and
each token is handed to the index as a quoted string, so no text can be read as
query syntax and no query can fail for its punctuation. An empty query is a usage
error; a query of punctuation alone finds nothing.

Ranking is the index's BM25 (heading words weigh twice body words). Passages with
every word come first; only when none has them all are passages with any word
returned. Each hit carries a `read_paper` cursor that starts at its passage: it is
signed by the same `CursorCodec` as `read_paper`'s own, names the paper and its
content version, and is good for the codec's lifetime. A passage at the very
start of a paper needs no cursor (`cursor` is `None`: read without one).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from pwc_local.common.cursors import (
    CursorCodec,
    CursorState,
    is_cursor_paper,
    source_for,
)
from pwc_local.common.references import shown
from pwc_local.common.shelf import RawHit, Shelf
from pwc_local.contract import CHUNK_BYTES, MAX_ROWS, SEARCH_LIBRARY_LIMIT
from pwc_local.upstream.errors import NotFound, UsageError

MAX_QUERY_CHARS = 500
MAX_WORDS = 32

_WORD = re.compile(r"\w+", re.UNICODE)
_VERSION = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class LibraryHit:
    """One passage found: where it is, what it says, and how to read on from it."""

    paper: str
    title: str
    saved: bool
    section: str
    quote: str
    offset: int
    cursor: str | None


def query_words(query: str) -> list[str]:
    """The word tokens of `query`, de-duplicated in order, at most `MAX_WORDS`."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query):
        seen.setdefault(word.casefold(), None)
    return list(seen)[:MAX_WORDS]


def search_library(
    library: Shelf,
    codec: CursorCodec | None,
    query: str,
    *,
    limit: int = SEARCH_LIBRARY_LIMIT,
    paper: str | None = None,
    now: float | None = None,
) -> list[LibraryHit]:
    """The best `limit` passages for `query`, optionally within one `paper`.

    `codec` signs the cursors (no cursors at all without one). Raises `UsageError`
    for an empty query or a bad limit, `NotFound` when `paper` names no saved or
    read paper. Blocks on the database: call it in a worker thread.
    """
    text = query.strip() if isinstance(query, str) else ""
    if not text:
        raise UsageError("query must contain at least one word")
    if len(text) > MAX_QUERY_CHARS:
        raise UsageError(f"query must be at most {MAX_QUERY_CHARS} characters")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_ROWS:
        raise UsageError(f"limit must be from 1 to {MAX_ROWS}")
    only: str | None = None
    if paper is not None and paper.strip():
        only = library.known_paper(paper.strip())
        if only is None:
            raise NotFound(
                f"Paper not found in the library: {shown(paper)}; save it with save_papers "
                "or read it with read_paper first, or search without paper"
            )
    words = query_words(text)
    if not words:
        return []
    instant = time.time() if now is None else now
    return [
        LibraryHit(
            paper=hit.paper,
            title=hit.title or hit.paper,
            saved=hit.saved,
            section=hit.heading,
            quote=hit.quote,
            offset=hit.start,
            cursor=_cursor(codec, hit, instant),
        )
        for hit in library.search(words, limit=limit, paper=only)
    ]


def _cursor(codec: CursorCodec | None, hit: RawHit, now: float) -> str | None:
    """A `read_paper` cursor at the hit's passage, when one can be made."""
    if codec is None or hit.start < 1 or not is_cursor_paper(hit.paper):
        return None
    if not _VERSION.fullmatch(hit.version):
        return None
    state = CursorState(
        ref=hit.paper,
        paper=hit.paper,
        source=source_for(hit.paper),
        version=hit.version,
        offset=hit.start,
        limit=CHUNK_BYTES,
        exp=codec.expiry_for_new_read(now),
    )
    return codec.mint(state, now=now)
