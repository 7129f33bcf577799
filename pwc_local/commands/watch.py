"""`pwc-mcp-local watch add | list | remove` and `pwc-mcp-local whats-new`: the watch list.

For a terminal or a cron job, the same logic as the `watch` and `whats_new` tools
(`pwc_local.queries.watch`), on the same list (the library database in the user
data directory), so a watch added here shows in the tools and the other way round:

    pwc-mcp-local watch add benchmark ImageNet-1k
    pwc-mcp-local watch add query vision transformer      # the words after KIND are the target
    pwc-mcp-local whats-new                               # then the baselines move to now
    pwc-mcp-local whats-new --peek --json                 # look only; the tool's JSON

Each look asks the live catalog (not the cache: a fresh cache entry would hide a
change for minutes), and writes what it saw into the cache the servers share.
`whats-new` prints every change, and moves the baselines only once the whole report
is written and flushed, and, into a pipe, taken from it by its reader: a full disk,
a closed pipe or a reader that stops early (`| head -c 10`) prints one line on
stderr and moves nothing, so the next run shows the same changes (README, "What
whats-new promises a reader"). It exits 0 whether or not
anything changed and 1 when some watch could not be checked (the catalog
unreachable, say, or another look reporting it); those keep their baselines, so the
next run reports what changed meanwhile. A failing `watch add` or `watch remove`
prints its `code: sentence` line on stderr and exits 1.

Names and titles come from the catalog and are untrusted: every line goes through
`safe_text` first.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, NoReturn, TextIO, TypeVar

import click

from pwc_local.commands import completion
from pwc_local.commands.settings import settings_for
from pwc_local.config import Settings
from pwc_local.contract import WATCH_KINDS

if TYPE_CHECKING:
    from pwc_local.present.watch import WhatsNewResult
    from pwc_local.store.watchlist import Watchlist
    from pwc_local.upstream.source import CatalogSource

T = TypeVar("T")

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
KIND = click.Choice(WATCH_KINDS, case_sensitive=False)  # shown as {benchmark|task|...} in usage


@click.group(context_settings=CONTEXT_SETTINGS)
def watch() -> None:
    """Watch benchmarks, tasks, papers, authors, searches.

    `pwc-mcp-local whats-new` then says what changed since the last look.
    """


@watch.command("add", context_settings=CONTEXT_SETTINGS)
@click.argument("kind", type=KIND)
@click.argument("target", nargs=-1, required=True)
@click.pass_context
def add(ctx: click.Context, kind: str, target: tuple[str, ...]) -> None:
    """Watch TARGET, taking what the catalog has now as the baseline.

    KIND is benchmark, task, paper, author or query; TARGET is what the matching
    tool takes (a benchmark or task name, slug or ID, a paper reference, an author,
    search words). Adding a watch again keeps it and its baseline.
    """
    from pwc_local.present.watch import status_line
    from pwc_local.queries.watch import watch as watch_query

    outcome = _run(
        settings_for(ctx),
        lambda catalog, watchlist: watch_query(
            catalog, watchlist, kind, " ".join(target), remove=False
        ),
    )
    entry = outcome["watches"][-1] if outcome["status"] == "added" else None
    shown_as = " ".join(target) if entry is None else entry["name"]
    click.echo(status_line(outcome["status"], kind, shown_as))


@watch.command("list", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print the watch list as the tool's JSON.")
@click.pass_context
def list_watches(ctx: click.Context, as_json: bool) -> None:
    """List the watches, oldest first."""
    from pwc_local.queries.watch import SCHEMA_VERSION, watch_list

    settings = settings_for(ctx)
    outcome = _run(settings, lambda _, watchlist: watch_list(watchlist))
    payload = {"schema_version": SCHEMA_VERSION, **outcome}
    if as_json:  # the `watch` tool's JSON in the settings' profile, as printable as the text
        from pwc_local.commands.settings import structured_json, tool_output

        click.echo(structured_json(tool_output("watch", payload, {}, settings)))
        return
    from pwc_local.present.watch import WatchListResult, watch_list_text

    click.echo(watch_list_text(WatchListResult.model_validate(payload)))


@watch.command("remove", context_settings=CONTEXT_SETTINGS)
@click.argument("kind", type=KIND)
@click.argument("target", nargs=-1, required=True, shell_complete=completion.watch_targets)
@click.pass_context
def remove(ctx: click.Context, kind: str, target: tuple[str, ...]) -> None:
    """Stop watching TARGET (its name, the words it was added with, or its ID)."""
    from pwc_local.present.watch import status_line
    from pwc_local.queries.watch import watch as watch_query

    _run(
        settings_for(ctx),
        lambda catalog, watchlist: watch_query(
            catalog, watchlist, kind, " ".join(target), remove=True
        ),
    )
    click.echo(status_line("removed", kind, " ".join(target)))


@click.command("whats-new", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print the whats_new tool's JSON.")
@click.option("--peek", is_flag=True, help="Look without moving the baselines.")
@click.pass_context
def whats_new(ctx: click.Context, as_json: bool, peek: bool) -> None:
    """Say what changed on every watch since the last look.

    Then the baselines move to now (not with --peek), once the whole report is
    written. Exits 0 whether or not anything changed, 1 when some watch could not
    be checked or the report could not be written.
    """
    from pwc_local.present.watch import WhatsNewResult
    from pwc_local.queries.looks import deliver_look, look_payload, release_look, take_look

    settings = settings_for(ctx)

    async def look_then_deliver(catalog: CatalogSource, watchlist: Watchlist) -> WhatsNewResult:
        look = await take_look(catalog, watchlist, settings.timeout, mark_seen=not peek)
        payload = look_payload(look)
        result = WhatsNewResult.model_validate(payload)
        try:
            if as_json:  # the tool's JSON, in the settings' profile (`call whats_new --json`)
                from pwc_local.commands.settings import structured_json, tool_output

                output = tool_output("whats_new", payload, {"mark_seen": not peek}, settings)
                _write(structured_json(output))
            else:
                _write_report(result, peek=peek)
        except OSError:
            await release_look(watchlist, look)
            raise
        await deliver_look(watchlist, look)
        return result

    try:
        result = _run(settings, look_then_deliver)
    except OSError as exc:
        _unwritable_output(exc)
    if any(report.status == "not_checked" for report in result.watches):
        sys.exit(1)


def _write_report(result: WhatsNewResult, *, peek: bool) -> None:
    """The whole report on stdout, flushed: `OSError` when it could not be written."""
    from pwc_local.present.watch import whats_new_text

    text = whats_new_text(result)
    if peek and result.watches:
        text += "\n--peek: no baseline moved"
    _write(text)


def _write(text: str) -> None:
    """`text` and a line end on stdout, flushed: `OSError` when it could not be written."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    if not _reader_took_all(sys.stdout):
        import errno

        raise BrokenPipeError(errno.EPIPE, "the reader went away before reading it all")


