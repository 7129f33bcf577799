"""A route table behind `httpx.MockTransport`, for query-layer tests of odd catalog answers.

The loopback fake (`tests/fake_catalog`) models the catalog faithfully; this helper is
for what a faithful fake never does on its own: malformed shapes, pagination that does
not advance, pages that end early. Requests still go through the real `HttpCatalog`, so
path and query encoding are exercised too.

    result, seen = run_against({"areas/": {"results": []}}, lambda c: fetch_areas(c))
    seen[0].path, seen[0].params   # ("areas/", {"page": "1", "page_size": "500", ...})
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx

from pwc_local.catalog.http import HttpCatalog

BASE = "http://catalog.test/api/v1"
T = TypeVar("T")

# A route answers with a JSON document, an `httpx.Response`, or a function of the
# request's query parameters returning either.
Answer = Any
Route = Answer | Callable[[dict[str, str]], Answer]


@dataclass(frozen=True)
class Seen:
    """One request as the catalog received it: raw path below the base, decoded query."""

    path: str
    params: dict[str, str]


def run_against(
    routes: Mapping[str, Route], action: Callable[[HttpCatalog], Awaitable[T]]
) -> tuple[T, list[Seen]]:
    """Run `action(catalog)` with `routes` as the catalog; unknown paths answer 404."""
    seen: list[Seen] = []

    def handle(request: httpx.Request) -> httpx.Response:
        raw = request.url.raw_path.decode("ascii")
        split = urlsplit(raw)
        path = split.path.removeprefix("/api/v1/")
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        seen.append(Seen(path, params))
        route = routes.get(path)
        if route is None:
            return httpx.Response(404, json={"detail": "Not found"})
        answer = route(params) if callable(route) else route
        if isinstance(answer, httpx.Response):
            return answer
        return httpx.Response(200, content=json.dumps(answer).encode())

    async def main() -> T:
        async with HttpCatalog(BASE, transport=httpx.MockTransport(handle)) as catalog:
            return await action(catalog)

    return anyio.run(main), seen


def paged(rows: list[dict[str, Any]], *, count: int | None = None, **extra: Any) -> Route:
    """A listing route serving `rows` by `page`/`page_size`, with `count` and `next_page`."""

    def answer(params: dict[str, str]) -> dict[str, Any]:
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
