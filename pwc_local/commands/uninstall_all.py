"""`pwc-mcp-local uninstall --all [--purge [--yes]]`: leave every client, say what stays.

Every client in `pwc_local.clients.targets.TARGETS` is visited at its user-level
config; each entry of ours in it (`is_our_entry`: named `pwc-local`, or running
pwc-mcp-local under another name) is removed through the same plan/apply steps as
`uninstall CLIENT`, so the file is backed up first and `--dry-run` shows the diff.
Project files cannot be found from here and are only mentioned. Then what stays on
disk is listed (`pwc_local.clients.leftovers`), each item with the command that
removes it; `--purge` removes them after a confirmation (`--yes` skips it).
"""

from __future__ import annotations

from pathlib import Path

import click

from pwc_local.clients.entry import is_our_entry
from pwc_local.clients.errors import ClientConfigError
from pwc_local.clients.installer import load_document, plan_uninstall
from pwc_local.clients.leftovers import HOLDS, Leftover, find_leftovers, purge, settings_file
from pwc_local.clients.targets import TARGETS, Host
from pwc_local.commands.changes import finish_change
from pwc_local.config import load_settings


def uninstall_all(*, dry_run: bool, purge: bool, yes: bool) -> int:
    """Do it, printing as it goes; the exit status (1 when a file could not be read)."""
    status = 0
    removed = 0
    host = Host.current()
    for target in TARGETS.values():
        path = target.user_path(host)
        if not path.exists():
            continue
        try:
            _source, document = load_document(target, path)
            names = [
                name for name, entry in document.servers().items() if is_our_entry(name, entry)
            ]
            for name in names:
                finish_change(plan_uninstall(target, path, name), dry_run)
                removed += 1
        except ClientConfigError as exc:
            click.echo(f"{target.title}: {exc}. The file was left unchanged.", err=True)
            status = 1
    if not removed:
        click.echo("No pwc-mcp-local entry in any client's user config.")
    shared = [
        target.project_path(Path()).as_posix()
        for target in TARGETS.values()
        if target.project_path is not None
    ]
    click.echo(
        f"Project files ({', '.join(shared)}) are not searched: "
        "pwc-mcp-local uninstall CLIENT --project DIR removes an entry there."
    )
    settings = load_settings(problems=[])  # a bad setting must not stop the clean-up
    leftovers = find_leftovers(settings)
    _report(leftovers, settings_file(settings), purging=purge)
    if purge:
        status = max(status, _purge(leftovers, dry_run=dry_run, yes=yes))
    click.echo("Last, remove the program itself: pipx uninstall pwc-mcp-local")
    return status


def _report(leftovers: list[Leftover], settings: Path | None, *, purging: bool) -> None:
    if not leftovers:
        click.echo("Nothing of pwc-mcp-local's is left on disk (cache, library, cursor key).")
    else:
        click.echo("Still on disk (each is safe to remove while no server runs):")
        width = max(len(item.what) for item in leftovers)
        for item in leftovers:
            click.echo(f"  {item.what:<{width}}  {item.describe()}")
            if item.problem is not None:
                click.echo(f"  {'':<{width}}  not removed by --purge: {item.problem}")
            else:
                click.echo(f"  {'':<{width}}  remove: {item.remove_command()}")
        if not purging:
            click.echo("pwc-mcp-local uninstall --all --purge removes them all.")
    if settings is not None:
        click.echo(f"Your settings file {settings} is kept; delete it by hand if you like.")


def _purge(leftovers: list[Leftover], *, dry_run: bool, yes: bool) -> int:
    """Delete what can be; the exit status is 1 when something is (or would be) left."""
    doomed = [item for item in leftovers if item.problem is None]
    kept = [item for item in leftovers if item.problem is not None]
    left = f" and leave {_listed(kept)} (above)" if kept else ""
    if dry_run:
        if doomed:
            click.echo(
                f"Dry run: --purge would delete {_listed(doomed)}{left}; nothing was deleted."
            )
        elif kept:
            click.echo(
                f"Dry run: --purge would leave {_listed(kept)} (above); nothing was deleted."
            )
        return 1 if kept else 0
    if doomed and not yes:
        lost = [held for item in doomed for held in HOLDS.get(item.what, ())] + ["open cursors"]
        said = lost[0] if len(lost) == 1 else f"{', '.join(lost[:-1])} and {lost[-1]}"
        question = f"Delete {_listed(doomed)} for good ({said} are lost)?"
        if not click.confirm(question, default=False):
            click.echo("Nothing was deleted.")
            return 0
    failures = purge(doomed)
    for line in failures:
        click.echo(line, err=True)
    for item in doomed:
        if not any(str(path) in line for path in item.paths for line in failures):
            click.echo(f"Deleted the {item.what}: {item.where}")
    if kept:
        click.echo(
            f"Left {_listed(kept)}: see above for why and how to remove it by hand.", err=True
        )
    return 1 if failures or kept else 0


def _listed(items: list[Leftover]) -> str:
    """`the cache`, `the cache and the library`, `the cache, the library and the cursor key`."""
    names = [f"the {item.what}" for item in items]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
