"""End to end: the installed `pwc-mcp-local`, spawned over stdio, against the loopback fake.

One server process serves the whole module (spawning costs about a second), driven
by the SDK's stdio client from a blocking portal so the tests themselves stay
plain functions. The fake catalog is this module's own, so faults may be installed;
every test starts from fresh fake data with no faults.

Every tool is called on its success path and its `structuredContent` is checked
against the fixture data; every error class is provoked through the wire, each
followed by a successful call to show the server kept serving. Fault tests use
arguments no other test uses, so no cached answer can stand in for the failure.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from pwc_local.server.bindings import all_tools
from tests.fake_catalog import (
    ATTENTION_ID,
    BIG_MARKDOWN_ARXIV_ID,
    LEGACY_ARXIV_ID,
    LEGACY_ID,
    MISSING_ARXIV_ID,
    NO_MARKDOWN_ARXIV_ID,
    SAME_TITLE,
    SAME_TITLE_ARXIV_IDS,
    big_document,
)
from tests.installed import LiveSession, module_session

TOOLS = all_tools()

pytestmark = pytest.mark.e2e

TIMEOUT_SECONDS = 3  # the catalog timeout of the spawned server (the slow-fault test waits it out)


class Session(LiveSession):
    """The module's live session; every successful answer meets `ok()`'s checks."""

    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        """Call a tool that must succeed; its structuredContent."""
        result = self.call(name, **arguments)
        assert not result.is_error, result.content[0].text
        # One text block; paper tools add resource_link items after it (issue 9).
        assert result.content[0].type == "text"
        assert all(item.type == "resource_link" for item in result.content[1:])
        assert result.structured_content is not None
        assert result.structured_content["schema_version"] == "v1"
        assert result.structured_content["cache"] is None
        return result.structured_content

    def error(self, name: str, **arguments: Any) -> str:
        """Call a tool that must fail: one content item; the message after the SDK's prefix."""
        result = self.call(name, **arguments)
        assert len(result.content) == 1
        return self.message(name, result)


# Hosted parity: the hosted server's shapes (the hosted profile) and its templates (the
# `summary` mode). Both profiles run every tool in tests/test_profiles_e2e.py.
session, fresh_fake = module_session(
    Session,
    "home",
    PWC_MCP_LOCAL_TIMEOUT=str(TIMEOUT_SECONDS),
    PWC_MCP_LOCAL_RESULT_TEXT="summary",
    PWC_MCP_LOCAL_STRUCTURED="hosted",
)


def _raw(session: Session, path: str) -> Any:
    """What the fake catalog itself answers, as ground truth for projections."""
    import httpx

    response = httpx.get(session.fake.url(path), timeout=10)
    response.raise_for_status()
    return response.json()


# -- papers ---------------------------------------------------------------------------


def test_search_papers(session: Session) -> None:
    result = session.call("search_papers", query="attention", mode="keyword", limit=3)
    data = result.structured_content
    assert data is not None
    ids = [item["id"] for item in data["items"]]
    assert ATTENTION_ID in ids
    assert ids == [row["id"] for row in data["data"]["results"]]
    attention = data["items"][ids.index(ATTENTION_ID)]
    assert attention["title"] == "Attention Is All You Need"
    assert attention["arxiv_id"] == "1706.03762"
    assert attention["has_official_implementation"] is True
    assert result.content[0].text == f"Found {len(ids)} papers."


def test_get_paper_info_compact_and_with_resources(session: Session) -> None:
    raw = _raw(session, "papers/1706.03762?include_resources=true")
    compact = session.ok("get_paper_info", paper="1706.03762")
    paper = compact["paper"]
    assert (paper["id"], paper["title"]) == (ATTENTION_ID, "Attention Is All You Need")
    assert paper["code_repository_count"] == raw["code_repository_count"]
    official = [r["url"] for r in raw["repositories"] if r.get("is_official") is True]
    assert [r["url"] for r in paper["repositories"]] == official[:5]
    assert paper["hf_models"] == [] and paper["project_pages"] == []
    assert compact["in_catalog"] is True and compact["data"] is None
    assert compact["evaluations"] is None

    wide = session.ok("get_paper_info", paper="1706.03762", include_resources=True, repo_limit=2)
    repos = wide["paper"]["repositories"]
    assert len(repos) == min(2, len(raw["repositories"]))
    flags = [r["is_official"] for r in repos]
    assert flags == sorted(flags, reverse=True)  # official first

    with_rows = session.ok("get_paper_info", paper=ATTENTION_ID, include_evaluations=True)
    assert with_rows["evaluation_count"] == len(with_rows["evaluations"]) > 0
    assert with_rows["paper"]["id"] == ATTENTION_ID


