"""Task, method, conference, organization and framework commands against a scripted catalog."""

from __future__ import annotations

from functools import partial

import anyio
import httpx
import pytest

from pwc_local.server.tools import call_query
from pwc_local.upstream.errors import HTTPStatusError, InvalidResponse, NotFound, UsageError
from pwc_local.upstream.http import HttpCatalog
from tests.scripted_catalog import run_against

# The query functions, called as a tools/call calls them: the contract table's defaults.
get_conference = partial(call_query, "get_conference")
get_framework = partial(call_query, "get_framework")
get_method = partial(call_query, "get_method")
get_organization = partial(call_query, "get_organization")
get_task = partial(call_query, "get_task")
list_conferences = partial(call_query, "list_conferences")
list_frameworks = partial(call_query, "list_frameworks")
list_methods = partial(call_query, "list_methods")
list_organizations = partial(call_query, "list_organizations")
list_tasks = partial(call_query, "list_tasks")

AREAS = {
    "count": 3,
    "results": [
        {"id": "6", "name": "Audio"},
        {"id": "3", "name": "General"},
        {"id": "1", "name": "Vision"},
    ],
}

STR_SUMMARY = {
    "id": "17",
    "slug": "scene-text-recognition",
    "name": "Scene Text Recognition",
    "area_id": "1",
    "paper_count": 250,
    "benchmark_count": 3,
    "evaluation_count": None,
}
TASK_SEARCH = {
    "count": 3,
    "results": [
        {"id": "2", "slug": "ocr", "name": "OCR"},
        {"id": "5", "slug": "scene-text", "name": "Scene Text Recognition (old)"},
        STR_SUMMARY,
    ],
}
TASK_PAGE = {
    "task": {
        "id": "17",
        "slug": "scene-text-recognition",
        "name": "Scene Text Recognition",
        "description": "Recognizing text in natural images.",
        "area_id": "1",
        "level": 1,
        "paper_count": 204,
        "evaluation_count": 99,
    },
    "parents": [{"id": "2", "slug": "ocr", "name": "OCR"}],
    "sisters": [{"id": "18", "slug": "text-detection", "name": "Text Detection"}],
    "benchmarks": [
        {"id": "30", "slug": "iiit5k", "name": "IIIT5K", "paper_count": 12},
        {"id": "31", "slug": "svt", "name": "SVT", "paper_count": 8},
        {"id": "32", "slug": "ic13", "name": "IC13", "paper_count": 4},
    ],
    "subtask_benchmarks": [{"subtask_id": "19", "benchmarks": [{"id": "40", "name": "IAM"}]}],
}
TREND = {
    "task_id": "17",
    "results": [
        {"id": "32", "name": "IC13 (trend)", "trend_score": 2.5},
        {"id": "99", "name": "Not on the page"},
        {"id": 30, "trend_score": 1.0},
    ],
}


def paper(number: int, *methods: dict) -> dict:
    return {"id": str(number), "title": f"Paper {number}", "methods": list(methods)}


TRANSFORMER = {"id": "2", "slug": "transformer", "name": "Transformer"}
CNN = {"id": "3", "slug": "cnn", "name": "cnn"}
ATTENTION = {"id": "4", "name": "Attention"}  # no slug: counted by id
PAPERS = {
    "count": 204,
    "results": [
        paper(1, TRANSFORMER, CNN),
        paper(2, {**TRANSFORMER, "name": "Transformer (renamed)"}, ATTENTION),
        paper(3, CNN, {"name": "anonymous"}),
        paper(4, ATTENTION, "not a method"),
        *[paper(n) for n in range(5, 13)],
    ],
}


def task_routes(**overrides) -> dict:
    routes = {
        "tasks/": TASK_SEARCH,
        "tasks/17": STR_SUMMARY,
        "tasks/17/page": TASK_PAGE,
        "tasks/17/trending-benchmarks": TREND,
        "tasks/17/papers": PAPERS,
        "areas/": AREAS,
    }
    routes.update(overrides)
    return routes


