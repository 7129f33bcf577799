"""Typed failures of the catalog layer, each with its stable code and public sentence.

Everything the catalog layer raises on purpose is a `CatalogError`, a
`pwc_local.failures.CodedError`: the class says which code a client sees and what
sentence follows it, and the MCP layer writes `code: sentence` from that in one
place (`pwc_local.server.errors.error_message`). The tree, with the codes:

    CatalogError                  internal_error   (a class nobody gave a code: a bug)
    ├── NotFound                  not_found        message shown as written
    │   └── PaperMissing          not_found        (starts the public-metadata fallback)
    ├── Ambiguous                 ambiguous        message shown as written
    ├── UsageError                invalid_argument message shown as written
    │   └── UnknownMetric         invalid_argument
    ├── NoMarkdown                no_markdown      fixed sentence
    ├── PaperChanged              paper_changed    fixed sentence
    ├── CursorError               invalid_cursor   fixed sentence
    │   ├── InvalidCursor         invalid_cursor
    │   ├── ExpiredCursor         expired_cursor
    │   └── CursorMismatch        cursor_mismatch
    └── UpstreamError             upstream_error   fixed sentence, class name logged
        ├── RecordMissing         not_found        "no such record" (`is_missing`)
        │   └── SavedMissing      not_found        a saved 404 the library replays offline
        ├── HTTPStatusError       upstream_error   any other status (`status`, `detail`)
        │   ├── HTTPNotFound      not_found        404 (also a `RecordMissing`)
        │   ├── WrongApiBase      config_error     404 for the task listing too: not the API
        │   ├── HTTPRejected      invalid_argument 400/422, the catalog's sanitised detail
        │   ├── HTTPRateLimited   rate_limited     429, with its Retry-After
        │   └── HTTPTimedOut      upstream_timeout a body that says it timed out (a 504 page)
        ├── UpstreamTimeout       upstream_timeout
        ├── UpstreamUnreachable   upstream_error   (the cause when known, what to check)
        └── InvalidResponse       upstream_error   an answer of the wrong shape
            ├── NotJSON           upstream_error   a body that is not JSON
            └── ResponseTooLarge  upstream_error   a body over the cap (`limit`)

`HTTPStatusError(status, detail)` builds the subclass the status means, as
`OSError(errno.ENOENT, ...)` builds a `FileNotFoundError`, so the HTTP client and
test stand-ins name only the status; code that cares about a meaning catches its
class (`RecordMissing` for "no such record", whether HTTP said it or a saved answer).

Messages of `NotFound`, `Ambiguous` and `UsageError` are written for the person (or
model) who sent the request. Messages of the others are diagnostics for logs and
tests only and are never shown: they may carry upstream details. Their public
sentences say what went wrong in our words (a status, "not JSON", the size cap) and
what to do, never a body or a request's URL. The HTTP client tells a failure which
catalog it asked (`located`): the configured API base, without credentials, and
where that setting comes from, so the sentence can name both (the request's path and
query, which may carry a search, are never shown).

Also here, because every query module needs it: the one rule that turns a catalog
404 into a not-found error (`is_missing`, `translate_404`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from pwc_local.failures import CodedError
from pwc_local.safe_text import one_line

DETAIL_LIMIT = 200
RETRY_AFTER_LIMIT = 64
_TIMEOUT_WORDS = ("timeout", "timed out")

UPSTREAM_FAILED = "the Papers With Code catalog request failed."
RETRY = "retry in a minute"
TIMED_OUT = (
    "the Papers With Code catalog did not answer in time; retry later or narrow the request."
)


class CatalogError(CodedError):
    """Base class of every deliberate failure of the catalog layer."""


# -- failures of the request itself: shown to the caller ------------------------------


class NotFound(CatalogError):
    """A paper, task, method ... does not exist, or a filter was not confirmed.

    The message starts with one of the stable prefixes the hosted server uses
    (`Paper not found`, `Task not found`, `Papers API did not confirm` ...).
    """

    code = "not_found"
    shown = True


class PaperMissing(NotFound):
    """A paper reference names nothing in the catalog (the public-fallback trigger).

    Raised for `Paper not found`, `Paper title not found` and
    `Paper URL not supported`; the public-metadata fallback keys on this class.
    """


class Ambiguous(CatalogError):
    """A title (or author) matches several records; the message lists candidates."""

    code = "ambiguous"
    shown = True


class UsageError(CatalogError):
    """The arguments are invalid or contradictory (bad date, bad metric option ...)."""

    code = "invalid_argument"
    shown = True


class UnknownMetric(UsageError):
    """A leaderboard metric option names a metric the leaderboard does not report."""


class NoMarkdown(CatalogError):
    """The paper exists but the catalog stores no Markdown for it."""

    code = "no_markdown"
    sentence = (
        "no stored Markdown is available for this paper; use get_paper_info for its "
        "metadata and links."
    )


class PaperChanged(CatalogError):
    """The paper's Markdown changed since the continuation cursor was issued."""

    code = "paper_changed"
    sentence = (
        "paper changed since the cursor was issued; restart by calling read_paper without a cursor."
    )


