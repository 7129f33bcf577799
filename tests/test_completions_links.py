"""Completions and resource links, in process: ranking, robustness, bounds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from pwc_local.config import Settings
from pwc_local.runtime import LazyRuntime, Runtime
from pwc_local.server.completions import _names, matching, suggestions
from pwc_local.server.links import MAX_LINKED_PAPERS, PaperLink, info_links, resource_links
from pwc_local.store.cache import DiskCache
from pwc_local.store.cached_catalog import CachingCatalog
from pwc_local.store.library import Library
from pwc_local.store.outage import OutageGuard
from pwc_local.store.vocabulary import Name, Vocabulary
from pwc_local.upstream.errors import UpstreamUnreachable

pytestmark = pytest.mark.anyio


# -- completions -------------------------------------------------------------------------


def test_matching_ranks_prefix_then_word_then_the_rest() -> None:
    names = [
        Name("Fine-Grained Image Classification", "fine-grained-image-classification"),
        Name("Image Classification", "image-classification"),
        Name("Object Detection", "object-detection"),
    ]
    assert [n.ident for n in matching(names, "ima")] == [
        "image-classification",
        "fine-grained-image-classification",
    ]
    assert [n.ident for n in matching(names, "IMA", loose=True)][-1] == "object-detection"
    assert matching(names, "zz") == []


def test_rows_of_the_wrong_shape_are_skipped() -> None:
    rows: Any = [
        None,
        3,
        {"name": 5, "slug": "x"},
        {"name": " A  b ", "slug": ""},
        {"name": "Ok", "id": "7"},
    ]
    assert _names(rows, "name", ("slug", "id")) == [Name("Ok", "7")]
    assert _names({"not": "a list"}, "name", ("slug",)) == []


class _Listings:
    """A catalog whose task listing answers, hangs or fails, as the test says."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    async def get_json(self, path: str, params: Any = None, **_: Any) -> Any:
        if self.mode == "hang":
            await anyio.sleep_forever()
        if self.mode == "down":
            raise UpstreamUnreachable("refused")
        return {
            "count": 1,
            "next_page": None,
            "previous_page": None,
            "results": [
                {"id": "10", "slug": "image-classification", "name": "Image Classification"}
            ],
        }

    async def read_markdown(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("completions never read Markdown")


def _runtime(
    tmp_path: Path, upstream: _Listings, timeout: float = 1.0, outage: OutageGuard | None = None
) -> LazyRuntime:
    settings = Settings(timeout=timeout)
    cache = DiskCache(tmp_path / "cache")
    library = Library.open(tmp_path / "library")
    vocabulary = Vocabulary(library.path)

    def build(_settings: Settings) -> Runtime:
        catalog = CachingCatalog(upstream, cache, namespace="test")
        return Runtime(settings, catalog, library=library, vocabulary=vocabulary, outage=outage)

    return LazyRuntime(settings, builder=build)


async def test_online_names_are_remembered_for_offline_use(tmp_path: Path) -> None:
    upstream = _Listings("ok")
    runtime = _runtime(tmp_path, upstream)
    assert await suggestions(runtime, "task", "Im", identifiers=False) == ["Image Classification"]
    upstream.mode = "down"
    assert await suggestions(runtime, "task", "image c", identifiers=True) == [
        "image-classification"
    ]
    assert await suggestions(runtime, "task", "x", identifiers=True) == []


async def test_a_hanging_catalog_gets_the_local_names_and_counts_as_an_outage(
    tmp_path: Path,
) -> None:
    upstream = _Listings("ok")
    outage = OutageGuard(upstream)
    runtime = _runtime(tmp_path, upstream, timeout=20.0, outage=outage)
    await suggestions(runtime, "task", "Im", identifiers=False)
    assert not outage.in_outage
    upstream.mode = "hang"
    with anyio.fail_after(5):  # the 1 s budget, not the 20 s timeout; a bound, not a target
        values = await suggestions(runtime, "task", "Imag", identifiers=False)
    assert values == ["Image Classification"]
    assert outage.in_outage


# -- resource links ----------------------------------------------------------------------


async def _never(_paper: str) -> bool:
    return False


async def test_links_are_encoded_deduplicated_and_capped() -> None:
    papers = [PaperLink("math.GT/0309136", "Legacy"), PaperLink("math.GT/0309136", "Again")]
    papers += [PaperLink(f"2001.{index:05d}", f"Paper {index}") for index in range(40)]

    async def readable(paper: str) -> bool:
        return paper == "2001.00000"

    links = await resource_links(papers, readable)
    uris = [str(link.uri) for link in links]
    assert uris[0] == "pwc://papers/math.GT%2F0309136"
    assert uris.count("pwc://papers/math.GT%2F0309136") == 1
    assert "pwc://papers/2001.00000/markdown" in uris
    assert len([u for u in uris if not u.endswith("/markdown")]) == MAX_LINKED_PAPERS


@dataclass
class _Paper:
    id: str
    arxiv_id: str | None
    title: str


@dataclass
class _Info:
    paper: _Paper
    in_catalog: bool


def test_info_links_only_for_catalog_papers() -> None:
    assert info_links(_Info(_Paper("755", "1706.03762", "T"), True)) == [
        PaperLink("1706.03762", "T")
    ]
    assert info_links(_Info(_Paper("10.1038/x", None, "T"), False)) == []


# -- the listing budget (issue 9 item 6) ---------------------------------------------------


def test_the_reading_tools_add_at_most_4000_bytes_to_tools_list() -> None:
    import json

    from mcp_types import ListToolsResult

    from pwc_local.contract import names
    from pwc_local.server.app import build_server

    server = build_server(Settings())
    listed = anyio.run(server.list_tools)
    reading = [tool for tool in listed if tool.name in names("reading")]
    assert sorted(tool.name for tool in reading) == [
        "cite_paper",
        "get_paper_outline",
        "read_paper_section",
    ]
    assert all(tool.annotations and tool.annotations.read_only_hint for tool in reading)
    wire = ListToolsResult(tools=reading).model_dump(mode="json", by_alias=True, exclude_none=True)
    # The tools' share of the listing: their entries and the commas between entries.
    added = len(json.dumps(wire["tools"], separators=(",", ":"))) - 2 + len(reading)
    assert added <= 4000
