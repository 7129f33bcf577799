"""`completion/complete`: real task, benchmark and paper names as the user types.

A client asks for completions of a prompt argument (`find_papers.topic`,
`survey_task.task`, `compare_leaderboard.benchmark`) or a resource-template variable
(`pwc://papers/{paper}`, `pwc://tasks/{task}`, `pwc://benchmarks/{benchmark}`). The
answer is at most 20 values, gathered in this order:

1. **Saved papers** (for papers): the library's, most recently saved first.
2. **The vocabulary** (`pwc_local.store.vocabulary`): every paper, task and
   benchmark a tool answer on this machine showed (`get_paper_info`, a search, a
   leaderboard, `read_paper`, a saved paper ...), whether the catalog, the cache or
   the library answered, most recently seen first. It lives in the library's
   database, so it answers with no network at all, offline and after a restart.
3. **The catalog's own listings**, when the typed value has at least two characters
   and the local names leave room: `list_tasks(search=...)`, `list_benchmarks(search=...)`
   or `search_papers(...)`, through the caching source like every tool call (a
   repeated prefix is a cache hit; during an outage a cached answer still counts).
   Their names join the vocabulary for next time.

Local names are matched by case-insensitive prefix of the name, of any of its words
or of the identifier (`1706` and `atten` both find 1706.03762) and come back at
once; the catalog is waited on for at most the short budget (`outage_budget`, 1 s by
default, or the request timeout when shorter). A catalog that lets that pass without
an answer is reported to the outage memory, as a timed-out request would be, so the
calls after it do not wait on it either; the local names come back alone. Nothing here ever fails a
request: an unknown prompt, argument or prefix, a dead catalog or an unusable
library all give an empty or local-only list. Prompt arguments complete to display
names (`Image Classification`), template variables to URI-friendly identifiers
(`image-classification`, `1706.03762`), since the value becomes part of a `pwc://` URI.

The SDK advertises the `completions` capability once a handler is registered.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

from pwc_local.runtime import LazyRuntime, Runtime

if TYPE_CHECKING:  # the HTTP client, SQLite and the tool table are imported on first use
    from pwc_local.store.vocabulary import Name
    from pwc_local.upstream.source import CatalogSource

log = logging.getLogger(__name__)

MAX_VALUES = 20
MIN_ONLINE_CHARS = 2
MAX_VALUE_CHARS = 200
MAX_SAVED = 2000
LOCAL_BUDGET = 5.0
"""A bound on the local part (building the runtime, reading SQLite): never expected."""

TASK, BENCHMARK, PAPER = "task", "benchmark", "paper"  # the vocabulary's kinds

# (prompt name, argument) and (URI template, variable) -> (vocabulary, want identifiers)
_PROMPT_ARGUMENTS = {
    ("find_papers", "topic"): (TASK, False),
    ("survey_task", "task"): (TASK, False),
    ("compare_leaderboard", "benchmark"): (BENCHMARK, False),
}
_TEMPLATE_VARIABLES = {
    ("pwc://papers/{paper}", "paper"): (PAPER, True),
    ("pwc://papers/{paper}/markdown", "paper"): (PAPER, True),
    ("pwc://tasks/{task}", "task"): (TASK, True),
    ("pwc://benchmarks/{benchmark}", "benchmark"): (BENCHMARK, True),
}


def register_completions(server: MCPServer, runtime: LazyRuntime) -> None:
    """Answer `completion/complete` on `server` (see the module docstring)."""

    @server.completion()
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion:
        target = _target(ref, argument.name)
        if target is None:
            return Completion(values=[], total=0, has_more=False)
        kind, identifiers = target
        values = await suggestions(runtime, kind, argument.value, identifiers=identifiers)
        return Completion(values=values, total=len(values), has_more=False)


def _target(ref: object, argument: str) -> tuple[str, bool] | None:
    if isinstance(ref, PromptReference):
        return _PROMPT_ARGUMENTS.get((ref.name, argument))
    if isinstance(ref, ResourceTemplateReference):
        return _TEMPLATE_VARIABLES.get((ref.uri, argument))
    return None


async def suggestions(
    runtime: LazyRuntime, kind: str, typed: str, *, identifiers: bool
) -> list[str]:
    """Up to 20 values for `typed`: saved, then known names, then the catalog's; never raises."""
    prefix = " ".join(typed.split())[:MAX_VALUE_CHARS] if isinstance(typed, str) else ""
    local: list[Name] = []
    online: list[Name] = []
    services: Runtime | None = None
    with anyio.move_on_after(LOCAL_BUDGET):
        try:
            services = await runtime.get()
            local = await anyio.to_thread.run_sync(local_names, services, kind, prefix)
        except Exception as exc:  # a completion is a hint: broken, say less
            log.debug("local completions failed: %s", type(exc).__name__)
    values = _values(local, identifiers)
    if services is not None and len(prefix) >= MIN_ONLINE_CHARS and len(values) < MAX_VALUES:
        online = await _online(services, kind, prefix)
    return _values(local + online, identifiers)


