"""Outage memory: after the catalog failed to answer, stop waiting on it for a while.

Without it, every call during an outage pays the full request timeout (25 s by
default) before a stale answer or an error comes back, again and again. With it:

* A connection failure or a timeout (`UpstreamUnreachable`, `UpstreamTimeout`)
  opens an outage. For the next `HOLD_SECONDS` (60 s) no request goes to the
  catalog at all: `OutageMemory.ticket()` returns `None`, and `OutageGuard` raises
  `CatalogUnavailable` at once. The caching catalog above treats that like any
  unreachable catalog: a cached answer comes back immediately, labelled stale;
  with nothing cached the call fails at once, and the error says since when the
  catalog has been unreachable, that nothing is cached for this request, and when
  it will be tried again.
* After the hold, exactly one request at a time is let through as a probe; the
  others keep failing fast meanwhile. A probe that fails again holds off for
  another `HOLD_SECONDS`.
* Any answer from the catalog (a success, but also a 404 or a 500: the catalog was
  reachable) ends the outage for every later call. A probe cancelled before it
  finished decides nothing and frees the probe slot.

So during an outage at most one call per minute waits for the timeout, and never
two in a row. The state is per process (each server process finds out for itself)
and guarded by a plain lock: it is touched for a few microseconds per request,
never across an `await`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TypeVar

from pwc_local.catalog.errors import UpstreamTimeout, UpstreamUnreachable
from pwc_local.catalog.http import Accept, CatalogSource, MarkdownChunk, QueryValue

T = TypeVar("T")

HOLD_SECONDS = 60.0


class CatalogUnavailable(UpstreamUnreachable):
    """Not asked: the catalog is in a remembered outage. `public_message()` is safe to show.

    It contains only times the server itself recorded, never upstream text.
    """

    def __init__(self, since: float, retry_at: float, now: float) -> None:
        self.since = since
        self.retry_at = retry_at
        wait = max(0, round(retry_at - now))
        self._text = (
            f"the Papers With Code catalog could not be reached (unreachable since "
            f"{_clock(since)}) and nothing is cached for this request; it will be tried "
            f"again after {_clock(retry_at)} (in {wait} s). Saved papers and cached "
            "answers keep working meanwhile."
        )
        super().__init__("catalog in a remembered outage; not asked")

    def public_message(self) -> str:
        """Since when, nothing cached, when again: only times this process recorded."""
        return self._text


@dataclass
class Ticket:
    """Permission for one request; report how it ended with `finish`."""

    memory: OutageMemory
    probe: bool
    _done: bool = False

    def finish(self, error: BaseException | None = None) -> None:
        """Record the request's end: `None` for an answer, else the exception it raised."""
        if self._done:
            return
        self._done = True
        self.memory._finished(self, error)


class OutageMemory:
    """Whether to ask the catalog now (see the module docstring).

    `clock` measures the hold (monotonic); `wall` gives the times shown to people.
    """

    def __init__(
        self,
        *,
        hold: float = HOLD_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.hold = hold
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._since: float | None = None  # wall time the outage began
        self._retry_at = 0.0  # clock time from which a probe may go
        self._probing = False

    @property
    def in_outage(self) -> bool:
        with self._lock:
            return self._since is not None

    def ticket(self) -> Ticket | None:
        """A ticket to ask the catalog, or `None` when this request must not wait on it."""
        with self._lock:
            if self._since is None:
                return Ticket(self, probe=False)
            if self._probing or self._clock() < self._retry_at:
                return None
            self._probing = True
            return Ticket(self, probe=True)

    def unavailable(self) -> CatalogUnavailable:
        """The error for a request that was not let through."""
        with self._lock:
            since = self._since if self._since is not None else self._wall()
            now_clock, now_wall = self._clock(), self._wall()
            retry_wall = now_wall + max(0.0, self._retry_at - now_clock)
        return CatalogUnavailable(since, retry_wall, now_wall)

    def _finished(self, ticket: Ticket, error: BaseException | None) -> None:
        with self._lock:
            if ticket.probe:
                self._probing = False
            if error is None:
                self._since = None  # the catalog answered: the outage is over
                return
            if not isinstance(error, Exception) or isinstance(error, CatalogUnavailable):
                return  # cancelled, or never sent: decides nothing
            if isinstance(error, UpstreamUnreachable | UpstreamTimeout):
                if self._since is None:
                    self._since = self._wall()
                self._retry_at = self._clock() + self.hold
                return
            self._since = None  # any other failure is an answer: the catalog is there


class OutageGuard:
    """A `CatalogSource` in front of the live catalog that consults an `OutageMemory`."""

    def __init__(self, upstream: CatalogSource, memory: OutageMemory | None = None) -> None:
        self.upstream = upstream
        self.memory = memory or OutageMemory()

    async def aclose(self) -> None:
        close = getattr(self.upstream, "aclose", None)
        if close is not None:
            await close()

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T:
        ticket = self._ticket()
        try:
            document = await self.upstream.get_json(path, params, accept=accept)
        except BaseException as exc:
            ticket.finish(exc)
            raise
        ticket.finish()
        return document

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        ticket = self._ticket()
        try:
            chunk = await self.upstream.read_markdown(
                paper, offset=offset, limit=limit, content_version=content_version
            )
        except BaseException as exc:
            ticket.finish(exc)
            raise
        ticket.finish()
        return chunk

    def _ticket(self) -> Ticket:
        ticket = self.memory.ticket()
        if ticket is None:
            raise self.memory.unavailable()
        return ticket


def _clock(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%H:%M:%S UTC")
