"""The default (compact) profile: each half of a result whole and small (issue 26).

Clients hand the model one half: Claude Code and Codex the `structuredContent`, Gemini
CLI, opencode and Claude Desktop the text. So for every call of the contract (the calls
of `test_result_text`): no `data` mirror, no list carried twice, paging first, each
half within 1.5x the other; `read_paper` puts its cursor before the Markdown, in an
8 KiB chunk, and a paper read by following cursors alone comes back whole; the
listing stays within its budget, and the hosted profile keeps the hosted shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from pwc_local.server.bindings import BY_NAME
from tests.fake_catalog import BIG_MARKDOWN_ARXIV_ID, FakeCatalog
from tests.installed import InstalledServer
from tests.test_result_text import CALLS, compact, in_process

pytestmark = pytest.mark.slow

RATIO = 1.5
# A table's column names are the fixed cost of a one-row answer (whats_new of one
# unchanged watch: 91 bytes of text); past that, the ratio alone.
ONE_ROW = 64
FIRST = (
    "stale",
    "newer_version_seen",
    "next_cursor",
    "more",
    "start",
    "end",
    "page",
    "pages",
    "next_page",
    "total",
)


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory, fake_catalog_session: FakeCatalog) -> Any:
    with pytest.MonkeyPatch.context() as monkeypatch:
        root = tmp_path_factory.mktemp("compact")
        return in_process(monkeypatch, root, fake_catalog_session, CALLS, structured="compact")


def _lists(document: Any) -> list[str]:
    """Every list of rows (of lists or objects) in the document, as JSON."""
    found = []
    if isinstance(document, dict):
        for value in document.values():
            found += _lists(value)
    elif isinstance(document, list):
        if document and all(isinstance(item, list | dict) for item in document):
            found.append(json.dumps(document, sort_keys=True))
        for item in document:
            found += _lists(item)
    return found


@pytest.mark.parametrize("index", range(len(CALLS)), ids=[name for name, _ in CALLS])
def test_each_half_is_whole_and_within_one_and_a_half_of_the_other(
    answers: list[Any], index: int
) -> None:
    result = answers[index]
    assert not result.is_error, result.content[0].text
    structured = result.structured_content
    text = result.content[0].text
    assert "data" not in structured and "schema_version" not in structured
    lists = _lists(structured)
    assert len(lists) == len(set(lists)), "a list carried twice"
    keys = list(structured)
    paging = [key for key in keys if key in FIRST]
    assert keys[: len(paging)] == paging, f"paging and cursors first: {keys}"
    size, json_size = len(text.encode()), len(compact(structured))
    assert not text.startswith("{"), "the text is the record's own, not its JSON"
    assert json_size <= RATIO * size + ONE_ROW, (json_size, size)
    assert size <= RATIO * json_size, (json_size, size)


def test_the_text_and_the_json_name_the_same_papers(answers: list[Any]) -> None:
    result = answers[CALLS.index(("search_papers", {"query": "attention", "limit": 3}))]
    table = result.structured_content["papers"]
    assert table["columns"][:2] == ["paper", "title"]
    for row in table["rows"]:
        assert row[0] in result.content[0].text and row[1] in result.content[0].text
    assert result.content[0].text.startswith("3 papers (page 1):")


def test_list_totals_areas_and_best_results_are_shown(answers: list[Any]) -> None:
    listed = answers[CALLS.index(("list_tasks", {"limit": 5}))]
    assert listed.content[0].text.startswith("5 tasks of 25 (page 1):")
    assert "area" in listed.structured_content["rows"]["columns"]
    assert "Vision" in listed.content[0].text and "area_id" not in listed.content[0].text
    frameworks = answers[CALLS.index(("list_frameworks", {}))].content[0].text
    assert frameworks.startswith("9 frameworks:")
    benchmarks = answers[CALLS.index(("list_benchmarks", {"task": "image-classification"}))]
    columns = benchmarks.structured_content["benchmarks"]["columns"]
    assert {"best_model", "best_paper"} <= set(columns)
    assert "ViT-H/14" in benchmarks.content[0].text


def test_read_paper_says_where_it_is_before_the_markdown(answers: list[Any]) -> None:
    result = answers[CALLS.index(("read_paper", {"paper": BIG_MARKDOWN_ARXIV_ID}))]
    structured = result.structured_content
    assert list(structured)[:4] == ["next_cursor", "more", "start", "end"]
    assert structured["end"] - structured["start"] <= 8192
    first = result.content[0].text.split("\n", 1)[0]
    assert structured["next_cursor"] in first and first.startswith("bytes 0-")


@pytest.mark.e2e
def test_a_paper_read_by_following_cursors_alone_comes_back_whole(
    tmp_path: Path, fake_catalog: FakeCatalog
) -> None:
    async def read(home: InstalledServer) -> tuple[str, int]:
        markdown, calls, cursor = "", 0, None
        async with home.session() as session:
            while True:
                arguments = {"paper": BIG_MARKDOWN_ARXIV_ID}
                if cursor:
                    arguments["cursor"] = cursor
                result = await session.call_tool("read_paper", arguments)
                assert not result.is_error, result.content[0].text
                calls += 1
                structured = result.structured_content or {}
                markdown += structured["markdown"]
                cursor = structured.get("next_cursor")
                if not cursor:
                    return markdown, calls

    async def scenario() -> None:
        compact_home = InstalledServer(tmp_path / "compact", api_url=fake_catalog.api_url)
        hosted_home = InstalledServer(
            tmp_path / "hosted", fake_catalog.api_url, PWC_MCP_LOCAL_TOOLS="hosted"
        )
        small, small_calls = await read(compact_home)
        whole, whole_calls = await read(hosted_home)
        assert small == whole
        assert small_calls >= 3 and small_calls > whole_calls

    anyio.run(scenario)


@pytest.mark.e2e
def test_the_listing_describes_what_is_sent(tmp_path: Path, fake_catalog: FakeCatalog) -> None:
    home = InstalledServer(tmp_path, api_url=fake_catalog.api_url)

    async def scenario() -> None:
        async with home.session() as session:
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            # The SDK's client checks each structuredContent against its outputSchema.
            result = await session.call_tool("get_benchmark", {"benchmark": "imagenet-1k"})
            assert not result.is_error
        schema = listed["get_benchmark"].output_schema or {}
        assert "data" not in schema["properties"] and "evaluations" in schema["properties"]
        assert set(result.structured_content or {}) <= set(schema["properties"])

    anyio.run(scenario)


def test_every_hosted_tool_has_a_compact_record() -> None:
    hosted = [spec.name for spec in BY_NAME.values() if spec.group == "hosted"]
    assert len(hosted) == 21
    assert all(BY_NAME[name].compact is not None for name in hosted)


@pytest.mark.e2e
def test_a_stale_answer_says_so_first_in_both_halves(
    tmp_path: Path, fake_catalog: FakeCatalog
) -> None:
    from tests.test_offline_e2e import age_cache

    home = InstalledServer(tmp_path, api_url=fake_catalog.api_url, PWC_MCP_LOCAL_TIMEOUT="5")

    async def scenario() -> None:
        async with home.session() as online:
            fresh = await online.call_tool("get_task", {"task": "image-classification"})
        assert "stale" not in (fresh.structured_content or {})
        age_cache(tmp_path / "cache", 3 * 3600 + 60)
        fake_catalog.stop()
        async with home.session() as offline:
            stale = await offline.call_tool("get_task", {"task": "image-classification"})
        structured = stale.structured_content or {}
        assert (
            next(iter(structured)) == "stale" and "." not in structured["stale"]
        )  # no microseconds
        first, _, rest = stale.content[0].text.partition("\n\n")
        assert first.startswith("From the local cache, 3 hours old (saved ")
        assert first.endswith("UTC): the catalog could not be reached.")
        assert rest == fresh.content[0].text

    anyio.run(scenario)


def test_the_profile_and_chunk_settings_are_validated_like_the_others(tmp_path: Path) -> None:
    from pwc_local.clients.entry import server_env_problems
    from pwc_local.config import ConfigError, load_settings

    assert (load_settings(environ={}).profile, load_settings(environ={}).chunk_bytes) == (
        "compact",
        8192,
    )
    hosted = load_settings(environ={"PWC_MCP_LOCAL_TOOLS": "hosted"})
    assert (hosted.profile, hosted.chunk_bytes) == ("hosted", 65536)
    config = tmp_path / "mcp-local.toml"
    config.write_text('structured = "HOSTED"\nread_chunk = 4096\n')
    mixed = load_settings(environ={}, config_file=config)
    assert (mixed.profile, mixed.chunk_bytes) == ("hosted", 4096)
    with pytest.raises(ConfigError, match=r"structured .* not one of compact, hosted"):
        load_settings(environ={"PWC_MCP_LOCAL_STRUCTURED": "full"})
    for bad in ("512", "70000", "8k", "true"):
        with pytest.raises(ConfigError, match=r"read_chunk .* from 1024 to 65536"):
            load_settings(environ={"PWC_MCP_LOCAL_READ_CHUNK": bad})
    assert server_env_problems({"PWC_MCP_LOCAL_READ_CHUNK": "16384"}) == []
    [problem] = server_env_problems({"PWC_MCP_LOCAL_STRUCTURED": "full"})
    assert "PWC_MCP_LOCAL_STRUCTURED" in problem
