"""Projection rules from catalog payloads to output models (tools.md §3.2-3.4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import ValidationError

from pwc_local.present import projections as p
from pwc_local.present.hosted import (
    LINEAGE_COVERAGE_NOTE,
    RANKING_NOTE,
    BenchmarkResult,
    PaperPage,
    PaperReadResult,
    QueryResult,
)
from pwc_local.upstream.errors import InvalidResponse

# -- value rules --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("", None), ("x", "x"), (7, "7"), (0, "0"), (" ", " ")],
)
def test_text_or_null(value: Any, expected: str | None) -> None:
    assert p.text_or_null(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (True, None),
        (False, None),
        ("12", 12),
        (12.9, 12),
        ("3.5", None),
        ("abc", None),
        (float("nan"), None),
        (float("inf"), None),
        ([1], None),
        (5, 5),
    ],
)
def test_int_or_null(value: Any, expected: int | None) -> None:
    assert p.int_or_null(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/paper/1706.03762", "https://paperswithcode.co/paper/1706.03762"),
        ("//example.org/x", "https://example.org/x"),
        ("https://example.org/r", "https://example.org/r"),
        ("", None),
        (None, None),
    ],
)
def test_absolute_url(value: Any, expected: str | None) -> None:
    assert p.absolute_url(value) == expected


@pytest.mark.parametrize(
    ("methodology", "shots"),
    [
        ("Test split, 5-shot; Table 3", 5),
        ("0 shot", 0),
        ("25shot, then 3-shot", 25),
        ("5 -shot", 5),
        ("5-shots", None),
        ("zero-shot", None),
        ("screenshot 7", None),
        ("", None),
        (None, None),
        (12, None),
    ],
)
def test_shots_from_methodology(methodology: Any, shots: int | None) -> None:
    assert p.shots_from(methodology) == shots


# -- papers ------------------------------------------------------------------------------


def test_paper_summary_fallbacks() -> None:
    summary = p.paper_summary(
        {
            "id": 755,
            "title": "",
            "date_published": "2017-06-12",
            "source_url": "https://example.org/paper",
            "has_official_implementation": "true",  # only the JSON value true counts
            "citation_count": "190373",
        }
    )
    assert summary.model_dump() == {
        "id": "755",
        "arxiv_id": None,
        "title": "Untitled paper",
        "authors": [],
        "published": "2017-06-12",
        "citation_count": 190373,
        "url": "https://example.org/paper",
        "has_official_implementation": False,
        "code_repository_count": 0,
    }


def test_paper_summary_prefers_primary_fields() -> None:
    summary = p.paper_summary(
        {
            "id": "755",
            "arxiv_id": "1706.03762",
            "title": "Attention Is All You Need",
            "authors": ["Ashish Vaswani", {"name": "Noam Shazeer"}, ""],
            "published": "2017-06-12",
            "date_published": "1999-01-01",
            "url_abs": "https://arxiv.org/abs/1706.03762v7",
            "source_url": "https://example.org/other",
            "has_official_implementation": True,
            "code_repository_count": 595,
        }
    )
    assert summary.authors == ["Ashish Vaswani", "Noam Shazeer"]
    assert summary.published == "2017-06-12"
    assert summary.url == "https://arxiv.org/abs/1706.03762v7"
    assert summary.has_official_implementation is True
    assert summary.code_repository_count == 595


def test_paper_page_from_object_and_from_bare_array() -> None:
    document = {"results": [{"id": "1", "title": "A"}, "junk"], "next_page": 2, "count": 40}
    page = p.paper_page(document)
    assert [item.id for item in page.items] == ["1"]
    assert page.next_page == 2
    assert page.data is document
    bare = [{"id": "2", "title": "B"}]
    page = p.paper_page(bare)
    assert [item.title for item in page.items] == ["B"]
    assert page.next_page is None
    assert page.data == bare
    assert page.note is None and page.available_at == []


PAPER = {
    "id": "755",
    "arxiv_id": "1706.03762",
    "title": "Attention Is All You Need",
    "abstract": "Text.",
    "authors": ["Ashish Vaswani"],
    "published": "2017-06-12",
    "url_abs": "https://arxiv.org/abs/1706.03762",
    "url_pdf": "https://arxiv.org/pdf/1706.03762",
    "code_repository_count": 595,
    "tasks": [{"id": 6, "name": "Machine Translation", "slug": "machine-translation"}],
    "methods": [{"id": "1", "slug": "transformer"}, {"id": "2"}, "junk"],
    "repositories": [
        {"url": "https://github.com/a/unofficial-1", "is_official": False},
        "https://github.com/a/plain-string",
        {"url": "https://github.com/a/official-1", "is_official": True},
        {"url": "https://github.com/a/unofficial-2"},
        {"url": "https://github.com/a/official-2", "is_official": True},
        {"is_official": True},
    ],
    "project_pages": [{"url": "https://project.example"}, "https://second.example", 3],
    "hf_models": ["https://huggingface.co/m1", "https://huggingface.co/m2"],
    "hf_datasets": [{"url": "https://huggingface.co/datasets/d"}],
    "hf_spaces": [],
}


def test_paper_detail_compact_keeps_only_official_repositories() -> None:
    detail = p.paper_detail(PAPER, include_resources=False, repo_limit=5)
    assert [(r.url, r.is_official) for r in detail.repositories] == [
        ("https://github.com/a/official-1", True),
        ("https://github.com/a/official-2", True),
    ]
    assert detail.project_pages == [] and detail.hf_models == [] and detail.hf_datasets == []
    assert detail.code_repository_count == 595  # the catalog total, not the cut
    assert [t.model_dump() for t in detail.tasks] == [
        {"id": "6", "name": "Machine Translation", "slug": "machine-translation"}
    ]
    assert [(m.id, m.name, m.slug) for m in detail.methods] == [
        ("1", "transformer", "transformer"),
        ("2", "Unknown", None),
    ]


def test_paper_detail_with_resources_official_first_and_cut() -> None:
    detail = p.paper_detail(PAPER, include_resources=True, repo_limit=3)
    assert [r.url.rsplit("/", 1)[1] for r in detail.repositories] == [
        "official-1",
        "official-2",
        "unofficial-1",
    ]
    assert detail.project_pages == ["https://project.example", "https://second.example"]
    assert detail.hf_models == ["https://huggingface.co/m1", "https://huggingface.co/m2"]
    assert detail.hf_datasets == ["https://huggingface.co/datasets/d"]
    detail = p.paper_detail(PAPER, include_resources=True, repo_limit=1)
    assert [r.url for r in detail.repositories] == ["https://github.com/a/official-1"]
    assert detail.hf_models == ["https://huggingface.co/m1"]


@dataclass
class InfoAnswer:
    """Stands in for `pwc_local.queries.public.PaperInfoAnswer` (duck-typed by the projection)."""

    paper: dict[str, Any]
    in_catalog: bool = True
    note: str | None = None
    available_at: list[tuple[str, str]] = field(default_factory=list)


def test_paper_info_with_and_without_evaluations() -> None:
    with_rows = dict(
        PAPER,
        evaluations={"count": 3, "results": [{"id": "1", "model_name": "M", "is_open": None}]},
    )
    result = p.paper_info(
        InfoAnswer(with_rows), include_resources=False, include_evaluations=True, repo_limit=5
    )
    assert result.evaluation_count == 3
    assert [e.model_name for e in result.evaluations or []] == ["M"]
    assert result.in_catalog is True and result.data is None
    result = p.paper_info(
        InfoAnswer(with_rows), include_resources=False, include_evaluations=False, repo_limit=5
    )
    assert result.evaluation_count is None and result.evaluations is None


def test_paper_info_public_fallback() -> None:
    answer = InfoAnswer(
        {"id": "2401.00001", "arxiv_id": "2401.00001", "title": "Uncatalogued", "authors": []},
        in_catalog=False,
        note="This paper is not indexed on Papers With Code.",
        available_at=[("arXiv", "https://arxiv.org/abs/2401.00001")],
    )
    result = p.paper_info(answer, include_resources=True, include_evaluations=True, repo_limit=5)
    dumped = result.model_dump(mode="json")
    assert dumped["in_catalog"] is False
    assert dumped["note"] == "This paper is not indexed on Papers With Code."
    assert dumped["available_at"] == [{"label": "arXiv", "url": "https://arxiv.org/abs/2401.00001"}]
    assert dumped["evaluations"] is None and dumped["data"] is None
    assert dumped["paper"]["repositories"] == [] and dumped["paper"]["tasks"] == []


def test_paper_evaluation_legacy_rules() -> None:
    row = {
        "id": 10,
        "dataset_name": "WMT2014 English-German",
        "task_name": "Machine Translation",
        "metrics": {"BLEU": "28.4", "Params": 213000000},
        "best_rank": "1",
        "result_url": "/paper/1706.03762",
    }
    evaluation = p.paper_evaluation(row)
    assert evaluation.benchmark == "WMT2014 English-German"
    assert evaluation.task == "Machine Translation"
    assert evaluation.model_name == "Unknown model"
    assert evaluation.metrics == {"BLEU": "28.4", "Params": 213000000}  # raw values
    assert evaluation.best_rank == 1
    assert evaluation.is_open is True  # missing counts as open in the legacy shape
    assert evaluation.source_url == "/paper/1706.03762"  # not made absolute here
    assert p.paper_evaluation({"is_open": False}).is_open is False
    assert p.paper_evaluation({"is_open": None}).is_open is True


# -- evaluations ---------------------------------------------------------------------------


def test_evaluation_full_projection() -> None:
    row = {
        "id": "10",
        "model_name": "ExampleNet",
        "harness": "timm",
        "metrics": {
            "Top-1 Accuracy": "91.2",
            "Params": 3000000000,
            "FPS": "1,234",
            "Rate": "91.2%",
            "Flag": True,
            "Missing": None,
            "Weird": "nan",
            "List": [1],
        },
        "best_metric": "Top-1 Accuracy",
        "best_rank": 2,
        "task_id": 3,
        "task_name": "Image Classification",
        "task_slug": "image-classification",
        "paper_id": 755,
        "paper_title": "Paper",
        "paper_arxiv_id": "1706.03762",
        "paper_published_date": "2017-06-12",
        "is_open": "yes",
        "num_parameters": "3000000000",
        "split_name": "val",
        "evaluated_on": "ignored",
        "methodology": "Validation split, 5-shot",
        "source_url": "/paper/x#results",
        "code_url": "/code/y",
        "hf_model_url": "https://huggingface.co/m",
        "updated_at": "2025-01-01T00:00:00Z",
        "uses_additional_data": 0,
    }
    e = p.evaluation(row)
    assert e.metrics == {
        "Top-1 Accuracy": 91.2,
        "Params": 3000000000,
        "FPS": "1,234",
        "Rate": "91.2%",
        "Flag": "True",
        "Missing": None,
        "Weird": "nan",
        "List": "[1]",
    }
    assert [s.model_dump() for s in e.rank_scopes] == [
        {
            "task_id": "3",
            "task_name": "Image Classification",
            "task_slug": "image-classification",
            "rank": 2,
        }
    ]
    assert e.task == "Image Classification"
    assert e.paper_id == "755"
    assert e.paper_published == "2017-06-12"
    assert e.is_open is None  # only a real boolean is kept
    assert e.uses_additional_data is None
    assert e.num_parameters == 3000000000
    assert e.split == "val"
    assert e.shots == 5
    assert e.evaluation_protocol == "Validation split, 5-shot"
    assert e.source_url == "https://paperswithcode.co/paper/x#results"
    assert e.code_url == "https://paperswithcode.co/code/y"
    assert e.hf_model_url == "https://huggingface.co/m"


def test_evaluation_rank_scopes_from_merged_rows_and_absent() -> None:
    merged = {
        "model_name": "Agent | One",
        "best_rank": 1,
        "task_id": "3",
        "rank_scopes": [
            {"task_id": "3", "task_name": "A", "task_slug": None, "rank": 1},
            {"task_id": 8, "task_name": "B", "rank": "4"},
        ],
    }
    scopes = p.evaluation(merged).rank_scopes
    assert [(s.task_id, s.rank) for s in scopes] == [("3", 1), ("8", 4)]
    assert p.evaluation({"model_name": "x", "task_slug": "only-slug"}).rank_scopes == []
    assert p.evaluation({"is_open": False}).is_open is False


def test_evaluation_source_url_order() -> None:
    assert p.evaluation({"external_source_url": "https://e"}).source_url == "https://e"
    assert p.evaluation({"result_url": "", "source_url": "https://s"}).source_url == "https://s"


def test_evaluation_page_counts() -> None:
    payload = {"count": 0, "page": 1, "next_page": None, "results": [{"id": "1"}, {"id": "2"}]}
    page = p.evaluation_page(" 1706.03762 ", 1, payload)
    assert page.paper == " 1706.03762 "  # exactly as sent
    assert page.evaluation_count == 2
    page = p.evaluation_page("x", 3, {"count": 57, "next_page": 4, "results": []})
    assert (page.evaluation_count, page.page, page.next_page) == (57, 3, 4)
    assert page.data is None


def test_lineage() -> None:
    payload = {
        "paper": {"id": 755, "reference": "1706.03762", "title": "Attention Is All You Need"},
        "predecessors": [{"id": 1, "arxiv_id": "2302.13971"}],
        "successors": [{"id": 900}],
    }
    result = p.lineage(payload)
    assert result.paper.model_dump() == {
        "id": "755",
        "reference": "1706.03762",
        "title": "Attention Is All You Need",
    }
    assert result.predecessors[0].model_dump() == {
        "id": "1",
        "reference": "2302.13971",
        "title": "2302.13971",
    }
    assert result.successors[0].title == "Untitled paper"
    assert result.coverage == "explicit_catalog_links_only"
    assert result.coverage_note == LINEAGE_COVERAGE_NOTE
    assert result.data is payload
    with pytest.raises(InvalidResponse):
        p.lineage({"predecessors": []})


# -- taxonomy and benchmarks -------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "count"),
    [
        ({"paper_count": 12, "all_time_paper_count": 5}, 12),
        ({"paper_count": None, "all_time_paper_count": 5, "evaluation_count": 9}, 5),
        ({"all_time_paper_count": None, "evaluation_count": 9}, 0),
        ({"evaluation_count": 9}, 9),
        ({"paper_count": "many"}, 0),
        ({}, 0),
    ],
)
def test_benchmark_paper_count_rule(row: dict[str, Any], count: int) -> None:
    assert p.benchmark_summary(row).paper_count == count


def test_benchmark_summary_fields() -> None:
    summary = p.benchmark_summary({"id": 72, "slug": "imagenet-1k", "split": "val"})
    assert (summary.id, summary.name, summary.slug, summary.split) == (
        "72",
        "imagenet-1k",
        "imagenet-1k",
        "val",
    )
    assert p.benchmark_summary({}).name == "Unknown benchmark"
    assert p.benchmark_summary({"split_name": "test", "split": "val"}).split == "test"


def test_task_result() -> None:
    payload = {
        "task": {"id": 17, "name": "Scene Text Recognition", "description": ""},
        "area": {"id": "1"},
        "parents": [{"id": "2", "slug": "ocr", "name": "OCR"}],
        "children": [{"id": "19", "slug": "handwritten-text"}],
        "benchmarks": [{"id": str(i), "name": f"B{i}"} for i in range(12)],
        "paper_count": 204,
        "common_methods": [{"id": "x"}],
    }
    result = p.task_result(payload, benchmark_limit=3)
    task = result.task
    assert (task.id, task.name, task.slug, task.description) == (
        "17",
        "Scene Text Recognition",
        "17",
        None,
    )
    assert task.paper_count == 204  # from the payload when the task has none
    assert task.area is not None and task.area.model_dump() == {"id": "1", "name": "Unknown area"}
    assert [c.name for c in task.children] == ["handwritten-text"]
    assert [b.name for b in task.benchmarks] == ["B0", "B1", "B2"]
    assert result.data is None
    bare = p.task_result({"task": {"paper_count": 3}, "benchmarks": []}, benchmark_limit=10).task
    assert (bare.name, bare.slug, bare.paper_count, bare.area) == ("Unknown task", "", 3, None)
    with pytest.raises(InvalidResponse):
        p.task_result({"benchmarks": []}, benchmark_limit=10)


def test_method_result() -> None:
    payload = {
        "method": {
            "id": 2,
            "name": "Transformer",
            "slug": "transformer",
            "introduced_year": "2017",
            "source_url": "/paper/1706.03762",
            "source_paper_id": 755,
        },
        "area": {"id": "3"},
    }
    method = p.method_result(payload).method
    assert method.introduced_year == 2017
    assert method.source_url == "https://paperswithcode.co/paper/1706.03762"
    assert method.source_paper_id == "755"
    assert method.paper_count == 0
    assert p.method_result({"method": {"id": "9"}}).method.slug == "9"
    with pytest.raises(InvalidResponse):
        p.method_result({"area": {}})


@pytest.mark.parametrize(
    ("name", "direction"),
    [
        ("Top-1 Error", "lower"),
        ("Top-1 Accuracy", "higher"),
        ("mAP", "higher"),
        ("box AP", "unknown"),
        ("FPS", "unknown"),
        ("F1 score", "higher"),
        ("WER (%)", "lower"),
        ("Inference latency (ms)", "lower"),
        ("Exact Match (EM)", "higher"),
        ("errors", "unknown"),  # whole words only
        ("Accuracy-Error tradeoff", "lower"),  # lower-is-better words win
    ],
)
def test_metric_direction(name: str, direction: str) -> None:
    assert p.metric_direction(name) == direction


def test_benchmark_result() -> None:
    payload = {
        "benchmark": {"id": "6", "name": "COCO", "slug": "coco"},
        "count": 57,
        "matched_count": 2,
        "page": 1,
        "next_page": 2,
        "results": [
            {"id": "1", "model_name": "Fast", "metrics": {"mAP": "58", "FPS": "100"}},
            {"id": "2", "model_name": "Accurate", "metrics": {"mAP": 60, "Latency": 33}},
        ],
    }
    result = p.benchmark_result(payload, page=1, metric_note=None)
    assert result.evaluation_count == 57 and result.matched_count == 2
    assert result.next_page == 2
    assert list(result.metric_directions) == ["FPS", "Latency", "mAP"]
    assert result.metric_directions == {"FPS": "unknown", "Latency": "lower", "mAP": "higher"}
    assert result.ranking_note == RANKING_NOTE
    assert result.data is None
    with pytest.raises(InvalidResponse):
        p.benchmark_result({"results": []}, page=1, metric_note=None)


def test_benchmark_page_flat_and_grouped() -> None:
    grouped = {
        "results": [
            {
                "id": "1",
                "name": "Vision",
                "tasks": [
                    {"id": "10", "benchmarks": [{"id": "20", "name": "ImageNet"}]},
                    {"id": "11", "benchmarks": [{"id": "21", "name": "COCO"}]},
                ],
            },
            {"id": "6", "name": None, "tasks": []},
        ]
    }
    page = p.benchmark_page(grouped, grouped=True, next_page=None)
    assert [item.name for item in page.items] == ["ImageNet", "COCO"]
    assert page.data is grouped
    flat = {"count": 2, "next_page": None, "results": [{"id": "72", "name": "ImageNet-1k"}]}
    flat_page = p.benchmark_page(flat, grouped=False, next_page=2)
    assert [item.id for item in flat_page.items] == ["72"]
    assert flat_page.next_page == 2 and flat_page.data is flat  # the payload is not edited


# -- models ----------------------------------------------------------------------------------


def test_every_field_is_dumped_with_nulls() -> None:
    dumped = PaperPage(items=[]).model_dump(mode="json")
    assert dumped == {
        "schema_version": "v1",
        "cache": None,
        "data": None,
        "items": [],
        "next_page": None,
        "note": None,
        "available_at": [],
    }
    read = PaperReadResult(paper="x", markdown="", truncated=False).model_dump(mode="json")
    assert "data" not in read and read["next_cursor"] is None and read["in_catalog"] is True


def test_models_forbid_unknown_fields_and_fix_the_version() -> None:
    with pytest.raises(ValidationError):
        QueryResult.model_validate({"data": None, "extra": 1})
    with pytest.raises(ValidationError):
        QueryResult.model_validate({"schema_version": "v2"})
    with pytest.raises(ValidationError):
        BenchmarkResult.model_validate(
            {
                "benchmark": {"id": "1", "name": "B", "paper_count": 0},
                "evaluation_count": 0,
                "evaluations": [],
                "metric_directions": {"mAP": "sideways"},
                "page": 1,
            }
        )
