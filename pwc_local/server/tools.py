"""The machinery that turns the tool bindings (`pwc_local.server.bindings`) into MCP tools.

Written once for every tool:

* `register_tools` gives the SDK, per entry, a function whose signature is built
  from the contract's `params` (a `Kind` becomes `Annotated[type, Field(...)]`);
  the SDK derives the advertised `inputSchema` (names, JSON types, bounds, enums,
  defaults, nullability) and the argument validation from it, and the
  `outputSchema` from the entry's output model.
* `CatalogTools.call` is the one call path: arguments (validated by the SDK, or
  completed with the declared defaults for resources) go to the query function,
  its answer through the entry's projection and text (`render.text_block`: the
  declared Markdown pieces, the hosted summary or the compact JSON, as the
  `result_text` setting says), and the result out.
* An entry that declares `links` gets `resource_link` items after its text block,
  one per paper the result names (`pwc_local.server.links`).
* The papers, tasks and benchmarks a result shows join the completion vocabulary
  (`pwc_local.server.named.learn`: queued, never waited on).
* `CatalogTools._run` is the per-call wrapper: it provides the lazily built
  `Runtime`, gives the query the call's own view of the catalog, and turns any
  failure into a `ToolError` carrying `errors.error_message(exc)`, the single
  mapping from exceptions to `code: sentence`.

Where a stale label comes from: `_run` makes the call's `Freshness` record and the
`catalog` service hands the query `runtime.catalog.for_call(record)`, a
view of the caching source that notes on the record every expired entry it serves
because the catalog could not be reached. `tool_result` reads the record and adds
`cache: {stale, cached_at}` and the text says so (in Markdown, in its first line).
Cache writes need nothing here: the caching source stores an answer once its shape
check passed, at the fetch.

Start-up cost matters (clients spawn a server per session): the server imports this
module after `initialize` (`PwcServer.ensure_tools`, in the preparation thread); the
bindings import a group's query modules on the first use of one of its tools.
"""

from __future__ import annotations

import functools
import inspect
import logging
import typing
from collections.abc import Awaitable, Callable, Collection, Mapping
from datetime import datetime
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from pwc_local.common.names import KnownNames
from pwc_local.common.shelf import Shelf
from pwc_local.common.watches import WatchStore
from pwc_local.config import Settings
from pwc_local.contract import REQUIRED, Kind
from pwc_local.present import render
from pwc_local.present.hosted import CacheStatus, LocalOutput, ToolOutput
from pwc_local.present.record import Shown
from pwc_local.present.words import call_hint
from pwc_local.runtime import LazyRuntime, Runtime
from pwc_local.safe_text import printable_tree
from pwc_local.server import named
from pwc_local.server.bindings import BY_NAME, Arguments, ToolSpec, all_tools
from pwc_local.server.errors import error_message
from pwc_local.server.links import markdown_readable, resource_links
from pwc_local.server.views import result_meta
from pwc_local.store.freshness import Freshness
from pwc_local.upstream.source import CatalogSource

logger = logging.getLogger(__name__)

QueryFunction = Callable[..., Awaitable[Any]]


async def _catalog(runtime: Runtime, freshness: Freshness) -> CatalogSource:
    # The call's view: stale cache entries it serves are noted on `freshness`.
    return runtime.catalog.for_call(freshness)


async def _codec(runtime: Runtime, freshness: Freshness) -> Any:
    if runtime.codec is not None:  # loaded already (usually by the runtime's warm-up)
        return runtime.codec
    # Loading (or creating) the cursor key touches files: off the event loop.
    return await anyio.to_thread.run_sync(runtime.cursor_codec)


async def _library(runtime: Runtime, freshness: Freshness) -> Shelf:
    # Opened with the runtime; retried here when that failed, so the error has its fix.
    if runtime.library is not None:
        return runtime.library
    return await anyio.to_thread.run_sync(runtime.open_library)


async def _live(runtime: Runtime, freshness: Freshness) -> Any:
    # The watch list compares with what the catalog has now: the outage guard over
    # HTTP, below the cache and the library (and writing through to the cache).
    return runtime.live_catalog()


