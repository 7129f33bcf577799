"""The tool bindings: what answers each tool of the contract, and how it is shown.

`pwc_local.contract` says what each tool is (name, group, parameters, description,
hints); each entry here binds one of them, in the same order, to:

* `query`: the function that answers it (catalog logic in `pwc_local.queries`, no
  MCP), called as `query(*needs, **arguments)` with the runtime services named in
  `needs` and the parameters with `query=True`;
* `output` and `project(answer, arguments)`: the output model, from the query's
  answer and the validated arguments (defaults filled in);
* `text`: the pieces of the text block in the default `markdown` mode
  (`present/render.py`, `present/pieces.py`); by default `generic`, the model as Markdown;
* `summary(model, answer)`: the text block of a hosted tool in the `summary` mode,
  the hosted server's template; `None` (the field or the return value) means the
  model's JSON dump, as the hosted server sends (local tools have no hosted text to
  match: their `summary` mode is their Markdown);
* `links(model)`: the papers the result names, which then get `resource_link`
  items after the text block (`pwc_local.server.links`).

The machinery in `pwc_local.server.tools` derives the rest. This module imports the
query modules, so the server loads it after `initialize`, in its preparation thread
(`PwcServer.ensure_tools`), never on the way to the handshake.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from mcp_types import ToolAnnotations

from pwc_local import contract
from pwc_local.contract import Group, Param, Tool
from pwc_local.present import benchmarks as shown_benchmarks
from pwc_local.present import claims as shown_claims
from pwc_local.present import history, projections, summaries
from pwc_local.present import library as shown_library
from pwc_local.present import papers as shown_papers
from pwc_local.present import pieces as piece
from pwc_local.present import reading as shown_reading
from pwc_local.present import results as shown_results
from pwc_local.present import taxonomy as shown_taxonomy
from pwc_local.present import watch as shown_watch
from pwc_local.present.generic import generic
from pwc_local.present.hosted import (
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
from pwc_local.present.record import Presenter
from pwc_local.present.render import Piece, of_model
from pwc_local.queries import (
    benchmarks,
    citing,
    claims,
    library,
    looks,
    papers,
    public,
    reading,
    results_table,
    sections,
    taxonomy,
    watch,
)
from pwc_local.queries import history as history_queries
from pwc_local.server import links
from pwc_local.server.errors import error_message

Arguments = Mapping[str, Any]
QueryFunction = Callable[..., Awaitable[Any]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its contract entry (`tool`) and what answers and shows it."""

    tool: Tool
    query: QueryFunction
    output: type[ToolOutput]
    project: Callable[[Any, Arguments], ToolOutput]
    summary: Callable[[Any, Any], str | None] | None = None
    text: tuple[Piece, ...] = (generic,)
    needs: tuple[str, ...] = ("catalog",)
    links: Callable[[Any], list[links.PaperLink]] | None = None
    compact: Presenter | None = None

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def group(self) -> Group:
        return self.tool.group

    @property
    def params(self) -> tuple[Param, ...]:
        return self.tool.params

    @property
    def description(self) -> str:
        return self.tool.description

    @cached_property
    def annotations(self) -> ToolAnnotations:
        """The MCP annotations the hosted profile sends: the contract's hints."""
        return ToolAnnotations.model_validate(dict(self.tool.hints))

    @cached_property
    def compact_annotations(self) -> ToolAnnotations:
        """The compact profile's: only what MCP's defaults do not say (`contract.unsaid`)."""
        return ToolAnnotations.model_validate(contract.unsaid(self.tool.hints))

    @cached_property  # asked on every tools/call; the params never change
    def references(self) -> frozenset[str]:
        """Parameters naming a paper or an entity: a JSON number there is read as text."""
        return frozenset(p.name for p in self.params if p.reference)


def _bind(name: str, **binding: Any) -> ToolSpec:
    return ToolSpec(contract.BY_NAME[name], **binding)


def _history_links(model: Any) -> list[links.PaperLink]:
    return [links.PaperLink(key, title) for key, title in history.linked(model)]


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


def _listing(answer: Any, _arguments: Arguments) -> QueryResult:
    """A task or method listing (`taxonomy.AreaListing`): the catalog's payload, as `_data`."""
    return QueryResult(data=answer.payload)


# The compact presentation of each family (`pwc_local.present`).
PAPER_LIST = Presenter(
    shown_papers.PaperList, shown_papers.paper_list, shown_papers.paper_list_text
)
CATALOG_ENTRY = Presenter(
    shown_taxonomy.CatalogEntry, shown_taxonomy.catalog_entry, shown_taxonomy.catalog_entry_text
)


def _catalog_list(noun: str, listed: bool) -> Presenter:
    """A taxonomy listing of `noun`s; `listed`: answered as an `AreaListing`."""
    build = shown_taxonomy.area_list if listed else shown_taxonomy.catalog_list
    return Presenter(shown_taxonomy.CatalogList, build, shown_taxonomy.catalog_list_text(noun))


