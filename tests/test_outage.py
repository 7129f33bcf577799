"""Outage memory: a short budget for uncached calls, one background probe, recovery at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from pwc_local.store.outage import PROBE_PATH, CatalogUnavailable, OutageGuard
from pwc_local.upstream.errors import HTTPStatusError, UpstreamTimeout, UpstreamUnreachable
from pwc_local.upstream.source import MarkdownChunk, QueryValue, as_is


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Upstream:
    """A catalog whose answers a test scripts: an exception to raise, or a document.

    `stall` makes every request wait until `released` is set, as a catalog that accepts
    connections and never answers.
    """

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.failure: BaseException | None = None
        self.stall = False
        self.stalled_path: str | None = None  # stall only this path
        self.released = anyio.Event()
        self.probed = anyio.Event()
        self.closed = False

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Any = None
    ) -> Any:
        self.paths.append(path)
        if path == PROBE_PATH:
            self.probed.set()
        if self.stall or path == self.stalled_path:
            await self.released.wait()
        if self.failure is not None:
            raise self.failure
        return accept({"path": path})

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        self.paths.append(f"read {paper}")
        if self.failure is not None:
            raise self.failure
        return MarkdownChunk("text", "0" * 64, False, None)

    async def whole_markdown_cached(self, paper: str, *, limit: int = 65536) -> bool:
        return False

    async def aclose(self) -> None:
        self.closed = True


def guard(budget: float = 0.2) -> tuple[OutageGuard, Upstream, Clock]:
    clock = Clock()
    upstream = Upstream()
    source = OutageGuard(
        upstream, budget=budget, clock=clock, wall=lambda: 1_800_000_000.0 + clock.now
    )
    return source, upstream, clock


async def into_outage(source: OutageGuard, upstream: Upstream) -> None:
    """The first request meets a refused connection: the outage begins."""
    upstream.failure = UpstreamUnreachable("down")
    with pytest.raises(UpstreamUnreachable):
        await source.get_json("a", accept=as_is)
    assert source.in_outage


@pytest.mark.parametrize("failure", [UpstreamTimeout("t"), UpstreamUnreachable("u")])
def test_uncached_calls_keep_asking_and_the_first_answer_ends_the_outage(
    failure: Exception,
) -> None:
    source, upstream, _ = guard()
    upstream.failure = failure

    async def scenario() -> None:
        with pytest.raises(type(failure)):
            await source.get_json("papers/1", accept=as_is)
        assert source.in_outage
        with pytest.raises(CatalogUnavailable) as caught:
            await source.read_markdown("1", offset=0, limit=10, content_version=None)
        assert upstream.paths == ["papers/1", "read 1"]  # asked, not refused
        message = caught.value.public_message()
        assert "unreachable since" in message and "nothing is cached" in message
        assert "within 0.2 s" in message and "keep working" in message
        assert isinstance(caught.value, UpstreamUnreachable)  # stale entries still cover it
        upstream.failure = None  # the catalog is back: the very next call answers
        assert await source.get_json("papers/2", accept=as_is) == {"path": "papers/2"}
        assert not source.in_outage
        await source.aclose()

    anyio.run(scenario)


def test_during_a_stall_an_uncached_call_fails_within_the_budget() -> None:
    source, upstream, _ = guard(budget=0.2)
    upstream.failure = UpstreamTimeout("the first call waited the whole timeout")

    async def scenario() -> None:
        with pytest.raises(UpstreamTimeout):
            await source.get_json("a", accept=as_is)
        upstream.failure, upstream.stall = None, True
        with anyio.fail_after(5):  # "does not hang"; the budget itself is 0.2 s
            with pytest.raises(CatalogUnavailable):
                await source.get_json("b", accept=as_is)
        assert source.in_outage
        upstream.released.set()
        await source.aclose()

    anyio.run(scenario)


def test_an_answer_to_another_request_lifts_the_budget_of_the_ones_still_waiting() -> None:
    # Right after the catalog's return, a fresh connection may take a second (a lost
    # SYN is resent after 1 s) while the look's other requests are answered at once.
    source, upstream, _ = guard(budget=0.2)

    async def scenario() -> None:
        await into_outage(source, upstream)
        upstream.failure, upstream.stalled_path = None, "slow"
        answers: list[Any] = []

        async def slow() -> None:
            answers.append(await source.get_json("slow", accept=as_is))

        with anyio.fail_after(5):
            async with anyio.create_task_group() as group:
                group.start_soon(slow)
                await anyio.wait_all_tasks_blocked()  # the slow request is out, budgeted
                assert await source.get_json("fast", accept=as_is) == {"path": "fast"}
                assert not source.in_outage
                await anyio.sleep(0.4)  # twice the budget: it would have been cut by now
                upstream.released.set()
        assert answers == [{"path": "slow"}]

    anyio.run(scenario)


def test_an_error_status_is_an_answer_and_ends_the_outage() -> None:
    source, upstream, _ = guard()

    async def scenario() -> None:
        await into_outage(source, upstream)
        upstream.failure = HTTPStatusError(404)
        with pytest.raises(HTTPStatusError):
            await source.get_json("b", accept=as_is)
        assert not source.in_outage

    anyio.run(scenario)


def test_one_probe_at_a_time_paced_by_the_interval_and_its_answer_ends_the_outage() -> None:
    source, upstream, clock = guard()

    async def scenario() -> None:
        await into_outage(source, upstream)
        assert source.answer_from_cache()  # a cached call: served stale, no request ...
        assert upstream.paths == ["a"]  # ... and no probe within the interval
        clock.now += 5
        upstream.failure, upstream.stall = None, True
        assert source.answer_from_cache()
        with anyio.fail_after(5):
            await upstream.probed.wait()
        clock.now += 5
        assert source.answer_from_cache()  # the probe is still out: no second one
        await anyio.wait_all_tasks_blocked()
        assert upstream.paths.count(PROBE_PATH) == 1
        upstream.released.set()
        with anyio.fail_after(5):
            while source.in_outage:
                await anyio.sleep(0.01)  # polling with a bound, until the probe reports
        assert not source.answer_from_cache()
        await source.aclose()

    anyio.run(scenario)


def test_a_failed_probe_keeps_the_outage_and_aclose_cancels_one_in_flight() -> None:
    source, upstream, clock = guard()

    async def scenario() -> None:
        await into_outage(source, upstream)
        clock.now += 5
        source.answer_from_cache()
        with anyio.fail_after(5):
            await upstream.probed.wait()
        await anyio.wait_all_tasks_blocked()
        assert source.in_outage  # the probe was refused too
        upstream.probed = anyio.Event()
        upstream.failure, upstream.stall = None, True
        clock.now += 5
        source.answer_from_cache()
        with anyio.fail_after(5):
            await upstream.probed.wait()
        probe = source._probe
        assert probe is not None and not probe.done()
        with anyio.fail_after(5):
            await source.aclose()  # does not wait for the stalled probe
        assert probe.cancelled()
        assert upstream.closed  # closing the guard closes the source below it
        assert source.in_outage  # a cancelled probe decided nothing

    anyio.run(scenario)


def test_the_budget_is_a_setting_with_bounds() -> None:
    from pwc_local.config import ConfigError, load_settings

    assert load_settings(environ={}).outage_budget == 1.0
    env = {"PWC_MCP_LOCAL_OUTAGE_BUDGET": "0.5"}
    assert load_settings(environ=env).outage_budget == 0.5
    for bad in ("0", "61", "soon"):
        with pytest.raises(ConfigError, match="outage_budget"):
            load_settings(environ={"PWC_MCP_LOCAL_OUTAGE_BUDGET": bad})


def test_the_guard_answers_what_the_catalog_below_it_says_about_itself() -> None:
    """`namespace` and `whole_markdown_cached` are asked of the source below (the protocol's)."""
    from pwc_local.upstream.http import HttpCatalog

    async def scenario() -> None:
        async with HttpCatalog("http://catalog.test/api/v1/") as http:
            guard = OutageGuard(http, budget=0.5)
            assert guard.namespace == http.namespace == "http://catalog.test/api/v1"
            assert await guard.whole_markdown_cached("1706.03762") is False  # HTTP keeps nothing

    anyio.run(scenario)
