"""The catalog HTTP client: URL and query encoding, caps, redirects, typed errors."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable

import anyio
import httpx
import pytest

from pwc_local import __version__
from pwc_local.upstream.errors import (
    HTTPStatusError,
    InvalidResponse,
    PaperChanged,
    ResponseTooLarge,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnreachable,
    WrongApiBase,
)
from pwc_local.upstream.http import HttpCatalog
from pwc_local.upstream.source import encode_query, segment

BASE = "http://catalog.test/api/v1"
Handler = Callable[[httpx.Request], httpx.Response]


def run(handler: Handler, action, *, timeout: float = 5.0, max_body: int = 2 * 1024 * 1024):
    """Run `action(catalog)` against a catalog whose network is `handler`."""
    seen: list[httpx.Request] = []

    async def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        result = handler(request)
        if hasattr(result, "__await__"):
            result = await result
        # httpx reads (and decodes) an in-memory response at construction; the client
        # reads raw bytes, so hand it the response's original, unread stream.
        return httpx.Response(
            result.status_code, headers=result.headers, stream=result.stream, request=request
        )

    async def main():
        transport = httpx.MockTransport(record)
        async with HttpCatalog(
            BASE + "//", timeout=timeout, max_body_bytes=max_body, transport=transport
        ) as catalog:
            return await action(catalog)

    return anyio.run(main), seen


def test_segment_encodes_everything_but_unreserved() -> None:
    assert segment("math.GT/0309136") == "math.GT%2F0309136"
    assert segment("Image Classification") == "Image%20Classification"
    assert segment("a_b.c-d~e") == "a_b.c-d~e"


@pytest.mark.parametrize("value, encoded", [(".", "%2E"), ("..", "%2E%2E")])
def test_segment_keeps_dot_segments_literal(value: str, encoded: str) -> None:
    # httpx resolves `.` and `..` path segments, so `tasks/../x` would become `x`: a
    # caller's text must never move the request to another endpoint.
    assert segment(value) == encoded
    _, seen = run(
        lambda request: httpx.Response(200, json={}),
        lambda c: c.get_json(f"tasks/{segment(value)}/trending-benchmarks"),
    )
    assert seen[0].url.raw_path.decode() == f"/api/v1/tasks/{encoded}/trending-benchmarks"


def test_query_encoding_follows_form_rules() -> None:
    query = encode_query(
        {
            "q": 'say "hi"/there: @me',
            "page": 2,
            "flag": True,
            "off": False,
            "skip": None,
            "author": ["Kaiming He", "@yilundu"],
            "min_velocity": 0.5,
        }
    )
    assert query == (
        "q=say+%22hi%22%2Fthere%3A+%40me&page=2&flag=true&off=false"
        "&author=Kaiming+He&author=%40yilundu&min_velocity=0.5"
    )


def test_get_json_joins_base_and_sends_headers() -> None:
    document, seen = run(
        lambda request: httpx.Response(200, json={"ok": True}),
        lambda c: c.get_json("/papers/search", {"q": "x", "page": 1}),
    )
    assert document == {"ok": True}
    (request,) = seen
    assert str(request.url) == BASE + "/papers/search?q=x&page=1"
    assert request.headers["user-agent"] == f"pwc-mcp-local/{__version__}"
    assert request.headers["accept"] == "application/json, text/plain;q=0.9"
    assert "authorization" not in request.headers


def test_non_json_body_is_invalid_response() -> None:
    with pytest.raises(InvalidResponse):
        run(lambda r: httpx.Response(200, text="<html>"), lambda c: c.get_json("tasks/"))


def test_http_status_carries_bounded_detail_and_retry_after() -> None:
    body = "x" * 10_000

    with pytest.raises(HTTPStatusError) as caught:
        run(
            lambda r: httpx.Response(429, text=body, headers={"Retry-After": "17"}),
            lambda c: c.get_json("tasks/"),
        )
    assert caught.value.status == 429
    assert caught.value.retry_after == "17"
    assert len(caught.value.detail) == 4096


def test_declared_oversize_body_fails_before_reading() -> None:
    with pytest.raises(ResponseTooLarge):
        run(
            lambda r: httpx.Response(200, content=b"[" + b"1," * 200 + b"1]"),
            lambda c: c.get_json("tasks/"),
            max_body=100,
        )


def test_a_large_error_body_still_reports_its_status() -> None:
    # Only the first 4 KiB of an error body is read, so its size is no reason to fail.
    with pytest.raises(HTTPStatusError) as caught:
        run(
            lambda r: httpx.Response(503, content=b"x" * 500),
            lambda c: c.get_json("tasks/"),
            max_body=100,
        )
    assert caught.value.status == 503


def test_undeclared_oversize_stream_is_cut_off() -> None:
    produced: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        for _ in range(1000):
            produced.append(1)
            yield b"x" * 1024

    with pytest.raises(ResponseTooLarge):
        run(
            lambda r: httpx.Response(200, content=endless()),
            lambda c: c.get_json("tasks/"),
            max_body=8 * 1024,
        )
    # The client stopped pulling shortly after the cap instead of reading everything.
    assert len(produced) < 20


def test_timeout_and_connection_failures_are_typed() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(UpstreamTimeout):
        run(slow, lambda c: c.get_json("tasks/"))
    with pytest.raises(UpstreamUnreachable):
        run(refused, lambda c: c.get_json("tasks/"))


def test_overall_deadline_bounds_a_stalled_body() -> None:
    async def stalled() -> AsyncIterator[bytes]:
        yield b"["
        await anyio.Event().wait()  # never set: the peer stops sending mid-body
        yield b"]"

    with pytest.raises(UpstreamTimeout):
        run(
            lambda r: httpx.Response(200, content=stalled()), lambda c: c.get_json("x"), timeout=0.2
        )


def test_redirects_stay_on_the_same_origin() -> None:
    def same_host(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/old"):
            return httpx.Response(302, headers={"Location": "/api/v1/new"})
        return httpx.Response(200, json=[1])

    document, seen = run(same_host, lambda c: c.get_json("old"))
    assert document == [1]
    assert [r.url.path for r in seen] == ["/api/v1/old", "/api/v1/new"]

    with pytest.raises(InvalidResponse):
        run(
            lambda r: httpx.Response(302, headers={"Location": "http://evil.test/x"}),
            lambda c: c.get_json("old"),
        )


VERSION = hashlib.sha256(b"doc").hexdigest()


def chunk_response(body: bytes, truncated: bool, next_offset: int | None, version=VERSION):
    headers = {"x-pwc-content-version": version, "x-pwc-truncated": "1" if truncated else "0"}
    if next_offset is not None:
        headers["x-pwc-next-offset"] = str(next_offset)
    return httpx.Response(200, content=body, headers=headers)


def test_read_markdown_validates_and_encodes_legacy_ids() -> None:
    body = "α first".encode()
    chunk, seen = run(
        lambda r: chunk_response(body, True, 10 + len(body)),
        lambda c: c.read_markdown("math.GT/0309136", offset=10, limit=8, content_version=None),
    )
    assert chunk.text == "α first"
    assert chunk.next_offset == 18 and chunk.truncated
    assert seen[0].url.raw_path.decode() == (
        "/api/v1/research/papers/math.GT%2F0309136/read?offset=10&limit=8"
    )


def odd_offset_response(next_offset: bytes) -> httpx.Response:
    headers = [
        (b"x-pwc-content-version", VERSION.encode()),
        (b"x-pwc-truncated", b"1"),
        (b"x-pwc-next-offset", next_offset),
    ]
    return httpx.Response(200, content=b"abc", headers=headers)


@pytest.mark.parametrize(
    "response",
    [
        chunk_response(b"abc", False, None, version="ABC"),  # malformed version
        chunk_response(b"abc", True, None),  # truncated without next offset
        chunk_response(b"abc", False, 3),  # final chunk with next offset
        chunk_response(b"abc", True, 0),  # offset did not advance
        chunk_response(b"abc", True, 5),  # next offset does not match length
        chunk_response(b"\xce", False, None),  # cut inside a UTF-8 character
        odd_offset_response("\u00b2".encode("latin-1")),  # a digit, but not a decimal one
        odd_offset_response(b"9" * 5000),  # beyond what int() converts, and any offset
    ],
)
def test_read_markdown_rejects_inconsistent_chunks(response: httpx.Response) -> None:
    with pytest.raises(InvalidResponse):
        run(
            lambda r: response,
            lambda c: c.read_markdown("1706.03762", offset=0, limit=8, content_version=None),
        )


def test_read_markdown_pins_version_and_maps_409() -> None:
    other = hashlib.sha256(b"other").hexdigest()
    with pytest.raises(InvalidResponse):
        run(
            lambda r: chunk_response(b"abc", False, None, version=other),
            lambda c: c.read_markdown("1706.03762", offset=0, limit=8, content_version=VERSION),
        )
    with pytest.raises(PaperChanged):
        run(
            lambda r: httpx.Response(409, json={"detail": "changed"}),
            lambda c: c.read_markdown("1706.03762", offset=3, limit=8, content_version=VERSION),
        )


def test_a_404_from_a_base_that_is_not_the_api_is_a_wrong_setting() -> None:
    # Everything 404s (a URL without its /api/v1): the task listing, asked once, 404s too.
    with pytest.raises(WrongApiBase) as caught:
        run(lambda r: httpx.Response(404, json={"detail": "Not Found"}), lambda c: c.get_json("x"))
    message = caught.value.public_message()
    assert caught.value.code == "config_error"
    assert message.startswith("the Papers With Code catalog at http://catalog.test/api/v1 ")
    assert "PWC_API_URL setting should be the API base, ending in /api/v1" in message


def test_a_404_from_the_api_is_a_missing_record_checked_once() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/tasks/"):
            return httpx.Response(200, json={"count": 0, "results": []})
        if request.url.path.endswith("/papers/0000.00001"):  # the catalog's own word
            return httpx.Response(404, json={"detail": "No paper found"})
        return httpx.Response(404, json={"detail": "Not Found"})

    async def told(catalog: HttpCatalog) -> str:
        try:
            await catalog.get_json("papers/0000.00001")
        except UpstreamError as exc:
            return type(exc).__name__
        return "answered"

    # A 404 that names the record it misses is taken as it comes, unchecked.
    outcome, seen = run(handler, told)
    assert outcome == "HTTPNotFound" and len(seen) == 1

    async def twice(catalog: HttpCatalog) -> list[str]:
        outcomes = []
        for _ in range(2):
            try:
                await catalog.get_json("papers/0000.00000")
            except UpstreamError as exc:
                outcomes.append(type(exc).__name__)
        return outcomes

    outcomes, seen = run(handler, twice)
    assert outcomes == ["HTTPNotFound", "HTTPNotFound"]
    # The listing proved the base once; the second 404 is taken as it comes.
    assert [request.url.path for request in seen].count("/api/v1/tasks/") == 1


def test_a_failure_names_the_catalog_it_asked_and_its_setting() -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async def ask() -> None:
        transport = httpx.MockTransport(refused)
        url = "http://someone:secret@catalog.test:8080/api/v1"
        async with HttpCatalog(url, transport=transport, setting="PWC_API_URL (x)") as catalog:
            await catalog.get_json("papers/", {"q": "private words"})

    with pytest.raises(UpstreamUnreachable) as caught:
        anyio.run(ask)
    message = caught.value.public_message()
    assert "the Papers With Code catalog at http://catalog.test:8080/api/v1 could not" in message
    assert message.endswith("and PWC_API_URL (x).")
    assert "secret" not in message and "private" not in message
