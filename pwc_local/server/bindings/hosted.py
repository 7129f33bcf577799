"""The hosted server's 21 tools: papers, the taxonomy, benchmarks (see `bindings`)."""

from __future__ import annotations

from typing import Any

from pwc_local.present import benchmarks as shown_benchmarks
from pwc_local.present import papers as shown_papers
from pwc_local.present import pieces as piece
from pwc_local.present import projections, summaries
from pwc_local.present import reading as shown_reading
from pwc_local.present import taxonomy as shown_taxonomy
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
)
from pwc_local.present.record import Presenter
from pwc_local.present.render import Piece, of_model
from pwc_local.queries import benchmarks, papers, public, reading, taxonomy
from pwc_local.server import links
from pwc_local.server.bindings import Arguments, QueryFunction, ToolSpec, bind, group_tools


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
    return bind(
        name,
        query=query,
        output=QueryResult,
        project=_listing if listed else _data,
        text=_rows(noun) if noun else (generic,),
        compact=_catalog_list(noun, listed) if noun else CATALOG_ENTRY,
    )


TOOLS: tuple[ToolSpec, ...] = (
    # -- papers ---------------------------------------------------------------------------
    bind(
        "search_papers",
        query=papers.search_papers,
        output=PaperPage,
        project=_papers,
        summary=lambda page, _: summaries.found_papers(page),
        text=PAPERS,
        compact=PAPER_LIST,
        links=links.page_links,
    ),
    bind(
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
    bind(
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
    bind(
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
    bind(
        "list_papers",
        query=papers.list_papers,
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        compact=PAPER_LIST,
        links=links.page_links,
    ),
    bind(
        "list_recent_papers",
        query=papers.list_recent_papers,
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        compact=PAPER_LIST,
    ),
    bind(
        "list_trending_papers",
        query=papers.list_trending_papers,
        output=PaperPage,
        project=_papers,
        text=PAPERS,
        compact=PAPER_LIST,
    ),
    bind(
        "get_related_papers",
        query=public.related_or_public,
        output=PaperPage,
        project=lambda answer, _: projections.related_page(answer),
        summary=lambda page, _: page.note,
        text=PAPERS,
        compact=PAPER_LIST,
    ),
    bind(
        "get_paper_lineage",
        query=papers.get_paper_lineage,
        output=PaperLineageResult,
        project=lambda answer, _: projections.lineage(answer),
        text=(piece.lineage,),
        compact=Presenter(shown_papers.Lineage, shown_papers.lineage, shown_papers.lineage_text),
    ),
    # -- taxonomy ---------------------------------------------------------------------------
    bind(
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
    bind(
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
    bind(
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
        viewed=True,
        # Each row's extra-data flag, in row order: the view's filter (the tool takes
        # no such argument to ask again with).
        view_data=lambda model, _: {
            "extra_data": [row.uses_additional_data for row in model.evaluations]
        },
    ),
    bind(
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
)

BY_NAME = group_tools("hosted", TOOLS)