def test_get_paper_info_public_fallback(session: Session) -> None:
    result = session.call("get_paper_info", paper="1301.3781")
    data = result.structured_content
    assert data is not None and data["in_catalog"] is False
    assert data["paper"]["title"] == "Efficient Estimation of Word Representations in Vector Space"
    assert "not indexed on Papers With Code" in data["note"]
    assert {"label": "arXiv", "url": "https://arxiv.org/abs/1301.3781"} in data["available_at"]
    assert result.content[0].text.startswith("## Efficient Estimation")


def test_get_paper_evaluations(session: Session) -> None:
    data = session.ok("get_paper_evaluations", paper="1706.03762", limit=2)
    raw = _raw(session, f"evaluations/?paper_id={ATTENTION_ID}&page=1&page_size=100")
    assert data["paper"] == "1706.03762"
    assert data["evaluation_count"] == raw["count"]
    assert data["page"] == 1
    assert len(data["evaluations"]) <= 2
    assert data["next_page"] == (2 if raw["count"] > 2 else None)
    row = data["evaluations"][0]
    assert row["paper_id"] == ATTENTION_ID
    assert row["rank_scopes"] and row["rank_scopes"][0]["rank"] == row["best_rank"]


def test_read_short_paper(session: Session) -> None:
    data = session.ok("read_paper", paper="1706.03762")
    assert data["markdown"] == session.fake.markdown("1706.03762")
    assert (data["truncated"], data["next_cursor"], data["in_catalog"]) == (False, None, True)
    assert data["paper"] == "1706.03762"


def test_read_the_big_paper_completely_by_cursor(session: Session) -> None:
    reference = f" {BIG_MARKDOWN_ARXIV_ID} "
    pieces: list[str] = []
    cursor: str | None = None
    for _ in range(20):
        data = session.ok("read_paper", paper=reference, cursor=cursor)
        assert data["paper"] == BIG_MARKDOWN_ARXIV_ID  # the trimmed reference
        assert len(data["markdown"].encode("utf-8")) <= 65536
        pieces.append(data["markdown"])
        cursor = data["next_cursor"]
        assert (cursor is None) == (not data["truncated"])
        if cursor is None:
            break
    assert len(pieces) >= 4
    assert "".join(pieces).encode("utf-8") == big_document().encode("utf-8")


def test_read_paper_text_block_is_the_markdown_once(session: Session) -> None:
    """The text block carries the chunk once, plus how to read on; no JSON copy of it."""
    short = session.call("read_paper", paper="1706.03762")
    assert short.content[0].text == session.fake.markdown("1706.03762")
    first = session.call("read_paper", paper=BIG_MARKDOWN_ARXIV_ID)
    data = first.structured_content
    assert data is not None and data["truncated"]
    assert first.content[0].text == (
        f"{data['markdown']}\n\n[Truncated: call read_paper again with the same paper and "
        f"cursor {data['next_cursor']} to read on.]"
    )


def test_cursor_errors(session: Session) -> None:
    first = session.ok("read_paper", paper=BIG_MARKDOWN_ARXIV_ID)
    cursor = first["next_cursor"]
    middle = len(cursor) // 3
    tampered = cursor[:middle] + ("A" if cursor[middle] != "A" else "B") + cursor[middle + 1 :]
    message = session.error("read_paper", paper=BIG_MARKDOWN_ARXIV_ID, cursor=tampered)
    assert message.startswith("invalid_cursor: invalid continuation cursor")
    message = session.error("read_paper", paper=BIG_MARKDOWN_ARXIV_ID, cursor="x" * 3000)
    assert message == "invalid_argument: cursor must have at most 2048 characters."  # issue 34
    message = session.error("read_paper", paper="1706.03762", cursor=cursor)
    assert message.startswith("cursor_mismatch: ")
    # The genuine cursor still works after all that.
    second = session.ok("read_paper", paper=BIG_MARKDOWN_ARXIV_ID, cursor=cursor)
    assert second["markdown"] and second["markdown"] != first["markdown"]


