"""The watch list: what changed on the user's benchmarks, tasks, papers, authors, searches.

Two questions, each a tool (`watch`, `whats_new`) and a command (`pwc-mcp-local
watch ...`, `pwc-mcp-local whats-new`); this module answers the first and looks at
one watch, `pwc_local.queries.looks` answers the second with a look at every watch:

    await watch(catalog, watchlist, "benchmark", "ImageNet", remove=False)  # look, keep it
    snapshot = await look(catalog, "benchmark", key)  # what the catalog has now
    compare("benchmark", baseline, snapshot)  # the changes since the baseline

`catalog` must be the *live* source (HTTP behind the outage guard): not the cache,
whose fresh entries would hide a change for minutes, nor the library, whose saved
Markdown would hide a new version. `watchlist` is the store
(`pwc_local.common.watches`, kept by `pwc_local.store.watchlist`). The tools
return JSON-able payloads
(`schema_version` "v1"; the models are `pwc_local.present.watch`).

A look at one watch is a snapshot, taken through the catalog query functions:

    benchmark  target: ID, slug or name (get_benchmark); key: benchmark ID;
               a look reads the whole leaderboard (up to 5,000 rows), merged
    task       target: ID, slug or name (get_task); key: task ID;
               its benchmarks and its 100 newest papers
    paper      target: any paper reference; key: canonical ID;
               its Markdown content version, lineage successors, evaluations
    author     target: name, numeric ID or @username; key: author ID;
               their 100 newest papers (list_papers' author filter)
    query      target: search words; key: the words folded;
               the 100 best search_papers hits

and the baseline stored from it keeps only what the next comparison needs (`baseline_of`):
result keys with the primary metric's value, the leader, paper IDs with their dates,
benchmark and successor IDs, the content version. Comparing a new snapshot with it
(`compare`, pure) gives changes of six types, newest first, every one of them
(the tool pages a long report, `whats_new`; the command prints it whole):

    new_result      a leaderboard row (or a paper's evaluation) not there before
    new_leader      the best-ranked row is another one (the primary metric is that
                    row's `best_metric`, the one the catalog ranks by)
    new_paper       a paper the task, author or search lists now and did not before
    new_benchmark   a benchmark the task has now
    new_version     the paper's Markdown has another content version
    new_successor   the lineage names a successor not named before

Paper listings are windows (the newest 100, the best 100 hits): a paper counts as new
when it was not in the previous window, and, if that window was full, is not older
than the oldest paper in it (so one that merely moved back into view is not news).
A benchmark watch reads the whole leaderboard, up to `BOARD_ROW_LIMIT` (5,000) rows,
the bound the history tools share: only a whole board says for certain which rows
are new (on a board read as its best 1,000 rows, results ranked below them were never
reported, and the baseline moved past them). A longer board is read as its best-ranked
5,000 rows, a window: a new row then counts when it ranks within the previous window's
worst rank, and the report's `reason` says the window was exceeded, so the reader
knows that new results ranked below it are not reported.

Faults (`pwc_local.queries.looks`): every watch is looked at concurrently, each
within `timeout` seconds. A watch the catalog could not answer for (unreachable,
timed out, an upstream error, the target gone) is `not_checked` with the reason,
and its baseline stays where it was, so a change made meanwhile is reported once the
catalog answers again. A baseline that cannot be read is `reset`: this look becomes
the baseline, and the answer says so. Baselines move only once the report is
delivered, and without `mark_seen` never, so asking twice answers the same.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from pwc_local.common.references import arxiv_without_version, resolve_paper
from pwc_local.common.watches import (
    MAX_WATCHES,
    Watch,
    WatchStore,
    limit_reached,
)
from pwc_local.contract import MAX_REFERENCE_CHARS, WATCH_KINDS, query_defaults
from pwc_local.queries.arguments import required_text
from pwc_local.queries.benchmarks import find_benchmark, leaderboard_rows
from pwc_local.queries.leaderboard import merge_rows, metric_value, result_key
from pwc_local.queries.papers import (
    get_paper_info,
    get_paper_lineage,
    hybrid_search,
    list_papers,
)
from pwc_local.queries.taxonomy import gather, get_task
from pwc_local.safe_text import one_line
from pwc_local.upstream.errors import NotFound, RecordMissing, UsageError
from pwc_local.upstream.source import CatalogSource

T = TypeVar("T")

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "v1"
# Said, in both halves, by `whats_new` and `watch list` when nothing is watched.
NO_WATCHES = "No watches yet; add one with watch (pwc-mcp-local watch add KIND TARGET)."
WINDOW = 100  # papers per look at a task, an author or a search
VERSION_PROBE_BYTES = 1024  # a first chunk this small still carries the content version

Snapshot = dict[str, Any]
Change = dict[str, Any]

# Changes of these types come first (they concern the watch as a whole), then the
# rest by date, newest first.
_FIRST = ("new_leader", "new_version")


@dataclass(frozen=True)
class Resolved:
    """A target resolved through the catalog: its canonical `key` and display `name`."""

    kind: str
    key: str
    name: str


# -- the two tools ----------------------------------------------------------------------


async def watch(
    catalog: CatalogSource,
    watchlist: WatchStore,
    kind: str,
    target: str,
    *,
    remove: bool,
) -> dict[str, Any]:
    """Add a watch (look now, keep that as its baseline) or remove one; the watch list.

    `status` says what happened: `added`, `kept` (already watched: its baseline is
    kept), `removed`. Errors, with nothing stored: `invalid_argument` for an unknown
    kind, an empty target or a full list; `not_found` with the closest names for a
    target the catalog does not know (as the hosted tools say it), or for removing
    a watch that is not on the list.
    """
    kind = _checked_kind(kind)
    text = _checked_target(target)
    watches = await in_thread(watchlist.watches)
    if remove:
        found = await _watch_named(catalog, watches, kind, text)
        await in_thread(watchlist.remove, found.kind, found.key)
        status = "removed"
    else:
        already = _local_match(watches, kind, text)
        if already is None and len(watches) >= MAX_WATCHES:
            raise limit_reached()  # before asking the catalog; `add` checks again, atomically
        if already is not None:
            status = "kept"
        else:
            resolved, snapshot = await resolve_and_look(catalog, kind, text)
            _, added = await in_thread(
                functools.partial(
                    watchlist.add,
                    kind,
                    resolved.key,
                    target=text,
                    name=resolved.name,
                    snapshot=baseline_of(kind, snapshot),
                )
            )
            status = "added" if added else "kept"
    return {"schema_version": SCHEMA_VERSION, "status": status, **await watch_list(watchlist)}


async def watch_list(watchlist: WatchStore) -> dict[str, Any]:
    """`{"watches": [...], "limit": MAX_WATCHES}`: every watch, oldest first."""
    watches = await in_thread(watchlist.watches)
    return {"watches": [_listed(item) for item in watches], "limit": MAX_WATCHES}


# -- resolving a target and looking at it -------------------------------------------------


async def resolve_and_look(
    catalog: CatalogSource, kind: str, target: str
) -> tuple[Resolved, Snapshot]:
    """Resolve `target` as the hosted tools do, then take the first snapshot."""
    kind = _checked_kind(kind)
    text = _checked_target(target)
    if kind == "benchmark":
        row = await find_benchmark(catalog, text)
        key = str(row["id"])
        resolved = Resolved(kind, key, _label(row.get("name"), key))
        return resolved, await _benchmark_look(catalog, {**row, "id": key})
    if kind == "task":
        page = await get_task(catalog, task=text)
        key = str(page["task"]["id"])
        resolved = Resolved(kind, key, _label(page["task"].get("name"), key))
        return resolved, await _task_look(catalog, key, page)
    if kind == "paper":
        key = await resolve_paper(catalog, text)
        snapshot = await look(catalog, kind, key)
        return Resolved(kind, key, _label(snapshot.pop("title", None), key)), snapshot
    if kind == "author":
        document = await _author_papers(catalog, text)
        person = _confirmed_author(document)
        if person is None:  # confirmed by list_papers, so only a catalog without IDs
            raise NotFound(f"Author not found: {one_line(text, 200)}")
        key, name = person
        return Resolved(kind, key, name), _papers_look(document)
    key = _folded(text)
    return Resolved(kind, key, one_line(text, 200)), await look(catalog, kind, key)


async def look(catalog: CatalogSource, kind: str, key: str) -> Snapshot:
    """A snapshot of the watch `(kind, key)`: what `compare` and `baseline_of` read."""
    if kind == "benchmark":
        return await _benchmark_look(catalog, {"id": key, "name": key})
    if kind == "task":
        return await _task_look(catalog, key)
    if kind == "paper":
        return await _paper_look(catalog, key)
    if kind == "author":
        return _papers_look(await _author_papers(catalog, key))
    if kind == "query":
        return _papers_look(await hybrid_search(catalog, key, limit=WINDOW))
    raise _unknown_kind(kind)


async def _benchmark_look(catalog: CatalogSource, row: dict[str, Any]) -> Snapshot:
    rows, read, total = await leaderboard_rows(catalog, row)
    whole = read >= total
    metric = _primary_metric(rows)
    results: dict[str, Any] = {}
    leader: dict[str, Any] | None = None
    for merged in rows:
        key = _unique(results, result_key(merged))
        item = _result(merged, metric)
        results[key] = item
        if leader is None and isinstance(merged.get("best_rank"), int):
            leader = {"key": key, "model": item["model"], "value": item["value"]}
    snapshot: Snapshot = {"metric": metric, "results": results, "leader": leader, "full": not whole}
    if not whole:  # the best-ranked rows: a window, like a paper listing
        ranks = [item["rank"] for item in results.values() if item["rank"] is not None]
        snapshot["worst_rank"] = max(ranks, default=None)
        snapshot["window"] = [read, total]
    return snapshot


def window_exceeded(snapshot: Snapshot) -> str | None:
    """Why a look compared only part of what the watch covers (a cut leaderboard), or `None`."""
    window = snapshot.get("window")
    if not window:
        return None
    read, total = window
    return (
        f"the leaderboard has {total:,} rows and a look reads the best {read:,}: new "
        "results ranked below them are not reported"
    )


async def _task_look(
    catalog: CatalogSource, key: str, page: dict[str, Any] | None = None
) -> Snapshot:
    """The task's benchmarks (its `get_task` page, unless given) and newest papers."""

    async def task_page() -> dict[str, Any]:
        return page if page is not None else await get_task(catalog, task=key)

    page, papers = await gather(task_page, lambda: _listed_papers(catalog, task=key))
    snapshot = _papers_look(papers)
    snapshot["benchmarks"] = {
        str(row["id"]): {"id": str(row["id"]), "name": _label(row.get("name"), row["id"])}
        for row in page["benchmarks"]
        if isinstance(row, dict) and row.get("id") is not None
    }
    return snapshot


