"""`pwc-mcp-local doctor`: check the installation and say how to fix what is wrong.

The checks themselves live in `pwc_local.doctor`; this module resolves the settings
the same way the server would (including the group's `--api-url`, `--log-level` and
`--config` flags, which the self-test passes on to the server it starts) and prints
the result as aligned lines or, with `--json`, as one JSON object.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import click

from pwc_local import __version__
from pwc_local.config import load_settings

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
LABELS = {"ok": "ok", "warn": "WARN", "fail": "FAIL", "skip": "skip"}
NAME_WIDTH = len("claude-desktop")  # the longest check name
_FLAG_OPTIONS = {"api_url": "--api-url", "log_level": "--log-level", "config_file": "--config"}


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--offline", is_flag=True, help="Skip the request to the catalog.")
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, offline: bool) -> None:
    """Check the installation and say how to fix what is wrong.

    Checks the configuration, the executable clients run, the cache directory, the
    cursor key, the catalog connection, a full MCP handshake with the server, and
    the entries in each MCP client's configuration: each is started as its client
    starts it, and its catalog checked with the settings it runs with (its own env,
    else the defaults), naming every setting that differs from this shell's. Exits
    with status 1 when any check fails.
    """
    if not as_json:  # at once, before the slower imports below
        click.echo(f"pwc-mcp-local {__version__} (Python {_python_version()})")
    from pwc_local.clients.entry import server_command
    from pwc_local.clients.targets import Host
    from pwc_local.doctor import iter_checks, python_version

    # The catalog client logs each failure for the server's log; here the check's own
    # line says it, so the warning would only repeat it on stderr.
    logging.getLogger("pwc_local.upstream").addHandler(logging.NullHandler())
    flags = dict(ctx.obj.get("flags", {})) if ctx.obj else {}
    server_args = [
        part
        for name, option in _FLAG_OPTIONS.items()
        if flags.get(name) is not None
        for part in (option, str(flags[name]))
    ]
    config_file = flags.pop("config_file", None)
    # Every valid setting is kept, so the catalog check still probes the URL and the
    # timeout the user set when some other value is wrong.
    problems: list[str] = []
    settings = load_settings(flags, config_file=config_file, problems=problems)
    error = "; ".join(problems) or None

    checks = iter_checks(
        settings,
        command=server_command(),
        host=Host.current(),
        config_error=error,
        offline=offline,
        server_args=server_args,
        settings_file=config_file,
    )
    done: list[Any] = []
    if as_json:
        done = list(checks)
        report = {
            "version": __version__,
            "python": python_version(),
            "ok": not any(check.status == "fail" for check in done),
            "checks": [asdict(check) for check in done],
        }
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        # Each line goes out as its check completes: the slow ones (catalog, server
        # starts) come last, and the first lines appear at once.
        for check in checks:
            done.append(check)
            for line in format_checks([check]):
                click.echo(line)
        count = sum(check.status == "fail" for check in done)
        click.echo(f"{count} check{'s' if count != 1 else ''} failed." if count else "All good.")
    ctx.exit(1 if any(check.status == "fail" for check in done) else 0)


def _python_version() -> str:
    return ".".join(map(str, sys.version_info[:3]))


def format_checks(checks: Sequence[Any]) -> list[str]:
    """One line per check (`status  name  summary`), then the fix or details indented.

    The name column has a fixed width (the longest check name), so lines printed one
    at a time still line up."""
    width = max(NAME_WIDTH, *(len(check.name) for check in checks))
    lines: list[str] = []
    for check in checks:
        lines.append(f"  {LABELS[check.status]:<4}  {check.name:<{width}}  {check.summary}")
        indent = " " * (10 + width)  # under the summary
        if check.name == "configuration" and check.status == "ok":
            key_width = max(map(len, check.details))
            for setting, info in check.details.items():
                value = "none" if info["value"] is None else info["value"]
                lines.append(f"{indent}{setting:<{key_width}} = {value}  ({info['source']})")
        lines += [f"{indent}note: {note}" for note in check.notes]
        if check.fix and check.status in ("fail", "warn"):
            lines.append(f"{indent}fix: {check.fix}")
    return lines