def local_names(services: Runtime, kind: str, prefix: str) -> list[Name]:
    """Saved papers, then the vocabulary, each ranked by `matching`; blocks on SQLite."""
    saved = _saved_papers(services) if kind == PAPER else []
    known = services.vocabulary.lookup(kind, prefix) if services.vocabulary else []
    return matching(saved, prefix) + matching(known, prefix)


async def _online(services: Runtime, kind: str, prefix: str) -> list[Name]:
    """The catalog's listing for `prefix` within the budget, remembered; `[]` otherwise."""
    names: list[Name] = []
    budget = min(services.settings.outage_budget, services.settings.timeout)
    with anyio.move_on_after(budget) as scope:
        try:
            names = matching(await _LISTINGS[kind](services.catalog, prefix), prefix, loose=True)
        except Exception as exc:  # offline or broken: the local names stand alone
            log.debug("the catalog's completions failed: %s", type(exc).__name__)
    if scope.cancelled_caught:
        _count_timeout(services)
    elif names and services.vocabulary is not None:
        services.vocabulary.note(kind, names)
    return names


def _count_timeout(services: Runtime) -> None:
    """Tell the outage memory the catalog let the budget pass without an answer.

    The listing's own request was cancelled, which decides nothing there; this is
    what a request that timed out would have recorded, so the calls after it do
    not wait on the catalog in turn.
    """
    if services.outage is not None:
        services.outage.no_answer()


def _values(names: Iterable[Name], identifiers: bool) -> list[str]:
    """The first `MAX_VALUES` distinct values of `names`, in order."""
    values: dict[str, None] = {}
    for name in names:
        value = name.value(identifiers)
        if value:
            values[value] = None
            if len(values) == MAX_VALUES:
                break
    return list(values)


def matching(names: Iterable[Name], prefix: str, *, loose: bool = False) -> list[Name]:
    """The names that start with `prefix` (label or ident), or have a word that does, in that order.

    Within each group the given order stays (recent first). `loose` keeps every
    name (ranked the same way): the catalog's search already decided that those
    match, perhaps by a word this rule does not see.
    """
    wanted = prefix.casefold()
    first: list[Name] = []
    then: list[Name] = []
    rest: list[Name] = []
    for name in names:
        label = name.label.casefold()
        if label.startswith(wanted) or name.ident.casefold().startswith(wanted):
            first.append(name)
        elif any(word.startswith(wanted) for word in label.split()):
            then.append(name)
        elif loose:
            rest.append(name)
    return first + then + rest


# -- the catalog's listings ----------------------------------------------------------------
# Through `call_query`, as a tools/call would: the table's defaults fill in the rest.
# (Imported here, not at the top: completions are registered before `initialize`,
# which needs nothing of the tool table.)


async def _tasks(catalog: CatalogSource, prefix: str) -> list[Name]:
    from pwc_local.server.tools import call_query

    listing = await call_query("list_tasks", catalog, search=prefix, limit=MAX_VALUES)
    return _names(listing.payload.get("results"), "name", ("slug", "id"))


async def _benchmarks(catalog: CatalogSource, prefix: str) -> list[Name]:
    from pwc_local.server.tools import call_query

    answer = await call_query("list_benchmarks", catalog, search=prefix, limit=MAX_VALUES)
    return _names(answer.payload.get("results"), "name", ("slug", "id"))


async def _papers(catalog: CatalogSource, prefix: str) -> list[Name]:
    from pwc_local.server.tools import call_query

    document = await call_query("search_papers", catalog, query=prefix, limit=MAX_VALUES)
    return _names(document.get("results"), "title", ("arxiv_id", "id"))


_LISTINGS: dict[str, Callable[[CatalogSource, str], Awaitable[list[Name]]]] = {
    TASK: _tasks,
    BENCHMARK: _benchmarks,
    PAPER: _papers,
}


def _names(rows: Any, label_field: str, ident_fields: tuple[str, ...]) -> list[Name]:
    """Names from a listing's rows: ones without a label or an ident are skipped."""
    from pwc_local.store.vocabulary import Name

    names: list[Name] = []
    for row in rows if isinstance(rows, list) else []:
        label = row.get(label_field) if isinstance(row, dict) else None
        if not isinstance(label, str) or not label.strip():
            continue
        ident = next((row[f] for f in ident_fields if isinstance(row.get(f), str) and row[f]), None)
        name = Name.of(label, ident)
        if name is not None:
            names.append(name)
    return names


def _saved_papers(services: Runtime) -> list[Name]:
    """The library's saved papers (title, ID), most recent first; none while it is busy.

    A save in progress in this process holds the library; completions do not wait
    for it (the vocabulary knows the papers a save answered about anyway).
    """
    from pwc_local.store.vocabulary import Name

    library = services.library
    if library is None:
        return []
    with library.unless_busy() as idle:
        rows = library.saved_titles(limit=MAX_SAVED) if idle else []
    return [name for paper, title in rows if (name := Name.of(title, paper)) is not None]