async def _paper_look(catalog: CatalogSource, key: str) -> Snapshot:
    info, lineage, version = await gather(
        lambda: get_paper_info(catalog, key, include_evaluations=True),
        lambda: get_paper_lineage(catalog, key),
        lambda: _content_version(catalog, key),
    )
    results: dict[str, Any] = {}
    for merged in merge_rows(info["evaluations"]["results"]):
        metric = _row_metric(merged)
        item = _result(merged, metric)
        dataset = _label(merged.get("dataset_id"), "")
        item["benchmark"] = {"id": dataset, "name": _label(merged.get("dataset_name"), dataset)}
        results[_unique(results, result_key(merged))] = item
    successors: dict[str, Any] = {}
    for node in lineage.get("successors") or []:
        if isinstance(node, dict) and node.get("id") is not None:
            reference = node.get("reference")
            successors[str(node["id"])] = {
                "id": str(node["id"]),
                "arxiv_id": arxiv_without_version(reference),
                "title": _label(node.get("title"), reference or node["id"]),
                "published": None,
            }
    return {
        "title": info.get("title"),
        "version": version,
        "successors": successors,
        "results": results,
    }


async def _content_version(catalog: CatalogSource, key: str) -> str | None:
    """The content version of the paper's stored Markdown, `None` when it has none."""
    try:
        chunk = await catalog.read_markdown(
            key, offset=0, limit=VERSION_PROBE_BYTES, content_version=None
        )
    except RecordMissing:  # no Markdown stored (the paper itself was found already)
        return None
    return chunk.content_version


