"""The tool contract table: one `ToolSpec` per tool, and nothing else to edit.

Each entry states, once, everything a tool is: its name and group, the query
function that answers it, its parameters (type, bounds and default together), the
output model, how the query's answer becomes that model (`project`), the text
block (`summary`), the description and the MCP annotations. The machinery in
`pwc_local.server.tools` derives the rest from this table: the input schema the
SDK advertises and validates (from `params`), the forwarding of arguments to the
query function, the error mapping and stale labelling of every call; `doctor`
derives its expected tool count and `tests/test_contract.py` its expectations.

Adding a tool: write its query function (catalog logic, no MCP; it receives the
services named in `needs`, then its arguments as keywords, and states no defaults:
each `Param` here holds its one default), then add one entry below, in the group
it belongs to. Nothing else lists tools.

Start-up stays light: query functions are named as `"module:function"` strings
and imported on the first call, so importing this table loads no HTTP client,
cache or query module.

Groups: `hosted` are the 21 tools of the hosted Papers With Code server (the
contract in tests/data/tools.json); `library`, `reading` and `watch` are local additions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Literal

from mcp_types import ToolAnnotations
from pydantic import Field

from pwc_local.contract import (
    CHUNK_BYTES,
    MAX_REFERENCE_CHARS,
    MAX_ROWS,
    MAX_SAVE,
    SEARCH_LIBRARY_LIMIT,
)
from pwc_local.queries.citations import CitationFormat
from pwc_local.server import (
    library_models,
    links,
    projections,
    reading_results,
    text,
    watch_models,
)
from pwc_local.server import render_pieces as piece
from pwc_local.server.models import (
    BenchmarkPage,
    BenchmarkResult,
    EvaluationPage,
    MethodResult,
    PaperInfoResult,
    PaperLineageResult,
    PaperPage,
    PaperReadResult,
    QueryResult,
    TaskResult,
    ToolOutput,
)
from pwc_local.server.render import Piece, of_model
from pwc_local.server.render_generic import generic

Group = Literal["hosted", "library", "reading", "watch"]
Arguments = Mapping[str, Any]

# -- parameter types shared by several tools (type, bounds and description once) ----------

Page = Annotated[int, Field(ge=1, le=100)]
Limit = Annotated[int, Field(ge=1, le=MAX_ROWS)]
OptionalLimit = Annotated[int | None, Field(ge=1, le=MAX_ROWS)]
Reference = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_REFERENCE_CHARS,
        description="arXiv ID, catalog ID, paper URL or exact title",
    ),
]
# The local tools' paper (or watch target): the hosted tools' `paper` says what it takes,
# so these do not repeat it in every listing.
LocalReference = Annotated[str, Field(min_length=1, max_length=MAX_REFERENCE_CHARS)]
Query = Annotated[str, Field(min_length=1, max_length=500)]
Entity = Annotated[str, Field(min_length=1, max_length=500, description="exact name, slug or ID")]
IsoDate = Annotated[str | None, Field(max_length=10, description="YYYY-MM-DD, inclusive")]
AuthorList = Annotated[
    list[str] | None,
    Field(
        max_length=10,
        description="exact author names, numeric author IDs or @HF_USERNAME; all must match",
    ),
]
ResourceLimit = Annotated[int, Field(ge=1, le=10)]
Direction = Literal["asc", "desc"]
ParameterSize = Annotated[
    str | None,
    Field(max_length=32, description="inclusive model size cap such as 500M, 1.5B or 3000000000"),
]
MetricNames = Annotated[list[str] | None, Field(min_length=1)]
MetricBounds = Annotated[
    dict[str, float] | None, Field(description="metric name -> inclusive threshold")
]
SortMetric = Annotated[
    str | None,
    Field(max_length=200, description="METRIC, METRIC:asc or METRIC:desc (default desc)"),
]
Pareto = Annotated[
    list[str] | None,
    Field(min_length=2, description="two or more METRIC:higher / METRIC:lower objectives"),
]
SectionName = Annotated[
    str,
    Field(
        min_length=1, max_length=500, description="section id from get_paper_outline, or heading"
    ),
]
# A client may send these as JSON numbers (1706.03762, 755): see server/lenient.py.
REFERENCE_TYPES = (Reference, LocalReference, Entity)
Cursor = Annotated[str | None, Field(description="next_cursor of the previous read_paper result")]

# Every hosted tool only reads a public catalog on the open web.
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)

# MCP's defaults for a hint that is left out; see `hints`.
_HINT_DEFAULTS = {
    "read_only_hint": False,
    "destructive_hint": True,
    "idempotent_hint": False,
    "open_world_hint": True,
}
_WRITE_HINTS = ("destructive_hint", "idempotent_hint")  # meaningful only when not read-only


def hints(
    *, read_only: bool, destructive: bool = True, idempotent: bool = False, open_world: bool = True
) -> ToolAnnotations:
    """A local tool's annotations, sending only what MCP's defaults do not already say.

    Each byte of `tools/list` is paid in every conversation: a hint equal to its
    default, or a write hint on a read-only tool, means nothing more when sent. (The
    hosted tools keep the four hints they advertise: `READ_ONLY`.)
    """
    given = {
        "read_only_hint": read_only,
        "destructive_hint": destructive,
        "idempotent_hint": idempotent,
        "open_world_hint": open_world,
    }
    sent = {
        name: value
        for name, value in given.items()
        if value != _HINT_DEFAULTS[name] and not (read_only and name in _WRITE_HINTS)
    }
    return ToolAnnotations.model_validate(sent)


# The reading tools read the catalog on the web, or what is saved from it.
LOCAL_READ = hints(read_only=True)
LIBRARY_READ = hints(read_only=True, open_world=False)  # only what is on this machine

_PAPER = "paper = arXiv ID, catalog ID, arXiv/Hugging Face/Papers With Code URL, or exact title."


class _Required:
    """The default of a parameter the caller must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Param:
    """One tool parameter: `type` carries its JSON type and bounds (`Annotated[..., Field]`).

    `query=False` marks a parameter only the projection reads (a display limit,
    say); every other parameter is passed to the query function by name.
    """

    name: str
    type: Any
    default: Any = REQUIRED
    query: bool = True

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class ToolSpec:
    """One tool, declared once.

    * `query`: `"module:function"`, called as `function(*needs, **arguments)` with
      the runtime services named in `needs` and the parameters with `query=True`;
    * `project(answer, arguments)`: the output model, from the query's answer and
      the validated arguments (defaults filled in);
    * `text`: the pieces of the text block in the default `markdown` mode
      (`render`, `render_pieces`); by default `generic`, the model as Markdown;
    * `summary(model, answer)`: the text block of a hosted tool in the `summary`
      mode, the hosted server's template; `None` (the field or the return value)
      means the model's JSON dump, as the hosted server sends (local tools have no
      hosted text to match: their `summary` mode is their Markdown);
    * `links(model)`: the papers the result names, which then get `resource_link`
      items after the text block (`pwc_local.server.links`).
    """

    name: str
    group: Group
    query: str
    params: tuple[Param, ...]
    output: type[ToolOutput]
    project: Callable[[Any, Arguments], ToolOutput]
    description: str
    summary: Callable[[Any, Any], str | None] | None = None
    text: tuple[Piece, ...] = (generic,)
    needs: tuple[str, ...] = ("catalog",)
    annotations: ToolAnnotations = field(default_factory=lambda: READ_ONLY)
    links: Callable[[Any], list[links.PaperLink]] | None = None

    @cached_property  # asked on every tools/call; the params never change
    def references(self) -> frozenset[str]:
        """Parameters naming a paper or an entity: a JSON number there is read as text."""
        return frozenset(p.name for p in self.params if p.type in REFERENCE_TYPES)


