"""The `pwc-mcp-local` command line.

With no subcommand it serves MCP over stdio, which is what MCP clients spawn.
Subcommands that are not `serve` load their modules only when they run, so the
server's start-up pays for none of them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from pwc_local import __version__
from pwc_local.commands.settings import refuse, resolve_settings
from pwc_local.config import LOG_LEVELS, ConfigError, Settings

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}

# Subcommands other than `serve` live in their own modules and are imported only when
# invoked (or when help lists them), so serving never pays for them.
LAZY_COMMANDS: dict[str, str] = {
    "install": "pwc_local.commands.install:install",
    "uninstall": "pwc_local.commands.install:uninstall",
    "doctor": "pwc_local.commands.doctor:doctor",
    "cache": "pwc_local.commands.cache:cache",
    "key": "pwc_local.commands.key:key",
    "library": "pwc_local.commands.library:library",
    "call": "pwc_local.commands.call:call",
    "tools": "pwc_local.commands.call:tools",
    "completion": "pwc_local.commands.completion:completion",
    "watch": "pwc_local.commands.watch:watch",
    "whats-new": "pwc_local.commands.watch:whats_new",
    "sota": "pwc_local.commands.history:sota",
    "beaten": "pwc_local.commands.history:beaten",
    "table": "pwc_local.commands.results:table",
    "check": "pwc_local.commands.results:check",
}


class LazyGroup(click.Group):
    """A click group whose extra commands are named as `module:attribute` strings."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if "_PWC_MCP_LOCAL_COMPLETE" in os.environ:  # a Tab: our bash script and completers
            import pwc_local.commands.completion  # noqa: F401
        return super().main(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        import importlib

        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{target} is not a click command")
        return command


def _server_options(fn: Any) -> Any:
    """Options shared by the group (default `serve`) and the explicit `serve`."""
    fn = click.option(
        "--config",
        "config_file",
        type=click.Path(path_type=Path),  # checked by load_settings, in one line
        help="Read settings from this TOML file instead of ~/.config/pwc/mcp-local.toml.",
    )(fn)
    fn = click.option(
        "--log-level",
        type=click.Choice(LOG_LEVELS, case_sensitive=False),
        help="Log verbosity on stderr (default: warning).",
    )(fn)
    fn = click.option(
        "--api-url",
        metavar="URL",
        help="Catalog API base URL (default: $PWC_API_URL or https://paperswithcode.co/api/v1).",
    )(fn)
    return fn


@click.group(cls=LazyGroup, invoke_without_command=True, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", "-V", prog_name="pwc-mcp-local")
@_server_options
@click.pass_context
def main(ctx: click.Context, **flags: Any) -> None:
    """Papers With Code research catalog as a local MCP server (stdio).

    Run without a command to serve MCP on stdin/stdout; MCP clients do this for you.
    """
    ctx.ensure_object(dict)
    ctx.obj["flags"] = flags
    if ctx.invoked_subcommand is None:
        _serve(resolve_settings(**flags))


@main.command(context_settings=CONTEXT_SETTINGS)
@_server_options
@click.pass_context
def serve(ctx: click.Context, **flags: Any) -> None:
    """Serve MCP over stdio (the default when no command is given)."""
    inherited = ctx.obj.get("flags", {}) if ctx.obj else {}
    merged = {k: v if v is not None else inherited.get(k) for k, v in flags.items()}
    _serve(resolve_settings(**merged))


def _serve(settings: Settings) -> None:
    from pwc_local.server.launch import open_log, serve

    try:
        open_log(settings)
    except ConfigError as exc:
        refuse(exc)
    sys.exit(serve(settings))
