"""A scripted catalog behind a real `HttpCatalog`, for edge cases of the paper commands.

Tests register answers per path (the raw, still-encoded path below `/api/v1/`);
every request is recorded with its decoded query so tests can assert what was sent
and how many requests a command cost. The loopback fake covers realistic data; this
covers answers the fake would never give (missing echoes, odd shapes, exact counts).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from pwc_local.catalog.http import HttpCatalog

BASE = "http://catalog.invalid/api/v1"

Params = dict[str, list[str]]
Responder = Callable[[Params], httpx.Response]


@dataclass
class Request:
    path: str
    params: Params

    def one(self, name: str) -> str | None:
        values = self.params.get(name)
        return values[0] if values else None


def json_response(body: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def error(status: int, detail: Any = "error") -> httpx.Response:
    return httpx.Response(status, json={"detail": detail})


def markdown_pages(text: str, params: Params, *, version: str | None = None) -> httpx.Response:
    """Serve `text` like the read route: byte offsets, version pinning, 409 on drift."""
    data = text.encode("utf-8")
    current = version or hashlib.sha256(data).hexdigest()
    asked = params.get("content_version", [None])[0]
    if asked is not None and asked != current:
        return error(409, "content changed")
    offset = int(params.get("offset", ["0"])[0])
    limit = int(params.get("limit", [str(len(data))])[0])
    end = min(offset + limit, len(data))
    while end < len(data) and (data[end] & 0xC0) == 0x80:
        end -= 1  # never cut inside a UTF-8 character
    headers = {"x-pwc-content-version": current, "x-pwc-truncated": "1" if end < len(data) else "0"}
    if end < len(data):
        headers["x-pwc-next-offset"] = str(end)
    return httpx.Response(200, content=data[offset:end], headers=headers)


@dataclass
class ScriptedCatalog:
    """Routes are matched on the exact raw path; unknown paths answer 404."""

    routes: dict[str, Responder] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)

    def on(self, path: str, responder: Responder | Any) -> None:
        """Answer `path` with a callable of the query, or a constant JSON body."""
        if callable(responder):
            self.routes[path] = responder
        else:
            self.routes[path] = lambda _params, body=responder: json_response(body)

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]

    def count(self, path: str) -> int:
        return sum(1 for request in self.requests if request.path == path)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        raw = request.url.raw_path.decode("ascii").split("?", 1)[0]
        path = raw.removeprefix("/api/v1/")
        params: Params = {}
        for key, value in request.url.params.multi_items():
            params.setdefault(key, []).append(value)
        self.requests.append(Request(path, params))
        responder = self.routes.get(path)
        if responder is None:
            return error(404, "No paper found")
        return responder(params)

    def client(self) -> HttpCatalog:
        return HttpCatalog(BASE, transport=httpx.MockTransport(self._handle))


def paper_row(arxiv_id: str | None, title: str, paper_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": paper_id, "arxiv_id": arxiv_id, "title": title, **extra}


def search_page(rows: list[dict], *, next_page: int | None = None, **extra: Any) -> dict:
    return {"count": len(rows), "next_page": next_page, "results": rows, **extra}
