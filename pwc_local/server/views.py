"""The leaderboard view: an MCP App (the extension SEP-1865) for clients that show apps.

A tool names a `ui://` resource in `_meta.ui.resourceUri`; a client that renders MCP
Apps (Claude, VS Code, Goose, ChatGPT ...) reads that resource, shows its HTML in a
sandboxed frame next to the answer and hands it the tool's input and result. Other
clients ignore the metadata and show the text and structured halves, which are the
same either way.

| piece                      | what                                                    |
| -------------------------- | ------------------------------------------------------- |
| `VIEW_URI`                 | the one view, for `sota_history` (a step chart of the   |
|                            | running best), `get_benchmark` and `results_table`      |
|                            | (sortable tables)                                       |
| `tool_meta(spec, profile)` | `{"ui": {"resourceUri": VIEW_URI}}` for those tools     |
|                            | (their bindings say `viewed`) in the compact profile;   |
|                            | `None` otherwise (the hosted profile's listing stays    |
|                            | the hosted server's, byte for byte)                     |
| `result_meta(...)`         | the result's `_meta` for the view: what neither half    |
|                            | carries (below); `None` for other tools and profiles    |
| `register_view(server)`    | the resource: `pwc_local/views/leaderboard.html`, one   |
|                            | self-contained file (script and style inlined, nothing  |
|                            | fetched, so the extension's default content security    |
|                            | policy holds), MIME type `text/html;profile=mcp-app`    |

What the view needs beyond the halves (a binding's `view_data`) goes in the result's
`_meta` under `VIEW_DATA`: hosts hand a view the whole result and keep `_meta` out of the
model's context (the extension's data passing), so the halves stay as they were:
`get_benchmark`'s extra-data flag per row, `results_table`'s rows as data.

The HTML is built from `apps/leaderboard/` (`npm ci && npm run build`, its README) and
committed, so installing needs no Node. It reads the compact records of
`pwc_local.present.history` and `pwc_local.present.benchmarks` and `results_table`'s model.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer

from pwc_local.safe_text import printable_tree

if TYPE_CHECKING:
    from pwc_local.server.bindings import ToolSpec

VIEW_URI = "ui://pwc/leaderboard"
VIEW_MIME = "text/html;profile=mcp-app"
VIEW_FILE = "leaderboard.html"
VIEW_DATA = "pwc/view"  # the result's `_meta` key of what the view needs beyond the halves


def tool_meta(spec: ToolSpec, profile: str) -> dict[str, Any] | None:
    """A tool's `_meta` in `profile`: the view's URI, or nothing.

    The view (apps/leaderboard/src/main.js) picks how to draw a result by its shape.
    """
    if profile != "compact" or not spec.viewed:
        return None
    return {"ui": {"resourceUri": VIEW_URI}}


def result_meta(spec: ToolSpec, model: Any, answer: Any, profile: str) -> dict[str, Any] | None:
    """A result's `_meta` in `profile`, from its model and query answer: the view's data
    (`spec.view_data`) under `VIEW_DATA`, or nothing."""
    if profile != "compact" or not spec.viewed or spec.view_data is None:
        return None
    return {VIEW_DATA: printable_tree(spec.view_data(model, answer))}


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
