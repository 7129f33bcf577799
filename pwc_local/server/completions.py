"""`completion/complete`: real task, benchmark and paper names as the user types.

A client asks for completions of a prompt argument (`find_papers.topic`,
`survey_task.task`, `compare_leaderboard.benchmark`) or a resource-template variable
(`pwc://papers/{paper}`, `pwc://tasks/{task}`, `pwc://benchmarks/{benchmark}`). The
answer is at most 20 values, gathered in this order:

1. **Local names**: for papers, the library's saved papers; for everything, a small
   vocabulary of names this machine has seen (kept in the disk cache, shared by
   every server process, never stale by age). Matched by case-insensitive prefix of
   the name, its identifier or any of its words. They answer with no network at
   all, so completions keep working offline.
2. **The catalog's own listings**, when the typed value has at least two characters:
   `list_tasks(search=...)`, `list_benchmarks(search=...)` or `search_papers(...)`,
   through the caching source like every tool call (so a repeated prefix is a cache
   hit, and during an outage a cached answer still counts). Their names are added to
   the vocabulary for next time.

The whole answer is bounded by the configured catalog timeout: when the catalog is
slow, the local names come back alone. Nothing here ever fails a request: an unknown
prompt, argument or prefix, a dead catalog or an unusable cache all give an empty
or local-only list. Prompt arguments complete to display names (`Image
Classification`), template variables to URI-friendly identifiers (`image-classification`,
`1706.03762`), since the value becomes part of a `pwc://` URI.

The SDK advertises the `completions` capability once a handler is registered.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
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

from pwc_local.runtime import LazyRuntime
from pwc_local.server.tools import call_query

if TYPE_CHECKING:  # the HTTP client is imported on first use, not at start-up
    from pwc_local.catalog.http import CatalogSource

log = logging.getLogger(__name__)

MAX_VALUES = 20
MIN_ONLINE_CHARS = 2
MAX_VALUE_CHARS = 200
VOCABULARY_SIZE = 2000
VOCABULARY_PATH = "pwc-mcp-local/completion-vocabulary"

TASK, BENCHMARK, PAPER = "task", "benchmark", "paper"

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


@dataclass(frozen=True)
class Name:
    """One completable thing: what people call it and how a URI names it."""

    label: str
    ident: str

    def value(self, identifiers: bool) -> str:
        return self.ident if identifiers else self.label


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
    """Up to 20 values for `typed`: local names first, then the catalog's; never raises."""
    prefix = " ".join(typed.split())[:MAX_VALUE_CHARS] if isinstance(typed, str) else ""
    budget = max(0.5, runtime.settings.timeout - 0.5)
    local: list[Name] = []
    online: list[Name] = []
    with anyio.move_on_after(budget):
        try:
            services = await runtime.get()
            catalog = services.catalog
            vocabulary = _Vocabulary.of(catalog, kind)
            saved = await _saved_papers(services) if kind == PAPER else []
            local = matching(saved + await vocabulary.names(), prefix)
            if len(prefix) >= MIN_ONLINE_CHARS:
                online = matching(await _LISTINGS[kind](catalog, prefix), prefix, loose=True)
                await vocabulary.remember(online)
        except Exception as exc:  # a completion is a hint: offline or broken, say less
            log.debug("completion source failed: %s", type(exc).__name__)
    values: list[str] = []
    for name in local + online:
        value = name.value(identifiers)
        if value and value not in values:
            values.append(value)
    return values[:MAX_VALUES]


def matching(names: Iterable[Name], prefix: str, *, loose: bool = False) -> list[Name]:
    """The names that start with `prefix`, or have a word that does, in that order.

    `loose` keeps every name (ranked the same way): the catalog's search already
    decided that those match, perhaps by a word this rule does not see.
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


async def _tasks(catalog: CatalogSource, prefix: str) -> list[Name]:
    document = await call_query("list_tasks", catalog, search=prefix, limit=MAX_VALUES)
    return _names(document.get("results"), "name", ("slug", "id"))


async def _benchmarks(catalog: CatalogSource, prefix: str) -> list[Name]:
    answer = await call_query("list_benchmarks", catalog, search=prefix, limit=MAX_VALUES)
    return _names(answer.payload.get("results"), "name", ("slug", "id"))


async def _papers(catalog: CatalogSource, prefix: str) -> list[Name]:
    document = await call_query("search_papers", catalog, query=prefix, limit=MAX_VALUES)
    return _names(document.get("results"), "title", ("arxiv_id", "id"))


_LISTINGS: dict[str, Callable[[CatalogSource, str], Awaitable[list[Name]]]] = {
    TASK: _tasks,
    BENCHMARK: _benchmarks,
    PAPER: _papers,
}


def _names(rows: Any, label_field: str, ident_fields: tuple[str, ...]) -> list[Name]:
    names: list[Name] = []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        label = row.get(label_field)
        ident = next((row[f] for f in ident_fields if isinstance(row.get(f), str) and row[f]), None)
        if isinstance(label, str) and label.strip() and isinstance(ident, str):
            names.append(Name(" ".join(label.split())[:MAX_VALUE_CHARS], ident[:MAX_VALUE_CHARS]))
    return names


async def _saved_papers(services: Any) -> list[Name]:
    """The library's saved papers (title, ID), most recent first, when there is a library."""
    library = getattr(services, "library", None)
    entries = getattr(library, "entries", None)
    if entries is None:
        return []
    rows = await anyio.to_thread.run_sync(lambda: entries(limit=VOCABULARY_SIZE))
    return [
        Name(row.title, row.paper)
        for row in rows
        if isinstance(row.title, str) and row.title and isinstance(row.paper, str)
    ]


# -- the local vocabulary ------------------------------------------------------------------


class _Vocabulary:
    """Names seen before, most recent first, in one disk-cache entry per kind.

    Two processes remembering at once may lose one of the two updates; that costs a
    suggestion, never an answer, so no lock is taken.
    """

    def __init__(self, cache: Any, parts: list[Any]) -> None:
        self._cache = cache
        self._parts = parts

    @classmethod
    def of(cls, catalog: CatalogSource, kind: str) -> _Vocabulary:
        from pwc_local.store.cached_catalog import CachingCatalog

        source: Any = catalog
        for _depth in range(4):  # the caching source, or the one a wrapper holds (`inner`)
            if isinstance(source, CachingCatalog):
                return cls(source.cache, [source.namespace, VOCABULARY_PATH, kind])
            source = getattr(source, "inner", None)
        return cls(None, [])

    async def names(self) -> list[Name]:
        if self._cache is None:
            return []
        entry = await anyio.to_thread.run_sync(self._cache.get, "response", self._parts)
        value = entry.value if entry is not None else None
        return [
            Name(item[0], item[1])
            for item in (value if isinstance(value, list) else [])
            if isinstance(item, list)
            and len(item) == 2
            and all(isinstance(part, str) and part for part in item)
        ]

    async def remember(self, names: list[Name]) -> None:
        if self._cache is None or not names:
            return
        known = await self.names()
        if known[: len(names)] == names:
            return  # typing on: the same answer again, nothing to write
        fresh = {(name.label, name.ident) for name in names}
        merged = [[n.label, n.ident] for n in names]
        merged += [[n.label, n.ident] for n in known if (n.label, n.ident) not in fresh]
        cache, parts = self._cache, self._parts

        def store() -> None:
            cache.put("response", parts, merged[:VOCABULARY_SIZE], ttl=None)

        await anyio.to_thread.run_sync(store)
