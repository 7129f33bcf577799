"""Paper commands against a scripted catalog: requests sent, checks, fail-closed filters."""

from __future__ import annotations

from functools import partial

import pytest

from pwc_local.queries.papers import get_paper_info, get_related_papers
from pwc_local.server.tools import call_query
from pwc_local.upstream.errors import (
    HTTPStatusError,
    InvalidResponse,
    NotFound,
    PaperMissing,
    UsageError,
)
from pwc_local.upstream.http import HttpCatalog
from tests.scripted_catalog import ScriptedCatalog, error, json_response, paper_row, search_page

# The query functions, called as a tools/call calls them: the contract table's defaults.
search_papers = partial(call_query, "search_papers")
list_papers = partial(call_query, "list_papers")
list_recent_papers = partial(call_query, "list_recent_papers")
list_trending_papers = partial(call_query, "list_trending_papers")
get_paper_evaluations = partial(call_query, "get_paper_evaluations")
get_paper_lineage = partial(call_query, "get_paper_lineage")

pytestmark = pytest.mark.anyio

ATTENTION = paper_row("1706.03762", "Attention Is All You Need", "755")


# -- search_papers -----------------------------------------------------------------------


async def test_search_sends_the_documented_parameters(scripted: ScriptedCatalog) -> None:
    document = search_page([ATTENTION], applied_filters={"start_date": "2017-01-01"})
    scripted.on("papers/search", document)
    async with scripted.client() as catalog:
        answer = await search_papers(
            catalog, query=" attention ", page=2, limit=5, published_after="2017-01-01"
        )
    assert answer == document
    assert scripted.requests[0].multi == {
        "q": ["attention"],
        "page": ["2"],
        "page_size": ["5"],
        "mode": ["hybrid"],
        "start_date": ["2017-01-01"],
    }


@pytest.mark.parametrize("echo", [True, "true", "TRUE"])
async def test_official_filter_passes_when_echoed(scripted: ScriptedCatalog, echo: object) -> None:
    scripted.on(
        "papers/search",
        search_page([ATTENTION], applied_filters={"has_official_implementation": echo}),
    )
    async with scripted.client() as catalog:
        answer = await search_papers(
            catalog, query="x", mode="keyword", has_official_implementation=True
        )
    assert answer["results"] == [ATTENTION]
    assert scripted.requests[0].multi["has_official_implementation"] == ["true"]


@pytest.mark.parametrize("applied", [None, {}, {"has_official_implementation": False}, "yes"])
async def test_official_filter_fails_closed(scripted: ScriptedCatalog, applied: object) -> None:
    scripted.on("papers/search", search_page([ATTENTION], applied_filters=applied))
    async with scripted.client() as catalog:
        with pytest.raises(
            NotFound, match=r"^Papers API did not confirm has_official_implementation"
        ):
            await search_papers(catalog, query="x", has_official_implementation=True)


@pytest.mark.parametrize(
    "after, before, fragment",
    [
        ("2024/01/31", None, "published_after must be a calendar date written YYYY-MM-DD"),
        ("20240131", None, "published_after"),
        (None, "2024-02-30", "published_before must be a calendar date"),
        ("2024-W05", None, "YYYY-MM-DD"),
        ("2024-03-01", "2024-02-01", "published_after must be on or before published_before"),
    ],
)
async def test_bad_dates_fail_before_any_request(
    scripted: ScriptedCatalog, after: str | None, before: str | None, fragment: str
) -> None:
    async with scripted.client() as catalog:
        with pytest.raises(UsageError) as caught:
            await search_papers(catalog, query="x", published_after=after, published_before=before)
        with pytest.raises(UsageError):
            await list_papers(catalog, published_after=after, published_before=before)
    assert fragment in str(caught.value)
    assert scripted.requests == []


