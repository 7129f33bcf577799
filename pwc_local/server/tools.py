"""The 21 tools (tools.md §2): parameters, output models, and the call path they share.

Each tool is a method of `CatalogTools` whose signature *is* its contract: the SDK
builds the advertised `inputSchema` from the parameter annotations (names, JSON
types, defaults, bounds, enums, nullability) and the `outputSchema` from the model
in the return annotation. A tool body does three things: ask the query layer
(`pwc_local.catalog.*`) for the payload, project it into the output model
(`projections`), and write the text block (`text`). It validates nothing the
schema already validates.

Every call runs inside `CatalogTools._call()`, which provides the lazily built
`Runtime` and turns any failure into a `ToolError` carrying
`errors.error_message(exc)`, the single mapping from exceptions to `code: sentence`.
The `_Call` it yields holds the call's `Freshness` record and the call's view of the
catalog (`freshness.for_call`): the query layer works with that view, the view notes
any stale cache entry it serves on the record, and `_Call.result` turns the record
into the `cache` label and the stale notice.

Start-up cost matters (clients spawn a server per session), so this module imports
no HTTP client, cache or query module at import time: the query modules are
imported inside the tool bodies, on first use.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Literal

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from pwc_local.runtime import LazyRuntime, Runtime
from pwc_local.server import projections, text
from pwc_local.server.errors import error_message
from pwc_local.server.models import (
    BenchmarkPage,
    BenchmarkResult,
    CacheStatus,
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
from pwc_local.store.freshness import Freshness, for_call

HINTS = text.PARAMETER_HINTS

# -- shared parameter types (tools.md §2.0.4) --------------------------------------------

Page = Annotated[int, Field(ge=1, le=100)]
Limit = Annotated[int, Field(ge=1, le=25)]
OptionalLimit = Annotated[int | None, Field(ge=1, le=25)]
Reference = Annotated[str, Field(min_length=1, max_length=500, description=HINTS["reference"])]
Query = Annotated[str, Field(min_length=1, max_length=500)]
Entity = Annotated[str, Field(min_length=1, max_length=500, description=HINTS["entity"])]
IsoDate = Annotated[str | None, Field(max_length=10, description=HINTS["date"])]
AuthorList = Annotated[list[str] | None, Field(max_length=10, description=HINTS["authors"])]
ResourceLimit = Annotated[int, Field(ge=1, le=10)]
Direction = Literal["asc", "desc"]
ParameterSize = Annotated[str | None, Field(max_length=32, description=HINTS["max_parameters"])]
MetricNames = Annotated[list[str] | None, Field(min_length=1)]
MetricBounds = Annotated[dict[str, float] | None, Field(description=HINTS["metric_bounds"])]
SortMetric = Annotated[str | None, Field(max_length=200, description=HINTS["sort_metric"])]
Pareto = Annotated[list[str] | None, Field(min_length=2, description=HINTS["pareto"])]
Cursor = Annotated[str | None, Field(description=HINTS["cursor"])]

# Every tool only reads a public catalog on the open web (tools.md §1.2).
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)

TOOL_NAMES = (
    "search_papers",
    "get_paper_info",
    "get_paper_evaluations",
    "read_paper",
    "list_papers",
    "list_recent_papers",
    "list_trending_papers",
    "get_related_papers",
    "get_paper_lineage",
    "get_task",
    "list_tasks",
    "get_method",
    "list_methods",
    "get_conference",
    "list_conferences",
    "get_organization",
    "list_organizations",
    "get_framework",
    "list_frameworks",
    "get_benchmark",
    "list_benchmarks",
)


class _Call:
    """One tool call in progress: its runtime, its catalog view, and how it builds the result.

    `catalog` is the call's own view of the runtime's catalog: stale cache entries it
    serves are noted on `freshness`, which `result` turns into the label.
    """

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.freshness = Freshness()
        self.catalog = for_call(runtime.catalog, self.freshness)

    def result(self, model: ToolOutput, summary: str | None = None) -> CallToolResult:
        """`structuredContent` = the model; one text block = `summary` or the JSON dump.

        When stale cache entries were used, the model's `cache` says so and the text
        ends with a sentence explaining it.
        """
        notice = ""
        if self.freshness.stale and self.freshness.cached_at is not None:
            cached_at = self.freshness.cached_at.isoformat()
            model.cache = CacheStatus(stale=True, cached_at=cached_at)
            notice = "\n\n" + text.stale_notice(cached_at)
        structured = model.model_dump(mode="json")
        if summary is None:
            summary = json.dumps(structured, indent=2, ensure_ascii=False)
        return CallToolResult(
            content=[TextContent(type="text", text=summary + notice)],
            structured_content=structured,
        )


class CatalogTools:
    """The tool implementations, bound to one server's lazily built runtime."""

    def __init__(self, runtime: LazyRuntime) -> None:
        self._runtime = runtime

    @asynccontextmanager
    async def _call(self) -> AsyncIterator[_Call]:
        """The call's runtime and catalog view, and the one exception-to-error-text mapping."""
        try:
            yield _Call(await self._runtime.get())
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError(error_message(exc)) from None

    # -- papers ---------------------------------------------------------------------------

    async def search_papers(
        self,
        query: Query,
        mode: Literal["hybrid", "keyword", "semantic"] = "hybrid",
        page: Page = 1,
        limit: Limit = 10,
        published_after: IsoDate = None,
        published_before: IsoDate = None,
        has_official_implementation: bool = False,
    ) -> Annotated[CallToolResult, PaperPage]:
        from pwc_local.catalog import papers

        async with self._call() as call:
            payload = await papers.search_papers(
                call.catalog,
                query,
                mode=mode,
                page=page,
                limit=limit,
                published_after=published_after,
                published_before=published_before,
                has_official_implementation=has_official_implementation,
            )
            result = projections.paper_page(payload)
            return call.result(result, text.found_papers(result))

    async def get_paper_info(
        self,
        paper: Reference,
        include_resources: bool = False,
        repo_limit: ResourceLimit = 5,
        include_evaluations: bool = False,
    ) -> Annotated[CallToolResult, PaperInfoResult]:
        from pwc_local.catalog import public

        async with self._call() as call:
            answer = await public.paper_info_or_public(
                call.catalog, paper, include_evaluations=include_evaluations
            )
            result = projections.paper_info(
                answer,
                include_resources=include_resources,
                include_evaluations=include_evaluations,
                repo_limit=repo_limit,
            )
            return call.result(result, text.paper_info(result))

    async def get_paper_evaluations(
        self, paper: Reference, page: Page = 1, limit: Limit = 20
    ) -> Annotated[CallToolResult, EvaluationPage]:
        from pwc_local.catalog import papers

        async with self._call() as call:
            payload = await papers.get_paper_evaluations(
                call.catalog, paper, page=page, limit=limit
            )
            result = projections.evaluation_page(paper, page, payload)
            return call.result(result, text.paper_evaluations(result))

    async def read_paper(
        self, paper: Reference, cursor: Cursor = None
    ) -> Annotated[CallToolResult, PaperReadResult]:
        from pwc_local.catalog import reading

        async with self._call() as call:
            codec = await anyio.to_thread.run_sync(call.runtime.cursor_codec)
            answer = await reading.read_paper(call.catalog, codec, paper, cursor)
            return call.result(projections.paper_read(answer))

    async def list_papers(
        self,
        search: str | None = None,
        task: str | None = None,
        method: str | None = None,
        conference: str | None = None,
        framework: str | None = None,
        organization: str | None = None,
        authors: AuthorList = None,
        published_after: IsoDate = None,
        published_before: IsoDate = None,
        all_versions: bool = False,
        order_by: Literal["trending", "date_published", "citation_count"] = "trending",
        order_direction: Direction = "desc",
        include_resources: bool = False,
        has_official_implementation: bool = False,
        page: Page = 1,
        limit: Limit = 20,
    ) -> Annotated[CallToolResult, PaperPage]:
        from pwc_local.catalog import papers

        async with self._call() as call:
            payload = await papers.list_papers(
                call.catalog,
                search=search,
                task=task,
                method=method,
                conference=conference,
                framework=framework,
                organization=organization,
                authors=authors or None,  # an empty list counts as not given
                published_after=published_after,
                published_before=published_before,
                all_versions=all_versions,
                order_by=order_by,
                order_direction=order_direction,
                include_resources=include_resources,
                has_official_implementation=has_official_implementation,
                page=page,
                limit=limit,
            )
            return call.result(projections.paper_page(payload))

    async def list_recent_papers(self, limit: Limit = 10) -> Annotated[CallToolResult, PaperPage]:
        from pwc_local.catalog import papers

        async with self._call() as call:
            payload = await papers.list_recent_papers(call.catalog, limit=limit)
            return call.result(projections.paper_page(payload))

    async def list_trending_papers(
        self,
        limit: Limit = 20,
        max_age_days: Annotated[int, Field(ge=1, le=365)] = 180,
        min_velocity: float | None = None,
    ) -> Annotated[CallToolResult, PaperPage]:
        from pwc_local.catalog import papers

        async with self._call() as call:
            payload = await papers.list_trending_papers(
                call.catalog, limit=limit, max_age_days=max_age_days, min_velocity=min_velocity
            )
            return call.result(projections.paper_page(payload))

    async def get_related_papers(
        self, paper: Reference, limit: Annotated[int, Field(ge=1, le=20)] = 4
    ) -> Annotated[CallToolResult, PaperPage]:
        from pwc_local.catalog import public

        async with self._call() as call:
            answer = await public.related_or_public(call.catalog, paper, limit=limit)
            result = projections.related_page(answer)
            return call.result(result, result.note)

    async def get_paper_lineage(
        self, paper: Reference
    ) -> Annotated[CallToolResult, PaperLineageResult]:
        from pwc_local.catalog import papers

        async with self._call() as call:
            payload = await papers.get_paper_lineage(call.catalog, paper)
            return call.result(projections.lineage(payload))

    # -- taxonomy -----------------------------------------------------------------------

    async def get_task(
        self, task: Entity, benchmark_limit: ResourceLimit = 10
    ) -> Annotated[CallToolResult, TaskResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.get_task(call.catalog, task)
            result = projections.task_result(payload, benchmark_limit=benchmark_limit)
            return call.result(result, text.task(result))

    async def list_tasks(
        self,
        search: str | None = None,
        area: str | None = None,
        level: int | None = None,
        visible_only: bool = False,
        group_by_area: bool = False,
        order_by: Literal["name", "created_at", "level", "paper_count"] = "name",
        order_direction: Direction = "asc",
        page: Page = 1,
        limit: OptionalLimit = None,
    ) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.list_tasks(
                call.catalog,
                search=search,
                area=area,
                level=level,
                visible_only=visible_only,
                group_by_area=group_by_area,
                order_by=order_by,
                order_direction=order_direction,
                page=page,
                limit=limit,
            )
            return call.result(QueryResult(data=payload))

    async def get_method(self, method: Entity) -> Annotated[CallToolResult, MethodResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            result = projections.method_result(await taxonomy.get_method(call.catalog, method))
            return call.result(result, text.method(result))

    async def list_methods(
        self,
        search: str | None = None,
        area: str | None = None,
        introduced_year: int | None = None,
        order_by: Literal[
            "name", "full_name", "introduced_year", "created_at", "paper_count"
        ] = "name",
        order_direction: Direction = "asc",
        page: Page = 1,
        limit: Limit = 25,
    ) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.list_methods(
                call.catalog,
                search=search,
                area=area,
                introduced_year=introduced_year,
                order_by=order_by,
                order_direction=order_direction,
                page=page,
                limit=limit,
            )
            return call.result(QueryResult(data=payload))

    async def get_conference(self, conference: Entity) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.get_conference(call.catalog, conference)
            return call.result(QueryResult(data=payload))

    async def list_conferences(
        self, year: int | None = None
    ) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.list_conferences(call.catalog, year=year)
            return call.result(QueryResult(data=payload))

    async def get_organization(
        self, organization: Entity
    ) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.get_organization(call.catalog, organization)
            return call.result(QueryResult(data=payload))

    async def list_organizations(
        self, featured_only: bool = False
    ) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.list_organizations(call.catalog, featured_only=featured_only)
            return call.result(QueryResult(data=payload))

    async def get_framework(self, framework: Entity) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.get_framework(call.catalog, framework)
            return call.result(QueryResult(data=payload))

    async def list_frameworks(
        self, domain: str | None = None, category: str | None = None, platform: str | None = None
    ) -> Annotated[CallToolResult, QueryResult]:
        from pwc_local.catalog import taxonomy

        async with self._call() as call:
            payload = await taxonomy.list_frameworks(
                call.catalog, domain=domain, category=category, platform=platform
            )
            return call.result(QueryResult(data=payload))

    # -- benchmarks -------------------------------------------------------------------

    async def get_benchmark(
        self,
        benchmark: Entity,
        page: Page = 1,
        limit: Limit = 20,
        is_open: bool | None = None,
        max_parameters: ParameterSize = None,
        require_metrics: MetricNames = None,
        minimum_metrics: MetricBounds = None,
        maximum_metrics: MetricBounds = None,
        sort_metric: SortMetric = None,
        pareto: Pareto = None,
    ) -> Annotated[CallToolResult, BenchmarkResult]:
        from pwc_local.catalog import benchmarks

        async with self._call() as call:
            answer = await benchmarks.get_benchmark(
                call.catalog,
                benchmark,
                page=page,
                limit=limit,
                is_open=is_open,
                max_parameters=max_parameters,
                require_metrics=require_metrics,
                minimum_metrics=minimum_metrics,
                maximum_metrics=maximum_metrics,
                sort_metric=sort_metric,
                pareto=pareto,
            )
            result = projections.benchmark_result(
                answer.payload, page=page, metric_note=answer.metric_note
            )
            return call.result(result, text.benchmark(result))

    async def list_benchmarks(
        self,
        search: str | None = None,
        task: str | None = None,
        include_descendants: bool = False,
        minimum_evaluations: int | None = None,
        is_open: bool | None = None,
        group_by_area: bool = False,
        area: str | None = None,
        benchmarks_per_task: ResourceLimit = 3,
        order_by: Literal["trending", "name", "full_name", "created_at", "paper_count"]
        | None = None,
        order_direction: Direction = "asc",
        page: Page = 1,
        limit: OptionalLimit = None,
    ) -> Annotated[CallToolResult, BenchmarkPage]:
        from pwc_local.catalog import benchmarks

        async with self._call() as call:
            answer = await benchmarks.list_benchmarks(
                call.catalog,
                search=search,
                task=task,
                include_descendants=include_descendants,
                minimum_evaluations=minimum_evaluations,
                is_open=is_open,
                group_by_area=group_by_area,
                area=area,
                benchmarks_per_task=benchmarks_per_task,
                order_by=order_by,
                order_direction=order_direction,
                page=page,
                limit=limit,
            )
            result = projections.benchmark_page(answer.payload, grouped=answer.grouped)
            return call.result(result, text.benchmark_list(result, list(answer.notes)))


def register_tools(server: MCPServer, tools: CatalogTools) -> None:
    """Add the 21 tools to `server`, in contract order, with descriptions and annotations."""
    for name in TOOL_NAMES:
        server.add_tool(
            getattr(tools, name),
            name=name,
            description=text.DESCRIPTIONS[name],
            annotations=READ_ONLY,
        )
