"""From catalog payloads to the hosted output models (`hosted.py`), following the hosted server.

The query layer returns the catalog's JSON as it came (plus the CLI's own
composition); these functions pick, convert and default the fields a model
declares. They never raise on odd values: a field that is missing, empty or of
the wrong type becomes its documented fallback (`null`, `0`, `[]`,
`"Untitled paper"` ...), because one malformed row must not sink a whole answer.
The only failures are payloads without their main object (a benchmark answer
without `benchmark`, say), which raise `InvalidResponse` like any other unusable
catalog response.

Vocabulary used below, from the contract:

* *text-or-null*: the value as a string, or `None` when missing or `""`;
* *int-or-null*: an integer conversion, `None` for missing, booleans and values
  that do not convert;
* *made absolute*: a site-relative URL (`/paper/...`) gains the catalog's origin.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pwc_local.present.hosted import (
    AreaReference,
    AvailableLink,
    BenchmarkPage,
    BenchmarkResult,
    BenchmarkSummary,
    CatalogReference,
    Direction,
    Evaluation,
    EvaluationPage,
    EvaluationRankScope,
    MethodDetail,
    MethodResult,
    MetricValue,
    PaperDetail,
    PaperEvaluation,
    PaperInfoResult,
    PaperLineageResult,
    PaperPage,
    PaperReadResult,
    PaperReference,
    PaperSummary,
    RepositoryReference,
    TaskDetail,
    TaskResult,
)
from pwc_local.upstream.errors import InvalidResponse

if TYPE_CHECKING:  # the query modules import httpx; the server must start without it
    from pwc_local.queries.public import PaperInfoAnswer, RelatedAnswer
    from pwc_local.queries.reading import ReadResult

SITE_ORIGIN = "https://paperswithcode.co"

_WORDS = re.compile(r"[a-z0-9]+")
_LOWER_IS_BETTER = frozenset(
    {"error", "loss", "perplexity", "latency", "runtime", "wer", "cer", "eer", "fid", "mae", "rmse"}
)
_HIGHER_IS_BETTER = frozenset(
    {"accuracy", "precision", "recall", "f1", "bleu", "rouge", "map", "auc", "score", "em"}
)


# -- value rules -------------------------------------------------------------------------


def text_or_null(value: Any) -> str | None:
    """The value as a string; `None` when it is missing or the empty string."""
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def int_or_null(value: Any) -> int | None:
    """An integer conversion; `None` for missing, booleans and unconvertible values."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def int_or_zero(value: Any) -> int:
    converted = int_or_null(value)
    return 0 if converted is None else converted


def bool_or_null(value: Any) -> bool | None:
    """Only a real boolean counts; anything else means "not recorded"."""
    return value if isinstance(value, bool) else None


def absolute_url(value: Any) -> str | None:
    """text-or-null, with a site-relative path prefixed by the catalog origin."""
    text = text_or_null(value)
    if text is None:
        return None
    if text.startswith("//"):
        return "https:" + text
    if text.startswith("/"):
        return SITE_ORIGIN + text
    return text


def _first(row: Mapping[str, Any], *keys: str) -> Any:
    """The first of `keys` whose value is neither missing nor the empty string."""
    for key in keys:
        value = row.get(key)
        if value is not None and value != "":
            return value
    return None


