"""Output models of the watch-list tools (`watch`, `whats_new`), local additions.

The query functions (`pwc_local.queries.watch`) return plain payloads of exactly
this shape; a binding validates them into these models, and `pwc-mcp-local
whats-new --json` prints the same models' JSON. The text functions at the end
render the same result, for the tools' text and the terminal alike; every name and
title in them comes from the catalog or a caller, so it goes through `shown`.

Every schema here is paid in `tools/list`, so one flat change model serves all six
change types, and fields carry descriptions only where the name does not say enough.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from pwc_local.contract import WatchKind
from pwc_local.present.hosted import ToolOutput, _Strict
from pwc_local.present.record import Cell, Record, Shown, Table, table_of
from pwc_local.queries.watch import NO_WATCHES
from pwc_local.safe_text import one_line, shown

ChangeType = Literal[
    "new_result", "new_leader", "new_paper", "new_benchmark", "new_version", "new_successor"
]


class WatchedPaper(_Strict):
    id: str | None = None
    arxiv_id: str | None = None
    title: str | None = None
    published: str | None = None


class WatchedBenchmark(_Strict):
    id: str
    name: str


class WatchChange(_Strict):
    """One change; which fields are set depends on `type`."""

    type: ChangeType
    paper: WatchedPaper | None = None
    benchmark: WatchedBenchmark | None = None
    model: str | None = None
    metric: str | None = None
    value: float | None = None
    rank: int | None = None
    previous_model: str | None = None
    previous_value: float | None = None
    version: str | None = Field(default=None, description="Markdown content version")
    previous_version: str | None = None


class WatchReport(_Strict):
    kind: WatchKind
    target: str
    name: str
    previous_look: str
    status: Literal["changed", "unchanged", "not_checked", "reset"]
    reason: str | None = Field(
        default=None, description="why not checked, reset, or only partly compared"
    )
    changes: list[WatchChange]
    more: int = Field(description="this watch's changes on the next pages")


class WhatsNewResult(ToolOutput):
    next_cursor: str | None = None
    checked_at: str
    watches: list[WatchReport]
    note: str | None = Field(default=None, description="when nothing is watched")


class WatchEntry(_Strict):
    kind: WatchKind
    target: str
    name: str
    added: str
    last_look: str


class WatchListResult(ToolOutput):
    status: Literal["added", "kept", "removed"] | None = None
    watches: list[WatchEntry]
    limit: int


# -- the compact record of whats_new (`pwc_local.present.record`) -----------------------

CHANGE_COLUMNS = (
    "type",
    "model",
    "metric",
    "value",
    "rank",
    "was",
    "benchmark",
    "paper",
    "title",
    "published",
    "version",
)


WATCH_COLUMNS = ("kind", "target", "name", "previous_look", "status", "reason", "more")


class WhatsNew(Record):
    """A look: one row per watch (`WATCH_COLUMNS`: `target` only where it is not the name,
    `previous_look` to the minute, saying UTC) and one row per change, its `watch` the
    watch's row number (from 1), the columns of `CHANGE_COLUMNS` it has."""

    next_cursor: str | None = None
    watches: Table | None = None
    changes: Table | None = None
    note: str | None = None


def whats_new_record(result: WhatsNewResult, _answer: Any, _arguments: Any) -> WhatsNew:
    watches: list[list[Cell]] = []
    changes: list[list[Cell]] = []
    for number, report in enumerate(result.watches, start=1):
        watches.append(
            [
                report.kind,
                report.target if report.target != report.name else None,
                report.name,
                _when(report.previous_look),
                report.status,
                report.reason,
                report.more or None,
            ]
        )
        changes += [[number, *change_row(change)] for change in report.changes]
    return WhatsNew(
        next_cursor=result.next_cursor,
        watches=table_of(WATCH_COLUMNS, watches),
        changes=table_of(("watch", *CHANGE_COLUMNS), changes),
        note=result.note,
    )


def whats_new_result(answer: dict[str, Any], _arguments: Any = None) -> WhatsNewResult:
    return WhatsNewResult.model_validate(answer)


def watch_list_result(answer: dict[str, Any], _arguments: Any = None) -> WatchListResult:
    return WatchListResult.model_validate(answer)


# -- text ------------------------------------------------------------------------------

MAX_REASON_CHARS = 500  # a `code: sentence` that names the setting to fix is worth its length
CHANGE_LABELS = {
    "new_result": "new result",
    "new_leader": "new leader",
    "new_paper": "new paper",
    "new_benchmark": "new benchmark",
    "new_version": "new version",
    "new_successor": "successor",
}


def whats_new_text(result: WhatsNewResult, _answer: Any = None) -> str:
    """The text of the whats_new model (the hosted profile): its compact record's text."""
    return whats_new_record_text(whats_new_record(result, None, None), None)


