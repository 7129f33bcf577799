"""`pwc-mcp-local cache stats | clear | prune`: look after the disk cache.

The commands are safe while servers run: the cache is shared through SQLite
transactions, so a server at worst sees a miss and fetches again.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NoReturn

import click

from pwc_local.config import format_size
from pwc_local.failures import coded_text
from pwc_local.store.cache import KINDS, CacheError, CacheStats, DiskCache

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
JSON_HELP = "Print the result as one JSON object."


@click.group(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Use this cache directory instead of the configured one.",
)
@click.pass_context
def cache(ctx: click.Context, cache_dir: Path | None) -> None:
    """Inspect and tidy the local response and Markdown cache.

    The cache lives in the user cache directory (or PWC_MCP_LOCAL_CACHE_DIR) and
    is bounded by PWC_MCP_LOCAL_CACHE_SIZE (default 1 GiB), evicting the least
    recently used entries first.
    """
    from pwc_local.commands.settings import settings_for

    settings = settings_for(ctx, cache_dir=str(cache_dir) if cache_dir else None)
    ctx.obj = DiskCache.from_settings(settings)
    ctx.call_on_close(ctx.obj.close)


@cache.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def stats(store: DiskCache, as_json: bool) -> None:
    """Show location, size bound, and entries and bytes per kind."""
    result = _run(store.stats)
    if as_json:
        _print_json(_stats_document(result))
        return
    click.echo(f"Cache directory: {result.directory}")
    bound, volume = format_size(result.size_limit), format_size(result.volume)
    click.echo(f"Size bound:      {bound} (on disk now: {volume})")
    click.echo("")
    rows: list[tuple[str, ...]] = [("kind", "entries", "size", "oldest", "newest")]
    for kind, numbers in result.kinds.items():
        rows.append(
            (
                kind,
                str(numbers.entries),
                format_size(numbers.bytes),
                _when(numbers.oldest) or "-",
                _when(numbers.newest) or "-",
            )
        )
    rows.append(("total", str(result.entries), format_size(result.bytes), "", ""))
    for line in table(rows, right=(1, 2)):
        click.echo(line)


def table(rows: list[tuple[str, ...]], *, right: tuple[int, ...] = ()) -> list[str]:
    """Rows as columns as wide as their widest cell, two spaces apart; the columns
    in `right` (counts, sizes) right-aligned; no trailing spaces."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


@cache.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(KINDS),
    help="Only remove entries of this kind (repeatable). Default: everything.",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def clear(store: DiskCache, kinds: tuple[str, ...], as_json: bool) -> None:
    """Remove cached entries (all of them, or those of the given kinds).

    Clearing everything, or the markdown kind, also makes the library forget the
    passages of papers that were read but not saved, and the names completions
    learnt from answers; saved papers stay.
    """
    chosen = sorted(set(kinds)) if kinds else None
    removed = _run(lambda: store.clear(chosen))
    forgotten, failure = _forget_reading() if chosen is None or "markdown" in chosen else (0, None)
    if as_json:
        _print_json(
            {
                "location": str(store.directory),
                "removed": removed,
                "kinds": chosen or "all",
                "read_papers_forgotten": forgotten,
            }
        )
    else:
        which = ", ".join(chosen) if chosen else "all kinds"
        click.echo(f"Removed {removed} entries ({which}) from {store.directory}.")
        if forgotten:
            click.echo(
                f"The library forgot the passages of {forgotten} papers read but not saved "
                "(saved papers stay)."
            )
    if failure is not None:
        _fail(failure)


def _forget_reading() -> tuple[int, str | None]:
    """Drop the library's memory of papers only read: how many, and the line saying why
    it could not (a `code: sentence`). `(0, None)` when there is no library."""
    from pwc_local.common.shelf import LibraryError, LibraryFull, LibraryReadOnly
    from pwc_local.store.library import Library
    from pwc_local.store.library_db import (
        DB_FILE_NAME,
        default_library_dir,
        unwritable_error,
        unwritable_os_reason,
        unwritable_reason,
    )
    from pwc_local.store.vocabulary import Vocabulary

    directory = default_library_dir()
    if not (directory / DB_FILE_NAME).exists():
        return 0, None  # never create a library just to clear it
    reason: str | None = None
    try:
        with Library.open() as library:
            reason = library.read_only
            if reason is None:
                Vocabulary(library.path).forget()  # the names answers showed go with them
                return library.forget_reading(), None
    except LibraryReadOnly as exc:  # found unwritable only on writing (a full disk)
        reason = "the disk is full" if isinstance(exc, LibraryFull) else "it is read-only"
    except LibraryError as exc:
        return 0, coded_text(exc)
    except (OSError, sqlite3.Error) as exc:
        reason = (
            unwritable_reason(exc, directory / DB_FILE_NAME)
            if isinstance(exc, sqlite3.Error)
            else unwritable_os_reason(exc)
        )
        if reason is None:
            return 0, f"the cache was cleared, but not the library in {directory}: {exc}"
    refused = unwritable_error(
        str(reason),
        f"the cache was cleared, but the library in {directory} cannot be written "
        f"({reason}), so it still holds the passages of papers read but not saved; "
        "once it can be written, run `pwc-mcp-local cache clear --kind markdown` again",
    )
    return 0, coded_text(refused)


@cache.command(context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def prune(store: DiskCache, as_json: bool) -> None:
    """Remove entries past their lifetime (and any that fail verification).

    Markdown chunks never expire. Note that expired entries are what the server
    answers from when the catalog cannot be reached; pruning gives that up.
    """
    result = _run(store.prune)
    if as_json:
        _print_json(
            {"location": str(store.directory), "expired": result.expired, "corrupt": result.corrupt}
        )
        return
    click.echo(
        f"Removed {result.expired} expired and {result.corrupt} unreadable entries "
        f"from {store.directory}."
    )


def _run(action: Any) -> Any:
    try:
        return action()
    except CacheError as exc:
        _fail(coded_text(exc))


def _fail(line: str) -> NoReturn:
    click.echo(f"pwc-mcp-local: {line}", err=True)
    sys.exit(1)


def _stats_document(result: CacheStats) -> dict[str, Any]:
    return {
        "location": str(result.directory),
        "size_limit": result.size_limit,
        "volume": result.volume,
        "entries": result.entries,
        "bytes": result.bytes,
        "kinds": {
            kind: {
                "entries": numbers.entries,
                "bytes": numbers.bytes,
                "oldest": _when(numbers.oldest),
                "newest": _when(numbers.newest),
            }
            for kind, numbers in result.kinds.items()
        },
    }


def _print_json(document: dict[str, Any]) -> None:
    click.echo(json.dumps(document, indent=2))


def _when(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat(timespec="seconds")