def _objects(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _texts(row: Mapping[str, Any], *same: str, **renamed: str) -> dict[str, Any]:
    """`text_or_null` of each field: `same` are stored under the model's field name,
    `renamed` maps a model field to the row's key."""
    keys = {name: name for name in same} | renamed
    return {field: text_or_null(row.get(key)) for field, key in keys.items()}


def _id(row: Mapping[str, Any]) -> str:
    value = row.get("id")
    return "" if value is None else str(value)


def _authors(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    names: list[str] = []
    for author in value:
        if isinstance(author, dict):
            author = author.get("name")
        if author is not None and author != "":
            names.append(str(author))
    return names


def _urls(value: Any) -> list[str]:
    """Entries that are URL strings or `{url: ...}` objects, in order."""
    urls: list[str] = []
    for item in value if isinstance(value, list) else []:
        url = item.get("url") if isinstance(item, dict) else item
        if isinstance(url, str) and url:
            urls.append(url)
    return urls


def _metric_value(value: Any, *, parse_strings: bool) -> MetricValue:
    """Numbers kept; strings parsed to floats when asked and possible; others stringified."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        if parse_strings:
            try:
                number = float(value)
            except ValueError:
                return value
            # "nan" and "inf" parse as floats but are not JSON numbers: keep the text.
            return number if math.isfinite(number) else value
        return value
    return str(value)


def _metrics(value: Any, *, parse_strings: bool) -> dict[str, MetricValue]:
    if not isinstance(value, dict):
        return {}
    return {
        str(name): _metric_value(raw, parse_strings=parse_strings) for name, raw in value.items()
    }


def shots_from(methodology: Any) -> int | None:
    """The first "N-shot" / "N shot" / "Nshot" count written in an evaluation protocol.

    The same rule decides which leaderboard rows merge, so it is shared with the
    leaderboard module rather than restated here (imported on first use, off the
    start-up path).
    """
    from pwc_local.queries.leaderboard import shot_count

    count = shot_count(methodology)
    return int(count) if count else None


def _rows(document: Any) -> list[dict[str, Any]]:
    """Rows of `results` (or of the document itself when it is an array)."""
    if isinstance(document, list):
        return _objects(document)
    if isinstance(document, dict):
        return _objects(document.get("results"))
    return []


def _next_page(document: Any) -> int | None:
    return int_or_null(document.get("next_page")) if isinstance(document, dict) else None


# -- papers --------------------------------------------------------------------------------


def paper_summary(row: Mapping[str, Any]) -> PaperSummary:
    return PaperSummary(
        id=_id(row),
        arxiv_id=text_or_null(row.get("arxiv_id")),
        title=text_or_null(row.get("title")) or "Untitled paper",
        authors=_authors(row.get("authors")),
        published=text_or_null(_first(row, "published", "date_published")),
        citation_count=int_or_null(row.get("citation_count")),
        url=text_or_null(_first(row, "url_abs", "source_url")),
        has_official_implementation=row.get("has_official_implementation") is True,
        code_repository_count=int_or_zero(row.get("code_repository_count")),
    )


def paper_page(
    payload: Any,
    *,
    note: str | None = None,
    available_at: Sequence[AvailableLink] = (),
) -> PaperPage:
    """A paper listing: rows of `results` or of a bare array; `data` is the payload itself."""
    return PaperPage(
        data=payload,
        items=[paper_summary(row) for row in _rows(payload)],
        next_page=_next_page(payload),
        note=note,
        available_at=list(available_at),
    )


def _catalog_reference(row: Mapping[str, Any]) -> CatalogReference:
    return CatalogReference(
        id=_id(row),
        name=text_or_null(_first(row, "name", "slug")) or "Unknown",
        slug=text_or_null(row.get("slug")),
    )


def _repositories(value: Any, *, include_all: bool, limit: int) -> list[RepositoryReference]:
    """Official repositories first (always kept), others only when asked; at most `limit`."""
    repos: list[RepositoryReference] = []
    for item in value if isinstance(value, list) else []:
        url = item.get("url") if isinstance(item, dict) else item
        if not isinstance(url, str) or not url:
            continue
        official = isinstance(item, dict) and item.get("is_official") is True
        if official or include_all:
            repos.append(RepositoryReference(url=url, is_official=official))
    repos.sort(key=lambda repo: not repo.is_official)  # stable: catalog order within each group
    return repos[:limit]


def paper_detail(
    payload: Mapping[str, Any], *, include_resources: bool, repo_limit: int
) -> PaperDetail:
    """The compact paper record of `get_paper_info`."""

    def resource_list(key: str) -> list[str]:
        return _urls(payload.get(key))[:repo_limit] if include_resources else []

    return PaperDetail(
        id=_id(payload),
        arxiv_id=text_or_null(payload.get("arxiv_id")),
        title=text_or_null(payload.get("title")) or "Untitled paper",
        abstract=text_or_null(payload.get("abstract")),
        authors=_authors(payload.get("authors")),
        published=text_or_null(payload.get("published")),
        citation_count=int_or_null(payload.get("citation_count")),
        url=text_or_null(_first(payload, "url_abs", "source_url")),
        pdf_url=text_or_null(payload.get("url_pdf")),
        code_repository_count=int_or_zero(payload.get("code_repository_count")),
        tasks=[_catalog_reference(row) for row in _objects(payload.get("tasks"))],
        methods=[_catalog_reference(row) for row in _objects(payload.get("methods"))],
        repositories=_repositories(
            payload.get("repositories"), include_all=include_resources, limit=repo_limit
        ),
        project_pages=resource_list("project_pages"),
        hf_models=resource_list("hf_models"),
        hf_datasets=resource_list("hf_datasets"),
        hf_spaces=resource_list("hf_spaces"),
    )


def paper_info(
    answer: PaperInfoAnswer, *, include_resources: bool, include_evaluations: bool, repo_limit: int
) -> PaperInfoResult:
    """`get_paper_info`, from the catalog record or from a public-metadata record."""
    detail = paper_detail(answer.paper, include_resources=include_resources, repo_limit=repo_limit)
    if not answer.in_catalog:
        return PaperInfoResult(
            paper=detail,
            in_catalog=False,
            note=answer.note,
            available_at=available_links(answer.available_at),
        )
    evaluations = answer.paper.get("evaluations") if include_evaluations else None
    if not isinstance(evaluations, dict):
        return PaperInfoResult(paper=detail)
    rows = _rows(evaluations)
    count = int_or_null(evaluations.get("count"))
    return PaperInfoResult(
        paper=detail,
        evaluation_count=len(rows) if count is None else count,
        evaluations=[paper_evaluation(row) for row in rows],
    )


def related_page(answer: RelatedAnswer) -> PaperPage:
    """`get_related_papers`; outside the catalog, title-search hits with a note and links."""
    return paper_page(
        answer.payload, note=answer.note, available_at=available_links(answer.available_at)
    )


def paper_read(answer: ReadResult) -> PaperReadResult:
    """From `reading.ReadResult`: its fields of the same names, the links as models."""
    links = available_links(answer.available_at)
    fields = {k: v for k, v in vars(answer).items() if k != "start"}  # not a hosted field
    return PaperReadResult.model_validate({**fields, "available_at": links})


def _result_fields(row: Mapping[str, Any], *, parse_strings: bool) -> dict[str, Any]:
    """What a legacy evaluation row and a leaderboard row show alike."""
    return {
        "id": _id(row),
        "model_name": text_or_null(row.get("model_name")) or "Unknown model",
        "metrics": _metrics(row.get("metrics"), parse_strings=parse_strings),
        "best_rank": int_or_null(row.get("best_rank")),
        "num_parameters": int_or_null(row.get("num_parameters")),
        **_texts(row, "harness", "best_metric", task="task_name"),
    }


def paper_evaluation(row: Mapping[str, Any]) -> PaperEvaluation:
    """A legacy evaluation row (raw metric values; missing openness counts as open)."""
    return PaperEvaluation(
        **_result_fields(row, parse_strings=False),
        benchmark=text_or_null(row.get("dataset_name")),
        is_open=row.get("is_open") is not False,
        source_url=text_or_null(_first(row, "result_url", "source_url")),
    )


def evaluation(row: Mapping[str, Any]) -> Evaluation:
    """One leaderboard or paper-evaluation row."""
    return Evaluation(
        **_result_fields(row, parse_strings=True),
        rank_scopes=_rank_scopes(row),
        is_open=bool_or_null(row.get("is_open")),
        split=text_or_null(_first(row, "split", "split_name", "evaluated_on")),
        shots=shots_from(row.get("methodology")),
        source_url=absolute_url(_first(row, "result_url", "source_url", "external_source_url")),
        code_url=absolute_url(row.get("code_url")),
        hf_model_url=absolute_url(row.get("hf_model_url")),
        uses_additional_data=bool_or_null(row.get("uses_additional_data")),
        **_texts(
            row,
            "paper_id",
            "paper_title",
            "paper_arxiv_id",
            "updated_at",
            paper_published="paper_published_date",
            evaluation_protocol="methodology",
        ),
    )


def _rank_scope(row: Mapping[str, Any], rank_key: str) -> EvaluationRankScope:
    return EvaluationRankScope(
        task_id=text_or_null(row.get("task_id")),
        task_name=text_or_null(row.get("task_name")),
        task_slug=text_or_null(row.get("task_slug")),
        rank=int_or_null(row.get(rank_key)),
    )


def _rank_scopes(row: Mapping[str, Any]) -> list[EvaluationRankScope]:
    scopes = row.get("rank_scopes")
    if isinstance(scopes, list):
        return [_rank_scope(scope, "rank") for scope in _objects(scopes)]
    if any(row.get(key) not in (None, "") for key in ("task_id", "task_name", "best_rank")):
        return [_rank_scope(row, "best_rank")]
    return []


def evaluation_page(paper: str, page: int, payload: Mapping[str, Any]) -> EvaluationPage:
    """`get_paper_evaluations`: `paper` is the reference exactly as the caller sent it."""
    rows = _rows(payload)
    count = int_or_null(payload.get("count"))
    return EvaluationPage(
        paper=paper,
        evaluation_count=count if count else len(rows),
        page=page,
        next_page=_next_page(payload),
        evaluations=[evaluation(row) for row in rows],
    )


def _paper_reference(row: Mapping[str, Any]) -> PaperReference:
    reference = text_or_null(_first(row, "reference", "arxiv_id"))
    return PaperReference(
        id=_id(row),
        reference=reference,
        title=text_or_null(row.get("title")) or reference or "Untitled paper",
    )


def lineage(payload: Any) -> PaperLineageResult:
    """`get_paper_lineage`; a payload without a `paper` object is unusable."""
    if not isinstance(payload, dict) or not isinstance(payload.get("paper"), dict):
        raise InvalidResponse("lineage response did not contain a paper object")
    return PaperLineageResult(
        data=payload,
        paper=_paper_reference(payload["paper"]),
        predecessors=[_paper_reference(row) for row in _objects(payload.get("predecessors"))],
        successors=[_paper_reference(row) for row in _objects(payload.get("successors"))],
    )


def available_links(links: Iterable[Any]) -> list[AvailableLink]:
    """`(label, url)` pairs (or objects with `label`/`url`) as `AvailableLink`s."""
    result: list[AvailableLink] = []
    for link in links:
        if isinstance(link, AvailableLink):
            result.append(link)
        elif isinstance(link, Mapping):
            result.append(AvailableLink(label=str(link["label"]), url=str(link["url"])))
        else:
            label, url = link
            result.append(AvailableLink(label=str(label), url=str(url)))
    return result


# -- taxonomy -----------------------------------------------------------------------------


def benchmark_summary(row: Mapping[str, Any]) -> BenchmarkSummary:
    if row.get("paper_count") is not None:
        count = row.get("paper_count")
    elif "all_time_paper_count" in row:
        count = row.get("all_time_paper_count")
    else:
        count = row.get("evaluation_count")
    return BenchmarkSummary(
        id=_id(row),
        name=text_or_null(_first(row, "name", "slug")) or "Unknown benchmark",
        slug=text_or_null(row.get("slug")),
        full_name=text_or_null(row.get("full_name")),
        description=text_or_null(row.get("description")),
        split=text_or_null(_first(row, "split_name", "split")),
        hf_url=text_or_null(row.get("hf_url")),
        paper_count=int_or_zero(count),
    )


def task_result(payload: Any, *, benchmark_limit: int) -> TaskResult:
    """`get_task`; `data` stays null (a compact tool, like the hosted server's)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("task"), dict):
        raise InvalidResponse("task response did not contain a task object")
    task = payload["task"]
    area = payload.get("area")
    paper_count = task.get("paper_count")
    if paper_count is None:
        paper_count = payload.get("paper_count")
    detail = TaskDetail(
        id=_id(task),
        name=text_or_null(task.get("name")) or "Unknown task",
        slug=text_or_null(_first(task, "slug", "id")) or "",
        description=text_or_null(task.get("description")),
        paper_count=int_or_zero(paper_count),
        area=AreaReference(id=_id(area), name=text_or_null(area.get("name")) or "Unknown area")
        if isinstance(area, dict)
        else None,
        parents=[_catalog_reference(row) for row in _objects(payload.get("parents"))],
        children=[_catalog_reference(row) for row in _objects(payload.get("children"))],
        benchmarks=[
            benchmark_summary(row) for row in _objects(payload.get("benchmarks"))[:benchmark_limit]
        ],
    )
    return TaskResult(task=detail)


def method_result(payload: Any) -> MethodResult:
    """`get_method`; `data` stays null (a compact tool, like the hosted server's)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("method"), dict):
        raise InvalidResponse("method response did not contain a method object")
    method = payload["method"]
    return MethodResult(
        method=MethodDetail(
            id=_id(method),
            name=text_or_null(method.get("name")) or "Unknown method",
            slug=text_or_null(_first(method, "slug", "id")) or "",
            full_name=text_or_null(method.get("full_name")),
            description=text_or_null(method.get("description")),
            introduced_year=int_or_null(method.get("introduced_year")),
            source_paper_id=text_or_null(method.get("source_paper_id")),
            source_url=absolute_url(method.get("source_url")),
            source_title=text_or_null(method.get("source_title")),
            paper_count=int_or_zero(method.get("paper_count")),
        )
    )


# -- benchmarks -------------------------------------------------------------------------


def metric_direction(name: str) -> Direction:
    """Whether a larger value of the metric is better, judged from the words of its name."""
    words = set(_WORDS.findall(name.lower()))
    if words & _LOWER_IS_BETTER:
        return "lower"
    if words & _HIGHER_IS_BETTER:
        return "higher"
    return "unknown"


def metric_directions(evaluations: Iterable[Evaluation]) -> dict[str, Direction]:
    names = sorted({name for row in evaluations for name in row.metrics})
    return {name: metric_direction(name) for name in names}


def benchmark_result(payload: Any, *, page: int, metric_note: str | None) -> BenchmarkResult:
    """`get_benchmark`; `data` stays null (a compact tool, like the hosted server's)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("benchmark"), dict):
        raise InvalidResponse("benchmark response did not contain a benchmark object")
    evaluations = [evaluation(row) for row in _rows(payload)]
    return BenchmarkResult(
        benchmark=benchmark_summary(payload["benchmark"]),
        evaluation_count=int_or_zero(payload.get("count")),
        matched_count=int_or_null(payload.get("matched_count")),
        evaluations=evaluations,
        metric_directions=metric_directions(evaluations),
        page=page,
        next_page=_next_page(payload),
        metric_note=metric_note,
    )


def benchmark_page(payload: Any, *, grouped: bool, next_page: int | None) -> BenchmarkPage:
    """`list_benchmarks`: grouped payloads are flattened area → task → benchmark.

    `next_page` comes from the query layer, which also knows it where the payload
    does not say (a task's trend list is paged locally; `data` stays the CLI's).
    """
    if grouped:
        rows = [
            benchmark
            for area in _rows(payload)
            for task in _objects(area.get("tasks"))
            for benchmark in _objects(task.get("benchmarks"))
        ]
    else:
        rows = _rows(payload)
    return BenchmarkPage(
        data=payload,
        items=[benchmark_summary(row) for row in rows],
        next_page=next_page,
    )
