"""The one scripted catalog for unit tests: a route table behind a real `HttpCatalog`.

The loopback fake (`tests/fake_catalog`) models the catalog faithfully; this helper is
for what a faithful fake never does on its own: malformed shapes, missing filter
echoes, pagination that does not advance, outages and failures on demand, exact
request counts. Requests still go through the real `HttpCatalog` (over an
`httpx.MockTransport`), so path and query encoding and the mapping of HTTP failures
to typed errors are exercised too.

Routes are matched on the raw, still-encoded path below `/api/v1/`; unknown paths
answer 404 as for a missing record. A route answers with a JSON document, an
`httpx.Response`, an exception to raise inside the transport (`httpx.ConnectError`,
`httpx.ReadTimeout`: what the network would do), or a function of the request's
`Query` returning any of those.
`once` queues one-off answers ahead of a path's route, `fail_with` makes every
route answer the same way until it is cleared (an outage), and every request is
recorded:

    scripted = ScriptedCatalog({"areas/": {"results": []}})
    result = scripted.run(lambda catalog: fetch_areas(catalog))
    scripted.requests[0].path, scripted.requests[0].params
    # ("areas/", {"page": "1", "page_size": "500", "ordering": "name"})

In async tests use `async with scripted.client() as catalog:`; the `scripted`
fixture (conftest) gives each test an empty one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import httpx

from pwc_local.upstream.http import HttpCatalog

BASE = "http://catalog.test/api/v1"
T = TypeVar("T")


class Query(dict[str, str]):
    """A request's query: the last value of each parameter, and `all(name)` for repeats."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__(pairs)
        self.multi: dict[str, list[str]] = {}
        for key, value in pairs:
            self.multi.setdefault(key, []).append(value)

    def all(self, name: str) -> list[str]:
        return list(self.multi.get(name, []))


@dataclass(frozen=True)
class Request:
    """One request as the catalog received it: raw path below the base, decoded query.

    `params` maps each parameter to its (last) value; `multi` to all its values, in
    order, for parameters that repeat (`author=a&author=b`).
    """

    path: str
    params: dict[str, str]
    multi: dict[str, list[str]]

    def one(self, name: str) -> str | None:
        return self.params.get(name)


Route = Any  # a document, an httpx.Response, an exception, or a function of the Query


@dataclass
class ScriptedCatalog:
    """Routes by raw path, a request log, and an optional outage (`fail_with`)."""

    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    failure: Route | None = None
    queued: dict[str, list[Route]] = field(default_factory=dict)

    def on(self, path: str, answer: Route) -> ScriptedCatalog:
        """Answer `path` with `answer` (see the module docstring); returns self for chaining."""
        self.routes[path] = answer
        return self

    def once(self, path: str, *answers: Route) -> ScriptedCatalog:
        """Answer the next requests for `path` with `answers`, in order, then as routed."""
        self.queued.setdefault(path, []).extend(answers)
        return self

    def fail_with(self, answer: Route | None) -> None:
        """Answer every request with `answer` until `fail_with(None)`.

        `httpx.ConnectError("refused")` is an outage, `error(503)` a failing catalog.
        """
        self.failure = answer

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]

    def count(self, path: str) -> int:
        return sum(1 for request in self.requests if request.path == path)

    def client(self) -> HttpCatalog:
        """A real `HttpCatalog` whose network is this script (use as `async with`)."""
        return HttpCatalog(BASE, transport=httpx.MockTransport(self._handle))

    def run(self, action: Callable[[HttpCatalog], Awaitable[T]]) -> T:
        """Run `action(catalog)` to completion in a fresh event loop; return its result."""

        async def main() -> T:
            async with self.client() as catalog:
                return await action(catalog)

        return anyio.run(main)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        raw_path, _, _ = request.url.raw_path.decode("ascii").partition("?")
        path = raw_path.removeprefix("/api/v1/")
        query = Query(list(request.url.params.multi_items()))
        self.requests.append(Request(path, dict(query), query.multi))
        if self.failure is not None:
            answer = self.failure
        elif self.queued.get(path):
            answer = self.queued[path].pop(0)
        elif path in self.routes:
            answer = self.routes[path]
        else:  # the catalog's word on a missing record (a bare "Not Found" means no such path)
            return error(404, "No record at this path")
        if callable(answer) and not isinstance(answer, type):
            answer = answer(query)
        if isinstance(answer, BaseException):
            if isinstance(answer, httpx.RequestError):
                answer.request = request
            raise answer
        if isinstance(answer, httpx.Response):
            return answer
        return httpx.Response(200, content=json.dumps(answer).encode())


