"""`pwc-mcp-local install CLIENT` and `pwc-mcp-local uninstall CLIENT`.

Both edit one client's own configuration file (see `pwc_local.clients.targets` for
which file and format) through the plan/apply steps of
`pwc_local.clients.installer`, so `--dry-run` shows exactly what a real run writes.
`install print` writes nothing and prints an entry to paste into any other client.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import click

from pwc_local import contract
from pwc_local.clients.entry import (
    DEFAULT_NAME,
    ServerEntry,
    entry_for,
    parse_env,
    secret_names,
    server_env_problems,
    validate_name,
)
from pwc_local.clients.errors import ClientConfigError
from pwc_local.clients.installer import Change, ConfigDocument, plan_install, plan_uninstall
from pwc_local.clients.targets import (
    PROJECT_SCOPE,
    TARGETS,
    USER_SCOPE,
    ClientTarget,
    Host,
    Scope,
)
from pwc_local.commands.changes import finish_change, no_change_reason

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
PRINT = "print"
PROJECT_CLIENTS = [key for key, target in TARGETS.items() if target.project_path]
# The tools that write (no readOnlyHint): Codex asks before each call of one, and
# refuses it where it cannot ask (`codex exec`, approval "never").
WRITING_TOOLS = tuple(
    tool.name for tool in contract.TOOLS if not tool.hints.get("read_only_hint", False)
)
CODEX_APPROVAL = (
    f"Codex asks before each call of {', '.join(WRITING_TOOLS)} (they write), and refuses "
    "them where it cannot ask (codex exec); install codex --approve-writes --force lets "
    "them run without asking."
)


def _check_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return validate_name(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _check_env(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> dict[str, str]:
    try:
        return parse_env(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _common_options(fn: click.decorators.FC) -> click.decorators.FC:
    fn = click.option(
        "--via-cli",
        is_flag=True,
        help="claude-code only: run `claude mcp add`/`remove` instead of editing the file.",
    )(fn)
    fn = click.option(
        "--file",
        "config_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Edit this configuration file instead of the client's usual one.",
    )(fn)
    fn = click.option(
        "--project",
        type=click.Path(file_okay=False, path_type=Path),
        metavar="DIR",
        help="Use the project-level file in DIR (" + ", ".join(PROJECT_CLIENTS) + ").",
    )(fn)
    fn = click.option("--dry-run", is_flag=True, help="Print the diff and write nothing.")(fn)
    fn = click.option(
        "--name",
        default=DEFAULT_NAME,
        metavar="NAME",
        show_default=True,
        callback=_check_name,
        help="Entry name (letters, digits, '-', '_').",
    )(fn)
    return fn


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("client", type=click.Choice([*TARGETS, PRINT]), metavar="CLIENT")
@_common_options
@click.option(
    "--env",
    "env",
    multiple=True,
    metavar="KEY=VALUE",
    callback=_check_env,
    help="Environment variable for the server process (repeatable).",
)
@click.option("--force", is_flag=True, help="Replace an existing entry of this name that differs.")
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Write a secret-looking --env value (a key, token, password) into the file, made 0600.",
)
@click.option(
    "--approve-writes",
    is_flag=True,
    help="codex only: let " + ", ".join(WRITING_TOOLS) + " run without asking "
    '(approval_mode = "approve").',
)
@click.option(
    "--for",
    "shape",
    type=click.Choice(list(TARGETS)),
    metavar="CLIENT",
    help="With print: the entry in CLIENT's own shape, under its key.",
)
def install(
    client: str,
    name: str,
    dry_run: bool,
    project: Path | None,
    config_file: Path | None,
    via_cli: bool,
    env: dict[str, str],
    force: bool,
    allow_secret: bool,
    approve_writes: bool,
    shape: str | None,
) -> None:
    """Register pwc-mcp-local with an MCP client.

    CLIENT is one of: claude-desktop, claude-code, vscode, cursor, windsurf, codex,
    zed, gemini, opencode, cline, lmstudio, copilot, goose, or `print` to print an entry for
    any other client (`--for CLIENT`: in that client's shape). The entry runs this
    installation by its absolute path; in a project's shared file (--project) it runs
    `pwc-mcp-local` by name, which must then be on the team's PATH. Other servers and
    settings in the file are kept; a dated `.bak` copy is written before any change
    (the last three are kept). --env values the server would refuse are rejected,
    and so is a secret-looking one (a key, token or password) unless --allow-secret.
    """
    problems = server_env_problems(env)
    if problems:
        raise click.BadParameter(
            "; ".join(problems) + " (the server would refuse to start with it)",
            param_hint="'--env'",
        )
    secrets = secret_names(env)
    if shape is not None and client != PRINT:
        raise click.UsageError("--for goes with print")
    if approve_writes and client != "codex":
        raise click.UsageError("--approve-writes works only with codex")
    if client == PRINT:
        if secrets:
            click.echo(f"Note: the entry below carries the secret {', '.join(secrets)}.", err=True)
        _print_entry(name, entry_for(env, portable=False), TARGETS.get(shape or ""))
        return
    target = TARGETS[client]
    if approve_writes:  # the approvals become part of the entry we write and compare
        tools = {tool: {"approval_mode": "approve"} for tool in WRITING_TOOLS}
        target = replace(target, extra={**target.extra, "tools": tools})
    path, scope = _config_path(target, project, config_file, via_cli)
    if secrets:
        _refuse_secrets(secrets, path, allow_secret, shared=scope.portable, via_cli=via_cli)
    entry = entry_for(env, portable=scope.portable)
    wanted = target.render(entry, name)
    change = _plan(
        lambda: plan_install(target, path, name, wanted, force=force, private=bool(secrets))
    )
    if via_cli:
        _claude_cli_install(change, entry, project, dry_run)
    else:
        finish_change(change, dry_run)
    if scope.note and not dry_run and change.action != "conflict":
        click.echo(scope.note.format(path=path))
    if target.notice and not dry_run:
        click.echo(target.notice)
    if scope.portable and target.project_notice and not dry_run:
        click.echo(target.project_notice)
    if target.id == "codex" and not approve_writes and not dry_run:
        click.echo(CODEX_APPROVAL)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("client", type=click.Choice(list(TARGETS)), metavar="[CLIENT]", required=False)
@_common_options
@click.option(
    "--all",
    "every_client",
    is_flag=True,
    help="Remove our entries from every client's user config; list what stays on disk.",
)
@click.option(
    "--purge", is_flag=True, help="With --all: also delete the cache, library and cursor key."
)
@click.option("--yes", "-y", is_flag=True, help="Do not ask before --purge deletes.")
@click.pass_context
def uninstall(
    ctx: click.Context,
    client: str | None,
    name: str,
    dry_run: bool,
    project: Path | None,
    config_file: Path | None,
    via_cli: bool,
    every_client: bool,
    purge: bool,
    yes: bool,
) -> None:
    """Remove pwc-mcp-local's entry from an MCP client's configuration.

    Only the entry called NAME is removed; everything else in the file stays. With
    --all, every entry of ours (any name that runs pwc-mcp-local) in every client's
    user config is removed, each file backed up first, and what stays on disk is
    listed with the command that removes it; --purge removes that too, after asking.
    """
    if every_client:
        if client or project or config_file or via_cli or name != DEFAULT_NAME:
            raise click.UsageError("--all takes no CLIENT, --project, --file, --name or --via-cli")
        from pwc_local.commands.uninstall_all import uninstall_all

        ctx.exit(uninstall_all(dry_run=dry_run, purge=purge, yes=yes))
    if purge or yes:
        raise click.UsageError("--purge and --yes go with --all")
    if client is None:
        raise click.UsageError("give a CLIENT, or --all for every client")
    target = TARGETS[client]
    path, _scope = _config_path(target, project, config_file, via_cli)
    change = _plan(lambda: plan_uninstall(target, path, name))
    if via_cli:
        _claude_cli_uninstall(change, project, dry_run)
        return
    finish_change(change, dry_run)


# -- helpers ------------------------------------------------------------------------------


def _config_path(
    target: ClientTarget, project: Path | None, config_file: Path | None, via_cli: bool
) -> tuple[Path, Scope]:
    """The file to edit and its scope (which decides how the entry names the program)."""
    if via_cli and target.id != "claude-code":
        raise click.UsageError("--via-cli works only with claude-code")
    if project is not None and config_file is not None:
        raise click.UsageError("give --project or --file, not both")
    if config_file is not None:
        return config_file.expanduser().absolute(), USER_SCOPE
    if project is not None:
        if target.project_path is None:
            raise click.UsageError(f"{target.id} has no project-level configuration")
        if not project.is_dir():
            raise click.UsageError(f"project directory {project} does not exist")
        return target.project_path(project.expanduser().absolute()), PROJECT_SCOPE
    return target.user_path(Host.current()), USER_SCOPE


def _refuse_secrets(
    names: list[str], path: Path, allowed: bool, *, shared: bool, via_cli: bool
) -> None:
    """Stop unless a secret may go into the client's file (see `install`'s help).

    Refused rather than asked: install runs from scripts (install.sh) where no one can
    answer, and the server does not need its key there (it keeps its own, 0600). A
    shared project file and `claude mcp add` (whose arguments `ps` shows to every user)
    never take one.
    """
    listed = ", ".join(names)
    where = f"{path}, which the client, other programs and backups read"
    if shared or via_cli:
        channel = "a shared project file" if shared else "claude's command line, seen by ps"
        raise click.UsageError(f"--env {listed} looks like a secret; it never goes into {channel}")
    if not allowed:
        raise click.UsageError(
            f"--env {listed} looks like a secret and would be written into {where}; leave it "
            "out (the server keeps its own cursor key in a 0600 file), or add --allow-secret "
            "to write it (the file is then made 0600)"
        )


def _plan(make: Callable[[], Change]) -> Change:
    try:
        return make()
    except ClientConfigError as exc:
        raise click.ClickException(f"{exc}. The file was left unchanged.") from None


def _print_entry(name: str, entry: ServerEntry, target: ClientTarget | None) -> None:
    """The entry as `mcpServers` JSON, which most clients read; with `target`, exactly
    what `install` would write into an empty file of that client's."""
    if target is not None:
        text = ConfigDocument(target, None).with_entry(name, target.render(entry, name))
        click.echo(text.rstrip("\n"))
    else:
        rendered: dict[str, object] = {"command": entry.command, "args": list(entry.args)}
        if entry.env:
            rendered["env"] = dict(entry.env)
        click.echo(json.dumps({"mcpServers": {name: rendered}}, indent=2))
    click.echo()
    click.echo(f"Command line: {_command_line([entry.command, *entry.args], entry.env)}")


