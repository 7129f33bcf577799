"""Benchmark commands against a scripted catalog: requests sent, payloads, safety limits."""

from __future__ import annotations

from functools import partial

import anyio
import httpx
import pytest

from pwc_local.server.tools import call_query
from pwc_local.upstream.errors import HTTPStatusError, InvalidResponse, NotFound, UsageError
from pwc_local.upstream.http import HttpCatalog
from tests.scripted_catalog import paged, run_against

# The query functions, called as a tools/call calls them: the contract table's defaults.
get_benchmark = partial(call_query, "get_benchmark")
list_benchmarks = partial(call_query, "list_benchmarks")

COCO = {"id": "6", "name": "COCO", "full_name": "Common Objects in Context", "slug": "coco"}
COCO_SEARCH = {
    "count": 2,
    "results": [{"id": "7", "name": "COCO-Stuff", "slug": "coco-stuff"}, COCO],
}


def row(model: str, rank: int | None, metrics: dict, **fields) -> dict:
    return {
        "id": model,
        "paper_id": f"p-{model}",
        "dataset_id": "6",
        "model_name": model,
        "metrics": metrics,
        "task_id": "5",
        "best_rank": rank,
        **fields,
    }


COCO_ROWS = [
    row("Accurate", 1, {"mAP": 60, "FPS": 30}),
    row("Fast", 2, {"mAP": "58", "FPS": "100"}),
    row("Dominated", 3, {"mAP": 57, "FPS": 50}),
]


def coco_routes(rows: list[dict] | None = None, **extra) -> dict:
    return {
        "datasets/": COCO_SEARCH,
        "datasets/6/evaluations/": paged(COCO_ROWS if rows is None else rows, **extra),
    }


def paths(seen) -> list[str]:
    return [request.path for request in seen]


# -- get_benchmark ---------------------------------------------------------------------


def test_plain_leaderboard_is_one_catalog_page() -> None:
    answer, seen = run_against(
        coco_routes(), lambda c: get_benchmark(c, benchmark=" coco ", page=1, limit=2, is_open=True)
    )
    assert paths(seen) == ["datasets/", "datasets/6/evaluations/"]
    assert seen[0].params == {"q": "coco", "page": "1", "page_size": "100"}
    assert seen[1].params == {
        "page": "1",
        "page_size": "2",
        "ordering": "best_rank",
        "is_open": "true",
    }
    assert answer.metric_note is None
    payload = answer.payload
    assert payload["benchmark"] == COCO
    assert (payload["count"], payload["matched_count"], payload["page"]) == (3, 2, 1)
    assert payload["next_page"] == 2
    assert [r["model_name"] for r in payload["results"]] == ["Accurate", "Fast"]
    assert payload["results"][0]["rank_scopes"][0]["rank"] == 1


def test_benchmark_matches_full_name_and_id_too() -> None:
    answer, _ = run_against(
        coco_routes(), lambda c: get_benchmark(c, benchmark="common objects in context")
    )
    assert answer.payload["benchmark"]["id"] == "6"
    answer, seen = run_against(coco_routes(), lambda c: get_benchmark(c, benchmark="6"))
    assert answer.payload["benchmark"]["id"] == "6"
    assert "is_open" not in seen[1].params


def test_unknown_benchmark_suggests_names() -> None:
    with pytest.raises(NotFound) as caught:
        run_against(coco_routes(), lambda c: get_benchmark(c, benchmark="COC"))
    assert str(caught.value) == "Benchmark not found: COC; closest results: COCO, COCO-Stuff"
    with pytest.raises(NotFound, match=r"^Benchmark not found: zzz$"):
        run_against(
            {"datasets/": {"count": 0, "results": []}}, lambda c: get_benchmark(c, benchmark="zzz")
        )


def test_metric_options_scan_every_page_and_page_locally() -> None:
    rows = [row(f"M{i:03}", i, {"Score": i % 7}) for i in range(1, 251)]
    answer, seen = run_against(
        coco_routes(rows),
        lambda c: get_benchmark(c, benchmark="COCO", page=2, limit=5, sort_metric="score:desc"),
    )
    assert paths(seen) == ["datasets/"] + ["datasets/6/evaluations/"] * 3
    assert [s.params["page"] for s in seen[1:]] == ["1", "2", "3"]
    assert {s.params["page_size"] for s in seen[1:]} == {"100"}
    payload = answer.payload
    assert (payload["count"], payload["matched_count"], payload["page"]) == (250, 250, 2)
    assert payload["next_page"] == 3
    # Score 6 rows in rank order (stable sort): ranks 6, 13, 20, ... ; page 2 = 6th-10th.
    assert [r["best_rank"] for r in payload["results"]] == [41, 48, 55, 62, 69]