async def _watchlist(runtime: Runtime, freshness: Freshness) -> WatchStore:
    # One per process, opened by the first watch-list call (retried after a failure).
    if runtime.watchlist is not None:
        return runtime.watchlist
    return await anyio.to_thread.run_sync(runtime.open_watchlist)


async def _names(runtime: Runtime, freshness: Freshness) -> KnownNames | None:
    # The names tool answers showed (completions' vocabulary), for not-found suggestions.
    return runtime.vocabulary


async def _timeout(runtime: Runtime, freshness: Freshness) -> Any:
    # A bound for work of several requests (one watch's look): the `timeout` setting.
    return runtime.settings.timeout


async def _read_chunk(runtime: Runtime, freshness: Freshness) -> Any:
    # read_paper's first chunk: the `read_chunk` setting, else the profile's size.
    return runtime.settings.chunk_bytes


async def _silent(runtime: Runtime, freshness: Freshness) -> Any:
    # Outside an MCP request (the `call` command, resources) progress goes nowhere.
    return _progress(None)


# The services a query function can ask for in its entry's `needs`, by name; each
# gets the runtime and the call's `Freshness` record. In a tools/call, `progress`
# reports to the client instead (see `_progress`).
PROGRESS = "progress"
SERVICES: dict[str, Callable[[Runtime, Freshness], Awaitable[Any]]] = {
    "catalog": _catalog,
    "codec": _codec,
    "library": _library,
    "live": _live,
    "watchlist": _watchlist,
    "names": _names,
    "timeout": _timeout,
    "read_chunk": _read_chunk,
    PROGRESS: _silent,
}


def _progress(
    context: Context | None,
) -> Callable[[float, float | None, str | None], Awaitable[None]]:
    """`report(done, total, message)`: a progress notification when the client sent a token.

    The SDK sends nothing without a token; a failed notification never fails the call.
    """

    async def report(done: float, total: float | None = None, message: str | None = None) -> None:
        if context is None:
            return
        try:
            await context.report_progress(done, total, message)
        except Exception as exc:
            logger.info("progress notification failed: %s", type(exc).__name__)

    return report


def with_defaults(spec: ToolSpec, given: Arguments) -> dict[str, Any]:
    """`given` completed with the declared defaults; `TypeError` for unknown or missing names."""
    unknown = set(given) - {param.name for param in spec.params}
    if unknown:
        raise TypeError(f"{spec.name} takes no parameter {', '.join(sorted(unknown))}")
    arguments: dict[str, Any] = {}
    for param in spec.params:
        if param.name in given:
            arguments[param.name] = given[param.name]
        elif param.required:
            raise TypeError(f"{spec.name} needs the parameter {param.name}")
        else:
            arguments[param.name] = param.default
    return arguments


def forwarded(spec: ToolSpec, arguments: Arguments) -> dict[str, Any]:
    """What the query function receives of complete `arguments`: the `query=True` ones."""
    return {param.name: arguments[param.name] for param in spec.params if param.query}


async def call_query(name: str, *services: Any, **given: Any) -> Any:
    """Tool `name`'s query answer for `given`, outside a tools/call (completions, tests).

    The path `CatalogTools._run` takes: the declared defaults fill in the table's
    parameters `given` leaves out (`with_defaults`; query functions state no
    defaults of their own), and `forwarded` picks what the query function takes
    after `services`. Keywords the table does not declare go to the function as
    they are (test hooks such as `read_paper`'s `now`); a misspelt one fails there.
    """
    spec = BY_NAME[name]
    declared = {param.name for param in spec.params}
    table = {key: value for key, value in given.items() if key in declared}
    hooks = {key: value for key, value in given.items() if key not in declared}
    arguments = forwarded(spec, with_defaults(spec, table))
    return await spec.query(*services, **arguments, **hooks)


