"""End to end: completions from everything the server answered about, and never stalled.

The installed `pwc-mcp-local` over stdio (the SDK's client) against the loopback
fake. What a tool answer showed (a paper's ID and title, a task, its benchmarks)
is offered by `completion/complete` afterwards: offline (connections refused),
after a restart, saved papers first. With the catalog stalled, a completion
answers with the local names within its short budget, and the outage memory then
knows: the next uncached call does not wait for the request timeout. `cache clear`
forgets the names with the answers; saved papers stay.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp_types import PromptReference, ResourceTemplateReference

from tests.installed import InstalledServer, call

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.anyio]

ATTENTION = "1706.03762"
RESNET = "1512.03385"  # "Deep Residual Learning for Image Recognition"
PAPERS = ResourceTemplateReference(uri="pwc://papers/{paper}", type="ref/resource")
MARKDOWN = ResourceTemplateReference(uri="pwc://papers/{paper}/markdown", type="ref/resource")
TASKS = ResourceTemplateReference(uri="pwc://tasks/{task}", type="ref/resource")
BENCHMARKS = ResourceTemplateReference(uri="pwc://benchmarks/{benchmark}", type="ref/resource")
SURVEY = PromptReference(name="survey_task", type="ref/prompt")
LEADERBOARD = PromptReference(name="compare_leaderboard", type="ref/prompt")


@pytest.fixture
def home(installed_server: InstalledServer) -> InstalledServer:
    """The installed server against this test's fake, with a 20 s timeout: far above 1 s."""
    return installed_server.set(PWC_MCP_LOCAL_TIMEOUT="20")


async def complete(session: ClientSession, ref: Any, name: str, value: str) -> list[str]:
    result = await session.complete(ref, {"name": name, "value": value})
    return result.completion.values


async def test_an_answered_paper_completes_by_id_and_title_offline_and_after_restart(
    home: InstalledServer, fake_catalog: Any
) -> None:
    async with home.session() as session:
        await call(session, "get_paper_info", paper=ATTENTION)
        fake_catalog.faults.refuse_connections()
        for ref in (PAPERS, MARKDOWN):
            assert ATTENTION in await complete(session, ref, "paper", "1706")
            assert ATTENTION in await complete(session, ref, "paper", "atten")
    async with home.session("--log-level", "debug") as session:  # a new process, offline
        assert await complete(session, PAPERS, "paper", "1706") == [ATTENTION]
        assert ATTENTION in await complete(session, PAPERS, "paper", "Attention is a")
    logged = home.log.read_text(encoding="utf-8")
    assert "1706" not in logged and "Attention" not in logged  # names are never logged


async def test_saved_papers_come_first(home: InstalledServer, fake_catalog: Any) -> None:
    async with home.session() as session:
        await call(session, "save_papers", papers=[RESNET])
        await call(session, "get_paper_info", paper=ATTENTION)  # seen after the save
        fake_catalog.faults.refuse_connections()
        values = await complete(session, PAPERS, "paper", "1")
    assert values[:2] == [RESNET, ATTENTION]


async def test_a_task_answer_teaches_its_task_and_benchmarks(
    home: InstalledServer, fake_catalog: Any
) -> None:
    async with home.session() as session:
        await call(session, "get_task", task="image-classification")
        fake_catalog.faults.refuse_connections()
        assert "image-classification" in await complete(session, TASKS, "task", "imag")
        assert "Image Classification" in await complete(session, SURVEY, "task", "classif")
        assert "imagenet-1k" in await complete(session, BENCHMARKS, "benchmark", "imagenet")
        assert "CIFAR-10" in await complete(session, LEADERBOARD, "benchmark", "ci")


async def test_a_stalled_catalog_costs_a_completion_its_short_budget_and_then_nothing(
    home: InstalledServer, fake_catalog: Any
) -> None:
    async with home.session() as session:
        await call(session, "get_task", task="image-classification")
        fake_catalog.faults.slow()  # every request is held, unanswered
        started = time.monotonic()
        values = await complete(session, SURVEY, "task", "Image")
        waited = time.monotonic() - started
        assert fake_catalog.faults.wait_until_blocked(timeout=0)  # it did ask the catalog
        assert "Image Classification" in values
        assert waited < 4, waited  # the 1 s budget, with slack; the timeout is 20 s
        # The outage memory learnt from it: an uncached call does not wait 20 s.
        started = time.monotonic()
        result = await session.call_tool("get_method", {"method": "transformer"})
        assert result.is_error
        assert time.monotonic() - started < 8


async def test_cache_clear_forgets_the_names_answers_showed_but_not_saved_papers(
    home: InstalledServer, fake_catalog: Any
) -> None:
    async with home.session() as session:
        await call(session, "save_papers", papers=[RESNET])
        await call(session, "get_paper_info", paper=ATTENTION)
    cleared = home.command("cache", "clear", timeout=60)
    assert cleared.returncode == 0, cleared.stderr
    fake_catalog.faults.refuse_connections()
    async with home.session() as session:
        assert await complete(session, PAPERS, "paper", "1") == [RESNET]
