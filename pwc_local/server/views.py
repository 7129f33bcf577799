"""The leaderboard view: an MCP App (the extension SEP-1865) for clients that show apps.

A tool names a `ui://` resource in `_meta.ui.resourceUri`; a client that renders MCP
Apps (Claude, VS Code, Goose, ChatGPT ...) reads that resource, shows its HTML in a
sandboxed frame next to the answer and hands it the tool's input and result. Other
clients ignore the metadata and show the text and structured halves, which are the
same either way.

| piece                      | what                                                    |
| -------------------------- | ------------------------------------------------------- |
| `VIEW_URI`                 | the one view, for `sota_history` (a step chart of the   |
|                            | running best) and `get_benchmark` (a sortable table)    |
| `tool_meta(name, profile)` | `{"ui": {"resourceUri": VIEW_URI}}` for those tools in  |
|                            | the compact profile; `None` otherwise (the hosted       |
|                            | profile's listing stays the hosted server's, byte for   |
|                            | byte)                                                   |
| `register_view(server)`    | the resource: `pwc_local/views/leaderboard.html`, one   |
|                            | self-contained file (script and style inlined, nothing  |
|                            | fetched, so the extension's default content security    |
|                            | policy holds), MIME type `text/html;profile=mcp-app`    |

The HTML is built from `apps/leaderboard/` (`npm ci && npm run build`, its README) and
committed, so installing needs no Node. It reads the compact records of
`pwc_local.present.history` and `pwc_local.present.benchmarks`.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from mcp.server.mcpserver import MCPServer

VIEW_URI = "ui://pwc/leaderboard"
VIEW_MIME = "text/html;profile=mcp-app"
VIEW_FILE = "leaderboard.html"

VIEWED = frozenset({"sota_history", "get_benchmark"})
"""The tools whose results the view shows (apps/leaderboard/src/main.js picks by shape)."""


def tool_meta(name: str, profile: str) -> dict[str, Any] | None:
    """Tool `name`'s `_meta` in `profile`: the view's URI, or nothing."""
    if profile != "compact" or name not in VIEWED:
        return None
    return {"ui": {"resourceUri": VIEW_URI}}


def view_html() -> str:
    """The built view (package data)."""
    return resources.files("pwc_local").joinpath("views", VIEW_FILE).read_text(encoding="utf-8")


def register_view(server: MCPServer) -> None:
    """Add the view's `ui://` resource to `server` (the compact profile only)."""

    @server.resource(
        VIEW_URI,
        name="leaderboard",
        title="Leaderboard view",
        description="Chart of sota_history and sortable table of get_benchmark, for MCP Apps.",
        mime_type=VIEW_MIME,
        # A border and background from the host: the view draws on a plain background.
        meta={"ui": {"prefersBorder": True}},
    )
    def leaderboard() -> str:
        return view_html()