async def _listed_papers(
    catalog: CatalogSource, *, task: str | None = None, author: str | None = None
) -> dict[str, Any]:
    """The newest `WINDOW` papers the catalog lists for a task or an author."""
    return await list_papers(
        catalog,
        **{
            **query_defaults("list_papers"),
            "task": task,
            "authors": [author] if author is not None else None,
            "order_by": "date_published",
            "page": 1,
            "limit": WINDOW,
        },
    )


async def _author_papers(catalog: CatalogSource, author: str) -> dict[str, Any]:
    try:
        return await _listed_papers(catalog, author=author)
    except UsageError as exc:
        # The catalog's 404 for an unknown author reaches list_papers as a usage error
        # naming the filter; the watch says it as the hosted tools' not-found.
        text = str(exc)
        if text.startswith("authors: Author not found"):
            raise NotFound(text.removeprefix("authors: ")) from None
        raise


def _confirmed_author(document: Mapping[str, Any]) -> tuple[str, str] | None:
    """The `(id, name)` the catalog echoed for the author filter."""
    applied = document.get("applied_filters")
    people = applied.get("authors") if isinstance(applied, dict) else None
    if not isinstance(people, list) or not people or not isinstance(people[0], dict):
        return None
    person = people[0]
    if person.get("id") is None or not isinstance(person.get("name"), str):
        return None
    return str(person["id"]).strip(), one_line(person["name"], 200)


