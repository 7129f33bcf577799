"""`pwc-mcp-local key status | rotate`: the per-machine cursor signing key.

Neither command ever prints the key itself: only its path, mode, owner and key id
(the 16-hex-digit `kid` that cursors carry).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from pwc_local.store.keys import (
    ENV_CURRENT,
    KeyFileError,
    KeyFileInfo,
    KeyStatus,
    key_status,
    replace_insecure_key,
    rotate_key,
)

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
JSON_HELP = "Print the result as one JSON object."


@click.group(context_settings=CONTEXT_SETTINGS)
def key() -> None:
    """Show or rotate the key that signs read_paper continuation cursors."""


@key.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def status(as_json: bool) -> None:
    """Show where the key lives, its mode, owner and key id (never the key).

    Exits with status 1 when the key file cannot be used as it is.
    """
    result = key_status()
    if as_json:
        click.echo(json.dumps(_status_document(result), indent=2))
    else:
        click.echo(f"Key directory: {result.directory}")
        if result.source == "environment":
            click.echo(f"In force:      {ENV_CURRENT} (kid {result.env_current_kid})")
            if result.env_previous_kid:
                click.echo(f"Also accepted: previous key (kid {result.env_previous_kid})")
        click.echo(_file_line("cursor-key", result.current, "made on first use"))
        click.echo(_file_line("previous", result.previous, "kept by key rotate"))
        if result.problem:
            click.echo(f"Problem:       {result.problem}")
    if result.problem:
        sys.exit(1)


@key.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.option(
    "--replace-insecure",
    is_flag=True,
    help="Replace a key file other users could read (or not owned by you, or a "
    "symbolic link) with a new key; cursors issued before stop working.",
)
def rotate(as_json: bool, replace_insecure: bool) -> None:
    """Make a new key and keep the old one as "previous".

    Cursors issued before the rotation stay valid until they expire. Servers that
    are already running keep signing with the key they loaded until restarted.

    A key other users could read is refused, because keeping it as "previous" would
    keep honouring cursors anyone could forge; --replace-insecure deletes it (and
    its previous key) and makes a new one, so every earlier cursor becomes invalid.
    """
    if replace_insecure:
        _replace_insecure(as_json)
        return
    try:
        ring = rotate_key()
    except KeyFileError as exc:
        click.echo(f"pwc-mcp-local: {exc}", err=True)
        if key_status().problem is not None:
            click.echo(
                "pwc-mcp-local: to replace that key with a new one instead (open read_paper "
                "cursors then stop working): pwc-mcp-local key rotate --replace-insecure",
                err=True,
            )
        sys.exit(1)
    except OSError as exc:
        click.echo(f"pwc-mcp-local: cannot rotate the cursor key: {exc}", err=True)
        sys.exit(1)
    env_note = None
    if key_status().source == "environment":
        env_note = f"{ENV_CURRENT} is set and overrides the key file until it is unset"
        click.echo(f"pwc-mcp-local: note: {env_note}", err=True)
    if as_json:
        document = {
            "path": str(ring.path),
            "kid": ring.current_kid,
            "previous_kid": ring.previous_kid,
        }
        click.echo(json.dumps(document, indent=2))
        return
    if ring.previous is None:  # there was no key yet: nothing to keep as previous
        click.echo(f"Created the cursor key in {ring.path} (key id {ring.current_kid}).")
        return
    click.echo(f"Rotated the cursor key in {ring.path}.")
    click.echo(f"New key id: {ring.current_kid}; previous key id: {ring.previous_kid}.")
    click.echo("Restart running servers to sign new cursors with the new key.")


def _replace_insecure(as_json: bool) -> None:
    from pwc_local.logs import configure_logging

    configure_logging("warning")  # the replacement is logged as the server logs, on stderr
    try:
        ring = replace_insecure_key()
    except KeyFileError as exc:
        click.echo(f"pwc-mcp-local: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        click.echo(f"pwc-mcp-local: cannot replace the cursor key: {exc}", err=True)
        sys.exit(1)
    if as_json:
        document = None if ring is None else {"path": str(ring.path), "kid": ring.current_kid}
        click.echo(json.dumps({"replaced": ring is not None, "key": document}, indent=2))
        return
    if ring is None:
        click.echo("Nothing to replace: the cursor key files are private to you.")
        click.echo("Use `pwc-mcp-local key rotate` for a routine rotation.")
        return
    click.echo(f"Replaced the cursor key in {ring.path} (new key id {ring.current_kid}).")
    click.echo("Cursors issued before are no longer valid: read those papers from the start.")
    click.echo("Restart running servers to sign new cursors with the new key.")


def _file_line(label: str, info: KeyFileInfo, absent: str) -> str:
    if not info.exists:
        return f"{label + ':':<14} {info.path} (not present; {absent})"
    mode = f"{info.mode:04o}" if info.mode is not None else "?"
    owner = f", owner uid {info.owner_uid}" if info.owner_uid is not None else ""
    kid = f", kid {info.kid}" if info.kid else ""
    return f"{label + ':':<14} {info.path} (mode {mode}{owner}{kid})"


def _status_document(result: KeyStatus) -> dict[str, Any]:
    def file_document(info: KeyFileInfo) -> dict[str, Any]:
        return {
            "path": str(info.path),
            "exists": info.exists,
            "mode": f"{info.mode:04o}" if info.mode is not None else None,
            "owner_uid": info.owner_uid,
            "kid": info.kid,
        }

    return {
        "directory": str(result.directory),
        "source": result.source,
        "current": file_document(result.current),
        "previous": file_document(result.previous),
        "env_current_kid": result.env_current_kid,
        "env_previous_kid": result.env_previous_kid,
        "problem": result.problem,
    }
