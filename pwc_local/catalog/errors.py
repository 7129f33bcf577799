"""Typed failures of the catalog layer.

Everything the catalog layer raises on purpose is a `CatalogError`. The MCP layer
turns each class into one stable error code (`not_found:`, `upstream_timeout:` ...)
in exactly one place (`pwc_local.server.errors`); nothing here knows those codes.

Messages of `NotFound`, `Ambiguous` and `UsageError` are written for the person (or
model) who sent the request and are shown verbatim. Messages of the `UpstreamError`
family are diagnostics for logs and tests only: they are never shown to a client,
because they may carry upstream details.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class CatalogError(Exception):
    """Base class of every deliberate failure of the catalog layer."""


# -- failures of the request itself: shown to the caller ------------------------------


class NotFound(CatalogError):
    """A paper, task, method ... does not exist, or a filter was not confirmed.

    The message starts with one of the stable prefixes the hosted server uses
    (`Paper not found`, `Task not found`, `Papers API did not confirm` ...).
    """


class PaperMissing(NotFound):
    """A paper reference names nothing in the catalog (the public-fallback trigger).

    Raised for `Paper not found`, `Paper title not found` and
    `Paper URL not supported`; the public-metadata fallback keys on this class.
    """


class Ambiguous(CatalogError):
    """A title (or author) matches several records; the message lists candidates."""


class UsageError(CatalogError):
    """The arguments are invalid or contradictory (bad date, bad metric option ...)."""


class UnknownMetric(UsageError):
    """A leaderboard metric option names a metric the leaderboard does not report."""


class NoMarkdown(CatalogError):
    """The paper exists but the catalog stores no Markdown for it."""


class PaperChanged(CatalogError):
    """The paper's Markdown changed since the continuation cursor was issued."""


class CursorError(CatalogError):
    """A `read_paper` continuation cursor cannot be honoured."""


class InvalidCursor(CursorError):
    """The cursor is malformed, unsigned, signed by an unknown key or out of bounds."""


class ExpiredCursor(CursorError):
    """The cursor was valid but its lifetime has passed."""


class CursorMismatch(CursorError):
    """The cursor belongs to another paper than the one named in the request."""


# -- failures of the upstream catalog: never shown verbatim -----------------------------


class UpstreamError(CatalogError):
    """The catalog could not give a usable answer."""


class HTTPStatusError(UpstreamError):
    """The catalog answered with a non-2xx status.

    `detail` holds at most the first 4 096 bytes of the body, decoded leniently; the
    MCP layer may show a sanitised, shortened form of it for 400 and 422 only.
    """

    def __init__(self, status: int, detail: str = "", *, retry_after: str | None = None):
        super().__init__(f"catalog answered HTTP {status}")
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


class UpstreamTimeout(UpstreamError):
    """The catalog did not answer within the request timeout."""


class UpstreamUnreachable(UpstreamError):
    """The catalog could not be reached at all (connection refused, DNS failure ...)."""


class InvalidResponse(UpstreamError):
    """The catalog answered 2xx with something unusable (bad JSON, wrong shape ...)."""


class ResponseTooLarge(InvalidResponse):
    """The response body exceeded the client byte cap."""


# -- the one 404 rule ----------------------------------------------------------------


def is_missing(exc: BaseException) -> bool:
    """Whether a failure is the catalog saying "no such record" (an HTTP 404)."""
    return isinstance(exc, HTTPStatusError) and exc.status == 404


@contextmanager
def translate_404(error: NotFound) -> Iterator[None]:
    """Turn a catalog 404 raised inside the block into `error` (chained to the 404).

    Detail endpoints answer 404 for records that do not exist; callers should see the
    same stable `<Kind> not found: X` text as after a failed search, and paper lookups
    raise `PaperMissing`, which starts the public-metadata fallback.
    """
    try:
        yield
    except HTTPStatusError as exc:
        if is_missing(exc):
            raise error from exc
        raise