PIPE_POLL_MS = 100  # how often the pipe is looked at while its reader still reads


def _reader_took_all(stream: TextIO) -> bool:
    """Whether the reader of the pipe `stream` writes to took every byte (else it went away).

    A write to a pipe succeeds once the bytes are in the pipe's buffer, not once they
    were read: `whats-new | head -c 10` would otherwise mark a whole report seen.
    So the command waits, after the flush, until the pipe is empty (the reader took
    it all: true) or its reader closed it with bytes unread (false). Not a pipe (a
    file, a terminal, a stream in memory), or a system that cannot say how much is
    unread: true.
    """
    import os
    import select
    import stat

    try:
        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return True
        import fcntl
        import termios
    except (OSError, ValueError, ImportError):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLERR | select.POLLHUP)
    while True:
        try:
            unread = int.from_bytes(
                fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder, signed=True
            )
        except OSError:
            return True  # the system cannot say: the flush is all there is to go on
        if unread <= 0:
            return True
        if poller.poll(PIPE_POLL_MS):  # the reader closed its end with bytes unread
            return False


def _unwritable_output(exc: OSError) -> NoReturn:
    """One line on stderr for a report that could not be written (a full disk, a closed pipe)."""
    import errno
    import os

    why = "its reader went away" if exc.errno == errno.EPIPE else (exc.strerror or str(exc))
    try:  # what is buffered for stdout is dropped, so exiting does not write it again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    click.echo(
        f"pwc-mcp-local: the report could not be written ({why}); nothing was marked seen, "
        "so the next whats-new shows the same changes",
        err=True,
    )
    sys.exit(1)


# -- running one query -----------------------------------------------------------------


def _run(settings: Settings, query: Callable[[CatalogSource, Watchlist], Awaitable[T]]) -> T:
    """Open the watch list and the live catalog (no request yet), run `query`, close both.

    A failure the tools would report prints its `code: sentence` line and exits 1.
    """
    from pwc_local.commands.settings import run_tool_work, start_logging
    from pwc_local.store.watchlist import Watchlist

    start_logging(settings)

    async def run() -> T:
        with Watchlist.open() as watchlist:
            source = _live_catalog(settings)
            try:
                return await query(source, watchlist)
            finally:
                await source.aclose()

    return run_tool_work(run)


def _live_catalog(settings: Settings) -> CatalogSource:
    """The catalog behind the outage guard, writing through to the cache (module docstring).

    One command is one short process, so its outage memory is its own: once the
    catalog failed to answer, the remaining watches are not waited on.
    """
    from pwc_local.runtime import live_catalog

    return live_catalog(settings)