def test_changed_paper_asks_for_a_restart(session: Session) -> None:
    reference = "1810.04805"
    session.fake.set_markdown(reference, "# BERT\n\n" + "ανάλυση κειμένου. " * 9000)
    first = session.ok("read_paper", paper=reference)
    assert first["truncated"]
    session.fake.set_markdown(reference, "# BERT, revised\n\n" + "new text. " * 9000)
    message = session.error("read_paper", paper=reference, cursor=first["next_cursor"])
    assert message.startswith("paper_changed: ")
    restarted = session.ok("read_paper", paper=reference)
    assert restarted["markdown"].startswith("# BERT, revised")


def test_read_paper_without_markdown_and_outside_the_catalog(session: Session) -> None:
    assert session.error("read_paper", paper=NO_MARKDOWN_ARXIV_ID).startswith("no_markdown: ")
    public = session.ok("read_paper", paper="1301.3781")
    assert public["in_catalog"] is False
    assert public["markdown"].startswith("# Efficient Estimation of Word Representations")
    assert public["available_at"]


def test_list_papers(session: Session) -> None:
    data = session.ok("list_papers", task="machine-translation", limit=2, authors=[])
    rows = data["data"]["results"]
    assert [item["id"] for item in data["items"]] == [row["id"] for row in rows]
    assert ATTENTION_ID in [item["id"] for item in data["items"]]
    assert data["next_page"] == data["data"]["next_page"]


def test_list_recent_and_trending_papers(session: Session) -> None:
    recent = session.ok("list_recent_papers", limit=2)
    assert isinstance(recent["data"], list)
    assert [item["id"] for item in recent["items"]] == [row["id"] for row in recent["data"]]
    assert len(recent["items"]) == 2 and recent["next_page"] is None
    raw = _raw(session, "papers/recent?limit=2")
    assert [item["id"] for item in recent["items"]] == [row["id"] for row in raw]
    trending = session.ok("list_trending_papers", limit=3, max_age_days=365)
    raw = _raw(session, "papers/trending?limit=3&max_age_days=365")
    assert [item["id"] for item in trending["items"]] == [row["id"] for row in raw]


def test_get_related_papers(session: Session) -> None:
    data = session.ok("get_related_papers", paper="1706.03762", limit=3)
    raw = _raw(session, "papers/1706.03762/related?limit=3")
    assert [item["id"] for item in data["items"]] == [row["id"] for row in raw["results"]]
    assert data["note"] is None and data["available_at"] == []
    fallback = session.call("get_related_papers", paper="1301.3781")
    content = fallback.structured_content
    assert content is not None and "not indexed on Papers With Code" in content["note"]
    assert fallback.content[0].text == content["note"]
    assert content["available_at"][0]["url"].startswith("https://arxiv.org/")


def test_get_paper_lineage(session: Session) -> None:
    data = session.ok("get_paper_lineage", paper="2307.09288")
    assert data["paper"] == {
        "id": "5012",
        "reference": "2307.09288",
        "title": "Llama 2: Open Foundation and Fine-Tuned Chat Models",
    }
    assert [p["reference"] for p in data["predecessors"]] == ["2302.13971"]
    assert data["coverage"] == "explicit_catalog_links_only"
    assert data["data"]["paper"]["id"] == 5012  # the catalog document, unchanged


# -- taxonomy ------------------------------------------------------------------------------