def test_local_paging_offers_no_page_past_the_last_valid_one() -> None:
    # Page numbers end at 100, so a later slice is not offered as a next page.
    rows = [row(f"M{i:03}", i, {"Score": 1}) for i in range(1, 151)]
    answer, _ = run_against(
        coco_routes(rows),
        lambda c: get_benchmark(c, benchmark="COCO", page=100, limit=1, sort_metric="Score"),
    )
    assert [r["model_name"] for r in answer.payload["results"]] == ["M100"]
    assert (answer.payload["matched_count"], answer.payload["next_page"]) == (150, None)


def test_spec_pareto_fixture_through_the_command() -> None:
    answer, _ = run_against(
        coco_routes(),
        lambda c: get_benchmark(
            c, benchmark="COCO", pareto=["mAP:higher", "FPS:higher"], sort_metric="FPS"
        ),
    )
    payload = answer.payload
    assert [r["model_name"] for r in payload["results"]] == ["Fast", "Accurate"]
    assert (payload["count"], payload["matched_count"], payload["next_page"]) == (3, 2, None)


def test_thresholds_and_required_metrics_filter_rows() -> None:
    answer, _ = run_against(
        coco_routes(),
        lambda c: get_benchmark(
            c, benchmark="COCO", require_metrics=["FPS"], minimum_metrics={"AP": 58}, limit=1
        ),
    )
    payload = answer.payload
    assert payload["matched_count"] == 2
    assert [r["model_name"] for r in payload["results"]] == ["Accurate"]
    assert payload["next_page"] == 2


def test_unknown_metric_falls_back_to_the_plain_leaderboard() -> None:
    answer, seen = run_against(
        coco_routes(),
        lambda c: get_benchmark(
            c, benchmark="COCO", limit=2, require_metrics=["BLEU"], sort_metric="FPS"
        ),
    )
    assert answer.metric_note == (
        "unknown metric(s): BLEU; available metrics: FPS, mAP; the leaderboard was returned "
        "without metric filters or metric sorting"
    )
    assert [r["model_name"] for r in answer.payload["results"]] == ["Accurate", "Fast"]
    assert answer.payload["next_page"] == 2
    # Lookup once, the scan (one page of 100), then the plain page of 2.
    assert paths(seen) == ["datasets/", "datasets/6/evaluations/", "datasets/6/evaluations/"]
    assert [s.params["page_size"] for s in seen[1:]] == ["100", "2"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_parameters": "3K"}, "max_parameters"),
        ({"sort_metric": "mAP:up"}, "sort_metric"),
        ({"pareto": ["mAP:up", "FPS:higher"]}, "pareto"),
        ({"minimum_metrics": {"mAP": "high"}}, "minimum_metrics"),
        ({"benchmark": "  "}, "benchmark"),
    ],
)
def test_bad_options_fail_before_any_request(options: dict, message: str) -> None:
    arguments = {"benchmark": "COCO", **options}
    with pytest.raises(UsageError, match=message) as caught:
        run_against(coco_routes(), lambda c: get_benchmark(c, **arguments))
    assert not str(caught.value).startswith("unknown metric")


def size_routes(rows: list[dict], **coverage) -> dict:
    fields = {"parameter_coverage_known": 2, "parameter_coverage_total": 3, **coverage}
    fields = {key: value for key, value in fields.items() if value is not None}
    return {"datasets/": COCO_SEARCH, "evaluations/": paged(rows, **fields)}


SIZED = [
    row("Small", 1, {"mAP": 50}, num_parameters=300_000_000),
    row("Medium", 2, {"mAP": 55}, num_parameters=1_500_000_000),
]


def test_size_limit_uses_the_evaluations_endpoint() -> None:
    answer, seen = run_against(
        size_routes(SIZED),
        lambda c: get_benchmark(c, benchmark="COCO", max_parameters="1.5B", is_open=False),
    )
    assert paths(seen) == ["datasets/", "evaluations/"]
    assert seen[1].params == {
        "page": "1",
        "page_size": "20",
        "dataset_id": "6",
        "ordering": "best_rank",
        "is_open": "false",
        "max_parameters_exclusive": "1500000001",
    }
    assert [r["num_parameters"] for r in answer.payload["results"]] == [300_000_000, 1_500_000_000]


