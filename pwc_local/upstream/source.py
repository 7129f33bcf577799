"""What every layer asks of a catalog source, without the HTTP client's weight.

`CatalogSource` is the protocol of the source chain (library -> cache -> outage guard
-> `HttpCatalog`); `MarkdownChunk`, `Accept` (a shape check) and `QueryValue` are the
types it speaks, and `segment` / `encode_query` the catalog's path and query
encoding, which the queries and the caching layers use to name requests. No httpx
here, so the queries, the stores and the tool layer import it without the client's
weight.

Every JSON request names its shape check: `get_json(path, params, accept=check)`
returns `check(document)`, where `check` returns the value the caller wants (the row
list, the record) or raises `InvalidResponse`. The check runs where the document is
fetched, so a caching source can store an answer only once it proved usable
(`pwc_local.store.cached_catalog`), with nothing deferred to the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar
from urllib.parse import quote, urlencode

from pwc_local.contract import CHUNK_BYTES

QueryValue = str | int | float | bool | None | Sequence[str | int | float]

T = TypeVar("T")
Accept = Callable[[Any], T]
"""A shape check: the parsed document in, the caller's value out, or `InvalidResponse`."""

# The cheapest request that proves an API base is the catalog's: one task row. The
# outage probe, `doctor` and the HTTP client's check of a 404 (`HttpCatalog`) send it.
PROBE_PATH = "tasks/"
PROBE_PARAMS: Mapping[str, QueryValue] = {"page": 1, "page_size": 1}


def as_is(document: Any) -> Any:
    """The check that accepts any parsed JSON (for callers that only probe a path)."""
    return document


def segment(value: str) -> str:
    """Percent-encode one path segment: everything but letters, digits and `_.-~`.

    A legacy arXiv ID keeps its dot and loses its slash (`math.GT/0309136` becomes
    `math.GT%2F0309136`); a task name keeps nothing else (`Image%20Classification`).
    A segment that is only `.` or `..` has its dots encoded too: httpx would resolve
    it, sending `tasks/../trending-benchmarks` to another endpoint.
    """
    if value in (".", ".."):
        return value.replace(".", "%2E")
    return quote(value, safe="")


def encode_query(params: Mapping[str, QueryValue] | None) -> str:
    """Form-encode a parameter mapping the way the catalog expects.

    `None` drops the parameter, booleans become `true`/`false`, sequences repeat the
    key once per element, everything else is its decimal or text form.
    """
    if not params:
        return ""
    pairs: list[tuple[str, str]] = []
    for key, value in params.items():
        if value is None:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            pairs.append((key, _query_text(item)))
    return urlencode(pairs)


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class MarkdownChunk:
    """One validated piece of a paper's stored Markdown.

    `next_offset` is the byte offset of the following chunk, or `None` when this
    chunk reaches the end of the document (`truncated` is then false).
    """

    text: str
    content_version: str
    truncated: bool
    next_offset: int | None


class CatalogSource(Protocol):
    """What the layers above need from the catalog, and all they may ask of a source.

    JSON documents and Markdown chunks; which catalog answers; whether a paper's
    whole Markdown is kept on this machine.

    Each source in the chain (library -> cache -> outage guard -> HTTP) implements
    every member, answering itself or asking the source below, so no caller needs
    to know how deep the chain is.
    """

    @property
    def namespace(self) -> str:
        """Which catalog answers: its API base URL.

        Keys of answers kept on this machine begin with it, so pointing the server
        at another catalog never serves the first one's.
        """
        ...

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T:
        """Fetch `path` (relative to the API base, already encoded) and return `accept(json)`.

        `accept` raises `InvalidResponse` for a document of the wrong shape; a caching
        source stores nothing in that case.
        """
        ...

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        """Read `limit` bytes of a paper's Markdown at byte `offset`."""
        ...

    async def whole_markdown_cached(self, paper: str, *, limit: int = CHUNK_BYTES) -> bool:
        """Whether `paper`'s whole Markdown is kept on this machine, within one read of
        `limit` bytes, so `pwc://papers/{paper}/markdown` resolves without a request.

        No request is made; a source that keeps nothing asks the one below it.
        """
        ...

    async def aclose(self) -> None:
        """Close what this source holds (a client, a cache) and the sources below it.

        A per-call view, or a source that holds nothing, has nothing to close.
        """
        ...
