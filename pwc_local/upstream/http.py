"""The one module that speaks HTTP to the catalog.

`HttpCatalog` sends read-only `GET` requests below the configured API base and
returns parsed JSON or validated Markdown chunks. It owns every transport rule of
the catalog contract: URL joining (paths and queries encoded by `source.segment` and
`source.encode_query`), headers, the per-request timeout, the streamed body cap and
the redirect policy. Failures leave it as the typed errors of
`pwc_local.upstream.errors`, never as httpx exceptions.

The query layer talks to the `CatalogSource` protocol (`pwc_local.upstream.source`,
which also says how a request's shape check works) rather than to this class, so a
caching source can stand in front of it without the queries noticing.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, overload
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import httpx

from pwc_local import __version__
from pwc_local.config import DEFAULT_API_URL, DEFAULT_TIMEOUT
from pwc_local.contract import CHUNK_BYTES
from pwc_local.upstream.bodies import ACCEPT_ENCODING, BodyReader, content_codings
from pwc_local.upstream.causes import Cause, classify
from pwc_local.upstream.documents import OFF_LOOP_BYTES, page_size, parse_document
from pwc_local.upstream.errors import (
    SETTING,
    HTTPStatusError,
    InvalidResponse,
    PaperChanged,
    ResponseTooLarge,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnreachable,
    WrongApiBase,
)
from pwc_local.upstream.source import (
    PROBE_PARAMS,
    PROBE_PATH,
    Accept,
    MarkdownChunk,
    QueryValue,
    as_is,
    encode_query,
    segment,
)

MAX_BODY_BYTES = 2 * 1024 * 1024
ERROR_DETAIL_BYTES = 4096
MAX_REDIRECTS = 5
USER_AGENT = f"pwc-mcp-local/{__version__}"
ACCEPT = "application/json, text/plain;q=0.9"

logger = logging.getLogger(__name__)

T = TypeVar("T")

_CONTENT_VERSION = re.compile(r"[0-9a-f]{64}")
_MAX_COUNT_DIGITS = 19  # a 64-bit count; longer digit strings all mean "too many"


def tls_verification(base_url: str) -> ssl.SSLContext | bool:
    """How the client checks TLS certificates for a catalog at `base_url` (httpx `verify=`).

    * A plain-http catalog never speaks TLS (redirects stay on the same origin), so
      no certificates are loaded at all: `False`, which costs nothing, where the
      default would parse ~150 CA certificates on every start. Not so when an
      https proxy is configured for http traffic; then the rules below apply.
    * `SSL_CERT_FILE` / `SSL_CERT_DIR` set: `True`, and httpx uses them.
    * Otherwise the operating system's trust store (`truststore`), so a catalog
      behind corporate TLS inspection, whose CA is installed system-wide, works.
    * Without `truststore` installed: `True`, httpx's default (certifi's bundle).
    """
    if urlsplit(base_url).scheme.lower() == "http" and not _https_proxy_for_http():
        return False
    if os.environ.get("SSL_CERT_FILE") or os.environ.get("SSL_CERT_DIR"):
        return True
    try:
        import truststore
    except ImportError:
        return True
    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _https_proxy_for_http() -> bool:
    names = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
    return any(os.environ.get(name, "").lower().startswith("https:") for name in names)


@dataclass(frozen=True)
class _Response:
    status: int
    headers: httpx.Headers
    body: bytes


class HttpCatalog:
    """The live catalog over httpx.

    Every failure it raises names the API base it asked and `setting`, where that base
    is set (`UpstreamError.located`). A 404 before any answer proved the base right is
    checked once with the cheapest listing (`PROBE_PATH`): a base that answers 404 to
    that too is not the catalog's API (`WrongApiBase`), so a URL without its `/api/v1`
    never reads as "paper not found".

    `transport` exists for tests that want to replace the network with an
    `httpx.MockTransport`; production code leaves it unset.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_API_URL,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_body_bytes: int = MAX_BODY_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
        setting: str = SETTING,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_body_bytes = max_body_bytes
        self.setting = setting
        self._base_confirmed = False  # an answer proved the base is the catalog's API
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            headers={"Accept": ACCEPT, "User-Agent": USER_AGENT},
            transport=transport,
            trust_env=True,
            verify=tls_verification(self.base_url) if transport is None else True,
        )

    @property
    def namespace(self) -> str:
        return self.base_url

    def for_call(self, freshness: object) -> HttpCatalog:
        """Its own view for every tool call: it never serves an expired answer."""
        return self

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> HttpCatalog:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def url_for(self, path: str, params: Mapping[str, QueryValue] | None = None) -> str:
        """Join the API base, one slash, the relative path and the query string."""
        url = f"{self.base_url}/{path.lstrip('/')}"
        query = encode_query(params)
        return f"{url}?{query}" if query else url

    @overload
    async def get_json(self, path: str, params: Mapping[str, QueryValue] | None = None) -> Any: ...

    @overload
    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T: ...

    async def get_json(
        self,
        path: str,
        params: Mapping[str, QueryValue] | None = None,
        *,
        accept: Accept[Any] = as_is,
    ) -> Any:
        """The parsed document passed through `accept` (see `CatalogSource`).

        Parsing cuts rows to the page size asked for and bounds nesting (see
        `pwc_local.upstream.documents`); a large body is parsed in a worker thread.
        """
        try:
            response = await self._get(self.url_for(path, params))
            if response.status >= 300:
                raise await self._status_error(response, probe=path == PROBE_PATH)
            parse = functools.partial(parse_document, response.body, max_rows=page_size(params))
            if len(response.body) > OFF_LOOP_BYTES:
                document = await anyio.to_thread.run_sync(parse)
            else:
                document = parse()
            self._base_confirmed = True
            return accept(document)
        except UpstreamError as exc:
            exc.located(self.base_url, self.setting)
            raise

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        params: dict[str, QueryValue] = {
            "offset": offset,
            "limit": limit,
            "content_version": content_version,
        }
        url = self.url_for(f"research/papers/{segment(paper)}/read", params)
        try:
            response = await self._get(url)
            if response.status == 409 and content_version is not None:
                raise PaperChanged("the paper's Markdown changed since the cursor was issued")
            if response.status >= 300:
                raise await self._status_error(response)
            chunk = _validate_chunk(response, offset=offset, requested_version=content_version)
        except UpstreamError as exc:
            exc.located(self.base_url, self.setting)
            raise
        self._base_confirmed = True
        return chunk

    async def _status_error(self, response: _Response, *, probe: bool = False) -> HTTPStatusError:
        """The error a non-2xx answer means. A 404 that names no record (a web server's
        own "Not Found", not the catalog's "No paper found") while the base is unproven
        is checked with the task listing (`probe`: this was that listing)."""
        error = _status_error(response)
        if response.status != 404 or self._base_confirmed or not _names_no_record(error.detail):
            return error
        if not probe:
            try:
                listing = await self._get(self.url_for(PROBE_PATH, PROBE_PARAMS))
            except UpstreamError:
                return error  # unknown: the 404 stands as it came
            if listing.status != 404:
                self._base_confirmed = 200 <= listing.status < 300
                return error
        return WrongApiBase(404, error.detail)

    async def whole_markdown_cached(self, paper: str, *, limit: int = CHUNK_BYTES) -> bool:
        """Never: this client keeps nothing (the caching source above does)."""
        return False

    async def _get(self, url: str) -> _Response:
        """GET with the body cap enforced while streaming; same-origin redirects only."""
        origin = _origin(url)
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._send(url)
            location = response.headers.get("location")
            if response.status not in (301, 302, 303, 307, 308) or not location:
                return response
            url = str(httpx.URL(url).join(location))
            if _origin(url) != origin:
                raise InvalidResponse("catalog redirected to another host")
        raise InvalidResponse("catalog redirected too many times")

    async def _send(self, url: str) -> _Response:
        # httpx bounds each phase; the outer deadline also bounds a slow trickle of bytes.
        try:
            with anyio.fail_after(self.timeout):
                return await self._stream(url)
        except TimeoutError as exc:
            logger.warning("catalog request failed: no answer within %g s", self.timeout)
            raise UpstreamTimeout(f"catalog request timed out after {self.timeout:g} s") from exc

    async def _stream(self, url: str) -> _Response:
        """One GET, its body read raw and decoded within the cap (`catalog.bodies`)."""
        try:
            headers = {"Accept-Encoding": ACCEPT_ENCODING}
            async with self._client.stream("GET", url, headers=headers) as response:
                success = response.is_success
                declared = _byte_count(response.headers.get("content-length"))
                if success and declared is not None and declared > self.max_body_bytes:
                    raise ResponseTooLarge(self.max_body_bytes)
                # An error body is only read for its detail, so its size does not matter.
                limit = self.max_body_bytes if success else ERROR_DETAIL_BYTES
                if response.is_stream_consumed:
                    # An in-memory response from a custom transport (tests): httpx has
                    # already read and decoded it, so only the cap is left to apply.
                    reader = BodyReader((), limit=limit, strict=success)
                    reader.feed(response.content)
                else:
                    reader = BodyReader(
                        content_codings(response.headers), limit=limit, strict=success
                    )
                    async for piece in response.aiter_raw():
                        if reader.feed(piece):
                            break
                return _Response(response.status_code, response.headers, reader.finish())
        except httpx.TimeoutException as exc:
            cause = _logged_cause(exc)
            raise UpstreamTimeout(f"catalog request timed out: {cause.text}") from exc
        except (httpx.ConnectError, httpx.NetworkError, httpx.UnsupportedProtocol) as exc:
            cause = _logged_cause(exc)
            raise UpstreamUnreachable(f"catalog unreachable: {cause.text}") from exc
        except httpx.HTTPError as exc:
            cause = _logged_cause(exc)
            raise InvalidResponse(f"catalog transport failed: {cause.text}") from exc


