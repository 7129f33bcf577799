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

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from pwc_local.contract import WatchKind
from pwc_local.present.hosted import ToolOutput, _Strict
from pwc_local.safe_text import one_line, shown
from pwc_local.server.render import Call

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
    reason: str | None = Field(default=None, description="why not checked, or reset")
    changes: list[WatchChange]
    more: int = Field(description="this watch's changes on the next pages")


class WhatsNewResult(ToolOutput):
    next_cursor: str | None = None
    checked_at: str
    watches: list[WatchReport]


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


def whats_new_result(answer: dict[str, Any], _arguments: Any = None) -> WhatsNewResult:
    return WhatsNewResult.model_validate(answer)


def watch_list_result(answer: dict[str, Any], _arguments: Any = None) -> WatchListResult:
    return WatchListResult.model_validate(answer)


# -- text ------------------------------------------------------------------------------

MAX_REASON_CHARS = 500  # a `code: sentence` that names the setting to fix is worth its length
# Short: the empty whats_new result's JSON is 90 bytes, and the text is never longer.
NO_WATCHES = "No watches yet; add one with watch (pwc-mcp-local watch add KIND TARGET)."
CHANGE_LABELS = {
    "new_result": "new result",
    "new_leader": "new leader",
    "new_paper": "new paper",
    "new_benchmark": "new benchmark",
    "new_version": "new version",
    "new_successor": "successor",
}


def whats_new_text(result: WhatsNewResult, _answer: Any = None) -> str:
    """Every watch's head line and its changes, then a count by status and, once each,
    why watches were not checked (one outage would otherwise repeat on every line)."""
    if not result.watches:
        return NO_WATCHES
    lines: list[str] = []
    counts = {"changed": 0, "unchanged": 0, "not_checked": 0, "reset": 0}
    reasons: dict[str, int] = {}
    for report in result.watches:
        counts[report.status] += 1
        head = f"{shown(report.name)} ({report.kind}, last look {_when(report.previous_look)})"
        if report.status == "not_checked":
            reason = one_line(report.reason or "unknown reason", MAX_REASON_CHARS, cut="…")
            reasons[reason] = reasons.get(reason, 0) + 1
            lines.append(f"{head}: not checked ({reason.partition(':')[0]})")
        elif report.status == "unchanged":
            lines.append(f"{head}: nothing new")
        elif report.status == "reset":
            lines.append(f"{head}: baseline reset ({shown(report.reason or '')})")
        else:
            lines.append(f"{head}:")
            lines.extend(
                f"  {CHANGE_LABELS[change.type]:<13} {change_line(change)}"
                for change in report.changes
            )
            if report.more:
                lines.append(f"  ... and {report.more} more on the next page")
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
    if result.next_cursor:
        lines.append(f"More on the next page: whats_new cursor={result.next_cursor}")
    return "\n".join(lines)


def status_line(status: str | None, kind: str, target: str) -> str:
    """What `watch` did to `kind target`, for the tool's text and `watch add/remove` alike."""
    watched = f"{kind} {shown(target)}"
    if status == "added":
        return f"Watching {watched}; baseline taken now."
    if status == "kept":
        return f"Already watched: {watched} (baseline kept)."
    return f"No longer watching {watched}."


def watch_text(call: Call) -> str:
    """The `watch` tool's text: what it did, then the watch list."""
    result: WatchListResult = call.model
    head = status_line(result.status, call.arguments["kind"], call.arguments["target"])
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


def change_line(change: WatchChange) -> str:
    """One change: the model and its value, the benchmark, the paper it comes from."""
    if change.type == "new_version":
        return f"the Markdown changed (content version {(change.version or '')[:12]})"
    parts: list[str] = []
    if change.model:
        parts.append(shown(change.model))
    if change.metric is not None and change.value is not None:
        parts.append(f"{shown(change.metric)} {change.value:g}")
    if change.rank is not None:
        parts.append(f"rank {change.rank}")
    if change.type == "new_leader" and change.previous_model:
        was = shown(change.previous_model)
        if change.previous_value is not None:
            was += f", {change.previous_value:g}"
        parts.append(f"(was {was})")
    if change.benchmark is not None:
        parts.append(shown(change.benchmark.name))
    paper = change.paper
    if paper is not None:
        label = shown(paper.title or paper.arxiv_id or paper.id or "untitled")
        extra = ", ".join(shown(bit) for bit in (paper.arxiv_id, paper.published) if bit)
        parts.append(f"{label} ({extra})" if extra else label)
    return "  ".join(parts)


def _when(iso: str) -> str:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return shown(iso)
    return moment.strftime("%Y-%m-%d %H:%M UTC")