@pytest.mark.parametrize(
    "coverage",
    [
        {"parameter_coverage_known": None},
        {"parameter_coverage_total": "3"},
        {"parameter_coverage_known": True},
    ],
)
def test_size_limit_fails_closed_without_coverage_counts(coverage: dict) -> None:
    with pytest.raises(InvalidResponse, match="compatible"):
        run_against(
            size_routes(SIZED, **coverage),
            lambda c: get_benchmark(c, benchmark="COCO", max_parameters="2B"),
        )


@pytest.mark.parametrize(
    "rows",
    [
        [row("Big", 1, {"mAP": 70}, num_parameters=3_000_000_000)],
        [row("Unknown", 1, {"mAP": 70}, num_parameters=None)],
        [
            row("Split", 1, {"mAP": 70}, num_parameters=1_000_000_000),
            row("Split", 2, {"mAP": 70}, num_parameters=2_000_000_000, task_id="9"),
        ],
    ],
    ids=["above", "unknown", "inconsistent"],
)
def test_size_limit_rejects_rows_it_cannot_vouch_for(rows: list[dict]) -> None:
    with pytest.raises(InvalidResponse, match="parameter limit"):
        run_against(
            size_routes(rows), lambda c: get_benchmark(c, benchmark="COCO", max_parameters="2B")
        )


def test_size_limited_scan_follows_next_page() -> None:
    rows = [row(f"M{i:03}", i, {"mAP": i}, num_parameters=1000 + i) for i in range(1, 151)]
    answer, seen = run_against(
        size_routes(rows),
        lambda c: get_benchmark(c, benchmark="COCO", max_parameters="2000", sort_metric="mAP"),
    )
    assert [s.params["page"] for s in seen[1:]] == ["1", "2"]
    assert answer.payload["results"][0]["model_name"] == "M150"
    assert answer.payload["count"] == 150


def test_size_limited_scan_rejects_non_advancing_pages() -> None:
    def stuck(params: dict) -> dict:
        return {
            "count": 500,
            "next_page": int(params["page"]),
            "parameter_coverage_known": 1,
            "parameter_coverage_total": 1,
            "results": [row("A", 1, {"mAP": 1}, num_parameters=5)],
        }

    routes = {"datasets/": COCO_SEARCH, "evaluations/": stuck}
    with pytest.raises(InvalidResponse, match="pagination"):
        run_against(
            routes,
            lambda c: get_benchmark(c, benchmark="COCO", max_parameters="9", sort_metric="mAP"),
        )


def test_scan_stops_at_the_row_safety_limit() -> None:
    def endless(params: dict) -> dict:
        page = int(params["page"])
        return {
            "count": 5000,
            "results": [row(f"M{page}-{i}", None, {"mAP": i}) for i in range(100)],
        }

    routes = {"datasets/": COCO_SEARCH, "datasets/6/evaluations/": endless}
    with pytest.raises(InvalidResponse, match="safety limit"):
        run_against(routes, lambda c: get_benchmark(c, benchmark="COCO", sort_metric="mAP"))


def test_scan_rejects_an_empty_page_below_the_count() -> None:
    rows = [row("A", 1, {"mAP": 1})]
    routes = {"datasets/": COCO_SEARCH, "datasets/6/evaluations/": paged(rows, count=10)}
    with pytest.raises(InvalidResponse, match="empty"):
        run_against(routes, lambda c: get_benchmark(c, benchmark="COCO", sort_metric="mAP"))


def test_scan_with_unknown_total_reads_one_page() -> None:
    routes = {"datasets/": COCO_SEARCH, "datasets/6/evaluations/": COCO_ROWS}
    answer, seen = run_against(
        routes, lambda c: get_benchmark(c, benchmark="COCO", sort_metric="FPS:asc")
    )
    assert len(seen) == 2
    assert [r["model_name"] for r in answer.payload["results"]] == ["Accurate", "Dominated", "Fast"]
    assert answer.payload["count"] == 3