def test_get_task_composes_the_task_page() -> None:
    payload, seen = run_against(task_routes(), lambda c: get_task(c, task="scene text recognition"))
    assert seen[0].path == "tasks/"
    assert seen[0].params == {"q": "scene text recognition", "page": "1", "page_size": "100"}
    assert sorted(s.path for s in seen[1:]) == [
        "areas/",
        "tasks/17/page",
        "tasks/17/papers",
        "tasks/17/trending-benchmarks",
    ]
    by_path = {s.path: s.params for s in seen}
    assert by_path["tasks/17/trending-benchmarks"] == {"limit": "100", "min_recent_papers": "0"}
    assert by_path["tasks/17/papers"] == {
        "page": "1",
        "page_size": "100",
        "order_by": "trending",
        "order_dir": "desc",
        "include_resources": "true",
    }

    task = payload["task"]
    assert task["description"] == "Recognizing text in natural images."
    # The summary's non-null counts win; its null evaluation_count does not erase the page's.
    assert (task["paper_count"], task["benchmark_count"], task["evaluation_count"]) == (250, 3, 99)
    assert payload["area"] == {"id": "1", "name": "Vision"}
    assert payload["parents"][0]["slug"] == "ocr"
    assert payload["children"] == [] and payload["recommended_frameworks"] == []
    assert payload["subtask_benchmarks"][0]["subtask_id"] == "19"

    # Trend order first (trend fields win, off-page trend rows dropped), then page order.
    benchmarks = payload["benchmarks"]
    assert [b["slug"] for b in benchmarks] == ["ic13", "iiit5k", "svt"]
    assert benchmarks[0]["name"] == "IC13 (trend)"
    assert benchmarks[0]["paper_count"] == 4
    assert benchmarks[1]["trend_score"] == 1.0

    methods = payload["common_methods"]
    assert [(m["name"], m["paper_count"]) for m in methods] == [
        ("Attention", 2),
        ("cnn", 2),
        ("Transformer", 2),
    ]
    assert payload["paper_sample_size"] == 12
    assert payload["paper_count"] == 204
    assert [p["id"] for p in payload["papers"]] == [str(n) for n in range(1, 11)]


def test_numeric_task_skips_the_search() -> None:
    payload, seen = run_against(task_routes(), lambda c: get_task(c, task="17"))
    assert "tasks/" not in [s.path for s in seen]
    assert seen[0].path == "tasks/17"
    assert payload["task"]["name"] == "Scene Text Recognition"


def test_unknown_numeric_task_is_task_not_found() -> None:
    with pytest.raises(NotFound, match=r"^Task not found: 404404$"):
        run_against(task_routes(), lambda c: get_task(c, task="404404"))


def test_unknown_task_suggests_close_names() -> None:
    with pytest.raises(NotFound) as caught:
        run_against(task_routes(), lambda c: get_task(c, task="Scene Text"))
    assert str(caught.value) == (
        "Task not found: Scene Text; closest results: "
        "Scene Text Recognition, Scene Text Recognition (old), OCR"
    )


def test_task_slug_matches() -> None:
    payload, _ = run_against(task_routes(), lambda c: get_task(c, task="SCENE-TEXT-RECOGNITION"))
    assert payload["task"]["id"] == "17"


def test_task_paper_count_falls_back_to_rows() -> None:
    routes = task_routes(**{"tasks/17/papers": [paper(1, CNN)], "areas/": {"results": []}})
    payload, _ = run_against(routes, lambda c: get_task(c, task="17"))
    assert (payload["paper_count"], payload["paper_sample_size"]) == (1, 1)
    assert payload["area"] is None


@pytest.mark.parametrize(
    "overrides",
    [
        {"tasks/17/page": {"task": None, "benchmarks": []}},
        {"tasks/17/page": {"task": {"id": "17"}, "benchmarks": None}},
        {"tasks/17/trending-benchmarks": {"results": {"id": "1"}}},
        {"tasks/17/papers": {"results": 3}},
        {"tasks/17": {"name": "No id"}},
    ],
)
def test_malformed_task_documents_are_invalid(overrides: dict) -> None:
    with pytest.raises(InvalidResponse):
        run_against(task_routes(**overrides), lambda c: get_task(c, task="17"))


def test_a_failing_concurrent_request_surfaces_as_itself() -> None:
    routes = task_routes(**{"tasks/17/papers": httpx.Response(503, json={"detail": "busy"})})
    with pytest.raises(HTTPStatusError) as caught:
        run_against(routes, lambda c: get_task(c, task="17"))
    assert caught.value.status == 503


