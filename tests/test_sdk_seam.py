"""Each SDK internal that pwc_local/server/sdk.py relies on, checked on a fresh MCPServer.

pyproject.toml pins `mcp` to the minor versions these tests ran on. An SDK release
that renames, removes or reshapes one of these fails here, naming what moved and
which function of sdk.py to mend, before any session breaks on it.
"""

from __future__ import annotations

import inspect
from importlib.metadata import version
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, NotificationParams, TextContent
from pydantic import BaseModel, ValidationError

from pwc_local.server import sdk

MCP = version("mcp")


def moved(what: str, relier: str) -> str:
    """The failure message: what the SDK no longer offers, and who leans on it."""
    return (
        f"mcp {MCP}: {what}. {relier} relies on it (pwc_local/server/sdk.py's docstring "
        "lists what we rely on and why); mend that before widening the mcp pin in pyproject.toml."
    )


class Answer(BaseModel):
    total: int


def paper(search: str | None = None, limit: int = 5) -> str:
    """A tool with a text parameter that the SDK would pre-parse as JSON."""
    return f"{search!r} {limit}"


def counted(total: int | None = None) -> CallToolResult:
    """A tool registered, as app.py does, without its output model."""
    structured = {} if total is None else {"total": total}
    return CallToolResult(
        content=[TextContent(type="text", text="x")], structured_content=structured
    )


def fresh() -> MCPServer:
    server = MCPServer("seam")
    server.add_tool(paper)
    return server


# -- the low-level Server -----------------------------------------------------------------


def test_an_mcpserver_holds_its_lowlevel_server_as_lowlevel_server() -> None:
    server = fresh()
    inner = getattr(server, "_lowlevel_server", None)
    assert isinstance(inner, Server), moved(
        "MCPServer has no `_lowlevel_server`", "sdk.lowlevel_server"
    )
    assert sdk.lowlevel_server(server) is inner
    assert sdk.lowlevel_server(inner) is inner


def test_the_lowlevel_server_runs_on_a_pair_of_streams() -> None:
    inner = sdk.lowlevel_server(fresh())
    run = getattr(inner, "run", None)
    assert callable(run), moved("the low-level Server has no `run`", "sdk.lowlevel_server")
    assert list(inspect.signature(run).parameters)[:3] == [
        "read_stream",
        "write_stream",
        "initialization_options",
    ], moved("`Server.run` takes other parameters", "sdk.lowlevel_server")
    options = getattr(inner, "create_initialization_options", None)
    assert callable(options), moved(
        "the low-level Server has no `create_initialization_options`", "sdk.lowlevel_server"
    )
    assert options().server_name == "seam"


def test_a_notification_handler_runs_when_the_client_says_initialized() -> None:
    server = fresh()
    assert callable(getattr(sdk.lowlevel_server(server), "add_notification_handler", None)), moved(
        "the low-level Server has no `add_notification_handler`", "sdk.on_initialized"
    )
    told = anyio.Event()

    async def initialized(_context: Any, params: NotificationParams) -> None:
        assert isinstance(params, NotificationParams)
        told.set()

    sdk.on_initialized(server, initialized)

    async def session() -> None:
        async with Client(server, mode="legacy"):
            with anyio.fail_after(10):
                await told.wait()

    anyio.run(session)


# -- the registered tool and its metadata -------------------------------------------------


def test_the_tool_manager_hands_out_the_registered_tool_with_its_metadata() -> None:
    server = fresh()
    manager = getattr(server, "_tool_manager", None)
    assert callable(getattr(manager, "get_tool", None)), moved(
        "MCPServer has no `_tool_manager.get_tool`", "sdk.registered_tool"
    )
    tool = sdk.registered_tool(server, "paper")
    assert tool.name == "paper"
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    assert isinstance(getattr(tool, "fn_metadata", None), FuncMetadata), moved(
        "a registered Tool has no `fn_metadata` FuncMetadata", "sdk.registered_tool"
    )
    with pytest.raises(KeyError):
        sdk.registered_tool(server, "absent")


