"""What a tool result names: the papers, tasks and benchmarks the completion vocabulary learns.

`learn(vocabulary, model)` is called once per answered tool call (`CatalogTools._run`),
whatever served the answer (the catalog, the cache, the library). It reads the
output model, not the catalog's JSON, so each shape is known in one place: the
table below maps an output model type to the names it shows.

| output model                  | papers              | tasks             | benchmarks          |
| ----------------------------- | ------------------- | ----------------- | ------------------- |
| PaperPage (searches, lists)   | each item           |                   |                     |
| PaperInfoResult               | the paper (catalog) | the paper's tasks |                     |
| PaperReadResult, outline      | the paper           |                   |                     |
| TaskResult                    |                     | task, parents,    | its benchmarks      |
|                               |                     | children          |                     |
| BenchmarkResult, BenchmarkPage|                     |                   | the benchmark(s)    |
| library answers               | each row's paper    |                   |                     |

Papers are named by their URI key (`links.paper_key`: arXiv ID, else catalog ID),
tasks and benchmarks by slug (else ID). Learning never fails a call and never waits:
`Vocabulary.note` only queues.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from pwc_local.present import library as library_models
from pwc_local.present import reading as reading_results
from pwc_local.present.hosted import (
    BenchmarkPage,
    BenchmarkResult,
    PaperInfoResult,
    PaperPage,
    PaperReadResult,
    TaskResult,
)
from pwc_local.server.links import info_links, page_links, row_links
from pwc_local.store.vocabulary import BENCHMARK, PAPER, TASK, Name, Vocabulary

log = logging.getLogger(__name__)

Named = tuple[str, Name | None]


def learn(vocabulary: Vocabulary | None, model: object) -> None:
    """Queue the names `model` shows (see the module docstring); never raises."""
    namer = _NAMERS.get(type(model))
    if vocabulary is None or namer is None:
        return
    try:
        by_kind: dict[str, list[Name]] = {}
        for kind, name in namer(model):
            if name is not None:
                by_kind.setdefault(kind, []).append(name)
        for kind, names in by_kind.items():
            vocabulary.note(kind, names)
    except Exception as exc:  # a hint for later; the answer goes out regardless
        log.debug("names of a %s were not learned (%s)", type(model).__name__, type(exc).__name__)


def _papers(links: Iterable[Any]) -> list[Named]:
    return [(PAPER, Name.of(link.title, link.key)) for link in links]


def _entity(kind: str, entity: Any) -> Named:
    # CatalogReference, TaskDetail, BenchmarkSummary: a name, a slug (maybe none), an ID
    return kind, Name.of(entity.name, entity.slug or entity.id)


def _paper_info(model: PaperInfoResult) -> list[Named]:
    tasks = [_entity(TASK, task) for task in model.paper.tasks]
    return _papers(info_links(model)) + tasks


def _task(model: TaskResult) -> list[Named]:
    task = model.task
    named = [_entity(TASK, t) for t in [task, *task.parents, *task.children]]
    return named + [_entity(BENCHMARK, b) for b in task.benchmarks]


def _read(model: PaperReadResult) -> list[Named]:
    # A read shows no title: the ID alone, which never replaces a title seen before.
    return [(PAPER, Name.of(None, model.paper))] if model.in_catalog else []


def _outline(model: reading_results.PaperOutlineResult) -> list[Named]:
    return [(PAPER, Name.of(model.title, model.paper))]


_NAMERS: dict[type, Callable[[Any], Iterable[Named]]] = {
    PaperPage: lambda model: _papers(page_links(model)),
    PaperInfoResult: _paper_info,
    PaperReadResult: _read,
    reading_results.PaperOutlineResult: _outline,
    TaskResult: _task,
    BenchmarkResult: lambda model: [_entity(BENCHMARK, model.benchmark)],
    BenchmarkPage: lambda model: [_entity(BENCHMARK, b) for b in model.items],
    library_models.SavePapersResult: lambda model: _papers(row_links(model)),
    library_models.LibraryPage: lambda model: _papers(row_links(model)),
    library_models.LibrarySearchResult: lambda model: _papers(row_links(model)),
}