def test_get_task(session: Session) -> None:
    result = session.call("get_task", task="scene-text-recognition", benchmark_limit=1)
    task = result.structured_content["task"]  # type: ignore[index]
    assert (task["id"], task["name"], task["slug"]) == (
        "17",
        "Scene Text Recognition",
        "scene-text-recognition",
    )
    assert task["area"] == {"id": "1", "name": "Vision"}
    assert [p["slug"] for p in task["parents"]] == ["ocr"]
    assert [c["slug"] for c in task["children"]] == ["handwritten-text"]
    assert len(task["benchmarks"]) == 1 and task["benchmarks"][0]["name"] == "IIIT5K"
    assert result.content[0].text == (
        f"## Scene Text Recognition\n\n{task['paper_count']} papers; returned 1 benchmarks."
    )


def test_list_tasks_flat_and_grouped(session: Session) -> None:
    flat = session.ok("list_tasks", limit=3, order_by="name")
    names = [row["name"] for row in flat["data"]["results"]]
    assert len(names) == 3 and names == sorted(names, key=str.casefold)
    grouped = session.ok("list_tasks", group_by_area=True, area="Vision")
    assert [area["name"] for area in grouped["data"]["results"]] == ["Vision"]


def test_get_and_list_methods(session: Session) -> None:
    result = session.call("get_method", method="transformer")
    method = result.structured_content["method"]  # type: ignore[index]
    assert (method["id"], method["name"], method["introduced_year"]) == ("2", "Transformer", 2017)
    assert method["source_url"] == "https://paperswithcode.co/paper/1706.03762"
    assert result.content[0].text == f"## Transformer\n\n{method['paper_count']} papers."
    listing = session.ok("list_methods", search="adam", limit=5)
    assert "adam" in [row["slug"] for row in listing["data"]["results"]]


def test_conferences_organizations_frameworks(session: Session) -> None:
    assert session.ok("get_conference", conference="CVPR 2026")["data"]["id"] == "7"
    years = {row["year"] for row in session.ok("list_conferences", year=2025)["data"]["results"]}
    assert years == {2025}
    organization = session.ok("get_organization", organization="nvidia")["data"]
    assert (organization["id"], organization["is_featured"]) == ("1", True)
    featured = session.ok("list_organizations", featured_only=True)["data"]["results"]
    assert featured and all(row["is_featured"] for row in featured)
    framework = session.ok("get_framework", framework="vLLM")["data"]
    assert (framework["id"], framework["domain_slug"]) == ("11", "llm")
    cpu = session.ok("list_frameworks", platform="CPU")["data"]["results"]
    assert "llama-cpp" in [row["slug"] for row in cpu]
    assert all("cpu" in row["platforms"] for row in cpu)


# -- benchmarks --------------------------------------------------------------------------


def test_get_benchmark_pareto_and_directions(session: Session) -> None:
    result = session.call(
        "get_benchmark",
        benchmark="COCO",
        pareto=["mAP:higher", "FPS:higher"],
        sort_metric="FPS:desc",
    )
    data = result.structured_content
    assert data is not None
    assert [row["model_name"] for row in data["evaluations"]] == ["Fast", "Accurate"]
    assert data["evaluations"][0]["metrics"]["mAP"] == 58.0  # "58" from the catalog, parsed
    assert data["metric_directions"]["mAP"] == "higher"
    assert data["matched_count"] == 2 and data["benchmark"]["id"] == "6"
    assert data["metric_note"] is None
    assert result.content[0].text.startswith("## COCO\n\n")
    assert "Ranks are task-scoped." in result.content[0].text
    # Like the SDK-based hosted server, a JSON-encoded array is accepted for an array.
    encoded = session.ok(
        "get_benchmark", benchmark="COCO", pareto='["mAP:higher", "FPS:higher"]', sort_metric="FPS"
    )
    assert encoded["evaluations"] == data["evaluations"]


def test_get_benchmark_merges_rows_and_rescues_unknown_metrics(session: Session) -> None:
    swe = session.ok("get_benchmark", benchmark="swe-bench-pro")
    agent = next(row for row in swe["evaluations"] if row["model_name"] == "Agent | One")
    assert agent["metrics"] == {"Resolved": 55.5, "Pass@1": 50}
    assert agent["best_rank"] == 1
    assert [(s["task_id"], s["rank"]) for s in agent["rank_scopes"]] == [("3", 1), ("8", 4)]
    result = session.call("get_benchmark", benchmark="ImageNet-1k", sort_metric="Nope", limit=2)
    data = result.structured_content
    assert data is not None and data["metric_note"].startswith("unknown metric")
    assert len(data["evaluations"]) == 2 and data["next_page"] == 2
    assert f" Note: {data['metric_note']}." in result.content[0].text


