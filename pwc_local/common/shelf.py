"""The reading library as the queries see it: its records, errors and protocol.

`pwc_local.store.library.Library` implements `Shelf`; the library's queries
(`pwc_local.queries.library`, `saving`, `library_search`) are written against the
protocol, so that they never import the store. The records are what crosses:

    SavedPaper     a paper to save, or as saved (metadata, citation, Markdown)
    LibraryEntry   a listing's row, without the Markdown
    RawHit         a passage search match, before it gets its cursor

and the error tree of a library that cannot be used:

    LibraryError          config_error       a link, loose permissions, a damaged file
    ├── LibraryReadOnly   library_read_only  a read-only mount or file, no permission
    │   └── LibraryFull   disk_full          the disk or the quota is full
    LibraryBusy           library_busy       another process holds the write lock
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pwc_local.config import ConfigError
from pwc_local.failures import CodedError
from pwc_local.safe_text import one_line

MAX_QUOTE_CHARS = 300  # a listing's title, a hit's quote, title and heading path
ELLIPSIS = "…"
STATUS_KEY = "__pwc_status__"
"""A recorded 404 is stored as `{STATUS_KEY: 404}` and replayed as `SavedMissing`."""


class LibraryError(ConfigError):
    """The library cannot be opened or written; the message says what to do about it.

    A local set-up problem, like a key file with loose permissions: tools report it
    as `config_error:` with this message. Two kinds have codes of their own, since
    they call for something else than a setting's fix:

        LibraryError          config_error       a link, loose permissions, a damaged file
        └── LibraryReadOnly   library_read_only  a read-only mount or file, no permission
            └── LibraryFull   disk_full          the disk or the quota is full
    """


class LibraryReadOnly(LibraryError):
    """The library cannot be written here (`Library.read_only` says why); it can be read.

    Listing, search and reading work; saving and removing wait until it can be written.
    """

    code = "library_read_only"


class LibraryFull(LibraryReadOnly):
    """The disk (or the user's quota) holding the library is full: free space, then save."""

    code = "disk_full"


class LibraryBusy(CodedError):
    """Another process kept the library's write lock longer than this write may wait.

    Nothing was written. Shown as `library_busy:` with the sentence below.
    """

    code = "library_busy"
    shown = True

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"the library {path} is busy: another process (a `library add`, another server) "
            "is writing to it; nothing was saved, try again in a moment"
        )


@dataclass(frozen=True)
class SavedPaper:
    """One saved paper as stored.

    `paper` is the canonical ID (arXiv ID without version, else the numeric catalog
    ID, else a DOI for a paper known only from public records). `metadata` is the
    paper detail in catalog field names; `citation` the fields a citation needs
    (`pwc_local.queries.citations.CitationFields.as_dict`). `markdown` is the
    complete document with its `content_version`, or `None` when the paper has no
    stored Markdown: one string, or its consecutive pieces in order as UTF-8 bytes
    (the chunks it was read in), which `save` stores as they are, so a long paper is
    held in memory once, in its smallest form (a `str` of text outside Latin-1 takes
    two or four bytes a character). `get` gives it back as one string. `aliases`
    are other spellings that name it (catalog ID, title).
    """

    paper: str
    title: str
    in_catalog: bool
    metadata: dict[str, Any]
    citation: dict[str, Any]
    markdown: str | Sequence[bytes] | None
    content_version: str | None
    saved_at: float = 0.0
    aliases: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class LibraryEntry:
    """A row of `entries()`: what a listing shows, without the Markdown.

    `title` is `shown_title`'s: one line of at most `MAX_QUOTE_CHARS`, so that a
    listing's size is bounded whatever the catalog's records held.
    """

    paper: str
    title: str
    in_catalog: bool
    has_markdown: bool
    size: int
    saved_at: float
    content_version: str | None = None  # set by `entry` (a refresh compares it)


@dataclass(frozen=True)
class RawHit:
    """One search match before it becomes a tool answer (cursor and all)."""

    paper: str
    title: str
    saved: bool
    version: str
    heading: str
    start: int
    quote: str
    score: float


def response_key(namespace: str, path: str, params: Mapping[str, Any] | None) -> str:
    """How a catalog request is named in `responses`: API base, path, sorted parameters.

    `params=None` names the path whatever its parameters: a saved paper's record
    is also kept under it, so a probe of `papers/<id>` without the
    `include_resources` flag finds it too.
    """
    pairs = None if params is None else sorted(params.items())
    return json.dumps([namespace, path.strip("/"), pairs], separators=(",", ":"), default=str)


def shown_title(title: str) -> str:
    """A stored title as answers show it: one line of at most `MAX_QUOTE_CHARS`."""
    return one_line(title, MAX_QUOTE_CHARS, cut=ELLIPSIS)


class Shelf(Protocol):
    """What the library's queries need of `pwc_local.store.library.Library`."""

    def check_writable(self) -> None:
        """Raise `LibraryReadOnly` (or `LibraryFull`) when nothing can be saved."""
        ...

    def count(self) -> int: ...

    def entries(self, *, offset: int = 0, limit: int | None = None) -> list[LibraryEntry]: ...

    def entry(self, reference: str) -> LibraryEntry | None: ...

    def resolve(self, reference: str) -> str | None:
        """The canonical ID a saved paper's alias names, or `None`."""
        ...

    def known_paper(self, reference: str) -> str | None:
        """The canonical ID of a saved or read paper, or `None`."""
        ...

    def save(
        self,
        paper: SavedPaper,
        responses: Mapping[str, Any] | None = None,
        *,
        replace: bool = False,
    ) -> bool: ...

    def saving(self, paper: str) -> AbstractContextManager[None]:
        """While it is open, `paper`'s chunks are not indexed as they pass."""
        ...

    def search(
        self, words: Sequence[str], *, limit: int, paper: str | None = None
    ) -> list[RawHit]: ...