def whats_new_record_text(record: WhatsNew, _shown: Shown | None) -> str:
    """Every watch's head line and its changes, then a count by status and, once each,
    why watches were not checked (one outage would otherwise repeat on every line)."""
    if not record.watches:
        return record.note or NO_WATCHES
    by_watch: dict[int, list[dict[str, Cell]]] = {}
    if record.changes:
        for row in record.changes.rows:
            cells = dict(zip(record.changes.columns, row, strict=True))
            by_watch.setdefault(int(cells["watch"] or 0), []).append(cells)  # type: ignore[arg-type]
    lines: list[str] = []
    counts = {"changed": 0, "unchanged": 0, "not_checked": 0, "reset": 0}
    reasons: dict[str, int] = {}
    for number, row in enumerate(record.watches.rows, start=1):
        look = dict(zip(record.watches.columns, row, strict=True))
        status, reason = str(look["status"]), look.get("reason")
        counts[status] += 1
        head = f"{shown(str(look['name']))} ({look['kind']}, last look {look['previous_look']})"
        if status == "not_checked":
            said = one_line(str(reason or "unknown reason"), MAX_REASON_CHARS, cut="…")
            reasons[said] = reasons.get(said, 0) + 1
            lines.append(f"{head}: not checked ({said.partition(':')[0]})")
        elif status == "unchanged":
            lines.append(f"{head}: nothing new" + (f" ({shown(str(reason))})" if reason else ""))
        elif status == "reset":
            lines.append(f"{head}: baseline reset ({shown(str(reason or ''))})")
        else:
            lines.append(f"{head}:")
            for cells in by_watch.get(number, []):
                lines.append(f"  {CHANGE_LABELS[str(cells['type'])]:<13} {row_line(cells)}")
            if look.get("more"):
                lines.append(f"  ... and {look['more']} more on the next page")
            if reason:
                lines.append(f"  ({shown(str(reason))})")
    summary = f"{counts['changed']} changed, {counts['unchanged']} unchanged"
    if counts["reset"]:
        summary += f", {counts['reset']} baselines reset"
    if counts["not_checked"]:
        summary += f", {counts['not_checked']} not checked (their baselines stay):"
    lines.append(summary)
    lines.extend(
        f"  {reason}" + (f" ({count} watches)" if count > 1 else "")
        for reason, count in reasons.items()
    )
    if record.next_cursor:
        lines.append(f"More on the next page: whats_new cursor={record.next_cursor}")
    return "\n".join(lines)


def status_line(status: str | None, kind: str, target: str) -> str:
    """What `watch` did to `kind target`, for the tool's text and `watch add/remove` alike."""
    watched = f"{kind} {shown(target)}"
    if status == "added":
        return f"Watching {watched}; baseline taken now."
    if status == "kept":
        return f"Already watched: {watched} (baseline kept)."
    return f"No longer watching {watched}."


def watch_text(result: WatchListResult, arguments: Mapping[str, Any]) -> str:
    """The `watch` tool's text: what it did (to `arguments`' target), then the watch list
    (alone when nothing was done: `watch list`)."""
    if result.status is None:
        return watch_list_text(result)
    head = status_line(result.status, arguments["kind"], arguments["target"])
    return head + "\n\n" + watch_list_text(result)


def watch_list_text(result: WatchListResult, _answer: Any = None) -> str:
    """One line per watch (kind, name, the spelling it was added with, last look)."""
    if not result.watches:
        return NO_WATCHES
    lines = [
        f"{item.kind:<9}  {shown(item.name)}"
        + (f"  (as {shown(item.target)})" if item.target != item.name else "")
        + f"  last look {_when(item.last_look)}"
        for item in result.watches
    ]
    lines.append(f"{len(result.watches)} of at most {result.limit} watches")
    return "\n".join(lines)


def change_row(change: WatchChange) -> list[Cell]:
    """One change as a row of `CHANGE_COLUMNS`: the model and its value, what it beat, the
    benchmark, the paper it comes from, or the new content version (its first 12 digits)."""
    paper = change.paper
    was = None
    if change.type == "new_leader" and change.previous_model:
        was = change.previous_model
        if change.previous_value is not None:
            was += f", {change.previous_value:g}"
    return [
        change.type,
        change.model,
        change.metric,
        change.value,
        change.rank,
        was,
        change.benchmark.name if change.benchmark else None,
        (paper.arxiv_id or paper.id) if paper else None,
        paper.title if paper else None,
        paper.published if paper else None,
        (change.version or "")[:12] or None,
    ]


def row_line(cells: Mapping[str, Cell]) -> str:
    """A change row in words: `ViT-G/14  Top-1 Accuracy 90.1  rank 1  (was ...)  Title (...)`."""
    if cells.get("type") == "new_version":
        return f"the Markdown changed (content version {cells.get('version') or ''})"
    parts: list[str] = []
    if cells.get("model"):
        parts.append(shown(str(cells["model"])))
    value = cells.get("value")
    if cells.get("metric") is not None and isinstance(value, int | float):
        parts.append(f"{shown(str(cells['metric']))} {value:g}")
    if cells.get("rank") is not None:
        parts.append(f"rank {cells['rank']}")
    if cells.get("was"):
        parts.append(f"(was {shown(str(cells['was']))})")
    if cells.get("benchmark"):
        parts.append(shown(str(cells["benchmark"])))
    paper, title = cells.get("paper"), cells.get("title")
    if paper or title:
        label = shown(str(title or paper or "untitled"))
        extra = ", ".join(shown(str(bit)) for bit in (paper, cells.get("published")) if bit)
        parts.append(f"{label} ({extra})" if extra else label)
    return "  ".join(parts)


def change_line(change: WatchChange) -> str:
    """One change in words (`row_line` of its row)."""
    return row_line(dict(zip(CHANGE_COLUMNS, change_row(change), strict=True)))


def _when(iso: str) -> str:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return shown(iso)
    return moment.strftime("%Y-%m-%d %H:%M UTC")