def test_list_benchmarks_modes(session: Session) -> None:
    trend = session.ok("list_benchmarks", task="image-classification")
    assert [item["id"] for item in trend["items"]] == [
        row["id"] for row in trend["data"]["results"]
    ]
    assert trend["items"][0]["id"] == "72"
    # data is the CLI payload verbatim (the trend document's keys plus count); the next
    # page, computed locally, is only at the top level.
    assert "next_page" not in trend["data"]
    paged = session.ok("list_benchmarks", task="image-classification", limit=1)
    assert paged["next_page"] == 2 and "next_page" not in paged["data"]
    grouped = session.ok("list_benchmarks", group_by_area=True)
    nested = [
        benchmark["id"]
        for area in grouped["data"]["results"]
        for task in area["tasks"]
        for benchmark in task["benchmarks"]
    ]
    assert [item["id"] for item in grouped["items"]] == nested and nested
    result = session.call("list_benchmarks", order_by="trending", area="Vision", search="coco")
    assert result.content[0].text == (
        "Found 1 benchmarks. Note: order_by=trending needs task; ordered by name instead. "
        "Note: area cannot be combined with filters; returned the filtered list."
    )


# -- errors through the wire -------------------------------------------------------------


def test_schema_violation(session: Session) -> None:
    message = session.error("search_papers", query="x", limit=26, mode="fuzzy")
    assert message.startswith("invalid_argument: ")
    assert "limit must be at most 25" in message and "mode must be one of" in message
    assert "fuzzy" not in message
    assert session.fake.requests.count() == 0


def test_reference_errors(session: Session) -> None:
    missing = session.error("get_paper_evaluations", paper=MISSING_ARXIV_ID)
    assert missing.startswith(f"not_found: Paper not found: {MISSING_ARXIV_ID}")
    ambiguous = session.error("get_paper_lineage", paper=SAME_TITLE)
    assert ambiguous.startswith("ambiguous: ")
    assert all(arxiv_id in ambiguous for arxiv_id in SAME_TITLE_ARXIV_IDS)
    assert session.error("get_task", task="no such task").startswith("not_found: Task not found")
    usage = session.error("get_benchmark", benchmark="COCO", max_parameters="3K")
    assert usage.startswith("invalid_argument: ")


def _fault_then_recover(session: Session, install: Any, query: str) -> str:
    """Install a fault on paper search, provoke it with a query used nowhere else, recover."""
    install(prefix="papers/search")
    message = session.error("search_papers", query=query, mode="keyword")
    session.fake.faults.reset()
    assert not session.call("search_papers", query=f"{query} again", mode="keyword").is_error
    return message


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        ("server_error", "upstream_error: the Papers With Code catalog at {} answered HTTP 500"),
        ("bad_gateway", "upstream_error: the Papers With Code catalog at {} answered HTTP 502"),
        ("gateway_timeout", "upstream_timeout: "),
        ("invalid_json", "upstream_error: the Papers With Code catalog at {} answered with some"),
        ("oversized", "upstream_error: the Papers With Code catalog's answer was over 2 MiB"),
    ],
)
def test_upstream_failures(session: Session, fault: str, code: str) -> None:
    # The sentence names the catalog asked (its API base), never the request's query.
    message = _fault_then_recover(session, getattr(session.fake.faults, fault), f"fault {fault}")
    assert message.startswith(code.format(session.fake.api_url))
    assert f"fault {fault}" not in message


def test_oversized_body_without_content_length(session: Session) -> None:
    def install(prefix: str) -> None:
        session.fake.faults.oversized(content_length=False, prefix=prefix)

    message = _fault_then_recover(session, install, "chunked oversized")
    assert message.startswith("upstream_error: the Papers With Code catalog's answer was over")


def test_rate_limited_with_retry_after(session: Session) -> None:
    def install(prefix: str) -> None:
        session.fake.faults.rate_limited("17", prefix=prefix)

    message = _fault_then_recover(session, install, "rate limited query")
    assert message.startswith("rate_limited: ")
    assert "17 seconds" in message


