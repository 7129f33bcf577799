"""End to end: the reading library through the installed server, online and then with no network.

Scenario (issue 8, item 6): save three papers (one outside the catalog, one over
200 KiB) with `save_papers`, clear the cache, refuse connections, then in a new
server process read each completely, byte for byte, find a passage in each with
`search_library` and read on from the hit's cursor. Plus: `tools=hosted` lists
exactly the 21 hosted tools, an unknown tool name stops start-up, and a stalled
catalog is waited on once, not for every call.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import pytest

from pwc_local.contract import names
from tests.fake_catalog import big_document
from tests.installed import InstalledServer, call, error_of, facts, read_through

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SMALL = "1706.03762"
OUTSIDE = "1301.3781"  # known only from public metadata
BIG = "1911.02116"  # over 200 KiB
# One query per paper, for a passage past the paper's first bytes.
PASSAGES = {SMALL: "softmax subspaces", OUTSIDE: "syntactic regularities", BIG: "1500"}


def joined(chunks: list[dict[str, Any]]) -> bytes:
    return "".join(chunk["markdown"] for chunk in chunks).encode("utf-8")


async def read_on(session: Any, paper: str, cursor: str) -> bytes:
    chunks = [await call(session, "read_paper", paper=paper, cursor=cursor)]
    while chunks[-1].get("next_cursor"):
        chunks.append(
            await call(session, "read_paper", paper=paper, cursor=chunks[-1]["next_cursor"])
        )
    return joined(chunks)


def test_saved_papers_are_read_whole_and_searched_with_no_network(
    fake_catalog: Any, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    online: dict[str, bytes] = {}
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done: float, total: float | None, _message: str | None) -> None:
        progress.append((done, total))

    async def scenario() -> None:
        async with home.session() as first:
            result = await first.call_tool(
                "save_papers", {"papers": [SMALL, OUTSIDE, BIG]}, progress_callback=on_progress
            )
            assert not result.is_error, result.content
            saved = result.structured_content or {}
            assert saved["saved"] == 3 and saved["failed"] == 0
            by_paper = {row["paper"]: row for row in saved["results"]}
            assert by_paper[OUTSIDE]["in_catalog"] is False
            assert by_paper[BIG]["markdown_bytes"] > 200 * 1024
            again = await call(
                first, "save_papers", papers=[f"arXiv:{SMALL}".replace("arXiv:", "")]
            )
            assert again["already_saved"] == 1
            for paper in (SMALL, OUTSIDE, BIG):
                online[paper] = joined(await read_through(first, paper))
        assert online[BIG] == big_document().encode()
        assert progress and progress[-1] == (3, 3)

        cleared = home.command("cache", "clear")
        assert cleared.returncode == 0, cleared.stderr
        fake_catalog.stop()  # connections refused from here on
        requests = len(fake_catalog.requests)

        async with home.session() as offline:
            listed = await offline.call_tool("list_library", {})
            links = {item.uri for item in listed.content if item.type == "resource_link"}
            # The cache is gone; the library alone says which Markdown resolves.
            assert f"pwc://papers/{SMALL}/markdown" in {str(uri) for uri in links}
            assert f"pwc://papers/{BIG}/markdown" not in {str(uri) for uri in links}
            listing = await call(offline, "list_library")
            assert sorted(row["paper"] for row in listing["results"]) == sorted(online)
            for paper, expected in online.items():
                assert joined(await read_through(offline, paper)) == expected, paper
                info = await call(offline, "get_paper_info", paper=paper)
                assert info["title"]
                found = await call(offline, "search_library", query=PASSAGES[paper], paper=paper)
                hit = found["results"][0]
                assert hit["paper"] == paper and hit["saved"] and "**" in hit["quote"]
                assert hit["cursor"], hit
                rest = await read_on(offline, paper, hit["cursor"])
                assert expected.endswith(rest) and len(rest) < len(expected)
            resource = await offline.read_resource(f"pwc://papers/{SMALL}/markdown")
            assert resource.contents[0].text.encode() == online[SMALL]
            record = await offline.read_resource(f"pwc://papers/{OUTSIDE}")
            assert "Efficient Estimation" in record.contents[0].text
            everywhere = await call(offline, "search_library", query='"softmax" OR -NEAR(*')
            assert everywhere["results"][0]["paper"] == SMALL
            empty = await error_of(offline, "search_library", query="  ")
            assert "invalid_argument:" in empty
            missing = await error_of(offline, "read_paper", paper="2401.00001")
            assert "upstream_error:" in missing
        assert len(fake_catalog.requests) == requests

    anyio.run(scenario)


def listing_in_process(tools: str) -> list[dict[str, Any]]:
    """The `tools/list` answer of a server built in this process for the `tools` setting
    (as the value of PWC_MCP_LOCAL_TOOLS); the tests below see the setting through the
    installed server too."""
    from pwc_local.config import Settings, parse_tools
    from pwc_local.server.app import build_server

    server = build_server(Settings(tools=parse_tools(tools)))
    listed = anyio.run(server.list_tools)
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed]


def test_tools_setting_hosted_lists_exactly_the_21(installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    base = dict(home.env)

    async def listed(env: dict[str, str]) -> list[dict[str, Any]]:
        home.env = env
        async with home.session() as session:
            tools = (await session.list_tools()).tools
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]

    every = listing_in_process("all")  # the default: every e2e module's server lists it
    hosted = anyio.run(listed, {**base, "PWC_MCP_LOCAL_TOOLS": "hosted"})
    chosen = anyio.run(listed, {**base, "PWC_MCP_LOCAL_TOOLS": "read_paper, search_library"})
    assert [t["name"] for t in hosted] == list(names("hosted")) and len(hosted) == 21
    assert [t["name"] for t in chosen] == ["read_paper", "search_library"]
    library_tools = [t for t in every if t["name"] in names("library")]
    assert [t["name"] for t in library_tools] == ["save_papers", "list_library", "search_library"]
    added = sum(len(json.dumps(t, separators=(",", ":"))) for t in library_tools)
    assert added <= 6000, added
    save = next(t for t in library_tools if t["name"] == "save_papers")
    assert save["annotations"].get("readOnlyHint", False) is False  # MCP's default: left out
    assert save["annotations"]["idempotentHint"] is True
    assert save["annotations"]["destructiveHint"] is False

    home.env = {**base, "PATH": "/usr/bin:/bin", "PWC_MCP_LOCAL_TOOLS": "read_paper,no_such_tool"}
    refused = home.command(timeout=60)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert len(refused.stderr.strip().splitlines()) == 1 and "no_such_tool" in refused.stderr


def test_a_stalled_catalog_is_waited_on_once(
    fake_catalog: Any, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="2")

    async def scenario() -> None:
        async with home.session() as session:
            task = await call(session, "get_task", task="object-detection")
            fake_catalog.faults.slow()  # accepts connections, never answers
            first = await error_of(session, "get_method", method="transformer")
            assert "upstream_timeout:" in first
            assert fake_catalog.faults.wait_until_blocked(1, timeout=1)
            # The outage is remembered: the next uncached call waits the short budget
            # (1 s), not the 2 s timeout, and says so.
            started = time.monotonic()
            second = await error_of(session, "get_paper_info", paper="2312.00752")
            assert time.monotonic() - started < 2
            assert "upstream_error:" in second and "unreachable since" in second
            assert "nothing is cached for this request" in second and "within 1 s" in second
            requests = len(fake_catalog.requests)
            cached = await call(session, "get_task", task="object-detection")
            assert facts(cached) == facts(task)
            assert len(fake_catalog.requests) == requests
        fake_catalog.faults.reset()

    anyio.run(scenario)


FORMS = (
    "1706.03762v7",
    "arXiv:1706.03762",
    "https://arxiv.org/abs/1706.03762",
    "https://arxiv.org/pdf/1706.03762v5.pdf",
    "https://huggingface.co/papers/1706.03762",
    "https://paperswithcode.co/paper/1706.03762",
    "755",
    "  attention IS all you NEED ",
)


@pytest.mark.parametrize("saved", [False, True], ids=["cached", "saved"])
def test_every_spelling_of_a_known_paper_works_offline(
    fake_catalog: Any, saved: bool, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")

    async def scenario() -> None:
        async with home.session() as first:
            if saved:
                await call(first, "save_papers", papers=[SMALL])
            else:  # only read: what the cache and the index of read papers hold
                await call(first, "get_paper_info", paper=SMALL)
                await call(first, "get_paper_evaluations", paper=SMALL)
                searched = await call(first, "search_papers", query="attention transformer")
            online = await call(first, "read_paper", paper=SMALL)
        if saved:
            assert home.command("cache", "clear").returncode == 0
        fake_catalog.stop()
        async with home.session() as offline:
            for form in FORMS:
                info = await call(offline, "get_paper_info", paper=form)
                assert info["title"] == "Attention Is All You Need", form
                read = await call(offline, "read_paper", paper=form)
                assert read["markdown"] == online["markdown"], form
                if not saved:
                    evaluations = await call(offline, "get_paper_evaluations", paper=form)
                    assert evaluations["evaluations"], form
            if not saved:  # the same search in another case and spacing
                again = await call(offline, "search_papers", query="  Attention   TRANSFORMER ")
                assert again["papers"] == searched["papers"] and again["papers"]

    anyio.run(scenario)