def test_func_metadata_has_the_fields_we_copy() -> None:
    metadata = sdk.registered_tool(fresh(), "paper").fn_metadata
    for field in ("arg_model", "output_schema", "output_model", "wrap_output"):
        assert field in type(metadata).model_fields, moved(
            f"FuncMetadata has no field `{field}`", "sdk.keep_text_as_typed"
        )
    assert set(sdk.argument_fields(sdk.registered_tool(fresh(), "paper"))) == {"search", "limit"}


def test_results_are_validated_against_an_output_model_set_after_registration() -> None:
    server = MCPServer("seam")
    server.add_tool(counted)
    tool = sdk.registered_tool(server, "counted")
    schema = {"type": "object", "properties": {"total": {"type": "integer"}}}
    sdk.validate_results_as(tool, Answer, schema)
    sdk.keep_text_as_typed(tool, [])  # the order app.py uses: the model carries over
    assert tool.fn_metadata.output_schema == schema

    async def call(arguments: dict[str, Any]) -> Any:
        return await server.call_tool("counted", arguments)

    unchecked = moved(
        "an output model set after registration is not validated", "sdk.validate_results_as"
    )
    try:
        anyio.run(call, {})  # `total` is missing
    except Exception as refused:
        assert isinstance(refused.__cause__, ValidationError), unchecked
    else:
        pytest.fail(unchecked)
    assert anyio.run(call, {"total": 1}).structured_content == {"total": 1}


def test_replacing_the_metadata_changes_how_arguments_are_pre_parsed() -> None:
    server = fresh()
    tool = sdk.registered_tool(server, "paper")
    assert sdk.pre_parsed(tool, {"search": "null", "limit": "7"}) == {
        "search": None,
        "limit": "7",
    }, moved("FuncMetadata.pre_parse_json no longer parses JSON text", "sdk.keep_text_as_typed")
    sdk.keep_text_as_typed(tool, ["search"])
    assert sdk.pre_parsed(tool, {"search": "null", "limit": "7"}) == {
        "search": "null",
        "limit": "7",
    }

    async def called() -> CallToolResult:
        async with Client(server, mode="legacy") as client:
            return await client.call_tool("paper", {"search": "null"})

    answer = anyio.run(called)
    assert answer.content[0].text == "'null' 5", moved(  # type: ignore[union-attr]
        "the SDK does not read `Tool.fn_metadata` on each call", "sdk.keep_text_as_typed"
    )


# -- MCPServer's public methods, overridden ----------------------------------------------


class Recording(MCPServer):
    """Records which public methods the SDK's request handlers reached."""

    reached: set[str]

    def __init__(self) -> None:
        super().__init__("seam")
        self.reached = set()
        self.add_tool(paper)
        self.prompt(name="hello")(lambda: "hello")
        self.resource("seam://{name}", name="echo")(lambda name: name)

    async def list_tools(self) -> Any:
        self.reached.add("list_tools")
        return await super().list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        self.reached.add("call_tool")
        return await super().call_tool(name, arguments, context)

    async def list_resources(self) -> Any:
        self.reached.add("list_resources")
        return await super().list_resources()

    async def list_resource_templates(self) -> Any:
        self.reached.add("list_resource_templates")
        return await super().list_resource_templates()

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        self.reached.add("read_resource")
        return await super().read_resource(uri, context)

    async def list_prompts(self) -> Any:
        self.reached.add("list_prompts")
        return await super().list_prompts()

    async def get_prompt(self, name: str, arguments: Any = None, context: Any = None) -> Any:
        self.reached.add("get_prompt")
        return await super().get_prompt(name, arguments, context)


def test_requests_reach_the_public_methods_pwc_server_overrides() -> None:
    server = Recording()

    async def session() -> None:
        async with Client(server, mode="legacy") as client:
            await client.list_tools()
            await client.call_tool("paper", {})
            await client.list_resources()
            await client.list_resource_templates()
            await client.read_resource("seam://x")
            await client.list_prompts()
            await client.get_prompt("hello")

    anyio.run(session)
    overridden = {
        "list_tools",
        "call_tool",
        "list_resources",
        "list_resource_templates",
        "read_resource",
        "list_prompts",
        "get_prompt",
    }
    assert server.reached == overridden, moved(
        f"requests no longer go through MCPServer.{', '.join(sorted(overridden - server.reached))}",
        "app.py's PwcServer, which overrides them,",
    )