def tool_result(
    spec: ToolSpec,
    model: ToolOutput,
    answer: Any,
    arguments: Arguments,
    freshness: Freshness,
    settings: Settings,
) -> CallToolResult:
    """`structuredContent` and one text block, in the `structured` profile and `result_text` mode.

    Compact profile (a tool with a presenter): both halves from the tool's `Record`
    (`pwc_local.present`). Hosted profile: the hosted model, and its Markdown. When stale
    cache entries were used, both halves say so; so they do for a saved copy the catalog
    has a newer version of (`newer_version_seen`, the text's first line).
    """
    mode = settings.result_text
    stale_since = freshness.cached_at if freshness.stale else None
    behind = None
    if freshness.saved_at is not None and freshness.newer_seen is not None:
        from pwc_local.present.summaries import behind_notice

        saved_at, newer_seen = freshness.saved_at.isoformat(), freshness.newer_seen.isoformat()
        model.cache = CacheStatus(
            stale=stale_since is not None,
            cached_at=saved_at if stale_since is None else stale_since.isoformat(),
            newer_version_seen=newer_seen,
        )
        behind = behind_notice(saved_at, newer_seen)
    summary = spec.summary(model, answer) if spec.summary and mode == "summary" else None
    presenter = spec.compact if settings.profile == "compact" else None
    if presenter is not None:
        record = presenter.build(model, answer, arguments)
        if stale_since is not None:
            record.stale = stale_since.isoformat(timespec="seconds")
        structured = printable_tree(record.structured())
        shown = Shown(hint=functools.partial(call_hint, spec.tool, arguments))
        spell = functools.partial(presenter.text, record, shown)
        text = render.record_text(structured, mode, summary, stale_since, spell)
    else:
        if settings.profile == "compact":
            dumped = local_structured(model, stale_since)
        else:
            if stale_since is not None and behind is None:
                model.cache = CacheStatus(stale=True, cached_at=stale_since.isoformat())
            dumped = model.model_dump(mode="json")
        dumped = printable_tree(dumped)  # catalog text as clean as in the text half
        call = render.Call(spec.tool, spec.text, model, answer, arguments, dumped)
        structured = call.structured
        if settings.profile == "compact":  # the compact rule: each half within 1.5x the other
            spell = functools.partial(render.markdown, call)
            text = render.record_text(structured, mode, summary, stale_since, spell)
        else:
            text = render.text_block(call, mode, summary, stale_since)
    if behind is not None and mode != "json":
        text = f"{behind}\n\n{text}"
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured,
        _meta=result_meta(spec, model, answer, settings.profile),
    )


def local_structured(model: ToolOutput, stale_since: datetime | None) -> dict[str, Any]:
    """A local tool's model as the compact profile sends it, as its records are sent:
    nothing for nothing (no `schema_version`, no `cache`, no empty field), and a stale
    answer's `"stale": "<when it was saved>"` first (`LocalOutput`)."""
    if stale_since is not None and isinstance(model, LocalOutput):
        model.stale = stale_since.isoformat(timespec="seconds")
    return model.model_dump(mode="json", exclude_none=True, exclude={"schema_version", "cache"})


def output_model(spec: ToolSpec, settings: Settings) -> type[Any]:
    """The model a tool's `outputSchema` is generated from, in the `structured` profile."""
    if spec.compact is not None and settings.profile == "compact":
        return spec.compact.record
    return spec.output


class CatalogTools:
    """Every table entry's call path, bound to one server's lazily built runtime."""

    def __init__(self, runtime: LazyRuntime) -> None:
        self._runtime = runtime

    async def call(
        self, name: str, /, *, given: Mapping[str, Any] | None = None, **arguments: Any
    ) -> CallToolResult:
        """Run tool `name` with `arguments`, missing ones taking their declared defaults.

        For callers that bypass the SDK's schema validation (the resource templates):
        they must pass values of the declared types themselves. `given` supplies
        services of the entry's `needs` instead of the runtime's (the Markdown
        resource reads in the catalog's 64 KiB chunk whatever the profile's).
        """
        spec = BY_NAME[name]
        return await self._run(spec, with_defaults(spec, arguments), given=given or {})

    async def _run(
        self,
        spec: ToolSpec,
        arguments: Arguments,
        context: Context | None = None,
        given: Mapping[str, Any] | None = None,
    ) -> CallToolResult:
        """One call: query -> projection -> result, with every failure as `code: sentence`."""
        try:
            freshness = Freshness()
            runtime = await self._runtime.get()
            given = given or {}
            services = [
                given[need]
                if need in given
                else _progress(context)
                if need == PROGRESS and context is not None
                else await SERVICES[need](runtime, freshness)
                for need in spec.needs
            ]
            answer = await spec.query(*services, **forwarded(spec, arguments))
            model = spec.project(answer, arguments)
            named.learn(runtime.vocabulary, model)  # for completions; queues, never waits
            result = tool_result(spec, model, answer, arguments, freshness, runtime.settings)
            if spec.links is not None:
                result.content += await resource_links(
                    spec.links(model),
                    lambda paper: markdown_readable(
                        runtime.catalog, paper, runtime.settings.chunk_bytes
                    ),
                )
            return result
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError(error_message(exc)) from None


