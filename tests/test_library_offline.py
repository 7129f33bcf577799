"""Saved papers through the real catalog stack (in process): fetched once, then no network.

The runtime is built as the server builds it (library -> cache -> outage guard ->
HTTP) against the loopback fake; the fake is then stopped, so every connection
is refused, and the cache is emptied, so only the library can answer.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

from pwc_local.config import load_settings
from pwc_local.queries.library_search import search_library
from pwc_local.queries.saving import ALREADY, SAVED, save_paper
from pwc_local.runtime import Runtime, build_runtime
from pwc_local.server.errors import error_message
from pwc_local.server.tools import call_query
from pwc_local.store.cache import DiskCache
from tests.fake_catalog import BIG_MARKDOWN_ARXIV_ID, NO_MARKDOWN_ARXIV_ID, big_document

# The query functions, called as a tools/call calls them: the contract table's defaults.
paper_info_or_public = partial(call_query, "get_paper_info")
read_paper = partial(call_query, "read_paper")

SMALL = "1706.03762"
OUTSIDE = "1301.3781"  # public record only: not in the catalog
PAPERS = (SMALL, OUTSIDE, BIG_MARKDOWN_ARXIV_ID)


@pytest.fixture
def runtime_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("PWC_MCP_CURSOR_KEY_CURRENT", raising=False)

    def build(api_url: str) -> Runtime:
        settings = load_settings(
            {"api_url": api_url, "timeout": 3, "cache_dir": str(tmp_path / "cache")}, environ={}
        )
        return build_runtime(settings)

    return build


async def whole(runtime: Runtime, paper: str, cursor: str | None = None) -> tuple[str, Any]:
    codec = runtime.cursor_codec()
    result = await read_paper(runtime.catalog, codec, paper=paper, cursor=cursor)
    pieces = [result.markdown]
    while result.next_cursor:
        result = await read_paper(runtime.catalog, codec, paper=paper, cursor=result.next_cursor)
        pieces.append(result.markdown)
    return "".join(pieces), result


def test_saved_papers_are_read_found_and_described_with_no_network(
    runtime_for: Any, fake_catalog: Any, tmp_path: Path
) -> None:
    async def scenario() -> None:
        runtime = runtime_for(fake_catalog.api_url)
        assert runtime.library is not None
        online: dict[str, str] = {}
        for paper in (*PAPERS, NO_MARKDOWN_ARXIV_ID):
            outcome = await save_paper(
                runtime.catalog, runtime.library, paper, namespace=runtime.settings.api_url
            )
            assert outcome.status == SAVED, outcome.error
        for paper in PAPERS:
            online[paper] = (await whole(runtime, paper))[0]
        assert online[BIG_MARKDOWN_ARXIV_ID] == big_document()
        again = await save_paper(
            runtime.catalog, runtime.library, SMALL, namespace=runtime.settings.api_url
        )
        assert again.status == ALREADY
        await runtime.aclose()

        fake_catalog.stop()
        DiskCache(tmp_path / "cache").clear()
        requests = len(fake_catalog.requests)
        offline = runtime_for(fake_catalog.api_url)
        try:
            for paper in PAPERS:
                text, last = await whole(offline, paper)
                assert text.encode() == online[paper].encode(), paper
                assert last.in_catalog is (paper != OUTSIDE)
                info = await paper_info_or_public(offline.catalog, paper=paper)
                assert info.paper["title"] and info.in_catalog is (paper != OUTSIDE)
            # A passage deep in the big paper, then reading on from its cursor.
            assert offline.library is not None
            codec = offline.cursor_codec()
            [hit] = search_library(
                offline.library, codec, "| 1500 | (row)", limit=1, paper=BIG_MARKDOWN_ARXIV_ID
            )
            assert hit.saved and hit.cursor and hit.offset > 3 * 65536
            assert "**1500**" in hit.quote and hit.section.startswith("Appendix C")
            rest, _ = await whole(offline, BIG_MARKDOWN_ARXIV_ID, hit.cursor)
            assert rest.encode() == big_document().encode()[hit.offset :]
            with pytest.raises(Exception) as caught:
                await read_paper(offline.catalog, codec, paper=NO_MARKDOWN_ARXIV_ID)
            assert error_message(caught.value).startswith("no_markdown:")
            with pytest.raises(Exception) as caught:
                await read_paper(offline.catalog, codec, paper="2401.00001")
            assert error_message(caught.value).startswith("upstream_error:")
        finally:
            await offline.aclose()
        assert len(fake_catalog.requests) == requests

    anyio.run(scenario)


DOI = "10.1038/nature14539"  # a public (Crossref) record only


@pytest.mark.parametrize("saved", [True, False], ids=["saved", "unsaved"])
def test_a_doi_paper_read_with_another_papers_cursor_is_a_mismatch(
    runtime_for: Any, fake_catalog: Any, saved: bool
) -> None:
    async def scenario() -> None:
        runtime = runtime_for(fake_catalog.api_url)
        assert runtime.library is not None
        try:
            if saved:
                outcome = await save_paper(
                    runtime.catalog, runtime.library, DOI, namespace=runtime.settings.api_url
                )
                assert outcome.status == SAVED, outcome.error
            codec = runtime.cursor_codec()
            first = await read_paper(runtime.catalog, codec, paper=BIG_MARKDOWN_ARXIV_ID)
            with pytest.raises(Exception) as caught:
                await read_paper(runtime.catalog, codec, paper=DOI, cursor=first.next_cursor)
            assert error_message(caught.value).startswith("cursor_mismatch:")
        finally:
            await runtime.aclose()

    anyio.run(scenario)
