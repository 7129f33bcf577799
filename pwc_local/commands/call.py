"""`pwc-mcp-local call TOOL [NAME=VALUE ...]` and `pwc-mcp-local tools`: tools from a terminal.

Both build the very server that `serve` runs and go through its public entry points
(`call_tool`, `list_tools`), so a call here takes the same path as a `tools/call`
from an MCP client: the same schema validation, cache, error codes and text.

`call` prints the tool's text block, the Markdown a model reads (or, with `--json`,
its structured result), on stdout and exits 0; a tool error prints its
`code: sentence` line on stderr and exits 1, or 2 when the arguments are at fault
(`invalid_argument`, as arguments that cannot be read: usage).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from pwc_local.commands import completion
from pwc_local.commands.tool_words import ArgumentError, build_arguments, describe_parameter

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
# The SDK puts this in front of every tool error; a terminal wants the code first.
_SDK_PREFIX = "Error executing tool "


def _settings(ctx: click.Context) -> Any:
    from pwc_local.commands.settings import settings_for

    return settings_for(ctx)


def _tool_error_line(name: str, message: str) -> str:
    """`code: sentence`, without the SDK's `Error executing tool NAME: ` prefix."""
    prefix = f"{_SDK_PREFIX}{name}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


def _closest_tools(name: str, tools: dict[str, Any]) -> str:
    """`did you mean sota_history?` when a tool is spelt close to `name`, else every tool."""
    import difflib

    close = difflib.get_close_matches(name, list(tools), n=3, cutoff=0.6)
    if close:
        return f"did you mean {' or '.join(close)}? (pwc-mcp-local tools lists them all)"
    return f"tools: {', '.join(sorted(tools))}"


async def _listing(settings: Any) -> list[Any]:
    from pwc_local.server.app import build_server

    return list(await build_server(settings).list_tools())


async def _call(settings: Any, name: str, words: tuple[str, ...], json_args: str | None) -> Any:
    """Validate the words against the tool's schema, then call it in-process."""
    from mcp.server.mcpserver.exceptions import ToolError

    from pwc_local.runtime import LazyRuntime
    from pwc_local.server.app import build_server

    runtime = LazyRuntime(settings)
    server = build_server(settings, runtime)
    try:
        tools = {tool.name: tool for tool in await server.list_tools()}
        tool = tools.get(name)
        if tool is None:
            raise click.UsageError(f"unknown tool {name!r}; {_closest_tools(name, tools)}")
        try:
            arguments = build_arguments(words, tool.input_schema, json_args)
        except ArgumentError as exc:
            raise click.UsageError(f"{name}: {exc}") from None
        try:
            return await server.call_tool(name, arguments)
        except ToolError as exc:
            return _tool_error_line(name, str(exc))
    finally:
        await runtime.aclose()


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("tool", shell_complete=completion.tool_names)
@click.argument(
    "assignments", nargs=-1, metavar="[NAME=VALUE]...", shell_complete=completion.tool_parameters
)
@click.option("--args", "json_args", metavar="JSON", help="Arguments as one JSON object.")
@click.option("--json", "as_json", is_flag=True, help="Print the structured result as JSON.")
@click.pass_context
def call(
    ctx: click.Context,
    tool: str,
    assignments: tuple[str, ...],
    json_args: str | None,
    as_json: bool,
) -> None:
    """Call one tool in-process and print its answer.

    Values are read by the tool's input schema: `paper=1706.03762` stays text,
    `limit=5` is a number, `authors=A,B` a list. Example:

        pwc-mcp-local call search_papers query="vision transformer" limit=3
    """
    import anyio

    settings = _settings(ctx)

    from pwc_local.commands.settings import start_logging

    start_logging(settings)
    outcome = anyio.run(_call, settings, tool, assignments, json_args)
    if not isinstance(outcome, str) and outcome.is_error:
        outcome = _tool_error_line(
            tool, " ".join(getattr(item, "text", "") for item in outcome.content)
        )
    if isinstance(outcome, str):  # a tool error, `code: sentence`
        from pwc_local.commands.settings import exit_status

        click.echo(outcome, err=True)
        sys.exit(exit_status(outcome))
    if as_json:
        from pwc_local.present.words import printable_json

        # The same JSON as ever; a control character in catalog text arrives escaped.
        click.echo(printable_json(outcome.structured_content, indent=2))
        return
    links = []
    for item in outcome.content:
        if getattr(item, "type", None) == "text":
            click.echo(item.text)
        elif getattr(item, "type", None) == "resource_link":
            links.append(str(item.uri))
    if links:  # one line: the text names each paper already
        more = f" and {len(links) - 1} more" if len(links) > 1 else ""
        click.echo(f"[resource links] {links[0]}{more}")


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print the tools/list answer as JSON.")
@click.pass_context
def tools(ctx: click.Context, as_json: bool) -> None:
    """List the tools this server offers, with their parameters and defaults."""
    import anyio

    listing = anyio.run(_listing, _settings(ctx))
    if as_json:
        documents = [
            tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listing
        ]
        click.echo(json.dumps(documents, indent=2, ensure_ascii=False))
        return
    for tool in listing:
        summary = (tool.description or "").strip().splitlines()
        click.echo(f"{tool.name}: {summary[0] if summary else ''}")
        schema = tool.input_schema
        required = set(schema.get("required") or [])
        for name, spec in (schema.get("properties") or {}).items():
            click.echo(f"    {describe_parameter(name, spec, name in required)}")
