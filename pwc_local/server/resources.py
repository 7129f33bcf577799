"""The four resource templates (README, "Tools"): tool answers addressable by URI.

Each template reads through the same tool implementation as the matching tool, so
a resource holds exactly the tool's `structuredContent` (as compact JSON) and
fails with exactly the tool's `code: sentence` text as a JSON-RPC error. The code
says whose problem it is: a refusal of the request itself (`invalid_argument`,
`not_found`, `ambiguous`, `no_markdown`: `BAD_INPUT`) answers -32602 "invalid
params"; anything else (the catalog failing, our own bug) answers -32603.

A template variable matches one path segment: references containing `/` (URLs,
legacy arXiv IDs) must be percent-encoded, and the SDK decodes them. The values
are catalog references, never file paths, so the SDK's path-safety checks are
relaxed to the NUL-byte rule.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult

from pwc_local.contract import CHUNK_BYTES, MAX_REFERENCE_CHARS
from pwc_local.failures import coded_text
from pwc_local.server.errors import code_of
from pwc_local.upstream.errors import Ambiguous, NoMarkdown, NotFound, UsageError


class ToolCaller(Protocol):
    """What the templates read through: `CatalogTools.call` (or a stand-in for it)."""

    async def call(
        self, name: str, /, *, given: Mapping[str, Any] | None = None, **arguments: Any
    ) -> CallToolResult: ...


JSON = "application/json"
MARKDOWN = "text/markdown"

# Values are catalog names and IDs, not paths: only NUL bytes are refused.
REFERENCES = ResourceSecurity(reject_path_traversal=False, reject_absolute_paths=False)

UNKNOWN_RESOURCE = coded_text(
    NotFound(
        "no resource template matches this URI; resources/templates/list names the "
        "templates (percent-encode a reference that contains '/')."
    )
)

BAD_INPUT = frozenset(cls.code for cls in (UsageError, NotFound, Ambiguous, NoMarkdown))
"""Error codes that refuse the request itself: answered -32602, not -32603."""

TRUNCATED = coded_text(
    UsageError(
        "the paper's Markdown is longer than one response; call the read_paper "
        "tool and follow next_cursor to read all of it."
    )
)


TEMPLATES: dict[str, tuple[str, str, str, str]] = {
    # name: (URI template, title, description, MIME type)
    "paper-info": (
        "pwc://papers/{paper}",
        "Paper information",
        "The paper's canonical catalog metadata.",
        JSON,
    ),
    "paper-markdown": (
        "pwc://papers/{paper}/markdown",
        "Paper Markdown",
        "The paper's full stored Markdown, provided it fits in a single response.",
        MARKDOWN,
    ),
    "task": (
        "pwc://tasks/{task}",
        "Research task",
        "The task's canonical metadata with its benchmarks.",
        JSON,
    ),
    "benchmark": (
        "pwc://benchmarks/{benchmark}",
        "Benchmark leaderboard",
        "The benchmark's canonical metadata with its top evaluation rows.",
        JSON,
    ),
}


def register_resources(server: MCPServer, tools: ToolCaller) -> None:
    """Add the templates of `TEMPLATES` to `server`, each read through its tool."""

    def template(name: str) -> Any:
        uri, title, description, mime_type = TEMPLATES[name]
        return server.resource(
            uri,
            name=name,
            title=title,
            description=description,
            mime_type=mime_type,
            security=REFERENCES,
        )

    async def answer(
        tool: str, given: Mapping[str, Any] | None = None, **arguments: str
    ) -> dict[str, Any]:
        """The tool's structured result, or its error text as a resource error."""
        checked = {name: _checked(value) for name, value in arguments.items()}
        try:
            result = await tools.call(tool, given=given, **checked)
        except ToolError as exc:
            raise _refusal(str(exc)) from None
        assert result.structured_content is not None  # every tool returns a model
        return result.structured_content

    @template("paper-info")
    async def paper_info(paper: str) -> str:
        return _compact(await answer("get_paper_info", paper=paper))

    @template("paper-markdown")
    async def paper_markdown(paper: str) -> str:
        # `next_cursor` is set exactly when more follows, in either profile's shape. The
        # compact profile reads less than the catalog's chunk at a time (its `end`
        # says where the chunk stopped): then one read of the catalog's 64 KiB decides.
        result = await answer("read_paper", paper=paper)
        if result.get("next_cursor") and result.get("end", CHUNK_BYTES) < CHUNK_BYTES:
            result = await answer("read_paper", {"read_chunk": CHUNK_BYTES}, paper=paper)
        if result.get("next_cursor"):
            raise _refusal(TRUNCATED)
        return str(result["markdown"])

    @template("task")
    async def task(task: str) -> str:
        return _compact(await answer("get_task", task=task))

    @template("benchmark")
    async def benchmark(benchmark: str) -> str:
        return _compact(await answer("get_benchmark", benchmark=benchmark))


def _checked(reference: str) -> str:
    """Resources bypass the tools' input schema, so its length bound is applied here."""
    if len(reference) > MAX_REFERENCE_CHARS:
        raise _refusal(
            coded_text(
                UsageError(f"the reference must have at most {MAX_REFERENCE_CHARS} characters.")
            )
        )
    return reference


def _refusal(message: str) -> Exception:
    """The resource error for `message`: -32602 for bad input, -32603 for the rest."""
    if code_of(message) in BAD_INPUT:
        return MCPError(INVALID_PARAMS, message)
    return ResourceError(message)


def _compact(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