def test_bad_request_detail_is_shown_sanitised(session: Session) -> None:
    def install(prefix: str) -> None:
        session.fake.faults.error(400, detail="page_size\x00 must be\nat most 100", prefix=prefix)

    message = _fault_then_recover(session, install, "bad request query")
    assert message == "invalid_argument: page_size  must be at most 100"


def test_slow_catalog_times_out(session: Session) -> None:
    message = _fault_then_recover(session, session.fake.faults.slow, "slow query")
    assert message.startswith("upstream_timeout: ")


@pytest.mark.filterwarnings("ignore:ping is removed")  # a legacy-mode session: ping exists
def test_a_slow_catalog_call_does_not_block_other_requests(session: Session) -> None:
    """protocol.md: a slow upstream call must not hold up ping, listings or other calls."""
    session.fake.faults.slow(prefix="papers/search")
    pending = session.portal.start_task_soon(
        session.client.call_tool, "search_papers", {"query": "held query", "mode": "keyword"}
    )
    assert session.fake.faults.wait_until_blocked(1, timeout=10)
    session.portal.call(session.client.send_ping)
    assert len(session.portal.call(session.client.list_tools).tools) == len(TOOLS)
    assert session.ok("list_frameworks")["data"]["count"] > 0
    assert not pending.done()  # the held call is still waiting on the catalog
    session.fake.faults.release()
    assert not pending.result(timeout=30).is_error


def test_a_response_of_the_wrong_shape_is_not_cached(session: Session) -> None:
    """catalog-api.md §5: only responses that parsed *and* passed shape checks are kept."""
    # A listing no other test asks for, so no earlier answer sits in the cache.
    arguments = {"search": "shape probe", "introduced_year": 1999}
    session.fake.faults.respond(200, '{"unexpected": true}', prefix="methods/", times=1)
    assert session.error("list_methods", **arguments).startswith("upstream_error: ")
    # Within the 10-minute taxonomy lifetime, so a cached copy would fail again.
    assert session.ok("list_methods", **arguments)["data"]["results"] == []
    assert session.fake.requests.count_path("methods/") == 2


def test_connection_refused(session: Session) -> None:
    session.fake.faults.refuse_connections()
    message = session.error("search_papers", query="refused query", mode="keyword")
    assert message.startswith("upstream_error: ")
    assert "could not be reached" in message
    session.fake.faults.reset()
    assert not session.call("search_papers", query="refused query", mode="keyword").is_error


def test_unknown_tool(session: Session) -> None:
    result = session.call("drop_tables")
    assert result.is_error
    assert "not_found: unknown tool" in result.content[0].text


# -- resources and prompts ----------------------------------------------------------------


def test_json_resources_equal_tool_results(session: Session) -> None:
    paper = json.loads(session.read("pwc://papers/1706.03762"))
    assert paper == session.ok("get_paper_info", paper="1706.03762")
    task = json.loads(session.read("pwc://tasks/scene-text-recognition"))
    assert task == session.ok("get_task", task="scene-text-recognition", benchmark_limit=10)
    benchmark = json.loads(session.read("pwc://benchmarks/COCO"))
    assert benchmark == session.ok("get_benchmark", benchmark="COCO", page=1, limit=20)
    compact = session.read("pwc://tasks/scene-text-recognition")
    assert ": " not in compact and "\n" not in compact


def test_resources_with_encoded_references(session: Session) -> None:
    legacy = json.loads(session.read("pwc://papers/" + LEGACY_ARXIV_ID.replace("/", "%2F")))
    assert legacy["paper"]["id"] == LEGACY_ID


def test_markdown_resource(session: Session) -> None:
    text = session.read("pwc://papers/1706.03762/markdown")
    assert text == session.fake.markdown("1706.03762")
    with pytest.raises(MCPError) as too_long:
        session.read(f"pwc://papers/{BIG_MARKDOWN_ARXIV_ID}/markdown")
    assert "read_paper" in str(too_long.value)