def _papers_look(document: Mapping[str, Any]) -> Snapshot:
    rows = [row for row in document.get("results") or [] if isinstance(row, dict)]
    papers: dict[str, Any] = {}
    for row in rows:
        if row.get("id") is None:
            continue
        paper = _paper(row)
        papers[paper["id"]] = paper
    return {"papers": papers, "full": len(rows) >= WINDOW}


# -- the stored baseline and the comparison (pure) ------------------------------------


def baseline_of(kind: str, snapshot: Snapshot) -> Snapshot:
    """What is stored of `snapshot`: only what `compare` reads back next time."""
    stored: Snapshot = {}
    if "results" in snapshot:
        stored["results"] = {key: item["value"] for key, item in snapshot["results"].items()}
    if kind == "benchmark":
        stored["metric"] = snapshot.get("metric")
        stored["leader"] = snapshot.get("leader")
        if snapshot.get("full"):
            stored["full"], stored["worst_rank"] = True, snapshot.get("worst_rank")
    if "papers" in snapshot:
        stored["papers"] = {key: item["published"] for key, item in snapshot["papers"].items()}
        stored["full"] = bool(snapshot.get("full"))
    for section in ("benchmarks", "successors"):
        if section in snapshot:
            stored[section] = sorted(snapshot[section])
    if kind == "paper":
        stored["version"] = snapshot.get("version")
    return stored


def compare(kind: str, baseline: Snapshot, snapshot: Snapshot) -> list[Change]:
    """Every change from `baseline` (as `baseline_of` stored it) to `snapshot`, newest first."""
    changes: list[Change] = []
    if kind == "benchmark":
        changes.extend(_new_leader(baseline, snapshot))
    version = snapshot.get("version")
    if kind == "paper" and version is not None and version != baseline.get("version"):
        changes.append(
            {"type": "new_version", "version": version, "previous_version": baseline.get("version")}
        )
    known_results = baseline.get("results") or {}
    worst = baseline.get("worst_rank") if kind == "benchmark" and baseline.get("full") else None
    for key, item in (snapshot.get("results") or {}).items():
        if key in known_results:
            continue
        if worst is not None and (item["rank"] is None or item["rank"] > worst):
            continue  # moved into a cut leaderboard's window from below, not new
        changes.append({"type": "new_result", **item})
    if "papers" in snapshot:
        changes.extend(_new_papers(baseline, snapshot["papers"]))
    known_benchmarks = set(baseline.get("benchmarks") or [])
    for key, item in (snapshot.get("benchmarks") or {}).items():
        if key not in known_benchmarks:
            changes.append({"type": "new_benchmark", "benchmark": item})
    known_successors = set(baseline.get("successors") or [])
    for key, item in (snapshot.get("successors") or {}).items():
        if key not in known_successors:
            changes.append({"type": "new_successor", "paper": item})
    return _newest_first(changes)


def _new_leader(baseline: Snapshot, snapshot: Snapshot) -> list[Change]:
    leader, previous = snapshot.get("leader"), baseline.get("leader")
    if leader is None or (previous is not None and previous.get("key") == leader["key"]):
        return []
    return [
        {
            "type": "new_leader",
            "model": leader["model"],
            "metric": snapshot.get("metric"),
            "value": leader["value"],
            "previous_model": previous.get("model") if previous else None,
            "previous_value": previous.get("value") if previous else None,
        }
    ]


def _new_papers(baseline: Snapshot, papers: Mapping[str, Any]) -> list[Change]:
    known: Mapping[str, Any] = baseline.get("papers") or {}
    oldest = None
    if baseline.get("full"):
        dates = [date for date in known.values() if isinstance(date, str)]
        oldest = min(dates) if dates else None
    fresh = []
    for key, paper in papers.items():
        if key in known:
            continue
        published = paper.get("published")
        if oldest is not None and (not isinstance(published, str) or published < oldest):
            continue  # moved back into a full window, not new in the catalog
        fresh.append({"type": "new_paper", "paper": paper})
    return fresh


def _newest_first(changes: list[Change]) -> list[Change]:
    """Leader and version changes first, then by the paper's date, newest first (stable)."""

    def date(change: Change) -> str:
        paper = change.get("paper")
        published = paper.get("published") if isinstance(paper, dict) else None
        return published if isinstance(published, str) else ""

    first = [change for change in changes if change["type"] in _FIRST]
    rest = [change for change in changes if change["type"] not in _FIRST]
    rest.sort(key=date, reverse=True)
    return first + rest