class CursorError(CatalogError):
    """A `read_paper` continuation cursor cannot be honoured."""

    code = "invalid_cursor"
    sentence = (
        "invalid continuation cursor; pass the exact next_cursor of the previous "
        "read_paper result, or omit cursor to start from the beginning."
    )


class InvalidCursor(CursorError):
    """The cursor is malformed, unsigned, signed by an unknown key or out of bounds."""


class ExpiredCursor(CursorError):
    """The cursor was valid but its lifetime has passed."""

    code = "expired_cursor"
    sentence = (
        "expired continuation cursor; omit cursor to read the paper again from the beginning."
    )


class CursorMismatch(CursorError):
    """The cursor belongs to another paper than the one named in the request."""

    code = "cursor_mismatch"
    sentence = (
        "the cursor belongs to a different paper; omit cursor to read this paper "
        "from the beginning."
    )


# -- failures of the upstream catalog: never shown verbatim -----------------------------


SETTING = "the PWC_API_URL setting"


class UpstreamError(CatalogError):
    """The catalog could not give a usable answer.

    `catalog` is the API base asked (shown without credentials) and `setting` where
    that base is set, both filled in by the HTTP client (`located`); unset, the
    sentences say "the Papers With Code catalog" and "the PWC_API_URL setting".
    """

    code = "upstream_error"
    sentence = UPSTREAM_FAILED
    catalog: str | None = None
    setting: str = SETTING

    def located(self, catalog: str, setting: str) -> None:
        """Name the catalog asked (its API base) and where its URL is set."""
        self.catalog, self.setting = shown_base(catalog), setting

    def catalog_name(self) -> str:
        """`the Papers With Code catalog at <base>`, or without the base when unknown."""
        where = f" at {self.catalog}" if self.catalog else ""
        return f"the Papers With Code catalog{where}"

    def diagnostic(self) -> str | None:
        return type(self).__name__


class RecordMissing(UpstreamError):
    """The catalog has no such record: its 404, or the replay of one saved earlier.

    Detail lookups translate it into their own `NotFound` (`translate_404`); one that
    no lookup translated reads `not_found: the requested catalog record does not exist.`
    """

    code = "not_found"
    sentence = "the requested catalog record does not exist."

    def diagnostic(self) -> str | None:
        return None


class SavedMissing(RecordMissing):
    """The library's replay, offline, of a 404 the catalog gave when a paper was saved.

    No HTTP request was made; it is the answer recorded then (`store.saving`).
    """

    def __init__(self) -> None:
        super().__init__("the saved answer for this request is the catalog's 404")