def test_list_tasks_flat_resolves_the_area() -> None:
    document = {"count": 1, "next_page": None, "results": [STR_SUMMARY]}
    arguments = {
        "search": " scene ",
        "area": "vision",
        "level": 1,
        "order_by": "paper_count",
        "order_direction": "desc",
    }
    payload, seen = run_against(
        {"areas/": AREAS, "tasks/": document}, lambda c: list_tasks(c, **arguments)
    )
    assert payload.payload == document
    assert payload.areas["1"] == "Vision"  # shown by name (issue 26)
    assert [s.path for s in seen] == ["areas/", "tasks/"]
    assert seen[1].params == {
        "page": "1",
        "page_size": "25",
        "q": "scene",
        "area_id": "1",
        "level": "1",
        "visible_only": "false",
        "ordering": "-paper_count",
    }


def test_list_tasks_without_area_sends_one_request() -> None:
    _, seen = run_against(
        {"tasks/": {"count": 0, "results": []}},
        lambda c: list_tasks(c, search="", visible_only=True, page=3, limit=7),
    )
    assert [s.path for s in seen] == ["tasks/", "areas/"]  # the page, and its areas' names
    assert seen[0].params == {
        "page": "3",
        "page_size": "7",
        "visible_only": "true",
        "ordering": "name",
    }


def test_list_tasks_unknown_area() -> None:
    with pytest.raises(NotFound, match=r"^Area not found: Space; available areas: Audio, General"):
        run_against({"areas/": AREAS}, lambda c: list_tasks(c, area="Space"))


def test_blank_area_counts_as_not_given() -> None:
    routes = {"tasks/": {"count": 0, "results": []}, "methods/": {"count": 0, "results": []}}
    for command in (list_tasks, list_methods):
        _, seen = run_against(routes, lambda c, command=command: command(c, area=" "))
        assert [s.path for s in seen] in (["tasks/", "areas/"], ["methods/", "areas/"])
        assert "area_id" not in seen[0].params


GROUPED_TASKS = {
    "results": [
        {
            "id": "1",
            "name": "Vision",
            "tasks": [
                {"name": "object detection", "paper_count": 5},
                {"name": "Image Classification", "paper_count": 9},
                {"name": "Unnamed"},
                {"name": "Depth", "paper_count": None},
            ],
        },
        {"id": "6", "name": "Audio", "tasks": [{"name": "Audio Classification"}]},
    ]
}


def test_grouped_tasks_sort_within_areas() -> None:
    payload, seen = run_against(
        {"areas/with-tasks/": GROUPED_TASKS},
        lambda c: list_tasks(c, group_by_area=True, order_by="paper_count", search="ignored"),
    )
    assert seen[0].params == {}
    vision = payload.payload["results"][0]["tasks"]
    assert [t["name"] for t in vision] == [
        "object detection",
        "Image Classification",
        "Unnamed",
        "Depth",
    ]
    listing, _ = run_against(
        {"areas/with-tasks/": GROUPED_TASKS},
        lambda c: list_tasks(c, group_by_area=True, order_direction="desc", area="VISION"),
    )
    payload = listing.payload
    assert [area["name"] for area in payload["results"]] == ["Vision"]
    names = [t["name"] for t in payload["results"][0]["tasks"]]
    assert names == ["Unnamed", "object detection", "Image Classification", "Depth"]
    assert GROUPED_TASKS["results"][0]["tasks"][0]["name"] == "object detection"


@pytest.mark.parametrize("arguments", [{"page": 2}, {"limit": 25}, {"level": 0}])
def test_grouped_tasks_reject_paging_and_level(arguments: dict) -> None:
    with pytest.raises(UsageError) as caught:
        run_against({}, lambda c: list_tasks(c, group_by_area=True, **arguments))
    message = str(caught.value)
    assert all(word in message for word in ("group_by_area", "page", "limit", "level"))
    assert "--" not in message  # MCP parameter names, not CLI flags


def test_grouped_tasks_unknown_area() -> None:
    with pytest.raises(NotFound, match=r"available areas: Audio, Vision$"):
        run_against(
            {"areas/with-tasks/": GROUPED_TASKS},
            lambda c: list_tasks(c, group_by_area=True, area="Robotics"),
        )


# -- methods ---------------------------------------------------------------------------

