"""Settings for a command: the main group's flags, a command's overrides, one error line.

`pwc_local.cli` and every subcommand load settings through here, so a configuration
error reads the same everywhere: one line on stderr, exit status 2, nothing on stdout.
A file a command writes where the user said (`--plot`, `--output`) goes through
`check_output` (before the work) and `write_output` (the write), so every such file
is refused and written the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from pwc_local.config import ConfigError, Settings, load_settings
from pwc_local.safe_text import shown

if TYPE_CHECKING:
    from mcp_types import CallToolResult

    from pwc_local.store.freshness import Freshness


def resolve_settings(**flags: Any) -> Settings:
    """Load settings or stop with one line on stderr and exit status 2."""
    config_file = flags.pop("config_file", None)
    try:
        return load_settings(flags, config_file=config_file)
    except ConfigError as exc:
        refuse(exc)


def settings_for(ctx: click.Context, **overrides: Any) -> Settings:
    """A subcommand's settings: the main group's flags (`--api-url`, ...), then `overrides`."""
    root = ctx.find_root()
    flags = dict(root.obj.get("flags", {})) if isinstance(root.obj, dict) else {}
    return resolve_settings(**flags, **overrides)


def refuse(exc: ConfigError) -> NoReturn:
    """Stop before serving: one line on stderr, exit status 2, nothing on stdout."""
    click.echo(f"pwc-mcp-local: configuration error: {exc}", err=True)
    sys.exit(2)


# Loggers whose warnings repeat a failure a command prints itself, as its `code: sentence`
# line or a watch's reason: the catalog client's causes, the tool errors' class names.
REPORTED = ("pwc_local.upstream", "pwc_local.server.errors")


def start_logging(settings: Settings) -> None:
    """The stderr log (and `log_file`) of a command that runs tools, or `refuse`.

    Unless `log_level` was set, stderr leaves out the warnings the command's own
    lines say again (`REPORTED`): one line per failure on a terminal.
    """
    from pwc_local.logs import configure_logging

    reported = REPORTED if settings.origin("log_level") == "the default" else ()
    try:
        configure_logging(settings.log_level, settings.log_file, reported=reported)
    except ConfigError as exc:
        refuse(exc)


T = TypeVar("T")


def exit_status(error: str) -> int:
    """A command's exit status for a tool error's `code: sentence`: 2 when the arguments
    are at fault (`invalid_argument`, as for words click cannot read), else 1."""
    return 2 if error.startswith("invalid_argument:") else 1


def run_tool_work(main: Callable[[], Awaitable[T]]) -> T:
    """Run a command's async work; a failure the tools would report (a `CodedError`) is
    its `code: sentence` line on stderr and its `exit_status`."""
    import anyio

    from pwc_local.failures import CodedError
    from pwc_local.server.errors import error_message

    try:
        return anyio.run(main)
    except CodedError as exc:
        message = error_message(exc)
        click.echo(f"pwc-mcp-local: {message}", err=True)
        sys.exit(exit_status(message))


# -- files a command writes at a path the user named (--plot, --output, --bib) ----------


def check_output(path: Path, *, force: bool, option: str) -> None:
    """Refuse now, before any work, an output file `write_output` would refuse.

    The directory must exist (never made here: a mistyped one would swallow the file
    unseen); a symbolic link or a non-file at the name is refused, and so is an
    existing file without `--force`. One line on stderr, exit status 1.
    """
    from pwc_local.private_files import target_refused

    name = shown(str(path))
    if not path.parent.is_dir():
        _no_output(
            f"cannot write {name}: the directory {shown(str(path.parent))} does not exist; "
            f"create it first or choose another {option}. Nothing was written."
        )
    refused = target_refused(path, replace=force)
    if refused is not None:
        _no_output(f"cannot write {name}: {refused.reason}.")


def write_output(path: Path, data: bytes, *, force: bool) -> bool:
    """Write `data` as the file `path` the user named; whether a file was replaced.

    Whole or not at all, created in its directory without following a link, an
    existing file replaced only with `force`, a link never
    (`private_files.write_file`). A refusal or failure is one line on stderr naming
    the path, and exit status 1, the file left as it was.
    """
    from pwc_local.private_files import TargetRefused, write_file

    name = shown(str(path))
    try:
        return write_file(path, data, replace=force)
    except TargetRefused as exc:
        _no_output(f"cannot write {name}: {exc.reason}.")
    except OSError as exc:
        _no_output(
            f"cannot write {name}: {exc.strerror or exc}; nothing was written "
            "(an existing file was left as it was)."
        )


def _no_output(sentence: str) -> NoReturn:
    click.echo(f"pwc-mcp-local: {sentence}", err=True)
    sys.exit(1)


def tool_output(
    name: str,
    answer: Any,
    arguments: dict[str, Any],
    settings: Settings,
    freshness: Freshness | None = None,
) -> CallToolResult:
    """What tool `name` would send for a command's `answer`: its text block (a stale
    answer's first line included) and `structuredContent`, in the settings' profile and
    `result_text` mode. A command's `--json` prints this JSON, so it is `call NAME
    --json`'s, one model per command."""
    from pwc_local.server.bindings import BY_NAME
    from pwc_local.server.tools import tool_result
    from pwc_local.store.freshness import Freshness

    spec = BY_NAME[name]
    model = spec.project(answer, arguments)
    return tool_result(spec, model, answer, arguments, freshness or Freshness(), settings)


def structured_json(result: CallToolResult) -> str:
    """A tool result's `structuredContent` as `call --json` prints it."""
    from pwc_local.present.words import printable_json

    return printable_json(result.structured_content, indent=2)


def result_text(result: CallToolResult) -> str:
    """A tool result's text block, as `call` prints it."""
    return "\n".join(getattr(item, "text", "") for item in result.content if item.type == "text")
