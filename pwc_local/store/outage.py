"""Outage memory: after the catalog failed to answer, wait on it briefly, and notice its return.

Without it, every call during an outage pays the full request timeout (25 s by
default) before a stale answer or an error comes back, again and again. A refusal
window (no request at all for a minute) was tried before and measured worse: it
turned a 25 s stall into a minute of refusals after the network had returned.
So, per process:

* A connection failure or a timeout (`UpstreamUnreachable`, `UpstreamTimeout`)
  opens an outage. The call that found it waited as long as it had to; the ones
  after it do not:
* **Cached**: the caching catalog above asks `answer_from_cache()` and, during an
  outage, serves the expired entry at once, labelled stale, without a request.
* **Uncached**: the request still goes to the catalog, but within the short
  `budget` (1 s by default, the `outage_budget` setting; connect and answer
  together). An answer is returned as usual; no answer within the budget raises
  `CatalogUnavailable`, which says since when the catalog has been unreachable,
  that nothing is cached for this request, and what still works. The budget lasts
  only as long as the outage: once another request gets an answer, the ones still
  waiting wait as usual. A burst of fresh connections right after the catalog's
  return can take a second or more each (a lost first packet is sent again after
  1 s), and cutting them would report a catalog just seen answering as unreachable.
* **Probe**: while calls keep coming (cached or not), one background request at a
  time (`PROBE_PATH`, the cheapest listing, with the normal timeout) checks
  whether the catalog is back, at most every `PROBE_INTERVAL` (5 s). It carries no
  query and logs nothing of its own.
* Any answer from the catalog (a success, but also a 404 or a 500: the catalog was
  reachable), to a request or to the probe, ends the outage for every later call;
  so a cached request gets a fresh answer again within about 5 s of the catalog's
  return, and an uncached one at once. A request cancelled before it finished
  decides nothing.

So during a lasting outage no call but the first waits more than the budget, and
none waits for the full timeout twice in a row. The state lives on the event loop
(the guard is only used there); the probe is a task of that loop, cancelled by
`aclose()` at shutdown, so it never outlives the server or keeps it alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timezone
from typing import TypeVar

import anyio

from pwc_local.config import DEFAULT_OUTAGE_BUDGET
from pwc_local.contract import CHUNK_BYTES
from pwc_local.upstream.errors import UpstreamTimeout, UpstreamUnreachable
from pwc_local.upstream.source import (
    PROBE_PARAMS,
    PROBE_PATH,
    Accept,
    CatalogSource,
    MarkdownChunk,
    QueryValue,
    as_is,
)

T = TypeVar("T")

PROBE_INTERVAL = 5.0


class CatalogUnavailable(UpstreamUnreachable):
    """No answer within the outage budget. `public_message()` is safe to show.

    It contains only times and settings the server itself knows, never upstream text.
    """

    def __init__(self, since: float, budget: float) -> None:
        self.since = since
        self._text = (
            f"the Papers With Code catalog could not be reached (unreachable since "
            f"{_clock(since)}; no answer within {budget:g} s this time) and nothing is "
            "cached for this request. Saved papers and cached answers keep working "
            "meanwhile, and the next call asks the catalog again."
        )
        super().__init__("catalog in a remembered outage; no answer within the budget")

    def public_message(self) -> str:
        """Since when, nothing cached, what works: only what this process recorded."""
        return self._text


def is_unreachable(exc: BaseException) -> bool:
    """Whether a failure means no answer came (refused, reset, timed out)."""
    return isinstance(exc, UpstreamUnreachable | UpstreamTimeout)


class OutageGuard:
    """A `CatalogSource` in front of the live catalog that remembers outages (module docstring).

    `clock` paces the probe (monotonic); `wall` gives the times shown to people.
    """

    def __init__(
        self,
        upstream: CatalogSource,
        *,
        budget: float = DEFAULT_OUTAGE_BUDGET,
        probe_interval: float = PROBE_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.upstream = upstream
        self.budget = budget
        self.probe_interval = probe_interval
        self._clock = clock
        self._wall = wall
        self._since: float | None = None  # wall time the outage began
        self._next_probe = 0.0  # clock time from which the next probe may go
        self._probe: asyncio.Task[None] | None = None
        # The budgets of requests in flight, lifted when the outage ends (`_ended`).
        self._budgeted: set[anyio.CancelScope] = set()

    @property
    def namespace(self) -> str:
        return self.upstream.namespace

    @property
    def in_outage(self) -> bool:
        return self._since is not None

    def answer_from_cache(self) -> bool:
        """Whether a caller holding an expired entry should serve it now, without asking.

        True during an outage; the call also lets the probe go if one is due.
        """
        if self._since is None:
            return False
        self._probe_soon()
        return True

    async def aclose(self) -> None:
        probe, self._probe = self._probe, None
        if probe is not None and not probe.done() and _on_this_loop(probe):
            probe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await probe
        await self.upstream.aclose()

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Accept[T]
    ) -> T:
        return await self._ask(lambda: self.upstream.get_json(path, params, accept=accept))

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        return await self._ask(
            lambda: self.upstream.read_markdown(
                paper, offset=offset, limit=limit, content_version=content_version
            )
        )

    async def whole_markdown_cached(self, paper: str, *, limit: int = CHUNK_BYTES) -> bool:
        return await self.upstream.whole_markdown_cached(paper, limit=limit)

    async def _ask(self, request: Callable[[], Awaitable[T]]) -> T:
        since = self._since
        if since is None:
            try:
                answer = await request()
            except Exception as exc:
                if is_unreachable(exc):
                    self._began()
                else:
                    self._ended()  # began meanwhile, yet this request got an answer
                raise
            self._ended()
            return answer
        self._probe_soon()
        budget = anyio.CancelScope(deadline=anyio.current_time() + self.budget)
        self._budgeted.add(budget)
        try:
            with budget:
                answer = await request()
        except Exception as exc:
            if self._since is None:  # the outage ended meanwhile: an ordinary failure
                if is_unreachable(exc):
                    self._began()
                raise
            if is_unreachable(exc):
                raise CatalogUnavailable(since, self.budget) from None
            self._ended()  # an error status is an answer: the catalog is there
            raise
        finally:
            self._budgeted.discard(budget)
        if budget.cancelled_caught:
            raise CatalogUnavailable(since, self.budget)
        self._ended()
        return answer

    def no_answer(self) -> None:
        """The catalog let a caller's own budget pass unanswered (a completion's listing,
        cancelled): the outage begins as a timed-out request would begin it."""
        self._began()

    def _began(self) -> None:
        if self._since is None:
            self._since = self._wall()
            # The failed request was the first check; the probe comes one interval later.
            self._next_probe = self._clock() + self.probe_interval

    def _ended(self) -> None:
        """The catalog answered: later calls ask it as usual, and the requests still
        waiting under the budget wait as any request does (the client's timeout)."""
        self._since = None
        for budget in self._budgeted:
            budget.deadline = math.inf

    def _probe_soon(self) -> None:
        """Start the background probe if none is out and the last began an interval ago."""
        if self._probe is not None and not self._probe.done() and _on_this_loop(self._probe):
            return
        now = self._clock()
        if now < self._next_probe:
            return
        self._next_probe = now + self.probe_interval
        self._probe = asyncio.get_running_loop().create_task(self._run_probe())

    async def _run_probe(self) -> None:
        try:
            await self.upstream.get_json(PROBE_PATH, PROBE_PARAMS, accept=as_is)
        except Exception as exc:
            if is_unreachable(exc):
                return  # still down; the next call after the interval probes again
        self._ended()


def _on_this_loop(task: asyncio.Task[None]) -> bool:
    """Whether `task` belongs to the running loop (a test may run several loops in turn)."""
    try:
        return task.get_loop() is asyncio.get_running_loop()
    except RuntimeError:
        return False


def _clock(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%H:%M:%S UTC")