def _command_line(argv: list[str], env: Mapping[str, str]) -> str:
    if os.name == "nt":
        return subprocess.list2cmdline(argv)
    # POSIX shells accept `KEY=VALUE command ...` to set the environment for one run.
    return shlex.join([*(f"{key}={value}" for key, value in env.items()), *argv])


# -- claude-code through its own command line ----------------------------------------------


def _claude() -> str:
    found = shutil.which("claude")
    if found is None:
        raise click.ClickException(
            "--via-cli needs the `claude` command on PATH; without --via-cli the "
            "configuration file is edited directly"
        )
    return found


def _scope(project: Path | None) -> list[str]:
    return ["--scope", "project" if project is not None else "user"]


def _claude_cli_install(
    change: Change, entry: ServerEntry, project: Path | None, dry_run: bool
) -> None:
    if change.action == "unchanged":
        click.echo(f"Nothing to do: {no_change_reason(change)}")
        return
    if change.action == "conflict":
        finish_change(change, dry_run)  # raises with the diff
    claude = _claude()
    commands: list[list[str]] = []
    if change.action == "update":
        commands.append([claude, "mcp", "remove", *_scope(project), change.name])
    env_options = [option for k, v in entry.env.items() for option in ("--env", f"{k}={v}")]
    commands.append(
        [
            claude,
            "mcp",
            "add",
            "--transport",
            "stdio",
            *_scope(project),
            *env_options,
            change.name,
            "--",
            entry.command,
            *entry.args,
        ]
    )
    _run_all(commands, project, dry_run)


def _claude_cli_uninstall(change: Change, project: Path | None, dry_run: bool) -> None:
    if change.action == "absent":
        click.echo(f"Nothing to do: {no_change_reason(change)}")
        return
    _run_all([[_claude(), "mcp", "remove", *_scope(project), change.name]], project, dry_run)


def _run_all(commands: list[list[str]], project: Path | None, dry_run: bool) -> None:
    if dry_run:
        for argv in commands:
            click.echo("Would run: " + shlex.join(argv))
        click.echo("Dry run: nothing was run or written.", err=True)
        return
    for argv in commands:
        click.echo("Running: " + shlex.join(argv))
        try:
            result = subprocess.run(argv, cwd=project, check=False)
        except OSError as exc:
            raise click.ClickException(f"could not run {argv[0]}: {exc}") from None
        if result.returncode != 0:
            raise click.ClickException(f"`claude mcp` failed with exit status {result.returncode}")
