"""`pwc-mcp-local doctor`: check the installation and say how to fix what is wrong.

The checks themselves live in `pwc_local.doctor`; this module resolves the settings
the same way the server would (including the group's `--api-url`, `--log-level` and
`--config` flags, which the self-test passes on to the server it starts) and prints
the result as aligned lines or, with `--json`, as one JSON object.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import click

from pwc_local import __version__
from pwc_local.config import ConfigError, Settings, load_settings

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
LABELS = {"ok": "ok", "warn": "WARN", "fail": "FAIL", "skip": "skip"}
_FLAG_OPTIONS = {"api_url": "--api-url", "log_level": "--log-level", "config_file": "--config"}


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--offline", is_flag=True, help="Skip the request to the catalog.")
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, offline: bool) -> None:
    """Check the installation and say how to fix what is wrong.

    Checks the configuration, the executable clients run, the cache directory, the
    cursor key, the catalog connection, a full MCP handshake with the server, and
    the entries in each MCP client's configuration. Exits with status 1 when any
    check fails.
    """
    from pwc_local.clients.entry import server_command
    from pwc_local.clients.targets import Host
    from pwc_local.doctor import has_failures, python_version, run_checks

    flags = dict(ctx.obj.get("flags", {})) if ctx.obj else {}
    server_args = [
        part
        for name, option in _FLAG_OPTIONS.items()
        if flags.get(name) is not None
        for part in (option, str(flags[name]))
    ]
    config_file = flags.pop("config_file", None)
    error: str | None = None
    try:
        settings = load_settings(flags, config_file=config_file)
    except ConfigError as exc:
        settings, error = Settings(), str(exc)

    checks = run_checks(
        settings,
        command=server_command(),
        host=Host.current(),
        config_error=error,
        offline=offline,
        server_args=server_args,
    )
    failed = has_failures(checks)
    if as_json:
        report = {
            "version": __version__,
            "python": python_version(),
            "ok": not failed,
            "checks": [asdict(check) for check in checks],
        }
        click.echo(json.dumps(report, indent=2, default=str))
    else:
        click.echo(f"pwc-mcp-local {__version__} (Python {python_version()})")
        for line in format_checks(checks):
            click.echo(line)
        count = sum(check.status == "fail" for check in checks)
        click.echo(f"{count} check{'s' if count != 1 else ''} failed." if failed else "All good.")
    ctx.exit(1 if failed else 0)


def format_checks(checks: Sequence[Any]) -> list[str]:
    """One line per check (`status  name  summary`), then the fix or details indented."""
    width = max(len(check.name) for check in checks)
    lines: list[str] = []
    for check in checks:
        lines.append(f"  {LABELS[check.status]:<4}  {check.name:<{width}}  {check.summary}")
        indent = " " * (8 + width)
        if check.name == "configuration" and check.status == "ok":
            key_width = max(map(len, check.details))
            for setting, info in check.details.items():
                value = "none" if info["value"] is None else info["value"]
                lines.append(f"{indent}{setting:<{key_width}} = {value}  ({info['source']})")
        if check.fix and check.status in ("fail", "warn"):
            lines.append(f"{indent}fix: {check.fix}")
    return lines