def test_resource_errors(session: Session) -> None:
    with pytest.raises(MCPError) as missing:
        session.read("pwc://tasks/no-such-task")
    assert "not_found: Task not found" in str(missing.value)
    assert session.read("pwc://tasks/ocr")  # still serving


def test_prompt(session: Session) -> None:
    prompt = session.portal.call(
        session.client.get_prompt, "compare_leaderboard", {"benchmark": 'COCO "val"'}
    )
    assert '"COCO \\"val\\""' in prompt.messages[0].content.text


# -- the advertised output schemas ------------------------------------------------------

# One success per tool, with arguments the tests above use; the richer variants
# (evaluations, pareto, a public fallback) exercise more of each schema.
SCHEMA_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_papers", {"query": "attention", "mode": "keyword", "limit": 3}),
    ("get_paper_info", {"paper": ATTENTION_ID, "include_evaluations": True}),
    ("get_paper_info", {"paper": "1301.3781"}),  # the public-metadata fallback
    ("get_paper_evaluations", {"paper": "1706.03762", "limit": 2}),
    ("read_paper", {"paper": "1706.03762"}),
    ("list_papers", {"task": "machine-translation", "limit": 2}),
    ("list_recent_papers", {"limit": 2}),
    ("list_trending_papers", {"limit": 3, "max_age_days": 365}),
    ("get_related_papers", {"paper": "1706.03762", "limit": 3}),
    ("get_paper_lineage", {"paper": "2307.09288"}),
    ("get_task", {"task": "scene-text-recognition", "benchmark_limit": 1}),
    ("list_tasks", {"limit": 3, "order_by": "name"}),
    ("get_method", {"method": "transformer"}),
    ("list_methods", {"search": "adam", "limit": 5}),
    ("get_conference", {"conference": "CVPR 2026"}),
    ("list_conferences", {"year": 2025}),
    ("get_organization", {"organization": "nvidia"}),
    ("list_organizations", {"featured_only": True}),
    ("get_framework", {"framework": "vLLM"}),
    ("list_frameworks", {"platform": "CPU"}),
    ("get_benchmark", {"benchmark": "swe-bench-pro"}),
    ("list_benchmarks", {"task": "image-classification"}),
    ("get_paper_outline", {"paper": BIG_MARKDOWN_ARXIV_ID}),
    ("read_paper_section", {"paper": BIG_MARKDOWN_ARXIV_ID, "section": "s1.1"}),
    ("cite_paper", {"paper": "10.1038/nature14539", "format": "csl-json"}),
    ("save_papers", {"papers": ["1706.03762", "1301.3781", "no such paper title zq"]}),
    ("list_library", {"limit": 5}),
    ("search_library", {"query": "attention", "limit": 3}),
    ("watch", {"kind": "benchmark", "target": "ImageNet-1k"}),
    ("whats_new", {"mark_seen": False}),
    ("sota_history", {"benchmark": "ImageNet-1k"}),
    ("who_beat_paper", {"paper": "1512.03385"}),
    ("results_table", {"benchmark": "ImageNet-1k", "format": "latex"}),
    ("check_claim", {"benchmark": "ImageNet-1k", "paper": "1512.03385"}),
]


def test_every_result_validates_against_its_advertised_output_schema(session: Session) -> None:
    """The compact output schemas (server/listing.py) still describe every answer.

    Checked here with jsonschema itself, independently of the SDK client (which
    validates too, against the same listing).
    """
    from jsonschema import Draft202012Validator

    listing = session.portal.call(session.client.list_tools)
    schemas = {tool.name: tool.output_schema for tool in listing.tools}
    assert {name for name, _ in SCHEMA_CALLS} == set(schemas)
    for name, arguments in SCHEMA_CALLS:
        schema = schemas[name]
        assert schema is not None, name
        Draft202012Validator.check_schema(schema)
        result = session.call(name, **arguments)
        assert not result.is_error, (name, result.content[0].text)
        errors = list(Draft202012Validator(schema).iter_errors(result.structured_content))
        assert errors == [], (name, [e.message for e in errors])
        # And the schema is not vacuous: an unknown top-level field is refused.
        tampered = dict(result.structured_content or {}, unexpected=1)
        assert not Draft202012Validator(schema).is_valid(tampered), name