# -- row shapes ------------------------------------------------------------------------


def _result(row: Mapping[str, Any], metric: str | None) -> dict[str, Any]:
    """A leaderboard row as a `new_result` change shows it."""
    rank = row.get("best_rank")
    return {
        "model": _label(row.get("model_name"), "unnamed model"),
        "paper": {
            "id": None if row.get("paper_id") is None else str(row["paper_id"]),
            "arxiv_id": arxiv_without_version(row.get("paper_arxiv_id")),
            "title": _text(row.get("paper_title")),
            "published": _text(row.get("paper_published_date")),
        },
        "metric": metric,
        "value": None if metric is None else metric_value(row, metric),
        "rank": rank if isinstance(rank, int) and not isinstance(rank, bool) else None,
    }


def _paper(row: Mapping[str, Any]) -> dict[str, Any]:
    published = row.get("published") or row.get("date_published")
    return {
        "id": str(row["id"]),
        "arxiv_id": arxiv_without_version(row.get("arxiv_id")),
        "title": _text(row.get("title")),
        "published": _text(published),
    }


def _primary_metric(rows: list[dict[str, Any]]) -> str | None:
    """The leaderboard's primary metric: the best-ranked row's `best_metric`, else its first."""
    for row in rows:
        metric = _row_metric(row)
        if metric is not None:
            return metric
    return None


def _row_metric(row: Mapping[str, Any]) -> str | None:
    best = row.get("best_metric")
    if isinstance(best, str) and best.strip():
        return best
    metrics = row.get("metrics")
    if isinstance(metrics, dict):
        return next((name for name in metrics if isinstance(name, str)), None)
    return None


def _unique(taken: Mapping[str, Any], key: str) -> str:
    """`key`, or `key#2`, `key#3` ... for rows of one result that did not merge."""
    candidate, count = key, 1
    while candidate in taken:
        count += 1
        candidate = f"{key}#{count}"
    return candidate


# -- watch list helpers ----------------------------------------------------------------


def _checked_kind(kind: str) -> str:
    folded = kind.strip().casefold() if isinstance(kind, str) else ""
    if folded not in WATCH_KINDS:
        raise _unknown_kind(kind)
    return folded


def _checked_target(target: str) -> str:
    text = required_text(target, "target")
    if len(text) > MAX_REFERENCE_CHARS:
        raise UsageError(f"target must be at most {MAX_REFERENCE_CHARS} characters")
    return text


def _unknown_kind(kind: object) -> UsageError:
    shown = one_line(str(kind), 40)
    return UsageError(f"kind must be one of {', '.join(WATCH_KINDS)} (got {shown!r})")


def _local_match(watches: Iterable[Watch], kind: str, target: str) -> Watch | None:
    """The watch of `kind` whose key, target or name is `target` (folded), if any."""
    wanted = _folded(target)
    for item in watches:
        spellings = (_folded(item.key), _folded(item.target), _folded(item.name))
        if item.kind == kind and wanted in spellings:
            return item
    return None


async def _watch_named(
    catalog: CatalogSource, watches: list[Watch], kind: str, target: str
) -> Watch:
    """The watch `target` names: by its spelling on the list, else resolved by the catalog."""
    found = _local_match(watches, kind, target)
    if found is not None:
        return found
    if kind != "query":
        try:
            resolved, _ = await resolve_and_look(catalog, kind, target)
        except NotFound:
            resolved = None
        if resolved is not None:
            for item in watches:
                if (item.kind, item.key) == (kind, resolved.key):
                    return item
    names = [item.name for item in watches if item.kind == kind]
    message = f"Watch not found: {kind} {one_line(target, 200)}"
    if names:
        message += f"; watched {kind}s: {', '.join(one_line(name, 80) for name in names[:10])}"
    raise NotFound(message)


def _listed(item: Watch) -> dict[str, Any]:
    return {
        "kind": item.kind,
        "target": item.target,
        "name": item.name,
        "added": iso_time(item.created_at),
        "last_look": iso_time(item.looked_at),
    }


# -- small helpers ---------------------------------------------------------------------


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _text(value: Any) -> str | None:
    return one_line(str(value), 300) if value is not None and str(value).strip() else None


def _label(value: Any, fallback: Any) -> str:
    return _text(value) or one_line(str(fallback), 300)


def utc_now() -> float:
    return datetime.now(timezone.utc).timestamp()


def iso_time(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="seconds")


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(functools.partial(fn, *args))
