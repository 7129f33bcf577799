"""The seam with the MCP SDK: every private attribute and internal module we rely on.

The rest of the package uses the SDK's public surface (`MCPServer`, its decorators
and `call_tool`/`list_tools`/... methods, `mcp_types`, the low-level `Server.run`)
and calls the functions here for the few things that surface does not offer. Each
is below with the reason we need it; `tests/test_sdk_seam.py` checks each one on a
freshly built `MCPServer`, so an SDK release that renames or removes one fails
there, by name, instead of breaking a session. pyproject.toml pins `mcp` to the
minor versions that test ran on; widen the pin only once it passes.

What we rely on (mcp 2.3), by function:

* `lowlevel_server`: `MCPServer._lowlevel_server`, the low-level `Server` inside,
  and its public `run(reads, writes, options)` and `create_initialization_options()`.
  Our stdio transport (server/stdio.py) runs it on in-memory streams, as the SDK's
  own `run_stdio_async` does; `MCPServer` offers no accessor.
* `on_initialized`: the same `Server`'s `add_notification_handler`. Start-up work
  (server/app.py) begins when the client says `notifications/initialized`;
  `MCPServer` has no hook for it.
* `registered_tool`: `MCPServer._tool_manager.get_tool(name)`, the SDK's `Tool`
  record just added, and its `fn_metadata` (a `FuncMetadata`), which the two
  functions below adjust.
* `validate_results_as`: `FuncMetadata.output_model` and `.output_schema`, which
  the SDK reads on every call. app.py registers a tool without its output model,
  so the SDK never generates the model's full JSON schema (a third of registering
  every tool), then sets the model and the compact schema here.
* `keep_text_as_typed`, `argument_fields`, `pre_parsed`: `FuncMetadata` itself,
  imported from the internal `mcp.server.mcpserver.utilities.func_metadata` and
  subclassed to override `pre_parse_json(arguments)`, built from the fields
  `arg_model` (whose `model_fields` name the parameters), `output_schema`,
  `output_model` and `wrap_output`. The SDK's pre-parsing turns `"null"` typed
  into a text parameter into None (server/hygiene.py says which parameters keep
  their text).

One more thing is no attribute but is checked there too: `PwcServer` (app.py)
overrides `MCPServer`'s public `list_tools`, `call_tool`, `list_resources`,
`list_resource_templates`, `read_resource`, `list_prompts` and `get_prompt`, which
works because the SDK's request handlers go through those methods.

Nothing else in pwc_local reads an underscored SDK attribute or imports from
`mcp.server.mcpserver.utilities`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, cast

from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp_types import NotificationParams
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

__all__ = [
    "argument_fields",
    "keep_text_as_typed",
    "lowlevel_server",
    "on_initialized",
    "pre_parsed",
    "registered_tool",
    "validate_results_as",
]


def lowlevel_server(server: MCPServer | Server) -> Server:
    """The SDK's low-level `Server` behind an `MCPServer` (or `server` itself, if it is one)."""
    lowlevel = cast("Server", getattr(server, "_lowlevel_server", server))
    if not (hasattr(lowlevel, "run") and hasattr(lowlevel, "create_initialization_options")):
        raise TypeError(f"{type(server).__name__} is not an MCP server this SDK release can run")
    return lowlevel


def on_initialized(server: MCPServer, handler: Callable[[Any, NotificationParams], Any]) -> None:
    """Call `handler(context, params)` when the client says `notifications/initialized`."""
    from mcp_types import NotificationParams

    lowlevel_server(server).add_notification_handler(
        "notifications/initialized", NotificationParams, handler
    )


def registered_tool(server: MCPServer, name: str) -> Tool:
    """The SDK's record of tool `name`, which `server.add_tool` registered."""
    tool = server._tool_manager.get_tool(name)
    if tool is None:
        raise KeyError(name)
    return tool


def validate_results_as(tool: Tool, model: type[BaseModel], schema: dict[str, Any]) -> None:
    """Validate `tool`'s results against `model`; publish `schema` as its output schema.

    The SDK builds the validator on the first call (0.2 ms for all our models).
    """
    metadata = tool.fn_metadata
    metadata.output_model = model
    metadata.output_schema = schema


def argument_fields(tool: Tool) -> Mapping[str, FieldInfo]:
    """`tool`'s parameters by name, as the SDK's argument model declares them."""
    return tool.fn_metadata.arg_model.model_fields


class _SelectivePreParsing(FuncMetadata):
    """`FuncMetadata` whose JSON pre-parsing leaves the string arguments `verbatim` names."""

    verbatim: frozenset[str] = frozenset()

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        kept = {k: v for k, v in data.items() if k in self.verbatim and isinstance(v, str)}
        parsed = super().pre_parse_json({k: v for k, v in data.items() if k not in kept})
        return {key: kept[key] if key in kept else parsed[key] for key in data}


def keep_text_as_typed(tool: Tool, verbatim: Collection[str]) -> None:
    """Let the SDK pre-parse JSON text in `tool`'s arguments except those named `verbatim`.

    The metadata is replaced by one with the same argument and output models.
    """
    metadata = tool.fn_metadata
    tool.fn_metadata = _SelectivePreParsing(
        arg_model=metadata.arg_model,
        output_schema=metadata.output_schema,
        output_model=metadata.output_model,
        wrap_output=metadata.wrap_output,
        verbatim=frozenset(verbatim),
    )


def pre_parsed(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """`arguments` as the SDK hands them to `tool`'s argument validation (tests use it)."""
    return tool.fn_metadata.pre_parse_json(arguments)