def test_leaderboard_shape_errors_are_invalid_responses() -> None:
    routes = {"datasets/": COCO_SEARCH, "datasets/6/evaluations/": {"results": "none"}}
    with pytest.raises(InvalidResponse):
        run_against(routes, lambda c: get_benchmark(c, benchmark="COCO"))
    routes = {"datasets/": {"results": [{"name": "COCO"}]}}
    with pytest.raises(InvalidResponse, match="no id"):
        run_against(routes, lambda c: get_benchmark(c, benchmark="COCO"))


# -- list_benchmarks -------------------------------------------------------------------

IMAGE_CLASSIFICATION = {
    "id": "10",
    "name": "Image Classification",
    "benchmarks": [{"id": "72", "name": "ImageNet"}],
}
GROUPED = {
    "results": [
        {"id": "1", "name": "Vision", "tasks": [IMAGE_CLASSIFICATION]},
        {"id": "6", "name": "Audio", "tasks": []},
        {"id": "9", "name": None, "tasks": []},
    ]
}

TREND = {
    "task_id": "18",
    "task_slug": "ocr",
    "recent_days": 90,
    "results": [
        {"id": "2", "name": "Recent OCR", "slug": "recent-ocr", "all_time_paper_count": 5},
        {"id": "3", "name": "IIIT5K", "full_name": "IIIT 5K-word", "all_time_paper_count": 12},
        {"id": "4", "name": "SVT", "slug": "svt-ocr", "all_time_paper_count": 1},
        {"id": "5", "name": "IC15", "all_time_paper_count": None},
    ],
}

DATASETS = {"count": 1, "next_page": None, "results": [COCO]}


def list_routes() -> dict:
    return {
        "areas/with-task-benchmarks/": GROUPED,
        "tasks/Optical%20Character%20Recognition/trending-benchmarks": TREND,
        "datasets/": DATASETS,
    }


def listing(**arguments):
    return run_against(list_routes(), lambda c: list_benchmarks(c, **arguments))


def test_default_listing_is_flat_by_name() -> None:
    answer, seen = listing()
    assert (answer.grouped, answer.notes) == (False, [])
    assert answer.payload == DATASETS
    assert seen[0].params == {
        "page": "1",
        "page_size": "25",
        "include_descendants": "false",
        "ordering": "name",
    }


def test_flat_listing_sends_every_filter() -> None:
    _, seen = listing(
        search="coco",
        minimum_evaluations=3,
        is_open=True,
        order_by="paper_count",
        order_direction="desc",
        page=2,
        limit=10,
        include_descendants=True,
    )
    assert seen[0].path == "datasets/"
    assert seen[0].params == {
        "page": "2",
        "page_size": "10",
        "q": "coco",
        "include_descendants": "true",
        "min_eval_count": "3",
        "is_open": "true",
        "ordering": "-paper_count",
    }


def test_descending_without_order_by_sends_minus_name() -> None:
    _, seen = listing(order_direction="desc")
    assert seen[0].params["ordering"] == "-name"


def test_task_with_explicit_order_goes_to_the_flat_listing() -> None:
    _, seen = listing(task="OCR", order_by="name")
    assert seen[0].path == "datasets/"
    assert seen[0].params["task"] == "OCR"


def test_grouped_listing() -> None:
    answer, seen = listing(group_by_area=True, benchmarks_per_task=5)
    assert answer.grouped is True
    assert answer.payload == {"results": GROUPED["results"]}
    assert seen[0].path == "areas/with-task-benchmarks/"
    assert seen[0].params == {"benchmarks_per_task": "5", "min_eval_count": "2"}


def test_area_alone_means_grouped_for_that_area() -> None:
    answer, _ = listing(area=" vision ", page=3, limit=5)
    assert answer.grouped is True
    assert [area["name"] for area in answer.payload["results"]] == ["Vision"]
    with pytest.raises(NotFound, match=r"^Area not found: Space; available areas: Audio, Vision$"):
        listing(area="Space")


def test_minimum_evaluations_below_one() -> None:
    _, seen = listing(group_by_area=True, minimum_evaluations=0)
    assert seen[0].params["min_eval_count"] == "0"
    _, seen = listing(minimum_evaluations=-4)
    assert "min_eval_count" not in seen[0].params


def test_trending_without_task_is_repaired_with_a_note() -> None:
    answer, seen = listing(order_by="trending")
    assert answer.notes == ["order_by=trending needs task; ordered by name instead"]
    assert seen[0].params["ordering"] == "name"


