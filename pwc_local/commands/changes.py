"""Showing or writing one planned change to an MCP client's config (`install`, `uninstall`).

`finish_change` is the one place a `Change` becomes output: its diff on a dry run, a
refusal naming `--force` on a conflict, else the write and a line saying what was
done and how the client picks it up.
"""

from __future__ import annotations

import click

from pwc_local.clients.errors import ClientConfigError
from pwc_local.clients.installer import Change, apply


def finish_change(change: Change, dry_run: bool) -> None:
    """Show a planned change (`dry_run`) or write it, and say what was done."""
    target, path, name = change.target, change.path, change.name
    if change.action == "conflict":
        click.echo(change.diff(), nl=False)
        raise click.ClickException(
            f"{path} already has a different entry {name!r} (the diff above shows what "
            "--force would change); rerun with --force to replace it"
        )
    if dry_run:
        diff = change.diff()
        if diff:
            click.echo(diff, nl=False)
            click.echo(f"Dry run: nothing was written to {path}.", err=True)
        else:
            click.echo(f"No changes: {no_change_reason(change)}", err=True)
        return
    if not change.writes:
        click.echo(f"Nothing to do: {no_change_reason(change)}")
        return
    try:
        saved = apply(change)
    except (ClientConfigError, OSError) as exc:
        raise click.ClickException(f"could not write {path}: {exc}") from None
    done = {"add": "Added {} to", "update": "Updated {} in", "remove": "Removed {} from"}
    click.echo(f"{done[change.action].format(repr(name))} the {target.title} config: {path}")
    if saved is not None:
        click.echo(f"Previous version saved as {saved}")
    if target.reload_hint:
        click.echo(target.reload_hint)


def no_change_reason(change: Change) -> str:
    if change.action == "absent":
        return f"there is no entry {change.name!r} in {change.path}"
    return f"{change.path} already has this entry {change.name!r}"