class HTTPStatusError(UpstreamError):
    """The catalog answered with a non-2xx status; `HTTPStatusError(status, ...)` is a subclass.

    `detail` holds at most the first 4 096 bytes of the body, decoded leniently;
    `retry_after` the Retry-After header. Constructing the base picks the class the
    status means (module docstring); a status with no class of its own (409, 5xx ...)
    stays an `HTTPStatusError`: `upstream_error`, logged with its status.
    """

    def __new__(
        cls, status: int, detail: str = "", *, retry_after: str | None = None
    ) -> HTTPStatusError:
        if cls is HTTPStatusError:
            cls = _status_class(status, detail)
        return super().__new__(cls, status, detail)

    def __init__(self, status: int, detail: str = "", *, retry_after: str | None = None):
        super().__init__(f"catalog answered HTTP {status}")
        self.status = status
        self.detail = detail
        self.retry_after = retry_after

    def public_message(self) -> str:
        """The status and whose fault it is: a 5xx is the catalog's, retried later;
        another refusal (401, 403, 409 ...) points at the catalog address."""
        if self.status >= 500:
            return (
                f"{self.catalog_name()} answered HTTP {self.status}, a failure on its "
                f"side; {RETRY}, or later if it persists."
            )
        return (
            f"{self.catalog_name()} answered HTTP {self.status}, which this client "
            f"does not expect; check {self.setting}, then {RETRY}."
        )

    def diagnostic(self) -> str | None:
        return f"{type(self).__name__} {self.status}"


class HTTPNotFound(HTTPStatusError, RecordMissing):
    """HTTP 404: no such record (a `RecordMissing`)."""

    code = "not_found"
    sentence = RecordMissing.sentence

    def public_message(self) -> str:
        return self.sentence

    def diagnostic(self) -> str | None:
        return None


class WrongApiBase(HTTPStatusError):
    """A 404 where the catalog's task listing also answers 404: the configured base is
    not the catalog's API (often a URL without its `/api/v1`), not a missing record.

    The HTTP client checks this once a process sees a 404 before any success
    (`HttpCatalog`), so a wrong URL never reads as "paper not found".
    """

    code = "config_error"

    def public_message(self) -> str:
        return (
            f"{self.catalog_name()} answered HTTP {self.status} even for its task listing, "
            f"so it is not the catalog's API; {self.setting} should be the API base, ending "
            "in /api/v1."
        )

    def diagnostic(self) -> str | None:
        return None


class HTTPRejected(HTTPStatusError):
    """HTTP 400 or 422: the catalog refused the request; its detail, sanitised, is shown."""

    code = "invalid_argument"

    def public_message(self) -> str:
        return catalog_detail(self.detail) or "the catalog rejected the request."

    def diagnostic(self) -> str | None:
        return None


class HTTPRateLimited(HTTPStatusError):
    """HTTP 429: the catalog asks us to slow down; the sentence says when to retry."""

    code = "rate_limited"

    def public_message(self) -> str:
        return (
            "the Papers With Code catalog is rate limiting requests; "
            f"retry {retry_after_text(self.retry_after)}."
        )

    def diagnostic(self) -> str | None:
        return None


class HTTPTimedOut(HTTPStatusError):
    """A non-2xx status whose body says the request timed out (a gateway's 504 page)."""

    code = "upstream_timeout"
    sentence = TIMED_OUT

    def public_message(self) -> str:
        return self.sentence

    def diagnostic(self) -> str | None:
        return None


class UpstreamTimeout(UpstreamError):
    """The catalog did not answer within the request timeout."""

    code = "upstream_timeout"
    sentence = TIMED_OUT

    def public_message(self) -> str:
        if self.catalog is None:
            return self.sentence
        return f"{self.catalog_name()} did not answer in time; retry later or narrow the request."

    def diagnostic(self) -> str | None:
        return None


class UpstreamUnreachable(UpstreamError):
    """The catalog could not be reached at all (connection refused, DNS failure ...)."""

    sentence = (
        "the Papers With Code catalog could not be reached; check the network connection "
        "and the PWC_API_URL setting."
    )

    def public_message(self) -> str:
        """The sentence, naming the precise cause (DNS, refused, TLS ...) when one is known.

        The cause is a fixed phrase from `pwc_local.upstream.causes`, never exception
        text. Imported here: the classifier needs httpx, which start-up must not load.
        """
        from pwc_local.upstream.causes import find_cause

        cause = find_cause(self)
        if cause is None:
            if self.catalog is None:
                return self.sentence
            return (
                f"{self.catalog_name()} could not be reached; check the network connection "
                f"and {self.setting}."
            )
        return (
            f"{self.catalog_name()} could not be reached ({cause.text}); check the "
            f"network connection, the proxy settings and {self.setting}."
        )

    def diagnostic(self) -> str | None:
        return None


