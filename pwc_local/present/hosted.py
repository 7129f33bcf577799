"""Output models: the typed `structuredContent` of every tool, as the hosted server's.

Each tool publishes the JSON schema of its model as `outputSchema`, so the field
names, types and defaults here are the contract, and the hosted server's agents
depend on them. Rules shared by every model:

* `schema_version` is the constant `"v1"`;
* unknown fields are forbidden (`additionalProperties: false` in the schema);
* every field is always dumped, with `null` (or `[]`) where there is nothing;
* `cache` is our local addition: `null` unless the answer was served from cache
  entries past their lifetime because the catalog could not be reached, or from a
  saved paper's copy older than a version the catalog was seen with.

Docstrings and field descriptions end up in `tools/list`, which every client pays
for in model context, so they are kept to what a model needs to read the data.
The projection from catalog payloads lives in `projections.py`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION: Literal["v1"] = "v1"

MetricValue = int | float | str | None
Direction = Literal["higher", "lower", "unknown"]


def _without_titles(schema: dict[str, Any]) -> None:
    # Pydantic titles repeat the field names ("Arxiv Id"); dropping them trims tools/list.
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_without_titles)


class CacheStatus(_Strict):
    """Set when the answer came from the local cache because the catalog was unreachable,
    or from a saved copy the catalog has a newer version of (`newer_version_seen`)."""

    stale: bool
    cached_at: str = Field(description="ISO-8601 time the cached data was saved")
    # Left out unless set: a stale answer's `cache` stays the hosted server's two fields.
    newer_version_seen: str | None = Field(
        default=None,
        description="a saved copy: when the catalog showed a newer version",
        exclude_if=lambda value: value is None,
    )


class ToolOutput(_Strict):
    """Fields every tool result carries."""

    schema_version: Literal["v1"] = SCHEMA_VERSION
    cache: CacheStatus | None = None


class LocalOutput(ToolOutput):
    """A local tool's result that may come from stale cache entries: in the compact
    profile it says so as the records do, `stale` first (the time they were saved),
    and sends no `cache`; the hosted profile keeps `cache` and never sends `stale`."""

    stale: str | None = Field(default=None, exclude_if=lambda value: value is None)


class QueryResult(ToolOutput):
    """Catalog data as returned by the catalog (`data`), or null for compact results."""

    data: Any = None


# -- entities ------------------------------------------------------------------------


class AvailableLink(_Strict):
    label: str
    url: str


class CatalogReference(_Strict):
    id: str
    name: str
    slug: str | None = None


class AreaReference(_Strict):
    id: str
    name: str


class RepositoryReference(_Strict):
    url: str
    is_official: bool = Field(description="catalog-designated official code, not verified")


class PaperSummary(_Strict):
    id: str
    arxiv_id: str | None = None
    title: str
    authors: list[str]
    published: str | None = None
    citation_count: int | None = None
    url: str | None = None
    has_official_implementation: bool = Field(
        description="the catalog links code it designates as official; nobody verified it"
    )
    code_repository_count: int


class PaperDetail(_Strict):
    id: str
    arxiv_id: str | None = None
    title: str
    abstract: str | None = None
    authors: list[str]
    published: str | None = None
    citation_count: int | None = None
    url: str | None = None
    pdf_url: str | None = None
    code_repository_count: int
    tasks: list[CatalogReference]
    methods: list[CatalogReference]
    repositories: list[RepositoryReference]
    project_pages: list[str]
    hf_models: list[str] = []
    hf_datasets: list[str] = []
    hf_spaces: list[str] = []


class PaperEvaluation(_Strict):
    """A legacy evaluation row of `get_paper_info(include_evaluations=true)`."""

    id: str
    benchmark: str | None = None
    task: str | None = None
    model_name: str
    harness: str | None = None
    metrics: dict[str, MetricValue]
    best_metric: str | None = None
    best_rank: int | None = None
    is_open: bool
    num_parameters: int | None = None
    source_url: str | None = None


class PaperReference(_Strict):
    id: str
    reference: str | None = None
    title: str


class BenchmarkSummary(_Strict):
    id: str
    name: str
    slug: str | None = None
    full_name: str | None = None
    description: str | None = None
    split: str | None = None
    hf_url: str | None = None
    paper_count: int


class TaskDetail(_Strict):
    id: str
    name: str
    slug: str
    description: str | None = None
    paper_count: int
    area: AreaReference | None = None
    parents: list[CatalogReference]
    children: list[CatalogReference]
    benchmarks: list[BenchmarkSummary]


class MethodDetail(_Strict):
    id: str
    name: str
    slug: str
    full_name: str | None = None
    description: str | None = None
    introduced_year: int | None = None
    source_paper_id: str | None = None
    source_url: str | None = None
    source_title: str | None = None
    paper_count: int


class EvaluationRankScope(_Strict):
    task_id: str | None = None
    task_name: str | None = None
    task_slug: str | None = None
    rank: int | None = None


class Evaluation(_Strict):
    """One (merged) leaderboard row. A rank holds only within its own task scope."""

    id: str
    model_name: str
    harness: str | None = None
    metrics: dict[str, MetricValue]
    best_metric: str | None = None
    best_rank: int | None = None
    task: str | None = None
    paper_id: str | None = None
    paper_title: str | None = None
    paper_arxiv_id: str | None = None
    paper_published: str | None = None
    rank_scopes: list[EvaluationRankScope]
    is_open: bool | None = Field(default=None, description="null when nobody recorded it")
    num_parameters: int | None = None
    split: str | None = None
    shots: int | None = None
    evaluation_protocol: str | None = None
    source_url: str | None = None
    code_url: str | None = None
    hf_model_url: str | None = None
    updated_at: str | None = None
    uses_additional_data: bool | None = None


# -- results ---------------------------------------------------------------------------

LINEAGE_COVERAGE_NOTE = (
    "Only relationships the catalog records explicitly are listed; an empty list does not "
    "mean the paper has no predecessors or successors."
)
RANKING_NOTE = (
    "A rank holds only within its own task scope; do not compare ranks from different rank_scopes."
)


class PaperPage(QueryResult):
    items: list[PaperSummary]
    next_page: int | None = None
    note: str | None = None
    available_at: list[AvailableLink] = []


class BenchmarkPage(QueryResult):
    items: list[BenchmarkSummary]
    next_page: int | None = None


class PaperInfoResult(QueryResult):
    paper: PaperDetail
    evaluation_count: int | None = None
    evaluations: list[PaperEvaluation] | None = None
    in_catalog: bool = True
    note: str | None = None
    available_at: list[AvailableLink] = []


class PaperReadResult(ToolOutput):
    """One chunk of a paper's Markdown; pass `next_cursor` back to read on."""

    paper: str
    markdown: str
    truncated: bool
    next_cursor: str | None = None
    in_catalog: bool = True
    available_at: list[AvailableLink] = []


class EvaluationPage(QueryResult):
    paper: str
    evaluation_count: int
    page: int
    next_page: int | None = None
    evaluations: list[Evaluation]


class PaperLineageResult(QueryResult):
    paper: PaperReference
    predecessors: list[PaperReference]
    successors: list[PaperReference]
    coverage: Literal["explicit_catalog_links_only"] = "explicit_catalog_links_only"
    coverage_note: str = LINEAGE_COVERAGE_NOTE


class TaskResult(QueryResult):
    task: TaskDetail


class MethodResult(QueryResult):
    method: MethodDetail


class BenchmarkResult(QueryResult):
    benchmark: BenchmarkSummary
    evaluation_count: int
    matched_count: int | None = None
    evaluations: list[Evaluation]
    metric_directions: dict[str, Direction]
    page: int
    next_page: int | None = None
    ranking_note: str = RANKING_NOTE
    metric_note: str | None = None