METHOD_SEARCH = {
    "count": 2,
    "results": [
        {"id": "21", "slug": "wav2vec", "name": "wav2vec", "full_name": "wav2vec 1"},
        {"id": "20", "slug": "wav2vec-2", "name": "wav2vec 2.0", "full_name": "wav2vec 2.0 full"},
    ],
}
WAV2VEC2 = {
    "id": "20",
    "slug": "wav2vec-2",
    "name": "wav2vec 2.0",
    "area_id": "6",
    "paper_count": 45,
}


def method_routes() -> dict:
    return {"methods/": METHOD_SEARCH, "methods/20": WAV2VEC2, "areas/": AREAS}


def test_get_method_by_full_name() -> None:
    payload, seen = run_against(method_routes(), lambda c: get_method(c, method="WAV2VEC 2.0 FULL"))
    assert payload == {"method": WAV2VEC2, "area": {"id": "6", "name": "Audio"}}
    assert seen[0].params == {"q": "WAV2VEC 2.0 FULL", "page": "1", "page_size": "100"}
    assert sorted(s.path for s in seen[1:]) == ["areas/", "methods/20"]


def test_get_method_by_numeric_id() -> None:
    payload, seen = run_against(method_routes(), lambda c: get_method(c, method="20"))
    assert "methods/" not in [s.path for s in seen]
    assert payload["method"]["slug"] == "wav2vec-2"


def test_get_method_not_found() -> None:
    with pytest.raises(NotFound, match=r"^Method not found: wav2vec 3"):
        run_against(method_routes(), lambda c: get_method(c, method="wav2vec 3"))
    with pytest.raises(NotFound, match=r"^Method not found: 77$"):
        run_against(method_routes(), lambda c: get_method(c, method="77"))


def test_list_methods_parameters() -> None:
    _, seen = run_against(
        {"areas/": AREAS, "methods/": METHOD_SEARCH},
        lambda c: list_methods(c, area="Audio", introduced_year=2020, order_by="introduced_year"),
    )
    assert seen[1].params == {
        "page": "1",
        "page_size": "25",
        "area_id": "6",
        "introduced_year": "2020",
        "ordering": "introduced_year",
    }


# -- conferences and organizations -----------------------------------------------------

CONFERENCES = {
    "count": 3,
    "results": [
        {"id": "5", "slug": "cvpr-2025", "name": "CVPR 2025", "year": 2025},
        {"id": "7", "slug": "cvpr-2026", "name": "CVPR 2026", "year": 2026},
        {"id": "8", "slug": "neurips-2025", "name": "NeurIPS 2025", "year": "2025"},
    ],
}


def test_get_conference_fetches_the_record_by_slug() -> None:
    routes = {
        "conferences/": CONFERENCES,
        "conferences/cvpr-2026": {"slug": "cvpr-2026", "tier": "a*"},
    }
    payload, seen = run_against(routes, lambda c: get_conference(c, conference="7"))
    assert payload == {"slug": "cvpr-2026", "tier": "a*"}
    assert [(s.path, s.params) for s in seen] == [
        ("conferences/", {}),
        ("conferences/cvpr-2026", {}),
    ]


def test_get_conference_not_found_suggests_similar_names_only() -> None:
    with pytest.raises(NotFound) as caught:
        run_against(
            {"conferences/": CONFERENCES}, lambda c: get_conference(c, conference="CVPR 2027")
        )
    assert (
        str(caught.value)
        == "Conference not found: CVPR 2027; closest results: CVPR 2025, CVPR 2026"
    )
    with pytest.raises(NotFound, match=r"^Conference not found: ICML$"):
        run_against({"conferences/": CONFERENCES}, lambda c: get_conference(c, conference="ICML"))


def test_conference_record_404_is_not_found() -> None:
    with pytest.raises(NotFound, match=r"^Conference not found: cvpr-2025$"):
        run_against(
            {"conferences/": CONFERENCES}, lambda c: get_conference(c, conference="cvpr-2025")
        )


def test_list_conferences_filters_on_integer_year() -> None:
    payload, _ = run_against(
        {"conferences/": CONFERENCES}, lambda c: list_conferences(c, year=2025)
    )
    assert payload == {"count": 1, "results": [CONFERENCES["results"][0]]}
    payload, _ = run_against({"conferences/": CONFERENCES}, lambda c: list_conferences(c))
    assert payload["count"] == 3