def _taxonomy(name: str, query: QueryFunction, *, noun: str | None = None) -> ToolSpec:
    """A hosted taxonomy tool (`queries.taxonomy`): the catalog's payload as it came.

    With a `noun`, a listing of them (`text`: rows of `noun`s); without, one entry.
    """
    listed = name in ("list_tasks", "list_methods")  # answered as an `AreaListing`
    return _bind(
        name,
        query=query,
        output=QueryResult,
        project=_listing if listed else _data,
        text=_rows(noun) if noun else (generic,),
        compact=_catalog_list(noun, listed) if noun else CATALOG_ENTRY,
    )


TOOLS: tuple[ToolSpec, ...] = (
    # -- papers ---------------------------------------------------------------------------
    _bind(
        "search_papers",
        query=papers.search_papers,
        output=PaperPage,
        project=_papers,
        summary=lambda page, _: summaries.found_papers(page),
        text=PAPERS,
        compact=PAPER_LIST,
        links=links.page_links,
    ),
    _bind(
        "get_paper_info",
        query=public.paper_info_or_public,
        output=PaperInfoResult,
        project=lambda answer, a: projections.paper_info(
            answer,
            include_resources=a["include_resources"],
            include_evaluations=a["include_evaluations"],
            repo_limit=a["repo_limit"],
        ),
        summary=lambda result, _: summaries.paper_info(result),
        text=(piece.paper_info, piece.note),
        links=links.info_links,
        compact=Presenter(
            shown_papers.PaperFacts, shown_papers.paper_facts, shown_papers.paper_facts_text
        ),
    ),
    _bind(
        "get_paper_evaluations",
        query=papers.get_paper_evaluations,
        output=EvaluationPage,
        project=lambda answer, a: projections.evaluation_page(a["paper"], a["page"], answer),
        summary=lambda result, _: summaries.paper_evaluations(result),
        text=(piece.paper_evaluations, piece.next_page()),
        compact=Presenter(
            shown_papers.PaperEvaluations,
            shown_papers.paper_evaluations,
            shown_papers.paper_evaluations_text,
        ),
    ),
    _bind(
        "read_paper",
        query=reading.read_paper,
        needs=("catalog", "codec", "read_chunk"),
        output=PaperReadResult,
        project=lambda answer, _: projections.paper_read(answer),
        summary=lambda result, _: summaries.paper_markdown(result),
        text=(of_model(summaries.paper_markdown),),
        compact=Presenter(
            shown_reading.PaperChunk, shown_reading.paper_chunk, shown_reading.paper_chunk_text
        ),
    ),
    _bind(
        "list_papers",
        query=papers.list_papers,
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        compact=PAPER_LIST,
        links=links.page_links,
    ),
    _bind(
        "list_recent_papers",
        query=papers.list_recent_papers,
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        compact=PAPER_LIST,
    ),
    _bind(
        "list_trending_papers",
        query=papers.list_trending_papers,
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        compact=PAPER_LIST,
    ),
    _bind(
        "get_related_papers",
        query=public.related_or_public,
        output=PaperPage,
        project=lambda answer, _: projections.related_page(answer),
        summary=lambda page, _: page.note,
        text=PAPERS,
        compact=PAPER_LIST,
    ),
    _bind(
        "get_paper_lineage",
        query=papers.get_paper_lineage,
        output=PaperLineageResult,
        project=lambda answer, _: projections.lineage(answer),
        text=(piece.lineage,),
        compact=Presenter(shown_papers.Lineage, shown_papers.lineage, shown_papers.lineage_text),
    ),
    # -- taxonomy ---------------------------------------------------------------------------
    _bind(
        "get_task",
        query=taxonomy.get_task,
        needs=("catalog", "names"),
        output=TaskResult,
        project=lambda answer, a: projections.task_result(
            answer, benchmark_limit=a["benchmark_limit"]
        ),
        summary=lambda result, _: summaries.task(result),
        text=(piece.task,),
        compact=Presenter(
            shown_taxonomy.TaskFacts, shown_taxonomy.task_facts, shown_taxonomy.task_text
        ),
    ),
    _taxonomy("list_tasks", taxonomy.list_tasks, noun="task"),
    _bind(
        "get_method",
        query=taxonomy.get_method,
        output=MethodResult,
        project=lambda answer, _: projections.method_result(answer),
        summary=lambda result, _: summaries.method(result),
        text=(piece.method,),
        compact=Presenter(
            shown_taxonomy.MethodFacts, shown_taxonomy.method_facts, shown_taxonomy.method_text
        ),
    ),
    _taxonomy("list_methods", taxonomy.list_methods, noun="method"),
    _taxonomy("get_conference", taxonomy.get_conference),
    _taxonomy("list_conferences", taxonomy.list_conferences, noun="conference"),
    _taxonomy("get_organization", taxonomy.get_organization),
    _taxonomy("list_organizations", taxonomy.list_organizations, noun="organization"),
    _taxonomy("get_framework", taxonomy.get_framework),
    _taxonomy("list_frameworks", taxonomy.list_frameworks, noun="framework"),
    # -- benchmarks -------------------------------------------------------------------------
    _bind(
        "get_benchmark",
        query=benchmarks.get_benchmark,
        needs=("catalog", "names"),
        output=BenchmarkResult,
        project=lambda answer, a: projections.benchmark_result(
            answer.payload, page=a["page"], metric_note=answer.metric_note
        ),
        summary=lambda result, _: summaries.benchmark(result),
        text=(piece.benchmark, piece.metric_note, piece.next_page()),
        compact=Presenter(
            shown_benchmarks.Leaderboard,
            shown_benchmarks.leaderboard_page,
            shown_benchmarks.leaderboard_text,
        ),
    ),
    _bind(
        "list_benchmarks",
        query=benchmarks.list_benchmarks,
        output=BenchmarkPage,
        project=lambda answer, _: projections.benchmark_page(
            answer.payload, grouped=answer.grouped, next_page=answer.next_page
        ),
        summary=lambda page, answer: summaries.benchmark_list(page, list(answer.notes)),
        text=(piece.benchmarks, piece.benchmark_notes, piece.next_page()),
        compact=Presenter(
            shown_benchmarks.BenchmarkList,
            shown_benchmarks.benchmark_list,
            shown_benchmarks.benchmark_list_text,
        ),
    ),
    # -- the reading library (local additions; tools=hosted leaves them out) -------------
    _bind(
        "save_papers",
        query=library.save_papers,
        needs=("catalog", "library", "progress"),
        output=shown_library.SavePapersResult,
        project=lambda answer, _: shown_library.saved_result(answer, error_message),
        text=(of_model(shown_library.saved_text),),
        links=links.row_links,
    ),
    _bind(
        "list_library",
        query=library.list_library,
        needs=("library",),
        output=shown_library.LibraryPage,
        project=shown_library.library_page,
        text=(of_model(shown_library.library_text), piece.next_page()),
        links=links.row_links,
    ),
    _bind(
        "search_library",
        query=library.search_library,
        needs=("library", "codec"),
        output=shown_library.LibrarySearchResult,
        project=shown_library.search_result,
        text=(of_model(shown_library.search_text),),
        links=links.row_links,
    ),
    # -- reading (local additions: read less, cite more) ------------------------------------
    _bind(
        "get_paper_outline",
        query=sections.get_paper_outline,
        output=shown_reading.PaperOutlineResult,
        project=shown_reading.paper_outline,
        text=(of_model(shown_reading.outline_model_text),),
        compact=Presenter(shown_reading.Outline, shown_reading.outline, shown_reading.outline_text),
    ),
    _bind(
        "read_paper_section",
        query=sections.read_paper_section,
        needs=("catalog", "codec"),
        output=shown_reading.PaperSectionResult,
        project=shown_reading.paper_section,
        text=(of_model(shown_reading.section_text),),
    ),
    _bind(
        "cite_paper",
        query=citing.cite_paper,
        output=shown_reading.CitationResult,
        project=shown_reading.citation,
        text=(of_model(shown_reading.citation_text),),
    ),
    # -- the watch list (local additions): what changed since the last look ------------------
    _bind(
        "watch",
        query=watch.watch,
        needs=("live", "watchlist"),
        output=shown_watch.WatchListResult,
        project=shown_watch.watch_list_result,
        text=(lambda call: shown_watch.watch_text(call.model, call.arguments),),
    ),
    _bind(
        "whats_new",
        query=looks.whats_new,
        needs=("live", "watchlist", "timeout"),
        output=shown_watch.WhatsNewResult,
        project=shown_watch.whats_new_result,
        text=(of_model(shown_watch.whats_new_text),),
        compact=Presenter(
            shown_watch.WhatsNew, shown_watch.whats_new_record, shown_watch.whats_new_record_text
        ),
    ),
    # -- leaderboards through time (local additions) ----------------------------------------
    _bind(
        "sota_history",
        query=history_queries.state_of_the_art,
        needs=("catalog", "progress"),
        output=history.SotaResult,
        project=history.project,
        text=(of_model(history.text),),
        links=_history_links,
    ),
    _bind(
        "who_beat_paper",
        query=history_queries.beaten,
        needs=("catalog", "progress"),
        output=history.BeatenResult,
        project=history.project,
        text=(of_model(history.text),),
        links=_history_links,
    ),
    _bind(
        "results_table",
        query=results_table.results_table,
        needs=("catalog", "progress"),
        output=shown_results.ResultsTableResult,
        project=shown_results.table_model,
        text=(of_model(shown_results.table_text),),
    ),
    _bind(
        "check_claim",
        query=claims.check_claim,
        needs=("catalog", "progress"),
        output=shown_claims.ClaimResult,
        project=shown_claims.claim_model,
        text=(of_model(shown_claims.claim_text),),
    ),
)

BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}

if tuple(BY_NAME) != contract.names():  # one binding per contract entry, in its order
    raise RuntimeError("pwc_local.server.bindings does not bind pwc_local.contract's tools")