class InvalidResponse(UpstreamError):
    """The catalog answered 2xx with something unusable (wrong shape, a bad chunk ...)."""

    sentence = (
        "the Papers With Code catalog sent an answer this client cannot use (an unexpected "
        f"shape or transfer); {RETRY}, and if it persists check the PWC_API_URL setting."
    )
    what = "sent an answer this client cannot use (an unexpected shape or transfer)"

    def public_message(self) -> str:
        if self.catalog is None:
            return self.sentence
        persists = f"and if it persists check {self.setting}"
        return f"{self.catalog_name()} {self.what}; {RETRY}, {persists}."


class NotJSON(InvalidResponse):
    """The catalog answered 2xx with a body that is not JSON (a proxy's or outage page)."""

    sentence = (
        "the Papers With Code catalog's answer was not JSON (a proxy or maintenance page, "
        f"often); {RETRY}, and if it persists check the PWC_API_URL setting."
    )
    what = "answered with something that is not JSON (a proxy or maintenance page, often)"


class ResponseTooLarge(InvalidResponse):
    """The response body exceeded the client byte cap, `limit` bytes (decoded)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"catalog response exceeds the client byte limit of {limit}")
        self.limit = limit

    def public_message(self) -> str:
        size = f"{self.limit / 1024**2:g} MiB"
        return (
            f"the Papers With Code catalog's answer was over {size}, the most this client "
            "reads; ask for less (a smaller limit, fewer options) or a narrower request."
        )


# -- reading an HTTP error ------------------------------------------------------------


def _status_class(status: int, detail: str) -> type[HTTPStatusError]:
    """The class of an HTTP failure: 404, 400/422, 429, a body saying "timeout", the rest."""
    if status == 404:
        return HTTPNotFound
    if status in (400, 422):
        return HTTPRejected
    if status == 429:
        return HTTPRateLimited
    lowered = detail.lower()
    if any(word in lowered for word in _TIMEOUT_WORDS):  # a gateway's own "504 Gateway Timeout"
        return HTTPTimedOut
    return HTTPStatusError


def catalog_detail(body: str) -> str:
    """The catalog's own explanation of a 400/422, safe to show (one line, 200 characters).

    The catalog answers `{"detail": "..."}` (or, for FastAPI validation, a list of
    `{"msg": ...}` objects); the explanation is taken from there when it parses,
    else from the raw body text.
    """
    text = body
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        document = None
    if isinstance(document, dict):
        detail = document.get("detail")
        if isinstance(detail, str):
            text = detail
        elif isinstance(detail, list):
            messages = [item.get("msg") for item in detail if isinstance(item, dict)]
            text = "; ".join(msg for msg in messages if isinstance(msg, str)) or body
    return one_line(text, DETAIL_LIMIT, fold=False)


def retry_after_text(value: str | None) -> str:
    """When to retry: the catalog's Retry-After (seconds or an HTTP date), else "later"."""
    value = one_line(value or "", RETRY_AFTER_LIMIT, fold=False)
    if value.isascii() and value.isdigit():  # str.isdigit() also accepts "²", which int() refuses
        seconds = int(value)
        return f"after {seconds} second" if seconds == 1 else f"after {seconds} seconds"
    return f"after {value}" if value else "later"


def shown_base(url: str) -> str:
    """An API base as a message may show it: scheme, host, port and path, never a
    user name or password."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return one_line(url, DETAIL_LIMIT, fold=False)
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    return one_line(f"{parts.scheme}://{host}{port}{parts.path}", DETAIL_LIMIT, fold=False)


# -- the one 404 rule ----------------------------------------------------------------


def is_missing(exc: BaseException) -> bool:
    """Whether a failure is the catalog saying "no such record" (a 404, or its saved replay)."""
    return isinstance(exc, RecordMissing)


@contextmanager
def translate_404(error: NotFound) -> Iterator[None]:
    """Turn a catalog 404 (or its saved replay) raised in the block into `error`, chained.

    Detail endpoints answer 404 for records that do not exist; callers should see the
    same stable `<Kind> not found: X` text as after a failed search, and paper lookups
    raise `PaperMissing`, which starts the public-metadata fallback. A 404 that no
    block translates reaches the client as `not_found: the requested catalog record
    does not exist.`
    """
    try:
        yield
    except RecordMissing as exc:
        raise error from exc