ORGANIZATIONS = {"count": 1, "results": [{"id": "1", "slug": "nvidia", "name": "NVIDIA"}]}


def test_get_organization() -> None:
    routes = {
        "organizations/": ORGANIZATIONS,
        "organizations/nvidia": {"slug": "nvidia", "hf_url": "x"},
    }
    payload, seen = run_against(routes, lambda c: get_organization(c, organization="Nvidia"))
    assert payload["hf_url"] == "x"
    assert seen[0].params == {"featured_only": "false"}
    with pytest.raises(NotFound, match=r"^Organization not found: NVIDA; closest results: NVIDIA$"):
        run_against(routes, lambda c: get_organization(c, organization="NVIDA"))


def test_list_organizations_passes_the_document_through() -> None:
    payload, seen = run_against(
        {"organizations/": ORGANIZATIONS}, lambda c: list_organizations(c, featured_only=True)
    )
    assert payload == ORGANIZATIONS
    assert seen[0].params == {"featured_only": "true"}


# -- frameworks ------------------------------------------------------------------------

FRAMEWORKS = {
    "domains": [
        {
            "slug": "llm",
            "name": "Large Language Models",
            "categories": [
                {
                    "slug": "inference",
                    "name": "Inference & Serving",
                    "frameworks": [
                        {"id": "11", "slug": "vllm", "name": "vLLM", "platforms": ["gpu"]},
                        {
                            "id": "9",
                            "slug": "llama-cpp",
                            "name": "llama.cpp",
                            "platforms": ["cpu", "Apple"],
                        },
                        "junk",
                    ],
                },
                "junk",
            ],
        },
        {
            "slug": "vision",
            "name": "Vision",
            "categories": [
                {
                    "slug": "training",
                    "name": "Training",
                    "frameworks": [{"id": "3", "name": "timm"}],
                }
            ],
        },
        None,
    ]
}


def test_get_framework_returns_the_flattened_row() -> None:
    payload, seen = run_against(
        {"frameworks/": FRAMEWORKS}, lambda c: get_framework(c, framework="LLAMA-CPP")
    )
    assert payload == {
        "id": "9",
        "slug": "llama-cpp",
        "name": "llama.cpp",
        "platforms": ["cpu", "Apple"],
        "domain_slug": "llm",
        "domain_name": "Large Language Models",
        "category_slug": "inference",
        "category_name": "Inference & Serving",
    }
    assert len(seen) == 1
    with pytest.raises(NotFound, match=r"^Framework not found: vllmx; closest results: vLLM$"):
        run_against({"frameworks/": FRAMEWORKS}, lambda c: get_framework(c, framework="vllmx"))


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, ["vllm", "llama-cpp", None]),
        ({"domain": "large language models"}, ["vllm", "llama-cpp"]),
        ({"domain": "LLM", "category": "INFERENCE"}, ["vllm", "llama-cpp"]),
        ({"category": "training"}, [None]),
        ({"platform": "apple"}, ["llama-cpp"]),
        ({"platform": "tpu"}, []),
        ({"domain": " ", "category": "", "platform": ""}, ["vllm", "llama-cpp", None]),  # unset
    ],
)
def test_list_frameworks_filters(filters: dict, expected: list) -> None:
    payload, _ = run_against({"frameworks/": FRAMEWORKS}, lambda c: list_frameworks(c, **filters))
    assert [row.get("slug") for row in payload["results"]] == expected
    assert payload["count"] == len(expected)


def test_framework_catalogue_must_have_domains() -> None:
    with pytest.raises(InvalidResponse):
        run_against({"frameworks/": {"results": []}}, lambda c: list_frameworks(c))


def test_blank_entity_names_are_usage_errors() -> None:
    for kind in ("task", "method", "conference", "organization", "framework"):
        with pytest.raises(UsageError):
            run_against({}, lambda c, kind=kind: call_query(f"get_{kind}", c, **{kind: "  "}))


def test_task_page_404_is_task_not_found() -> None:
    routes = task_routes()
    del routes["tasks/17/page"]
    with pytest.raises(NotFound, match=r"^Task not found: scene-text-recognition$"):
        run_against(routes, lambda c: get_task(c, task="scene-text-recognition"))


# -- against the loopback fake ---------------------------------------------------------


def on_fake(fake, action):
    """Run `action(catalog)` against the loopback fake catalog."""

    async def main():
        async with HttpCatalog(fake.api_url) as catalog:
            return await action(catalog)

    return anyio.run(main)


