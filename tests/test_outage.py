"""Outage memory: one timeout, then fast failures and stale answers, one probe, recovery."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from pwc_local.catalog.errors import HTTPStatusError, UpstreamTimeout, UpstreamUnreachable
from pwc_local.catalog.http import MarkdownChunk, QueryValue, as_is
from pwc_local.store.outage import CatalogUnavailable, OutageGuard, OutageMemory


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Upstream:
    """A catalog whose next answers a test scripts: an exception to raise, or a document."""

    def __init__(self) -> None:
        self.calls = 0
        self.failure: BaseException | None = None
        self.gate: anyio.Event | None = None

    async def get_json(
        self, path: str, params: Mapping[str, QueryValue] | None = None, *, accept: Any = None
    ) -> Any:
        self.calls += 1
        if self.gate is not None:
            await self.gate.wait()
        if self.failure is not None:
            raise self.failure
        return accept({"path": path})

    async def read_markdown(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> MarkdownChunk:
        self.calls += 1
        if self.failure is not None:
            raise self.failure
        return MarkdownChunk("text", "0" * 64, False, None)


def guard() -> tuple[OutageGuard, Upstream, Clock]:
    clock = Clock()
    upstream = Upstream()
    memory = OutageMemory(hold=60.0, clock=clock, wall=lambda: 1_800_000_000.0 + clock.now)
    return OutageGuard(upstream, memory), upstream, clock


@pytest.mark.parametrize("failure", [UpstreamTimeout("t"), UpstreamUnreachable("u")])
def test_after_one_failure_nothing_is_asked_until_the_hold_ends(failure: Exception) -> None:
    source, upstream, clock = guard()
    upstream.failure = failure

    async def scenario() -> None:
        with pytest.raises(type(failure)):
            await source.get_json("papers/1", accept=as_is)
        assert source.memory.in_outage
        for _ in range(3):
            with pytest.raises(CatalogUnavailable) as caught:
                await source.read_markdown("1", offset=0, limit=10, content_version=None)
        assert upstream.calls == 1
        message = caught.value.public_message()
        assert "unreachable since" in message and "nothing is cached" in message
        assert "in 60 s" in message
        assert isinstance(caught.value, UpstreamUnreachable)  # stale entries still cover it
        clock.now += 59
        with pytest.raises(CatalogUnavailable):
            await source.get_json("papers/1", accept=as_is)
        clock.now += 2
        with pytest.raises(type(failure)):
            await source.get_json("papers/1", accept=as_is)  # the probe, which fails again
        assert upstream.calls == 2
        with pytest.raises(CatalogUnavailable):
            await source.get_json("papers/1", accept=as_is)  # held off for another minute
        clock.now += 61
        upstream.failure = None
        assert await source.get_json("papers/2", accept=as_is) == {"path": "papers/2"}
        assert not source.memory.in_outage
        assert await source.get_json("papers/3", accept=as_is) == {"path": "papers/3"}

    anyio.run(scenario)


def test_only_one_probe_at_a_time() -> None:
    source, upstream, clock = guard()
    upstream.failure = UpstreamUnreachable("down")

    async def scenario() -> None:
        with pytest.raises(UpstreamUnreachable):
            await source.get_json("a", accept=as_is)
        clock.now += 61
        upstream.failure = None
        upstream.gate = anyio.Event()
        results: list[Any] = []

        async def probe() -> None:
            results.append(await source.get_json("probe", accept=as_is))

        async with anyio.create_task_group() as group:
            group.start_soon(probe)
            await anyio.wait_all_tasks_blocked()
            with pytest.raises(CatalogUnavailable):
                await source.get_json("other", accept=as_is)  # the probe is still out
            upstream.gate.set()
        assert results == [{"path": "probe"}]
        assert await source.get_json("after", accept=as_is) == {"path": "after"}

    anyio.run(scenario)


def test_any_answer_ends_the_outage_and_a_cancelled_probe_frees_the_slot() -> None:
    memory = OutageMemory(hold=60.0, clock=Clock())
    first = memory.ticket()
    assert first is not None and not first.probe
    first.finish(UpstreamTimeout("slow"))
    assert memory.ticket() is None
    memory._clock.now += 61  # type: ignore[attr-defined]
    probe = memory.ticket()
    assert probe is not None and probe.probe
    probe.finish(asyncio.CancelledError())
    assert memory.in_outage
    again = memory.ticket()
    assert again is not None and again.probe
    again.finish(HTTPStatusError(404))  # the catalog answered, if only with a 404
    assert not memory.in_outage
