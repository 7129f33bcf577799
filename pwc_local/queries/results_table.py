"""`results_table`: the rows of one leaderboard to put in a paper, with their citations.

The table comes from the catalog's rows, never from a model's memory: the whole
leaderboard is read as the history tools read it (`history.read_board`, with the
same filters), its results grouped by their settings (`result_settings`), and by
default only the largest group is shown, named, with the other groups counted, so
a table never mixes results with and without extra data, or of two splits. `settings`
picks another group by its label, or `all` (then every row says its settings).

Rows are best first on the first metric (its direction from its name, as
`get_benchmark` says it); `as_of` keeps results of papers published by that date;
`papers` adds the best row of each named paper whatever its rank; `is_open` and
`max_parameters` filter the models as `get_benchmark` does (the table says so). Each
cited paper's BibTeX comes through `cite_paper`'s path (`public.paper_info_or_public`, so cached
and saved papers cost nothing), under `cite_paper`'s key, told apart with `a`, `b`
... when two papers of the table share one (`citations.unique_keys`). A paper the
catalog cannot describe is cited from its leaderboard row (title, date, arXiv ID).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

import anyio

from pwc_local.common.references import parse_reference
from pwc_local.failures import CodedError
from pwc_local.queries.arguments import parse_date, reference_text
from pwc_local.queries.citations import CitationFields, citation_fields, unique_keys
from pwc_local.queries.history import (
    Better,
    Progress,
    Result,
    filter_words,
    metric_better,
    rank_key,
    read_board,
    result_of,
)
from pwc_local.queries.leaderboard import metric_value, resolve_metrics
from pwc_local.queries.public import paper_info_or_public
from pwc_local.queries.result_settings import Setting, grouped, setting_of
from pwc_local.upstream.errors import UsageError
from pwc_local.upstream.source import CatalogSource

__all__ = [
    "ALL",
    "Column",
    "TableAnswer",
    "TableRow",
    "cite_results",
    "find_rows",
    "results_table",
]

ALL = "all"  # `settings`: every group, each row naming its settings
MAX_METRICS, MAX_PAPERS = 8, 20  # columns; papers named to keep
CITING_AT_ONCE = 8  # paper lookups in flight for the citations
_VERSION = re.compile(r"v[0-9]+$")


@dataclass(frozen=True)
class Column:
    """One metric of the table: its leaderboard spelling and better direction."""

    name: str
    better: Better
    assumed: bool  # the name does not say; higher taken as better


@dataclass(frozen=True)
class TableRow:
    """One row: its rank in the group shown (best first), its result on the first metric,
    its values on every metric (`None`: not reported), and its citation key."""

    rank: int
    result: Result
    values: list[float | None]
    key: str
    asked: bool = False  # in the table because `papers` named it


@dataclass(frozen=True)
class TableAnswer:
    """The answer of `results_table`.

    `setting`: the group shown (`None`: all groups); `comparable` results are in it (up
    to `as_of`, with a value on the first metric); `others` are the other groups and
    their sizes. `missing`: the `papers` with no row in the group. `citations` are in
    row order, keys unique.
    """

    benchmark: str
    columns: list[Column]
    setting: Setting | None
    rows: list[TableRow]
    comparable: int
    others: list[tuple[Setting, int]]
    as_of: date | None
    missing: list[str]
    citations: list[CitationFields]
    rows_read: int
    rows_total: int
    filters: tuple[str, ...] = ()  # the model filters asked for, in words


def find_rows(results: list[Result], paper: str, parameter: str = "papers") -> list[Result]:
    """The results of `paper` (an arXiv or catalog ID in any spelling, or the exact title)."""
    parsed = parse_reference(reference_text(paper, parameter))
    wanted = parsed.candidate.casefold()
    if parsed.is_identifier:
        return [
            r
            for r in results
            if wanted in (_VERSION.sub("", r.arxiv_id or "").casefold(), r.paper_id or "")
        ]
    return [r for r in results if " ".join((r.paper_title or "").split()).casefold() == wanted]


def _chosen(
    groups: list[tuple[Setting, list[Any]]], settings: str
) -> tuple[Setting, list[Any]] | None:
    """The group `settings` names (`""`: the largest; `all`: `None`)."""
    wanted = " ".join(settings.split()).casefold()
    if wanted == ALL:
        return None
    if not groups:
        if wanted:
            raise UsageError("settings: the leaderboard holds no result to group")
        return None
    if not wanted:
        return groups[0]
    for group in groups:
        if group[0].label.casefold() == wanted:
            return group
    labels = "; ".join(f'"{setting.label}"' for setting, _ in groups)
    raise UsageError(f"settings: no group {settings.strip()!r}; the groups are {labels}, or all")


async def _citation(catalog: CatalogSource, result: Result) -> CitationFields:
    """`cite_paper`'s fields for the result's paper; from the row when that fails."""
    reference = result.paper_ref
    if reference:
        try:
            answer = await paper_info_or_public(catalog, reference, include_evaluations=False)
            return citation_fields(answer.paper)
        except CodedError:
            pass
    return citation_fields(
        {
            "title": result.paper_title or result.model,
            "arxiv_id": result.arxiv_id,
            "published": result.date.isoformat() if result.date else None,
        }
    )


def paper_of(result: Result) -> str:
    """The paper a result is cited as: its reference (the model name when it has none)."""
    return result.paper_ref or result.model


async def cite_results(catalog: CatalogSource, results: list[Result]) -> dict[str, CitationFields]:
    """The citation of each distinct paper of `results` (`paper_of`), in order, keys unique."""
    papers = {paper_of(result): result for result in reversed(results)}
    order = list(dict.fromkeys(paper_of(result) for result in results))
    found: dict[str, CitationFields] = {}
    limiter = anyio.CapacityLimiter(CITING_AT_ONCE)

    async def one(paper: str) -> None:
        async with limiter:
            found[paper] = await _citation(catalog, papers[paper])

    async with anyio.create_task_group() as group:
        for paper in order:
            group.start_soon(one, paper)
    unique = unique_keys([found[paper] for paper in order])
    return dict(zip(order, unique, strict=True))


async def results_table(
    catalog: CatalogSource,
    progress: Progress | None,
    benchmark: str,
    *,
    metrics: list[str],
    settings: str,
    as_of: str,
    papers: list[str],
    is_open: bool | None,
    max_parameters: str | None,
    limit: int,
) -> TableAnswer:
    """The table of `benchmark` (see the module docstring). Unknown metrics are an
    `UnknownMetric`, an unknown `settings` group a `UsageError` naming the groups.
    (Extra training data is one of the settings: its group is picked with `settings`.)"""
    cutoff = parse_date("as_of", as_of)
    if len(metrics) > MAX_METRICS or len(papers) > MAX_PAPERS:
        raise UsageError(f"at most {MAX_METRICS} metrics and {MAX_PAPERS} papers")
    for paper in papers:
        find_rows([], paper)  # a blank or unsupported reference fails before any request
    board = await read_board(
        catalog,
        progress,
        benchmark,
        is_open=is_open,
        max_parameters=max_parameters,
        extra_data=None,
    )
    first, _ = board.metric(metrics[0] if metrics else "")
    resolved = resolve_metrics(metrics, board.merged) if metrics else {}
    keys = list(dict.fromkeys([first, *resolved.values()])) if first else []
    shown = {key: board.metric(key)[1] for key in keys}
    columns = [Column(shown[key], *metric_better(shown[key])) for key in keys]
    candidates: list[tuple[Result, dict[str, Any]]] = []
    for row in board.merged if first else []:
        result = result_of(row, first)
        if result is None or (cutoff and (result.date is None or result.date > cutoff)):
            continue
        candidates.append((result, row))
    better = columns[0].better if columns else "higher"
    by_rank = rank_key(better)
    candidates.sort(key=lambda pair: by_rank(pair[0]))
    groups = grouped((setting_of(row), (result, row)) for result, row in candidates)
    chosen = _chosen(groups, settings)
    members = chosen[1] if chosen else candidates
    ranked = [result for result, _ in members]
    picked = list(range(min(limit, len(ranked))))
    missing = []
    for paper in papers:
        found = find_rows(ranked, paper)
        if not found:
            missing.append(paper.strip())
        elif (index := ranked.index(found[0])) not in picked:
            picked.append(index)
    citations = await cite_results(catalog, [ranked[index] for index in picked])
    key_of = {paper: fields.key for paper, fields in citations.items()}
    rows = [
        TableRow(
            rank=index + 1,
            result=ranked[index],
            values=[metric_value(members[index][1], key) for key in keys],
            key=key_of[paper_of(ranked[index])],
            asked=index >= limit,
        )
        for index in picked
    ]
    return TableAnswer(
        benchmark=board.name,
        columns=columns,
        setting=chosen[0] if chosen else None,
        rows=rows,
        comparable=len(members),
        others=[
            (setting, len(items)) for setting, items in groups if not chosen or items is not members
        ],
        as_of=cutoff,
        missing=missing,
        citations=list(citations.values()),
        rows_read=board.rows_read,
        rows_total=board.rows_total,
        filters=filter_words(is_open, max_parameters, None),
    )