def run_against(
    routes: Mapping[str, Route], action: Callable[[HttpCatalog], Awaitable[T]]
) -> tuple[T, list[Request]]:
    """`action(catalog)` against a fresh script of `routes`: `(result, requests)`."""
    scripted = ScriptedCatalog(dict(routes))
    return scripted.run(action), scripted.requests


# -- answers -----------------------------------------------------------------------------


def json_response(body: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def error(status: int, detail: Any = "error", **headers: str) -> httpx.Response:
    """An error answer with a JSON `detail` (headers such as `retry_after="7"` optional)."""
    return httpx.Response(
        status,
        json={"detail": detail},
        headers={name.replace("_", "-"): value for name, value in headers.items()},
    )


def paged(rows: list[dict[str, Any]], *, count: int | None = None, **extra: Any) -> Route:
    """A listing route serving `rows` by `page`/`page_size`, with `count` and `next_page`."""

    def answer(params: Query) -> dict[str, Any]:
        page = int(params.get("page", "1"))
        size = int(params.get("page_size", "100"))
        start = (page - 1) * size
        more = start + size < len(rows)
        return {
            "count": len(rows) if count is None else count,
            "next_page": page + 1 if more else None,
            "results": rows[start : start + size],
            **extra,
        }

    return answer


def markdown_pages(text: str, params: Query, *, version: str | None = None) -> httpx.Response:
    """Serve `text` like the read route: byte offsets, version pinning, 409 on drift."""
    data = text.encode("utf-8")
    current = version or hashlib.sha256(data).hexdigest()
    asked = params.get("content_version")
    if asked is not None and asked != current:
        return error(409, "content changed")
    offset = int(params.get("offset", "0"))
    limit = int(params.get("limit", str(len(data))))
    end = min(offset + limit, len(data))
    while end < len(data) and (data[end] & 0xC0) == 0x80:
        end -= 1  # never cut inside a UTF-8 character
    headers = {"x-pwc-content-version": current, "x-pwc-truncated": "1" if end < len(data) else "0"}
    if end < len(data):
        headers["x-pwc-next-offset"] = str(end)
    return httpx.Response(200, content=data[offset:end], headers=headers)


def markdown_pieces(pieces: list[str], version: str) -> Route:
    """A read route that serves `pieces` as the chunks, whatever limit is asked for.

    For tests that need exact chunk boundaries: the chunk at each piece's byte offset
    is that piece, with the truncation headers of the read protocol; another
    `content_version` than `version` is a 409, an offset between pieces a 404.
    """
    starts: dict[int, int] = {}
    offset = 0
    for index, piece in enumerate(pieces):
        starts[offset] = index
        offset += len(piece.encode("utf-8"))

    def answer(params: Query) -> httpx.Response:
        asked = params.get("content_version")
        if asked is not None and asked != version:
            return error(409, "content changed")
        at = int(params.get("offset", "0"))
        if at not in starts:
            return error(404, "no chunk at this offset")
        index = starts[at]
        body = pieces[index].encode("utf-8")
        last = index == len(pieces) - 1
        headers = {"x-pwc-content-version": version, "x-pwc-truncated": "0" if last else "1"}
        if not last:
            headers["x-pwc-next-offset"] = str(at + len(body))
        return httpx.Response(200, content=body, headers=headers)

    return answer


def paper_row(arxiv_id: str | None, title: str, paper_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": paper_id, "arxiv_id": arxiv_id, "title": title, **extra}


def search_page(rows: list[dict], *, next_page: int | None = None, **extra: Any) -> dict:
    return {"count": len(rows), "next_page": next_page, "results": rows, **extra}
