"""The `pwc-mcp-local` command: serving starts without click; the rest goes through it.

An MCP client spawns `pwc-mcp-local` (or `pwc-mcp-local serve`) with at most the
server options, and waits for its first answer: that path imports neither click nor
anything else heavy (`pwc_local.server.launch`). Any other command line (a
subcommand, `--help`, `--version`, an option spelled another way, a bad value) is
the click front end's (`pwc_local.cli`), which serves the same way and says the
same errors.
"""

from __future__ import annotations

import os
import sys

COMPLETING = "_PWC_MCP_LOCAL_COMPLETE"  # set by the completion scripts (`cli.LazyGroup`)
# The server options and their setting names (`cli._server_options`).
SERVER_OPTIONS = {"--config": "config_file", "--log-level": "log_level", "--api-url": "api_url"}


def serving_flags(argv: list[str]) -> dict[str, str] | None:
    """The server options of a command line that only serves, else None.

    `[serve] [--option VALUE | --option=VALUE]...`; each option once.
    """
    flags: dict[str, str] = {}
    words = list(argv)
    if words[:1] == ["serve"]:
        words.pop(0)
    while words:
        word = words.pop(0)
        name, equals, value = word.partition("=")
        if name not in SERVER_OPTIONS or SERVER_OPTIONS[name] in flags:
            return None
        if not equals:
            if not words or words[0].startswith("-"):
                return None
            value = words.pop(0)
        flags[SERVER_OPTIONS[name]] = value
    return flags


def main() -> None:
    # A Tab in a shell runs the command with no arguments too: completion is click's.
    flags = None if COMPLETING in os.environ else serving_flags(sys.argv[1:])
    if flags is not None:
        from pwc_local.server.leaving import quit_on_signals

        quit_on_signals()  # a client may stop the server before it has loaded
        serve(flags)
    from pwc_local.cli import main as click_main

    click_main()


def serve(flags: dict[str, str]) -> None:
    """Serve with these flags; on a settings error, return (click says it, exit 2)."""
    from pwc_local.config import LOG_LEVELS, ConfigError, load_settings
    from pwc_local.server.launch import open_log
    from pwc_local.server.launch import serve as serve_stdio

    if "log_level" in flags:  # as click's choice takes it: any case
        flags["log_level"] = flags["log_level"].lower()
        if flags["log_level"] not in LOG_LEVELS:
            return
    config_file = flags.pop("config_file", None)
    try:
        if config_file:
            from pathlib import Path

            settings = load_settings(flags, config_file=Path(config_file))
        else:
            settings = load_settings(flags)
        open_log(settings)
    except ConfigError:
        return
    sys.exit(serve_stdio(settings))