def _data(answer: Any, _arguments: Arguments) -> QueryResult:
    """The `QueryResult` tools: the catalog's payload as it came, under `data`."""
    return QueryResult(data=answer)


def _papers(answer: Any, _arguments: Arguments) -> PaperPage:
    return projections.paper_page(answer)


# The text of every paper listing (`PaperPage`).
PAPERS = (piece.papers, piece.note, piece.next_page())


def _rows(noun: str) -> tuple[Piece, ...]:
    """The text of a catalog listing kept as it came (`QueryResult.data`): rows of `noun`s."""
    return (piece.data(noun), piece.next_page())


def _taxonomy(
    name: str,
    *,
    params: tuple[Param, ...],
    description: str,
    text: tuple[Piece, ...] = (generic,),
) -> ToolSpec:
    """A hosted taxonomy tool (`catalog.taxonomy.<name>`): the catalog's payload as it came."""
    return ToolSpec(
        name=name,
        group="hosted",
        query=f"pwc_local.queries.taxonomy:{name}",
        params=params,
        output=QueryResult,
        project=_data,
        text=text,
        description=description,
    )


def _lookup(name: str, noun: str, *, description: str) -> ToolSpec:
    """A taxonomy tool finding one `noun` (its parameter) by exact name, slug or ID.

    The description is spelled out at each entry: install/build_mcpb.py reads the
    table's names and descriptions from this file's source, without importing it.
    """
    return _taxonomy(name, params=(Param(noun, Entity),), description=description)


