"""The fake catalog's request log: what the client actually put on the wire.

Tests assert on requests rather than on internals: how many catalog calls a tool
made, which parameters it sent (catalog-api.md §1.3, §2), which User-Agent it used
(§1.4). Every request is recorded when it arrives, before any fault or route runs,
so a request that hangs on the slow fault is still visible.

Paths are kept exactly as received (still percent-encoded) and made relative to
the API base, e.g. `papers/math.GT%2F0309136` or `papers/search`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class LoggedRequest:
    """One request as the fake saw it.

    `path` is relative to `/api/v1/` and still encoded; `full_path` is the raw
    request path including the base; `query` maps each parameter to all its
    decoded values in order (repeated keys such as `author` keep every value).
    `status` is filled in once the fake has answered (None while in flight or
    when the connection was dropped).
    """

    method: str
    path: str
    full_path: str
    target: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    status: int | None = field(default=None)

    def param(self, name: str) -> str | None:
        """The first value of query parameter `name`, or None when it was not sent."""
        values = self.query.get(name)
        return values[0] if values else None

    @property
    def user_agent(self) -> str | None:
        return self.headers.get("user-agent")


class RequestLog:
    """A thread-safe, ordered, clearable list of `LoggedRequest`.

    Iterating, indexing and `len()` work on a snapshot, so a test can read the log
    while handler threads keep appending.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[LoggedRequest] = []

    def record(self, entry: LoggedRequest) -> None:
        with self._lock:
            self._entries.append(entry)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    @property
    def entries(self) -> list[LoggedRequest]:
        """A copy of every logged request, oldest first."""
        with self._lock:
            return list(self._entries)

    def __iter__(self) -> Iterator[LoggedRequest]:
        return iter(self.entries)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __getitem__(self, index: int) -> LoggedRequest:
        with self._lock:
            return self._entries[index]

    @property
    def last(self) -> LoggedRequest | None:
        with self._lock:
            return self._entries[-1] if self._entries else None

    def paths(self) -> list[str]:
        """The relative encoded paths of every request, in order."""
        return [entry.path for entry in self.entries]

    def matching(self, prefix: str = "") -> list[LoggedRequest]:
        """Requests whose relative path starts with `prefix` (a leading `/` is ignored)."""
        prefix = prefix.lstrip("/")
        return [entry for entry in self.entries if entry.path.startswith(prefix)]

    def count(self, prefix: str = "") -> int:
        """How many requests had a relative path starting with `prefix`.

        Note that `count("papers/")` also counts `papers/search`; use `count_path`
        for one exact endpoint.
        """
        return len(self.matching(prefix))

    def with_path(self, path: str) -> list[LoggedRequest]:
        """Requests to exactly this relative path (query string excluded)."""
        path = path.lstrip("/")
        return [entry for entry in self.entries if entry.path == path]

    def count_path(self, path: str) -> int:
        """How many requests went to exactly this relative path."""
        return len(self.with_path(path))