def test_area_with_filters_is_dropped_with_a_note() -> None:
    answer, seen = listing(area="Vision", search="coco", order_by="trending")
    assert answer.notes == [
        "order_by=trending needs task; ordered by name instead",
        "area cannot be combined with filters; returned the filtered list",
    ]
    assert answer.grouped is False
    assert seen[0].path == "datasets/"


def test_group_by_area_with_filters_returns_the_flat_list() -> None:
    answer, seen = listing(group_by_area=True, task="Optical Character Recognition", limit=2)
    assert answer.grouped is False
    assert answer.notes == [
        "group_by_area cannot be combined with filters; returned the filtered list"
    ]
    assert seen[0].path.endswith("/trending-benchmarks")
    assert len(answer.payload["results"]) == 2


def test_task_trend_mode_filters_and_pages_locally() -> None:
    answer, seen = listing(
        task="Optical Character Recognition", search="ocr", minimum_evaluations=2, limit=1
    )
    assert seen[0].path == "tasks/Optical%20Character%20Recognition/trending-benchmarks"
    assert seen[0].params == {
        "limit": "100",
        "min_recent_papers": "0",
        "include_descendants": "false",
    }
    payload = answer.payload
    assert (payload["task_slug"], payload["recent_days"]) == ("ocr", 90)
    # "ocr" is in Recent OCR and svt-ocr; svt-ocr has too few papers.
    assert payload["count"] == 1
    assert [r["id"] for r in payload["results"]] == ["2"]
    assert answer.next_page is None


def test_task_trend_mode_pages_and_reports_next_page() -> None:
    answer, _ = listing(task="Optical Character Recognition", page=2, limit=1)
    assert [r["id"] for r in answer.payload["results"]] == ["3"]
    assert answer.payload["count"] == 4
    assert answer.next_page == 3
    # The payload is the CLI's: the trend document's keys, count and results, nothing added.
    assert set(answer.payload) == set(TREND) | {"count"}
    assert TREND["results"][0]["id"] == "2"  # the route's document is untouched


def test_task_trend_paging_stops_at_page_100() -> None:
    # The catalog is asked for 100 rows; should it send more, page 101 is still not offered.
    trend = {"results": [{"id": str(i), "name": f"B{i}"} for i in range(1, 102)]}
    routes = {"tasks/ocr/trending-benchmarks": trend}
    answer, _ = run_against(routes, lambda c: list_benchmarks(c, task="ocr", page=100, limit=1))
    assert [r["id"] for r in answer.payload["results"]] == ["100"]
    assert answer.next_page is None


def test_task_trend_search_covers_full_name() -> None:
    answer, _ = listing(task="Optical Character Recognition", search="5k-WORD")
    assert [r["id"] for r in answer.payload["results"]] == ["3"]


def test_unknown_trend_task_is_task_not_found() -> None:
    with pytest.raises(NotFound, match=r"^Task not found: Nope$"):
        listing(task="Nope")


def test_dot_task_names_stay_in_the_task_path() -> None:
    # Sent as is, httpx would resolve `tasks/../trending-benchmarks` to another endpoint.
    async def attempt(catalog: HttpCatalog) -> None:
        with pytest.raises(NotFound, match=r"^Task not found: \.\.$"):
            await list_benchmarks(catalog, task="..")

    _, seen = run_against({}, attempt)
    assert paths(seen) == ["tasks/%2E%2E/trending-benchmarks"]


def test_list_endpoint_errors_propagate() -> None:
    routes = {"datasets/": httpx.Response(422, json={"detail": "page_size must be <= 100"})}
    with pytest.raises(HTTPStatusError) as caught:
        run_against(routes, lambda c: list_benchmarks(c))
    assert caught.value.status == 422


def test_leaderboard_404_is_benchmark_not_found() -> None:
    with pytest.raises(NotFound, match=r"^Benchmark not found: coco$"):
        run_against({"datasets/": COCO_SEARCH}, lambda c: get_benchmark(c, benchmark="coco"))


# -- against the loopback fake ---------------------------------------------------------


def on_fake(fake, action):
    """Run `action(catalog)` against the loopback fake catalog."""

    async def main():
        async with HttpCatalog(fake.api_url) as catalog:
            return await action(catalog)

    return anyio.run(main)