TOOLS: tuple[ToolSpec, ...] = (
    # -- papers ---------------------------------------------------------------------------
    ToolSpec(
        name="search_papers",
        group="hosted",
        query="pwc_local.queries.papers:search_papers",
        params=(
            Param("query", Query),
            Param("mode", Literal["hybrid", "keyword", "semantic"], "hybrid"),
            Param("page", Page, 1),
            Param("limit", Limit, 10),
            Param("published_after", IsoDate, None),
            Param("published_before", IsoDate, None),
            Param("has_official_implementation", bool, False),
        ),
        output=PaperPage,
        project=_papers,
        summary=lambda page, _: text.found_papers(page),
        text=PAPERS,
        links=links.page_links,
        description=(
            "Search papers by title, topic, author or arXiv ID, for broad discovery. For best / "
            "state-of-the-art questions start with get_task, list_benchmarks and get_benchmark "
            "instead. mode keyword suits exact terminology and avoids the semantic-search rate "
            "limit."
        ),
    ),
    ToolSpec(
        name="get_paper_info",
        group="hosted",
        query="pwc_local.queries.public:paper_info_or_public",
        params=(
            Param("paper", Reference),
            Param("include_resources", bool, False, query=False),
            Param("repo_limit", ResourceLimit, 5, query=False),
            Param("include_evaluations", bool, False),
        ),
        output=PaperInfoResult,
        project=lambda answer, a: projections.paper_info(
            answer,
            include_resources=a["include_resources"],
            include_evaluations=a["include_evaluations"],
            repo_limit=a["repo_limit"],
        ),
        summary=lambda result, _: text.paper_info(result),
        text=(piece.paper_info, piece.note),
        links=links.info_links,
        description=(
            "Compact metadata of one paper; its code list starts with official repositories. "
            "include_resources adds other repositories, project pages and Hugging Face "
            "artifacts; repo_limit caps each list; include_evaluations is legacy. Papers outside "
            "the catalog are answered from public metadata (in_catalog=false, note, available_at "
            "links to cite instead of a Papers With Code page). " + _PAPER
        ),
    ),
    ToolSpec(
        name="get_paper_evaluations",
        group="hosted",
        query="pwc_local.queries.papers:get_paper_evaluations",
        params=(Param("paper", Reference), Param("page", Page, 1), Param("limit", Limit, 20)),
        output=EvaluationPage,
        project=lambda answer, a: projections.evaluation_page(a["paper"], a["page"], answer),
        summary=lambda result, _: text.paper_evaluations(result),
        text=(piece.paper_evaluations, piece.next_page()),
        description=(
            "One page of a paper's benchmark results with protocol, source, openness and "
            "task-scoped ranks. " + _PAPER
        ),
    ),
    ToolSpec(
        name="read_paper",
        group="hosted",
        query="pwc_local.queries.reading:read_paper",
        needs=("catalog", "codec"),
        params=(Param("paper", Reference), Param("cursor", Cursor, None)),
        output=PaperReadResult,
        project=lambda answer, _: projections.paper_read(answer),
        summary=lambda result, _: text.paper_markdown(result),
        text=(of_model(text.paper_markdown),),
        description=(
            "Stored Markdown of a paper, in chunks: while truncated, call again with the same "
            "paper and the last next_cursor; omit cursor to start over. Papers outside the "
            "catalog get a short public-metadata page (in_catalog=false). " + _PAPER
        ),
    ),
    ToolSpec(
        name="list_papers",
        group="hosted",
        query="pwc_local.queries.papers:list_papers",
        params=(
            Param("search", str | None, None),
            Param("task", str | None, None),
            Param("method", str | None, None),
            Param("conference", str | None, None),
            Param("framework", str | None, None),
            Param("organization", str | None, None),
            Param("authors", AuthorList, None),
            Param("published_after", IsoDate, None),
            Param("published_before", IsoDate, None),
            Param("all_versions", bool, False),
            Param("order_by", Literal["trending", "date_published", "citation_count"], "trending"),
            Param("order_direction", Direction, "desc"),
            Param("include_resources", bool, False),
            Param("has_official_implementation", bool, False),
            Param("page", Page, 1),
            Param("limit", Limit, 20),
        ),
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        links=links.page_links,
        description=(
            "List papers filtered by exact catalog associations (task, method, conference, "
            "framework, organization, authors, dates) in a deterministic order."
        ),
    ),
    ToolSpec(
        name="list_recent_papers",
        group="hosted",
        query="pwc_local.queries.papers:list_recent_papers",
        params=(Param("limit", Limit, 10),),
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        description="Papers most recently added to the catalog.",
    ),
    ToolSpec(
        name="list_trending_papers",
        group="hosted",
        query="pwc_local.queries.papers:list_trending_papers",
        params=(
            Param("limit", Limit, 20),
            Param("max_age_days", Annotated[int, Field(ge=1, le=365)], 180),
            Param("min_velocity", float | None, None),
        ),
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        description="Trending papers, ranked by repository velocity.",
    ),
    ToolSpec(
        name="get_related_papers",
        group="hosted",
        query="pwc_local.queries.public:related_or_public",
        params=(Param("paper", Reference), Param("limit", Annotated[int, Field(ge=1, le=20)], 4)),
        output=PaperPage,
        project=lambda answer, _: projections.related_page(answer),
        summary=lambda page, _: page.note,
        text=PAPERS,
        description=(
            "Catalog papers related to one paper. For a paper outside the catalog: catalog "
            "search hits for its public title, with a note and available_at links. " + _PAPER
        ),
    ),
    ToolSpec(
        name="get_paper_lineage",
        group="hosted",
        query="pwc_local.queries.papers:get_paper_lineage",
        params=(Param("paper", Reference),),
        output=PaperLineageResult,
        project=lambda answer, _: projections.lineage(answer),
        text=(piece.lineage,),
        description=(
            "Predecessor and successor papers the catalog links explicitly to one paper. " + _PAPER
        ),
    ),
    # -- taxonomy ---------------------------------------------------------------------------
    ToolSpec(
        name="get_task",
        group="hosted",
        query="pwc_local.queries.taxonomy:get_task",
        params=(Param("task", Entity), Param("benchmark_limit", ResourceLimit, 10, query=False)),
        output=TaskResult,
        project=lambda answer, a: projections.task_result(
            answer, benchmark_limit=a["benchmark_limit"]
        ),
        summary=lambda result, _: text.task(result),
        text=(piece.task,),
        description=(
            "One task by exact name, slug or ID: hierarchy and its benchmarks ranked by trend. "
            "Start here for best / state-of-the-art questions, then call get_benchmark."
        ),
    ),
    _taxonomy(
        "list_tasks",
        params=(
            Param("search", str | None, None),
            Param("area", str | None, None),
            Param("level", int | None, None),
            Param("visible_only", bool, False),
            Param("group_by_area", bool, False),
            Param("order_by", Literal["name", "created_at", "level", "paper_count"], "name"),
            Param("order_direction", Direction, "asc"),
            Param("page", Page, 1),
            Param("limit", OptionalLimit, None),
        ),
        text=_rows("task"),
        description=(
            "List or filter research tasks, or (group_by_area) the visible top-level taxonomy "
            "grouped by area."
        ),
    ),
    ToolSpec(
        name="get_method",
        group="hosted",
        query="pwc_local.queries.taxonomy:get_method",
        params=(Param("method", Entity),),
        output=MethodResult,
        project=lambda answer, _: projections.method_result(answer),
        summary=lambda result, _: text.method(result),
        text=(piece.method,),
        description="One method by name, full name, slug, ID or common alias.",
    ),
    _taxonomy(
        "list_methods",
        params=(
            Param("search", str | None, None),
            Param("area", str | None, None),
            Param("introduced_year", int | None, None),
            Param(
                "order_by",
                Literal["name", "full_name", "introduced_year", "created_at", "paper_count"],
                "name",
            ),
            Param("order_direction", Direction, "asc"),
            Param("page", Page, 1),
            Param("limit", Limit, 25),
        ),
        text=_rows("method"),
        description="List or filter methods.",
    ),
    _lookup(
        "get_conference", "conference", description="One conference by exact name, slug or ID."
    ),
    _taxonomy(
        "list_conferences",
        params=(Param("year", int | None, None),),
        text=_rows("conference"),
        description="Conferences with imported papers, optionally for one year.",
    ),
    _lookup(
        "get_organization",
        "organization",
        description="One organization by exact name, slug or ID.",
    ),
    _taxonomy(
        "list_organizations",
        params=(Param("featured_only", bool, False),),
        text=_rows("organization"),
        description="List organizations; featured_only keeps curated featured ones.",
    ),
    _lookup("get_framework", "framework", description="One framework by exact name, slug or ID."),
    _taxonomy(
        "list_frameworks",
        params=(
            Param("domain", str | None, None),
            Param("category", str | None, None),
            Param("platform", str | None, None),
        ),
        text=_rows("framework"),
        description="List frameworks, filtered by domain, category or platform.",
    ),
    # -- benchmarks -------------------------------------------------------------------------
    ToolSpec(
        name="get_benchmark",
        group="hosted",
        query="pwc_local.queries.benchmarks:get_benchmark",
        params=(
            Param("benchmark", Entity),
            Param("page", Page, 1),
            Param("limit", Limit, 20),
            Param("is_open", bool | None, None),
            Param("max_parameters", ParameterSize, None),
            Param("require_metrics", MetricNames, None),
            Param("minimum_metrics", MetricBounds, None),
            Param("maximum_metrics", MetricBounds, None),
            Param("sort_metric", SortMetric, None),
            Param("pareto", Pareto, None),
        ),
        output=BenchmarkResult,
        project=lambda answer, a: projections.benchmark_result(
            answer.payload, page=a["page"], metric_note=answer.metric_note
        ),
        summary=lambda result, _: text.benchmark(result),
        text=(piece.benchmark, piece.metric_note, piece.next_page()),
        description=(
            "One benchmark by exact name with its leaderboard. max_parameters (e.g. 4B) drops "
            "larger models; sort_metric orders rows; require_metrics, minimum_metrics, "
            "maximum_metrics and pareto select rows; matched_count counts selected rows before "
            "limit. Metric names match case-insensitively, via aliases (AP/mAP, top1/Accuracy, "
            "AUROC/AUC, Pass@1/Pass Rate) or a unique containing name; an unknown metric "
            "returns the unfiltered leaderboard with metric_note listing the real metrics."
        ),
    ),
    ToolSpec(
        name="list_benchmarks",
        group="hosted",
        query="pwc_local.queries.benchmarks:list_benchmarks",
        params=(
            Param("search", str | None, None),
            Param("task", str | None, None),
            Param("include_descendants", bool, False),
            Param("minimum_evaluations", int | None, None),
            Param("is_open", bool | None, None),
            Param("group_by_area", bool, False),
            Param("area", str | None, None),
            Param("benchmarks_per_task", ResourceLimit, 3),
            Param(
                "order_by",
                Literal["trending", "name", "full_name", "created_at", "paper_count"] | None,
                None,
            ),
            Param("order_direction", Direction, "asc"),
            Param("page", Page, 1),
            Param("limit", OptionalLimit, None),
        ),
        output=BenchmarkPage,
        project=lambda answer, _: projections.benchmark_page(
            answer.payload, grouped=answer.grouped, next_page=answer.next_page
        ),
        summary=lambda page, answer: text.benchmark_list(page, list(answer.notes)),
        text=(piece.benchmarks, piece.benchmark_notes, piece.next_page()),
        description=(
            "Benchmarks: a task's benchmarks in trend order (task), a filtered listing, or "
            "grouped by area and task (group_by_area, area). Trend order needs task; area is "
            "ignored with other filters. Then open the most relevant leaderboard with "
            "get_benchmark."
        ),
    ),
    # -- the reading library (local additions; tools=hosted leaves them out) -------------
    ToolSpec(
        name="save_papers",
        group="library",
        query="pwc_local.queries.library:save_papers",
        needs=("catalog", "library", "progress"),
        params=(
            Param(
                "papers",
                Annotated[list[LocalReference], Field(min_length=1, max_length=MAX_SAVE)],
            ),
        ),
        output=library_models.SavePapersResult,
        project=library_models.saved_result,
        text=(library_models.saved_text,),
        links=links.row_links,
        description=(
            "Keep papers on this machine (metadata, Markdown, citation) until removed: they "
            "then answer read_paper, get_paper_info and search_library offline."
        ),
        annotations=hints(read_only=False, destructive=False, idempotent=True),
    ),
    ToolSpec(
        name="list_library",
        group="library",
        query="pwc_local.queries.library:list_library",
        needs=("library",),
        params=(Param("page", Page, 1), Param("limit", Limit, 10)),
        output=library_models.LibraryPage,
        project=library_models.library_page,
        text=(library_models.library_text, piece.next_page()),
        links=links.row_links,
        description="The saved papers, most recently saved first.",
        annotations=LIBRARY_READ,
    ),
    ToolSpec(
        name="search_library",
        group="library",
        query="pwc_local.queries.library:search_library",
        needs=("library", "codec"),
        params=(
            Param("query", Query),
            Param("limit", Limit, SEARCH_LIBRARY_LIMIT),  # `library search`'s default too
            Param("paper", Annotated[str | None, Field(max_length=500)], None),
        ),
        output=library_models.LibrarySearchResult,
        project=library_models.search_result,
        text=(library_models.search_text,),
        links=links.row_links,
        description=(
            "Offline full-text search of saved papers and papers read before: each hit has "
            "its section, a quote and a read_paper cursor at the passage; paper limits it to one."
        ),
        annotations=LIBRARY_READ,
    ),
    # -- reading (local additions: read less, cite more) ------------------------------------
    ToolSpec(
        name="get_paper_outline",
        group="reading",
        query="pwc_local.queries.sections:get_paper_outline",
        params=(Param("paper", LocalReference),),
        output=reading_results.PaperOutlineResult,
        project=reading_results.paper_outline,
        text=(of_model(reading_results.outline_text),),
        annotations=LOCAL_READ,
        description=(
            "A paper's section tree (id, heading, size), to read only what you need with "
            "read_paper_section."
        ),
    ),
    ToolSpec(
        name="read_paper_section",
        group="reading",
        query="pwc_local.queries.sections:read_paper_section",
        needs=("catalog", "codec"),
        params=(
            Param("paper", LocalReference),
            Param("section", SectionName),
            Param("max_bytes", Annotated[int, Field(ge=1024, le=CHUNK_BYTES)], 16384),
        ),
        output=reading_results.PaperSectionResult,
        project=reading_results.paper_section,
        text=(of_model(reading_results.section_text),),
        annotations=LOCAL_READ,
        description=(
            "One section of a paper's Markdown with its subsections; if truncated, read_paper "
            "with next_cursor reads on."
        ),
    ),
    ToolSpec(
        name="cite_paper",
        group="reading",
        query="pwc_local.queries.citing:cite_paper",
        params=(
            Param("paper", LocalReference),
            Param("format", CitationFormat, "bibtex"),
        ),
        output=reading_results.CitationResult,
        project=reading_results.citation,
        text=(of_model(reading_results.citation_text),),
        annotations=LOCAL_READ,
        description=(
            "A paper's citation in BibTeX, RIS or CSL-JSON, also for papers outside the "
            "catalog (by DOI)."
        ),
    ),
    # -- the watch list (local additions): what changed since the last look ------------------
    #
    # Both ask the live catalog on the web (open world) and write the local list, so
    # neither is read-only. `watch` may delete (remove=true drops a watch and its baseline:
    # destructive), and repeating a call changes nothing more (idempotent). `whats_new`
    # only moves the "last look" marks (not destructive), but is not idempotent: a retry
    # after a lost answer would find the changes already marked seen.
    ToolSpec(
        name="watch",
        group="watch",
        query="pwc_local.queries.watch:watch",
        needs=("live", "watchlist"),
        params=(
            Param("kind", watch_models.WatchKind),
            Param("target", LocalReference),
            Param("remove", bool, False),
        ),
        output=watch_models.WatchListResult,
        project=watch_models.watch_list_result,
        text=(watch_models.watch_text,),
        description=(
            "Watch a benchmark, task, paper, author or search (query) for whats_new; target is "
            "what the matching tool takes. Returns the watch list."
        ),
        annotations=hints(read_only=False, destructive=True, idempotent=True),
    ),
    ToolSpec(
        name="whats_new",
        group="watch",
        query="pwc_local.queries.watch:whats_new",
        needs=("live", "watchlist", "timeout"),
        params=(Param("mark_seen", bool, True),),
        output=watch_models.WhatsNewResult,
        project=watch_models.whats_new_result,
        text=(of_model(watch_models.whats_new_text),),
        description=(
            "What is new on each watch since the last look: results, leaders, papers, versions. "
            "With mark_seen=false the next call answers the same."
        ),
        annotations=hints(read_only=False, destructive=False, idempotent=False),
    ),
)

BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


def names(*groups: Group) -> tuple[str, ...]:
    """Tool names in listing order, of the given groups (all groups when none is given)."""
    return tuple(spec.name for spec in TOOLS if not groups or spec.group in groups)
