"""The MCP server: identity, instructions, tools, resources and prompts, served on stdio.

`build_server(settings)` assembles an `MCPServer` and does nothing else: no network,
no cache, no key file. The catalog source and the cursor codec are built on the
first tool call (`pwc_local.runtime.LazyRuntime`) and closed when the session ends
(the server lifespan), so a client's spawn-to-`initialize` time stays close to that
of a bare SDK server.

`PwcServer` adjusts three SDK behaviours in `call_tool`, the SDK's public entry
point for a `tools/call`, so that every tool error carries a code:

* arguments that fail the input schema are reported as
  `invalid_argument: limit must be at most 25` instead of pydantic's text, which has
  no code and echoes the rejected values;
* an unknown tool name is reported as `not_found: unknown tool ...`;
* a crash the SDK catches outside a tool body is `internal_error: ...`;
* a JSON number sent for a paper or entity reference (`paper: 1706.03762`) is read
  as the reference text it stands for before validation (`server/lenient.py`).

It also checks `prompts/get` itself: the SDK answers an unknown prompt or a wrong
argument with JSON-RPC code 0 and logs a traceback that quotes the caller's
arguments; we answer -32602 with a `code: sentence` and log nothing.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, GetPromptResult, InputRequiredResult
from mcp_types import Tool as MCPTool
from pydantic import ValidationError

from pwc_local import __version__
from pwc_local.config import Settings
from pwc_local.runtime import LazyRuntime
from pwc_local.server import text
from pwc_local.server.completions import register_completions
from pwc_local.server.contract import BY_NAME
from pwc_local.server.errors import (
    error_message,
    prompt_arguments_message,
    unknown_prompt_message,
    unknown_tool_message,
    validation_message,
)
from pwc_local.server.lenient import lenient_arguments
from pwc_local.server.prompts import register_prompts
from pwc_local.server.resources import register_resources
from pwc_local.server.tools import CatalogTools, register_tools

HOUR_MS = 3_600_000
# tools.md §1.3: listings are static for an hour; resource contents for five minutes.
CACHE_HINTS = {
    "server/discover": CacheHint(ttl_ms=HOUR_MS, scope="public"),
    "tools/list": CacheHint(ttl_ms=HOUR_MS, scope="public"),
    "resources/templates/list": CacheHint(ttl_ms=HOUR_MS, scope="public"),
    "resources/read": CacheHint(ttl_ms=300_000, scope="public"),
}


class PwcServer(MCPServer):
    """`MCPServer` whose every tool-call failure, inside a tool or not, carries a code.

    Tools are registered on the first `tools/list` or `tools/call`, not at
    construction: generating the 21 input and output schemas is the largest part
    of our start-up, and `initialize` needs none of it.
    """

    def __init__(
        self,
        *args: Any,
        register_tools: Callable[[MCPServer], None] | None = None,
        **kwargs: Any,
    ) -> None:
        self.tool_names: set[str] = set()
        self._register_tools: Callable[[MCPServer], None] | None = register_tools
        self._registering = threading.Lock()
        super().__init__(*args, **kwargs)

    def add_tool(  # type: ignore[override]  # forwards every keyword unchanged
        self, fn: Callable[..., Any], name: str | None = None, **kwargs: Any
    ) -> None:
        super().add_tool(fn, name=name, **kwargs)
        self.tool_names.add(name or fn.__name__)

    def ensure_tools(self) -> None:
        """Register the tools once; later calls return at once."""
        if self._register_tools is None:
            return
        with self._registering:
            if self._register_tools is not None:
                self._register_tools(self)
                self._register_tools = None

    async def list_tools(self) -> list[MCPTool]:
        self.ensure_tools()
        tools = await super().list_tools()
        # pydantic titles every parameter after its own name ("page" -> "Page"); the
        # listing is context every session pays for, so leave the repetition out.
        return [
            tool.model_copy(update={"input_schema": _without_titles(tool.input_schema)})
            for tool in tools
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        self.ensure_tools()
        if name not in self.tool_names:
            raise ToolError(unknown_tool_message(name))
        arguments = lenient_arguments(arguments, BY_NAME[name].references)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            # A crash outside the tool body (say, its result failed output validation);
            # tool bodies map their own failures. Logged here, without arguments.
            message = error_message(exc.__cause__ or exc)
            raise ToolError(f"Error executing tool {name}: {message}") from None
        except ToolError as exc:
            # The SDK raises ToolError from a ValidationError when the arguments do not
            # fit the input schema; anything a tool raised is already `code: sentence`.
            if isinstance(exc.__cause__, ValidationError):
                message = validation_message(exc.__cause__)
                raise ToolError(f"Error executing tool {name}: {message}") from None
            raise

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None
    ) -> GetPromptResult | InputRequiredResult:
        """The rendered prompt, once its name and argument names are known to fit."""
        prompt = next((p for p in await self.list_prompts() if p.name == name), None)
        if prompt is None:
            raise MCPError(INVALID_PARAMS, unknown_prompt_message(name))
        expected = {argument.name for argument in prompt.arguments or []}
        required = {argument.name for argument in prompt.arguments or [] if argument.required}
        given = set(arguments or {})
        if not required <= given <= expected:
            raise MCPError(INVALID_PARAMS, prompt_arguments_message(name, expected))
        return await super().get_prompt(name, arguments, context)


def _without_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema without the generated `title` of the object and its properties."""
    trimmed = {key: value for key, value in schema.items() if key != "title"}
    properties = schema.get("properties")
    if isinstance(properties, dict):
        trimmed["properties"] = {
            name: {key: value for key, value in spec.items() if key != "title"}
            if isinstance(spec, dict)
            else spec
            for name, spec in properties.items()
        }
    return trimmed


def _lifespan(
    runtime: LazyRuntime,
) -> Callable[[MCPServer], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        try:
            yield None
        finally:
            await runtime.aclose()

    return lifespan


def build_server(settings: Settings, runtime: LazyRuntime | None = None) -> MCPServer:
    """The complete server for `settings`; `runtime` lets tests supply their own services."""
    runtime = runtime if runtime is not None else LazyRuntime(settings)
    tools = CatalogTools(runtime)
    server = PwcServer(
        register_tools=lambda server: register_tools(server, tools),
        name=text.SERVER_NAME,
        title=text.SERVER_TITLE,
        description=text.SERVER_DESCRIPTION,
        instructions=text.INSTRUCTIONS,
        website_url=text.WEBSITE_URL,
        version=__version__,
        lifespan=_lifespan(runtime),
        cache_hints=CACHE_HINTS,
        # Tools, templates and prompts never change while serving, and no resource is
        # live: advertise neither list changes nor subscriptions (tools.md §7.1).
        subscriptions=False,
        log_level=settings.log_level.upper(),
    )
    register_resources(server, tools)
    register_prompts(server)
    register_completions(server, runtime)
    return server


def run_stdio(settings: Settings) -> int:
    """Serve MCP on stdin/stdout until the client closes stdin; the exit status.

    Requests still running when stdin closes may finish within one catalog timeout
    (plus a margin) before the session ends.
    """
    from pwc_local.server import stdio

    return stdio.run(build_server(settings), drain_timeout=settings.timeout + 5)