def test_fake_plain_leaderboard_is_lookup_plus_one_page(fake_catalog) -> None:
    answer = on_fake(fake_catalog, lambda c: get_benchmark(c, benchmark="coco", limit=3))
    requests = fake_catalog.requests
    assert requests.paths() == ["datasets/", "datasets/6/evaluations/"]
    assert requests[0].query == {"q": ["coco"], "page": ["1"], "page_size": ["100"]}
    assert requests[1].query == {
        "page": ["1"],
        "page_size": ["3"],
        "ordering": ["best_rank"],
    }
    payload = answer.payload
    assert payload["benchmark"]["id"] == "6"
    assert len(payload["results"]) <= 3
    assert payload["next_page"] == 2


def test_fake_coco_pareto_fixture(fake_catalog) -> None:
    answer = on_fake(
        fake_catalog,
        lambda c: get_benchmark(
            c, benchmark="COCO", pareto=["mAP:higher", "FPS:higher"], sort_metric="FPS"
        ),
    )
    assert [row["model_name"] for row in answer.payload["results"]] == ["Fast", "Accurate"]
    assert answer.payload["matched_count"] == 2
    scans = fake_catalog.requests.with_path("datasets/6/evaluations/")
    assert [(r.param("page"), r.param("page_size")) for r in scans] == [("1", "100")]


def test_fake_swe_bench_rows_merge(fake_catalog) -> None:
    answer = on_fake(fake_catalog, lambda c: get_benchmark(c, benchmark="swe-bench-pro"))
    (agent,) = [row for row in answer.payload["results"] if row["model_name"] == "Agent | One"]
    assert agent["metrics"] == {"Resolved": 55.5, "Pass@1": 50}
    assert agent["best_rank"] == 1
    assert [(s["task_id"], s["rank"]) for s in agent["rank_scopes"]] == [("3", 1), ("8", 4)]


def test_fake_imagenet_scan_reads_every_page(fake_catalog) -> None:
    answer = on_fake(
        fake_catalog,
        lambda c: get_benchmark(c, benchmark="ImageNet-1k", sort_metric="top1", limit=5),
    )
    scans = fake_catalog.requests.with_path("datasets/72/evaluations/")
    assert [r.param("page") for r in scans] == ["1", "2", "3"]
    payload = answer.payload
    assert payload["count"] > 200
    values = [float(row["metrics"]["Top-1 Accuracy"]) for row in payload["results"]]
    assert values == sorted(values, reverse=True)
    assert payload["next_page"] == 2


def test_fake_size_limit(fake_catalog) -> None:
    answer = on_fake(
        fake_catalog,
        lambda c: get_benchmark(c, benchmark="imagenet-1k", max_parameters="100M", limit=25),
    )
    (request,) = fake_catalog.requests.with_path("evaluations/")
    assert request.param("dataset_id") == "72"
    assert request.param("max_parameters_exclusive") == "100000001"
    counts = [row["num_parameters"] for row in answer.payload["results"]]
    assert counts and all(0 < count <= 100_000_000 for count in counts)


def test_fake_old_server_fails_closed_on_size_limit(fake_catalog) -> None:
    fake_catalog.faults.old_server(prefix="evaluations/")
    with pytest.raises(InvalidResponse, match="compatible"):
        on_fake(
            fake_catalog, lambda c: get_benchmark(c, benchmark="imagenet-1k", max_parameters="1B")
        )


def test_fake_unknown_metric_note_names_real_metrics(fake_catalog) -> None:
    answer = on_fake(fake_catalog, lambda c: get_benchmark(c, benchmark="COCO", sort_metric="BLEU"))
    assert answer.metric_note.startswith("unknown metric(s): BLEU; available metrics: ")
    assert "mAP" in answer.metric_note and "FPS" in answer.metric_note
    assert answer.payload["results"]


def test_fake_benchmark_listings(fake_catalog) -> None:
    flat = on_fake(fake_catalog, lambda c: list_benchmarks(c, limit=5))
    assert (flat.grouped, len(flat.payload["results"])) == (False, 5)
    names = [row["name"] for row in flat.payload["results"]]
    assert names == sorted(names, key=str.casefold)
    trend = on_fake(fake_catalog, lambda c: list_benchmarks(c, task="Image Classification"))
    assert [row["name"] for row in trend.payload["results"]][:1] == ["ImageNet-1k"]
    assert fake_catalog.requests.count_path("tasks/Image%20Classification/trending-benchmarks") == 1
    grouped = on_fake(fake_catalog, lambda c: list_benchmarks(c, area="vision"))
    assert grouped.grouped is True
    assert [area["name"] for area in grouped.payload["results"]] == ["Vision"]