async def test_same_day_range_and_empty_dates_are_fine(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/search", search_page([]))
    async with scripted.client() as catalog:
        await search_papers(
            catalog, query="x", published_after="2024-01-01", published_before="2024-01-01"
        )
        await search_papers(catalog, query="x", published_after="", published_before=None)
    assert "start_date" not in scripted.requests[1].multi


async def test_search_rejects_a_blank_query(scripted: ScriptedCatalog) -> None:
    # Modes, pages and limits are the input schema's to check (tests/test_contract.py).
    async with scripted.client() as catalog:
        with pytest.raises(UsageError, match=r"^query must not be empty$"):
            await search_papers(catalog, query="  ")
    assert scripted.requests == []


# -- list_papers -------------------------------------------------------------------------


async def test_list_sends_every_parameter(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/", search_page([]))
    async with scripted.client() as catalog:
        await list_papers(catalog, search="vision", order_by="citation_count", page=3, limit=7)
    assert scripted.requests[0].multi == {
        "page": ["3"],
        "page_size": ["7"],
        "search": ["vision"],
        "latest_only": ["true"],
        "order_by": ["citation_count"],
        "order_dir": ["desc"],
        "include_resources": ["false"],
    }


async def test_confirmed_filters_return_the_document(scripted: ScriptedCatalog) -> None:
    applied = {
        "task": "image classification",
        "conference": "CVPR 2026",
        "start_date": "2024-01-01",
        "has_official_implementation": "true",
    }
    scripted.on("papers/", search_page([ATTENTION], applied_filters=applied))
    async with scripted.client() as catalog:
        answer = await list_papers(
            catalog,
            task="Image Classification",
            conference="cvpr 2026",
            published_after="2024-01-01",
            has_official_implementation=True,
            all_versions=True,
            order_direction="asc",
            include_resources=True,
        )
    assert answer["results"] == [ATTENTION]
    params = scripted.requests[0].multi
    assert params["task"] == ["Image Classification"]
    assert params["latest_only"] == ["false"]
    assert params["order_dir"] == ["asc"]
    assert params["include_resources"] == ["true"]


@pytest.mark.parametrize(
    "applied",
    [
        None,
        {"task": "Image Classification"},  # method missing
        {"task": "Image Classification", "method": "ViT"},  # canonicalised, not the raw value
    ],
)
async def test_unconfirmed_filters_fail_closed(scripted: ScriptedCatalog, applied: object) -> None:
    scripted.on("papers/", search_page([ATTENTION], applied_filters=applied))
    async with scripted.client() as catalog:
        with pytest.raises(NotFound) as caught:
            await list_papers(catalog, task="Image Classification", method="Vision Transformer")
    assert str(caught.value).startswith("Papers API did not confirm the requested catalog filters")
    assert "method" in str(caught.value)


async def test_blank_filters_count_as_not_given(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/", search_page([ATTENTION]))
    async with scripted.client() as catalog:
        answer = await list_papers(catalog, task="  ", method="", authors=[])
    assert answer["results"] == [ATTENTION]
    assert {"task", "method", "author"}.isdisjoint(scripted.requests[0].multi)


AUTHORS = {
    "authors": [
        {"id": "264", "name": "Kaiming  He", "hf_username": None},
        {"id": 26405, "name": "Yilun Du", "hf_username": "yilundu"},
    ]
}


async def test_authors_are_confirmed_by_id_username_or_name(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/", search_page([ATTENTION], applied_filters=AUTHORS))
    async with scripted.client() as catalog:
        await list_papers(catalog, authors=["kaiming he", "@YilunDu "])
        await list_papers(catalog, authors=["000264", "26405"])
    assert scripted.requests[0].multi["author"] == ["kaiming he", "@YilunDu"]


async def test_author_ids_of_any_length_compare_as_numbers(scripted: ScriptedCatalog) -> None:
    # int() refuses digit strings over 4,300 characters; such IDs still compare.
    huge = "7" * 5000
    applied = {"authors": [{"id": huge, "name": "Long Id"}, *AUTHORS["authors"]]}
    scripted.on("papers/", search_page([ATTENTION], applied_filters=applied))
    async with scripted.client() as catalog:
        await list_papers(catalog, authors=["00" + huge, "264"])
        with pytest.raises(NotFound, match=r"^Papers API did not confirm the requested author"):
            await list_papers(catalog, authors=["9" * 5000])


@pytest.mark.parametrize(
    "applied",
    [
        AUTHORS,  # "Alex Kim" is not among them
        {"authors": []},
        {"authors": [{"id": "x41", "name": "Alex Kim"}]},
        {"authors": [{"id": "41", "name": "  "}]},
        {"authors": "Alex Kim"},
        {},
    ],
)
async def test_unconfirmed_authors_fail_closed(scripted: ScriptedCatalog, applied: dict) -> None:
    scripted.on("papers/", search_page([ATTENTION], applied_filters=applied))
    async with scripted.client() as catalog:
        with pytest.raises(NotFound, match=r"^Papers API did not confirm the requested author"):
            await list_papers(catalog, authors=["Alex Kim"])


async def test_ambiguous_author_suggests_ids_as_authors_values(scripted: ScriptedCatalog) -> None:
    detail = {
        "code": "ambiguous_author",
        "reference": "Alex Kim",
        "candidates": [
            {"id": "41", "name": "Alex Kim", "hf_username": "alex-one"},
            {"id": "72", "name": "Alex Kim", "hf_username": None},
            {"id": "not-a-number", "name": "Alex Kim"},
        ],
    }
    scripted.on("papers/", lambda params: error(409, detail))
    async with scripted.client() as catalog:
        with pytest.raises(UsageError) as caught:
            await list_papers(catalog, authors=["Alex Kim"])
    assert str(caught.value) == (
        'author "Alex Kim" is ambiguous; retry with one of: authors=["41"] (Alex Kim, '
        '@alex-one); authors=["72"] (Alex Kim)'
    )
    assert "--author" not in str(caught.value)


@pytest.mark.parametrize("status", [404, 422])
async def test_author_error_detail_becomes_a_usage_error(
    scripted: ScriptedCatalog, status: int
) -> None:
    scripted.on("papers/", lambda params: error(status, "Unknown author: Nobody\x00 Here"))
    async with scripted.client() as catalog:
        with pytest.raises(UsageError, match=r"^authors: Unknown author: Nobody Here$"):
            await list_papers(catalog, authors=["Nobody Here"])


async def test_author_error_without_a_usable_detail(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/", lambda params: json_response(["odd"], status=422))
    async with scripted.client() as catalog:
        with pytest.raises(UsageError, match=r"author filter \(HTTP 422\)"):
            await list_papers(catalog, authors=["Someone"])


async def test_listing_errors_without_authors_stay_upstream_errors(
    scripted: ScriptedCatalog,
) -> None:
    scripted.on("papers/", lambda params: error(422, "page_size must be <= 100"))
    async with scripted.client() as catalog:
        with pytest.raises(HTTPStatusError):
            await list_papers(catalog)


async def test_blank_author_entries_fail_before_any_request(scripted: ScriptedCatalog) -> None:
    # The list's type and length are the input schema's to check.
    async with scripted.client() as catalog:
        with pytest.raises(UsageError, match="authors entries must be non-empty"):
            await list_papers(catalog, authors=["Kaiming He", " "])
    assert scripted.requests == []


# -- recent and trending ------------------------------------------------------------------


async def test_recent_and_trending_accept_bare_arrays_and_objects(
    scripted: ScriptedCatalog,
) -> None:
    scripted.on("papers/recent", [ATTENTION, "junk"])
    scripted.on("papers/trending", {"results": [ATTENTION]})
    async with scripted.client() as catalog:
        assert await list_recent_papers(catalog, limit=3) == [ATTENTION]
        assert await list_trending_papers(catalog, min_velocity=0.5) == [ATTENTION]
    assert scripted.requests[0].multi == {"limit": ["3"]}
    assert scripted.requests[1].multi == {
        "limit": ["20"],
        "max_age_days": ["180"],
        "min_velocity": ["0.5"],
    }


async def test_trending_rejects_a_velocity_that_is_not_finite(scripted: ScriptedCatalog) -> None:
    async with scripted.client() as catalog:
        with pytest.raises(UsageError, match="min_velocity must be a finite number"):
            await list_trending_papers(catalog, min_velocity=float("nan"))
    assert scripted.requests == []


async def test_listing_shape_errors_are_invalid_responses(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/recent", {"rows": []})
    async with scripted.client() as catalog:
        with pytest.raises(InvalidResponse):
            await list_recent_papers(catalog)


# -- get_paper_info and evaluations ------------------------------------------------------


def evaluation(index: int, **extra: object) -> dict:
    return {
        "id": str(index),
        "paper_id": "755",
        "dataset_id": str(index),
        "model_name": f"Model {index}",
        "metrics": {"BLEU": index},
        "best_rank": index,
        **extra,
    }


async def test_paper_info_asks_for_resources(scripted: ScriptedCatalog) -> None:
    record = {"id": "755", "arxiv_id": "1706.03762", "title": "Attention Is All You Need"}
    scripted.on("papers/1706.03762", record)
    async with scripted.client() as catalog:
        answer = await get_paper_info(
            catalog, "https://arxiv.org/abs/1706.03762v7", include_evaluations=False
        )
    assert answer == record
    assert scripted.requests[0].multi == {"include_resources": ["true"]}


async def test_paper_info_collects_every_evaluation_page(scripted: ScriptedCatalog) -> None:
    rows = [evaluation(i) for i in range(250)]
    scripted.on("papers/1706.03762", {"id": 755})

    def evaluations(params: dict) -> object:
        page = int(params["page"])
        chunk = rows[(page - 1) * 100 : page * 100]
        return json_response({"count": 250, "next_page": page + 1, "results": chunk})

    scripted.on("evaluations/", evaluations)
    async with scripted.client() as catalog:
        answer = await get_paper_info(catalog, "1706.03762", include_evaluations=True)
    assert answer["evaluations"] == {"count": 250, "results": rows}  # raw rows, not merged
    calls = [r for r in scripted.requests if r.path == "evaluations/"]
    assert [r.one("page") for r in calls] == ["1", "2", "3"]
    assert calls[0].multi == {
        "page": ["1"],
        "page_size": ["100"],
        "paper_id": ["755"],
        "ordering": ["-benchmark_popularity"],
    }


@pytest.mark.parametrize(
    "pages, expected_requests, expected_count",
    [
        ([{"results": [evaluation(1)]}], 1, 1),  # total unknown: one page only
        ([{"count": 5, "results": [evaluation(1)]}, {"count": 5, "results": []}], 2, 5),
    ],
)
async def test_evaluation_paging_stops_early(
    scripted: ScriptedCatalog, pages: list, expected_requests: int, expected_count: int
) -> None:
    scripted.on("papers/1706.03762", {"id": "755"})
    scripted.on("evaluations/", lambda params: json_response(pages[int(params["page"]) - 1]))
    async with scripted.client() as catalog:
        answer = await get_paper_info(catalog, "1706.03762", include_evaluations=True)
    assert scripted.count("evaluations/") == expected_requests
    assert answer["evaluations"]["count"] == expected_count


async def test_paper_without_id_cannot_list_evaluations(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/1706.03762", {"title": "no id"})
    async with scripted.client() as catalog:
        with pytest.raises(InvalidResponse):
            await get_paper_info(catalog, "1706.03762", include_evaluations=True)


async def test_missing_paper_detail_is_a_paper_miss(scripted: ScriptedCatalog) -> None:
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing, match=r"^Paper not found: 2308\.10195v2$"):
            await get_paper_info(catalog, " 2308.10195v2 ", include_evaluations=False)


async def test_paper_evaluations_merges_one_page(scripted: ScriptedCatalog) -> None:
    base = {"paper_id": "755", "dataset_id": "42", "model_name": "Agent | One", "harness": "x"}
    rows = [
        {**base, "id": "1", "metrics": {"Resolved": 55.5}, "best_rank": 1, "task_id": "3"},
        {**base, "id": "2", "metrics": {"Pass@1": 50}, "best_rank": 2, "task_id": "3"},
        {**base, "id": "3", "metrics": {"Resolved": 55.5}, "best_rank": 4, "task_id": "8"},
    ]
    scripted.on("papers/1706.03762", {"id": "755"})
    scripted.on("evaluations/", {"count": 3, "next_page": 2, "results": rows})
    async with scripted.client() as catalog:
        answer = await get_paper_evaluations(catalog, paper="1706.03762", limit=3)
    assert scripted.requests[0].multi == {"include_resources": ["false"]}
    assert scripted.requests[1].multi == {
        "page": ["1"],
        "page_size": ["3"],
        "paper_id": ["755"],
        "ordering": ["-benchmark_popularity"],
    }
    assert answer["count"] == 3 and answer["page"] == 1 and answer["next_page"] == 2
    [merged] = answer["results"]
    assert merged["metrics"] == {"Resolved": 55.5, "Pass@1": 50}
    assert merged["best_rank"] == 1


async def test_paper_evaluations_count_falls_back_to_rows(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/1706.03762", {"id": "755"})
    scripted.on("evaluations/", {"count": 0, "next_page": None, "results": [evaluation(1)]})
    async with scripted.client() as catalog:
        answer = await get_paper_evaluations(catalog, paper="1706.03762")
    assert answer["count"] == 1 and answer["next_page"] is None


# -- related and lineage ------------------------------------------------------------------


async def test_related_papers_accept_objects_and_bare_arrays(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/1706.03762/related", {"results": [ATTENTION], "count": 1})
    scripted.on("papers/2006.16236/related", [ATTENTION])
    async with scripted.client() as catalog:
        assert await get_related_papers(catalog, "1706.03762", limit=2) == {
            "results": [ATTENTION],
            "count": 1,
        }
        assert await get_related_papers(catalog, "2006.16236", limit=4) == {"results": [ATTENTION]}
    assert scripted.requests[0].multi == {"limit": ["2"]}


async def test_related_papers_of_a_missing_paper(scripted: ScriptedCatalog) -> None:
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing, match=r"^Paper not found: 2308\.10195$"):
            await get_related_papers(catalog, "2308.10195", limit=4)


async def test_lineage_uses_the_encoded_legacy_id(scripted: ScriptedCatalog) -> None:
    document = {"paper": {"id": 900, "reference": "math.GT/0309136"}, "predecessors": []}
    scripted.on("research/papers/math.GT%2F0309136/lineage", document)
    async with scripted.client() as catalog:
        assert await get_paper_lineage(catalog, paper="math.GT/0309136") == document


async def test_lineage_without_a_paper_object_is_invalid(scripted: ScriptedCatalog) -> None:
    scripted.on("research/papers/1706.03762/lineage", {"predecessors": []})
    async with scripted.client() as catalog:
        with pytest.raises(InvalidResponse):
            await get_paper_lineage(catalog, paper="1706.03762")


# -- against the loopback fake -----------------------------------------------------------


@pytest.fixture
async def fake(fake_catalog):
    async with HttpCatalog(fake_catalog.api_url, timeout=5) as catalog:
        yield fake_catalog, catalog


async def test_fake_search_with_confirmed_filters(fake) -> None:
    _server, catalog = fake
    answer = await search_papers(
        catalog,
        query="attention",
        mode="keyword",
        published_after="2017-01-01",
        published_before="2017-12-31",
        has_official_implementation=True,
    )
    assert [row["arxiv_id"] for row in answer["results"]] == ["1706.03762"]


async def test_fake_old_server_fails_closed(fake) -> None:
    server, catalog = fake
    server.faults.old_server()
    with pytest.raises(NotFound, match=r"^Papers API did not confirm has_official"):
        await search_papers(catalog, query="attention", has_official_implementation=True)
    with pytest.raises(NotFound, match=r"^Papers API did not confirm the requested catalog"):
        await list_papers(catalog, task="Image Classification")


async def test_fake_list_confirms_filters_and_authors(fake) -> None:
    _server, catalog = fake
    answer = await list_papers(
        catalog, task="image classification", authors=["Kaiming He"], order_by="date_published"
    )
    assert answer["results"], "Kaiming He has image classification papers in the fixtures"
    assert all("Kaiming He" in row["authors"] for row in answer["results"])
    answer = await list_papers(catalog, authors=["@yilundu", "26405"])
    assert answer["applied_filters"]["authors"][0]["id"] == "26405"


async def test_fake_author_errors(fake) -> None:
    _server, catalog = fake
    with pytest.raises(UsageError) as caught:
        await list_papers(catalog, authors=["Alex Kim"])
    assert 'authors=["41"] (Alex Kim, @alex-one)' in str(caught.value)
    assert 'authors=["72"] (Alex Kim)' in str(caught.value)
    with pytest.raises(UsageError, match=r"^authors: Author not found: Nobody"):
        await list_papers(catalog, authors=["Nobody"])


async def test_fake_recent_and_trending(fake) -> None:
    _server, catalog = fake
    recent = await list_recent_papers(catalog, limit=3)
    trending = await list_trending_papers(catalog, limit=5, max_age_days=365)
    assert len(recent) == 3 and all("title" in row for row in recent)
    assert len(trending) <= 5


async def test_fake_paper_info_with_every_evaluation(fake) -> None:
    server, catalog = fake
    answer = await get_paper_info(catalog, "755", include_evaluations=True)
    assert answer["id"] == "755" and answer["title"] == "Attention Is All You Need"
    assert answer["repositories"], "resources are always requested"
    evaluations = answer["evaluations"]
    assert evaluations["count"] == len(evaluations["results"]) > 0
    assert {row["paper_id"] for row in evaluations["results"]} == {"755"}
    assert server.requests.with_path("papers/1706.03762")[0].param("include_resources") == "true"


async def test_fake_paper_evaluations_merge_rows(fake) -> None:
    _server, catalog = fake
    answer = await get_paper_evaluations(
        catalog, paper="SWE-bench: Can Language Models Resolve Real-World GitHub Issues?"
    )
    [agent_one] = [row for row in answer["results"] if row["model_name"] == "Agent | One"]
    assert agent_one["metrics"] == {"Resolved": 55.5, "Pass@1": 50}
    assert agent_one["best_rank"] == 1
    assert answer["count"] >= len(answer["results"])


async def test_fake_related_and_lineage(fake) -> None:
    _server, catalog = fake
    related = await get_related_papers(catalog, "1706.03762", limit=3)
    assert [row["arxiv_id"] for row in related["results"]] == [
        "2006.16236",
        "1810.04805",
        "2010.13154",
    ]
    lineage = await get_paper_lineage(
        catalog, paper="Llama 2: Open Foundation and Fine-Tuned Chat Models"
    )
    assert lineage["predecessors"][0]["reference"] == "2302.13971"


async def test_fake_missing_paper(fake) -> None:
    _server, catalog = fake
    with pytest.raises(PaperMissing, match=r"^Paper not found: 2308\.10195$"):
        await get_paper_info(catalog, "2308.10195", include_evaluations=False)
    with pytest.raises(PaperMissing):
        await get_paper_lineage(catalog, paper="2308.10195")
