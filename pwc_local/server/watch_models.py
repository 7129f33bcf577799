"""Output models of the watch-list tools (`watch`, `whats_new`), local additions.

The query functions (`pwc_local.queries.watch`) return plain payloads of exactly
this shape; a binding validates them into these models, and `pwc-mcp-local
whats-new --json` prints the same models' JSON. Every schema here is paid in
`tools/list`, so one flat change model serves all six change types, and fields
carry descriptions only where the name does not say enough.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pwc_local.server.models import ToolOutput, _Strict

WatchKind = Literal["benchmark", "task", "paper", "author", "query"]
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
    benchmark: WatchedBenchmark | str | None = Field(
        default=None, description="new_benchmark: the benchmark; a paper's new_result: its name"
    )
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
    status: Literal["changed", "unchanged", "not_checked"]
    reason: str | None = Field(default=None, description="code: sentence, when not checked")
    changes: list[WatchChange]
    more: int = Field(description="changes beyond these, not shown")


class WhatsNewResult(ToolOutput):
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