def _logged_cause(exc: BaseException) -> Cause:
    """The failure's cause, logged once at warning level (never the URL's query)."""
    cause = classify(exc)
    logger.warning("catalog request failed: %s", cause.text)
    return cause


def _names_no_record(body: str) -> bool:
    """Whether a 404's body is a web server's own (an unknown path: `{"detail": "Not
    Found"}`, a page) rather than the catalog's word on a record (`No paper found`)."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return True
    detail = document.get("detail") if isinstance(document, dict) else None
    return not isinstance(detail, str) or detail.strip().lower() == "not found"


def _byte_count(header: str | None) -> int | None:
    """A byte-count header as a number, or `None` when absent or not plain ASCII digits.

    `str.isdigit` also accepts `²`, which `int` refuses, and `int` refuses thousands of
    digits; a count longer than a 64-bit one reads as 2**63, more than anything holds.
    """
    if header is None or not header.isascii() or not header.isdigit():
        return None
    return int(header) if len(header) <= _MAX_COUNT_DIGITS else 2**63


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _status_error(response: _Response) -> HTTPStatusError:
    detail = response.body[:ERROR_DETAIL_BYTES].decode("utf-8", errors="replace")
    return HTTPStatusError(response.status, detail, retry_after=response.headers.get("retry-after"))


def _validate_chunk(
    response: _Response, *, offset: int, requested_version: str | None
) -> MarkdownChunk:
    """Apply the chunk rules of the read protocol; any breach is an invalid response."""
    headers = response.headers
    version = headers.get("x-pwc-content-version", "")
    if not _CONTENT_VERSION.fullmatch(version):
        raise InvalidResponse("chunk has a missing or malformed content version")
    if requested_version is not None and version != requested_version:
        raise InvalidResponse("chunk content version differs from the requested one")
    truncated_header = headers.get("x-pwc-truncated")
    if truncated_header not in ("0", "1"):
        raise InvalidResponse("chunk has a missing or malformed truncation flag")
    truncated = truncated_header == "1"
    next_header = headers.get("x-pwc-next-offset")
    next_offset: int | None = None
    if truncated:
        next_offset = _byte_count(next_header)
        if next_offset is None:
            raise InvalidResponse("truncated chunk has no valid next offset")
        if next_offset <= offset:
            raise InvalidResponse("chunk offset did not advance")
        if next_offset - offset != len(response.body):
            raise InvalidResponse("chunk next offset does not match its length")
    elif next_header is not None:
        raise InvalidResponse("final chunk carries a next offset")
    try:
        text = response.body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidResponse("chunk is not valid UTF-8") from exc
    return MarkdownChunk(
        text=text, content_version=version, truncated=truncated, next_offset=next_offset
    )