def test_fake_get_task_by_slug(fake_catalog) -> None:
    payload = on_fake(fake_catalog, lambda c: get_task(c, task="Scene-Text-Recognition"))
    assert payload["task"]["id"] == "17"
    assert payload["area"]["name"] == "Vision"
    assert [parent["slug"] for parent in payload["parents"]] == ["ocr"]
    assert [sister["slug"] for sister in payload["sisters"]] == ["text-detection"]
    requests = fake_catalog.requests
    assert len(requests) == 5
    assert requests[0].path == "tasks/"
    assert requests[0].param("q") == "Scene-Text-Recognition"
    for path in ("tasks/17/page", "tasks/17/trending-benchmarks", "tasks/17/papers", "areas/"):
        assert requests.count_path(path) == 1


def test_fake_get_task_by_id_ranks_benchmarks_and_methods(fake_catalog) -> None:
    payload = on_fake(fake_catalog, lambda c: get_task(c, task="10"))
    assert fake_catalog.requests.count_path("tasks/") == 0
    assert payload["task"]["slug"] == "image-classification"
    assert payload["benchmarks"][0]["name"] == "ImageNet-1k"
    counts = [method["paper_count"] for method in payload["common_methods"]]
    assert counts == sorted(counts, reverse=True)
    assert 0 < len(payload["common_methods"]) <= 8
    assert len(payload["papers"]) <= 10


def test_fake_unknown_task(fake_catalog) -> None:
    with pytest.raises(NotFound, match=r"^Task not found: Image Classifier"):
        on_fake(fake_catalog, lambda c: get_task(c, task="Image Classifier"))


def test_fake_methods(fake_catalog) -> None:
    payload = on_fake(fake_catalog, lambda c: get_method(c, method="transformer"))
    assert payload["method"]["source_url"] == "/paper/1706.03762"
    assert payload["area"]["name"] == "General"
    assert len(fake_catalog.requests) == 3
    listing = on_fake(fake_catalog, lambda c: list_methods(c, area="audio", limit=5))
    assert listing.payload["results"] and listing.areas["6"] == "Audio"
    assert all(row["area_id"] == "6" for row in listing.payload["results"])


def test_fake_list_tasks_flat_and_grouped(fake_catalog) -> None:
    page = on_fake(fake_catalog, lambda c: list_tasks(c, area="Vision", limit=3)).payload
    assert len(page["results"]) == 3
    assert page["next_page"] == 2
    listing = on_fake(fake_catalog, lambda c: list_tasks(c, group_by_area=True, area="audio"))
    grouped = listing.payload
    assert [area["name"] for area in grouped["results"]] == ["Audio"]
    names = [task["name"] for task in grouped["results"][0]["tasks"]]
    assert names == sorted(names, key=str.casefold)


def test_fake_conferences_organizations_frameworks(fake_catalog) -> None:
    conference = on_fake(fake_catalog, lambda c: get_conference(c, conference="CVPR 2026"))
    assert (conference["id"], conference["year"]) == ("7", 2026)
    listed = on_fake(fake_catalog, lambda c: list_conferences(c, year=2025))
    assert listed["count"] > 0
    assert {row["year"] for row in listed["results"]} == {2025}
    organization = on_fake(fake_catalog, lambda c: get_organization(c, organization="nvidia"))
    assert organization["is_featured"] is True
    framework = on_fake(fake_catalog, lambda c: get_framework(c, framework="11"))
    assert (framework["slug"], framework["domain_slug"]) == ("vllm", "llm")
    apple = on_fake(fake_catalog, lambda c: list_frameworks(c, platform="APPLE"))
    assert "llama-cpp" in [row["slug"] for row in apple["results"]]


def test_fake_upstream_failures_surface_typed(fake_catalog) -> None:
    fake_catalog.faults.service_unavailable(prefix="tasks/17/papers")
    with pytest.raises(HTTPStatusError) as caught:
        on_fake(fake_catalog, lambda c: get_task(c, task="17"))
    assert caught.value.status == 503
    fake_catalog.faults.reset()
    fake_catalog.faults.invalid_json(prefix="frameworks/")
    with pytest.raises(InvalidResponse):
        on_fake(fake_catalog, lambda c: list_frameworks(c))