def tool_function(
    spec: ToolSpec, tools: CatalogTools, output: type[Any] | None = None
) -> Callable[..., Awaitable[CallToolResult]]:
    """An async function whose signature is `spec.params`, for the SDK to derive the schema.

    The SDK reads `inspect.signature` (names, annotations with their bounds,
    defaults) to build the input schema and the argument model, and the return
    annotation `Annotated[CallToolResult, Model]` for the output schema.
    """

    async def run(**arguments: Any) -> CallToolResult:
        context = arguments.pop(_CONTEXT, None)
        return await tools._run(spec, arguments, context)

    parameters = [
        inspect.Parameter(
            param.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if param.default is REQUIRED else param.default,
            annotation=schema_type(param.type),
        )
        for param in spec.params
    ]
    annotations: dict[str, Any] = {p.name: p.annotation for p in parameters}
    if PROGRESS in spec.needs:
        # The SDK fills a `Context` parameter itself and leaves it out of the schema.
        parameters.append(
            inspect.Parameter(_CONTEXT, inspect.Parameter.KEYWORD_ONLY, annotation=Context)
        )
        annotations[_CONTEXT] = Context
    returns = Annotated[CallToolResult, output or spec.output]
    run.__name__ = run.__qualname__ = spec.name
    run.__signature__ = inspect.Signature(parameters, return_annotation=returns)  # type: ignore[attr-defined]
    run.__annotations__ = annotations | {"return": returns}
    return run


def schema_type(declared: Any) -> Any:
    """A contract type as the SDK reads it: a `Kind` becomes `Annotated[base, Field(...)]`.

    A `Kind` with `items` is a list of them, or a dict keyed by them (its values the
    base's), nullable when its base is.
    """
    if not isinstance(declared, Kind):
        return declared
    base = declared.base
    if declared.items is not None:
        item = schema_type(declared.items)
        args = typing.get_args(base)
        container = next(arg for arg in (*args, base) if typing.get_origin(arg) in (list, dict))
        if typing.get_origin(container) is dict:
            value = typing.get_args(container)[1]
            built: Any = dict.__class_getitem__((item, value))
        else:
            built = list.__class_getitem__(item)
        base = built | None if type(None) in args else built
    return Annotated[base, Field(**declared.bounds)]


_CONTEXT = "mcp_context"  # no table parameter has this name (test_contract checks)


def register_tools(
    server: MCPServer,
    tools: CatalogTools,
    settings: Settings,
    names: Collection[str] | None = None,
) -> None:
    """Add the tools of the contract table to `server`, in table order: those in `names`,
    or without it every one the `tools` setting picks.

    The `structured` profile picks each one's output model and whether it names the
    leaderboard view (`views.tool_meta`).
    """
    from pwc_local.server.views import tool_meta

    for spec in all_tools() if names is None else [BY_NAME[name] for name in names]:
        if not settings.tool_selected(spec.name, spec.group):
            continue
        server.add_tool(
            tool_function(spec, tools, output_model(spec, settings)),
            name=spec.name,
            description=spec.description,
            annotations=spec.annotations
            if settings.profile == "hosted"
            else spec.compact_annotations,
            meta=tool_meta(spec, settings.profile),
        )
