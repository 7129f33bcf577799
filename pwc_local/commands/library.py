"""`pwc-mcp-local library add | refresh | list | remove | export | search | reindex`: the library.

Saved papers live in the user data directory (`pwc_local.store.library`), apart
from the cache: `cache clear` and the cache's size bound never touch them.

`library add` fetches through the same caching catalog the server uses and saves
each paper in one transaction once all of it has arrived. It prints one outcome
line per reference on stdout (a progress bar goes to stderr when that is a
terminal), then a summary; the exit status is 1 when any reference failed. It can
be interrupted at any point and simply run again: papers already saved are not
fetched again unless the catalog has a newer version (one small request each
says), which replaces the copy; `library refresh` does that for saved papers.

Every reference, title, heading and quote a line shows comes from a file, the
catalog or the command line, so it goes through `safe_text` first (`shown`: one
line, no terminal escapes, at most 200 characters): a .bib file or a catalog
record cannot clear the screen, retitle the window, plant a link or forge a line.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pwc_local.commands import completion
from pwc_local.common.shelf import LibraryError
from pwc_local.config import Settings, format_size
from pwc_local.contract import CITATION_FORMATS, MAX_REFERENCE_CHARS, MAX_ROWS, SEARCH_LIBRARY_LIMIT
from pwc_local.safe_text import one_line, printable_tree, shown
from pwc_local.store.library import Library

if TYPE_CHECKING:
    from pwc_local.queries.citations import SourceCitation
    from pwc_local.queries.reading_list import ReadingList
    from pwc_local.upstream.source import CatalogSource

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
MAX_LIST_BYTES = 10 * 1024 * 1024  # `--from`: far beyond any reading list, short of /dev/zero


def _settings(ctx: click.Context) -> Settings:
    """The command's settings, and its stderr log (a failure is said once, on its line)."""
    from pwc_local.commands.settings import settings_for, start_logging

    settings = settings_for(ctx)
    start_logging(settings)
    return settings


@contextmanager
def _opened() -> Iterator[Library]:
    try:
        library = Library.open()
    except LibraryError as exc:
        click.echo(f"pwc-mcp-local: {exc}", err=True)
        sys.exit(1)
    try:
        yield library
    except LibraryError as exc:  # a write to a library that cannot be written: say why
        click.echo(f"pwc-mcp-local: {exc}", err=True)
        sys.exit(1)
    finally:
        library.close()


@click.group(context_settings=CONTEXT_SETTINGS)
def library() -> None:
    """Save papers for offline reading, search them, export citations.

    Saved papers are kept (metadata, full Markdown, citation) in the user data
    directory until removed; read_paper, get_paper_info and search_library answer
    for them without a network.
    """


@library.command(context_settings=CONTEXT_SETTINGS)
@click.argument("references", nargs=-1)
@click.option(
    "--from",
    "from_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read references from FILE: one per line, or a BibTeX file (arXiv ID, DOI or URL).",
)
@click.pass_context
def add(ctx: click.Context, references: tuple[str, ...], from_file: Path | None) -> None:
    """Save papers (arXiv IDs, catalog IDs, URLs, DOIs or exact titles).

    Resumable: run the same command again after an interruption and the papers
    already saved are skipped.
    """
    wanted = [r.strip() for r in references if r.strip()]
    sources: dict[str, SourceCitation] = {}
    unusable: list[str] = []  # outcome lines of entries that name no paper: each a failure
    if from_file is not None:
        listed = _read_list(from_file)
        for key in listed.skipped:
            unusable.append(f"failed    BibTeX entry {shown(key)}: no arXiv ID, DOI or URL")
        for broken in listed.broken:
            entry = f"BibTeX entry {shown(broken.key)}" if broken.key else "a BibTeX entry"
            unusable.append(
                f"failed    {shown(str(from_file))}, line {broken.line}: {entry} cannot be read "
                f"({shown(broken.reason)}); the entries after it were read"
            )
        wanted += listed.references
        sources = listed.sources
    wanted = list(dict.fromkeys(wanted))
    for line in unusable:
        click.echo(line)
    if not wanted:
        if unusable:
            click.echo(_summary(len(unusable), 0, 0, len(unusable)))
            sys.exit(1)
        raise click.UsageError("name at least one paper, or a file with --from")
    settings = _settings(ctx)
    with _opened() as opened:
        import anyio

        try:
            counts = anyio.run(_add_all, settings, opened, wanted, sources)
        except KeyboardInterrupt:
            # Each paper is saved whole or not at all, so nothing needs undoing.
            click.echo(
                "pwc-mcp-local: interrupted; the papers saved so far are kept. To resume, "
                "run the same command again: saved papers are skipped.",
                err=True,
            )
            sys.exit(130)
    saved, already, failed = counts
    failed += len(unusable)
    click.echo(_summary(len(wanted) + len(unusable), saved, already, failed))
    if failed:
        sys.exit(1)


def _summary(total: int, saved: int, already: int, failed: int) -> str:
    """`library add`'s last line: `1 paper: 1 saved, 0 already in the library, 0 failed.`"""
    noun = "paper" if total == 1 else "papers"
    return f"{total} {noun}: {saved} saved, {already} already in the library, {failed} failed."


def _read_list(path: Path) -> ReadingList:
    """The references of `--from FILE`: at most 10 MiB of UTF-8 (a byte-order mark is fine)."""
    from pwc_local.queries.reading_list import parse_reading_list

    name = shown(str(path))
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_LIST_BYTES + 1)
    except OSError as exc:
        raise click.UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > MAX_LIST_BYTES:
        raise click.UsageError(
            f"{name} is larger than {MAX_LIST_BYTES >> 20} MiB: a reading list is one "
            "reference per line or a BibTeX file; split it and add each part"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise click.UsageError(
            f"cannot read {name}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from None
    try:
        return parse_reading_list(text, bibtex=path.suffix.lower() == ".bib")
    except ValueError as exc:
        raise click.UsageError(f"cannot read {name} as BibTeX: {exc}") from None


async def _add_all(
    settings: Settings,
    opened: Library,
    wanted: list[str],
    sources: dict[str, SourceCitation],
) -> tuple[int, int, int]:
    from pwc_local.queries.saving import ALREADY, FAILED, SAVED
    from pwc_local.runtime import build_runtime

    runtime = build_runtime(settings)
    # Save into the library the runtime's catalog reads through: it is told which paper
    # is being saved (`Shelf.saving`), so the chunks are not also indexed as read on the
    # way, which wrote every paper twice and needed twice the disk space.
    shelf = runtime.library if runtime.library is not None else opened
    counts = {SAVED: 0, ALREADY: 0, FAILED: 0}
    show_bar = sys.stderr.isatty()
    try:
        with click.progressbar(
            length=len(wanted), label="Saving", file=sys.stderr if show_bar else io.StringIO()
        ) as bar:
            for reference in wanted:
                status, line = await _save_one(runtime.catalog, shelf, reference, settings, sources)
                counts[status] += 1
                if show_bar:
                    click.echo("", err=True)  # keep the outcome line off the bar's line
                click.echo(line)
                bar.update(1)
    finally:
        await runtime.aclose()
    return counts[SAVED], counts[ALREADY], counts[FAILED]


async def _save_one(
    catalog: CatalogSource,
    opened: Library,
    reference: str,
    settings: Settings,
    sources: dict[str, SourceCitation],
) -> tuple[str, str]:
    """Save one reference: its count (`saved`, `already saved`, `failed`) and outcome line."""
    from pwc_local.queries.saving import FAILED, SAVED, save_paper
    from pwc_local.server.errors import error_message
    from pwc_local.upstream.errors import UsageError

    if len(reference) > MAX_REFERENCE_CHARS:  # the tools' bound; no request for it
        too_long = UsageError(
            f"a paper reference is at most {MAX_REFERENCE_CHARS} characters "
            f"(this one has {len(reference)})"
        )
        return FAILED, f"failed    {shown(reference)}: {error_message(too_long)}"
    outcome = await save_paper(
        catalog, opened, reference, namespace=settings.api_url, source=sources.get(reference)
    )
    if outcome.error is not None:
        return FAILED, f"failed    {shown(reference)}: {one_line(error_message(outcome.error))}"
    label = "saved    " if outcome.status == SAVED else "kept     "
    label = "refreshed" if outcome.refreshed else label
    size = format_size(outcome.size) if outcome.size else "no Markdown"
    return outcome.status, f"{label} {shown(outcome.paper or '')}  {shown(outcome.title)} ({size})"


@library.command(context_settings=CONTEXT_SETTINGS)
@click.argument("references", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every saved paper.")
@click.pass_context
def refresh(ctx: click.Context, references: tuple[str, ...], every: bool) -> None:
    """Save papers again whose catalog version is newer than the saved copy.

    One small request per paper says whether it changed; a changed one is fetched
    again and replaces its copy (passages re-indexed). Exits 1 when any failed.
    """
    wanted = list(dict.fromkeys(r.strip() for r in references if r.strip()))
    if every == bool(wanted):
        raise click.UsageError("name saved papers, or --all")
    settings = _settings(ctx)
    with _opened() as opened:
        if every:
            wanted = [entry.paper for entry in opened.entries()]
        import anyio

        try:
            refreshed, current, failed = anyio.run(_refresh_all, settings, opened, wanted)
        except KeyboardInterrupt:  # each paper is replaced whole or not at all
            click.echo(
                "pwc-mcp-local: interrupted; the papers refreshed so far are kept.", err=True
            )
            sys.exit(130)
    click.echo(
        f"{len(wanted)} papers: {refreshed} refreshed, {current} up to date, {failed} failed."
    )
    if failed:
        sys.exit(1)


async def _refresh_all(
    settings: Settings, opened: Library, wanted: list[str]
) -> tuple[int, int, int]:
    """`refresh_paper` for each of `wanted`, one line each, a bar on a terminal's stderr."""
    from pwc_local.queries.saving import FAILED, refresh_paper
    from pwc_local.runtime import build_runtime
    from pwc_local.server.errors import error_message

    runtime = build_runtime(settings)
    counts = [0, 0, 0]
    show_bar = sys.stderr.isatty()
    try:
        with click.progressbar(
            length=len(wanted), label="Refreshing", file=sys.stderr if show_bar else io.StringIO()
        ) as bar:
            for reference in wanted:
                outcome = await refresh_paper(
                    runtime.catalog, opened, reference, namespace=settings.api_url
                )
                if outcome.status == FAILED:
                    counts[2] += 1
                    why = one_line(error_message(outcome.error or Exception()))
                    line = f"failed    {shown(reference)}: {why}"
                else:
                    counts[0 if outcome.refreshed else 1] += 1
                    label = "refreshed" if outcome.refreshed else "current  "
                    line = f"{label} {shown(outcome.paper or '')}  {shown(outcome.title)}"
                if show_bar:
                    click.echo("", err=True)  # keep the outcome line off the bar's line
                click.echo(line)
                bar.update(1)
    finally:
        await runtime.aclose()
    return counts[0], counts[1], counts[2]


@library.command(name="list", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_command(as_json: bool) -> None:
    """List saved papers, most recently saved first."""
    with _opened() as opened:
        entries = opened.entries()
        location = str(opened.path)
    if as_json:
        document = {
            "location": location,
            "count": len(entries),
            "papers": [
                {
                    "paper": e.paper,
                    "title": e.title,
                    "in_catalog": e.in_catalog,
                    "markdown_bytes": e.size if e.has_markdown else None,
                    "saved_at": _when(e.saved_at),
                }
                for e in entries
            ],
        }
        click.echo(_json(document))
        return
    if not entries:
        click.echo(f"The library is empty ({location}). Add papers with: library add REF...")
        return
    for e in entries:
        size = format_size(e.size) if e.has_markdown else "no Markdown"
        note = "" if e.in_catalog else "  [not in the catalog]"
        click.echo(f"{shown(e.paper):<24} {_when(e.saved_at)}  {size:>10}  {shown(e.title)}{note}")
    click.echo(f"{len(entries)} saved papers in {location}")


@library.command(context_settings=CONTEXT_SETTINGS)
@click.argument("references", nargs=-1, required=True, shell_complete=completion.saved_papers)
def remove(references: tuple[str, ...]) -> None:
    """Remove saved papers (any spelling `add` takes, or the title). Exit 1 if one was not saved."""
    from pwc_local.common.references import spelled_identifier

    missing = 0
    with _opened() as opened:
        for reference in references:
            paper = opened.remove(reference)
            spelled = spelled_identifier(reference) if paper is None else None
            if spelled is not None:  # `arXiv:1706.03762v5`, an arxiv.org or huggingface.co URL
                paper = opened.remove(spelled)
            if paper is None:
                missing += 1
                click.echo(f"not saved {shown(reference)}")
            else:
                click.echo(f"removed   {shown(paper)}")
    if missing:
        sys.exit(1)


@library.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(CITATION_FORMATS),
    default="bibtex",
    show_default=True,
    help="Citation format (Zotero, Mendeley, JabRef and EndNote import all three).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to FILE instead of stdout (in one step: FILE is whole or untouched).",
)
@click.option("--force", is_flag=True, help="Replace FILE when it exists (never a link).")
def export(fmt: str, output: Path | None, force: bool) -> None:
    """Export every saved paper's citation, most recently saved first (as `list` shows them)."""
    from pwc_local.commands.settings import check_output, write_output
    from pwc_local.queries.citations import CitationFields, format_citations

    if output is not None:
        check_output(output, force=force, option="--output")
    with _opened() as opened:
        fields = [CitationFields.from_dict(p.citation) for p in opened.saved_papers()]
    document = format_citations(fields, fmt)
    if output is None:
        click.echo(document, nl=False)
        return
    # A temporary file beside FILE, renamed to it: a full disk leaves FILE as it was.
    existed = write_output(output, document.encode("utf-8"), force=force)
    verb = "Replaced" if existed else "Wrote"
    click.echo(f"{verb} {shown(str(output))} with {len(fields)} citations ({fmt}).", err=True)


@library.command(context_settings=CONTEXT_SETTINGS)
@click.argument("query")
@click.option(
    "--limit", type=click.IntRange(1, MAX_ROWS), default=SEARCH_LIBRARY_LIMIT, show_default=True
)
@click.option("--paper", help="Only search this paper.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def search(query: str, limit: int, paper: str | None, as_json: bool) -> None:
    """Full-text search over saved papers and papers read through the server."""
    from pwc_local.queries.library_search import search_library
    from pwc_local.server.errors import error_message
    from pwc_local.upstream.errors import CatalogError

    with _opened() as opened:
        try:
            hits = search_library(opened, None, query, limit=limit, paper=paper)
        except CatalogError as exc:
            click.echo(f"pwc-mcp-local: {error_message(exc)}", err=True)
            sys.exit(2)
    if as_json:
        document: dict[str, Any] = {
            "count": len(hits),
            "hits": [
                {
                    "paper": h.paper,
                    "title": h.title,
                    "saved": h.saved,
                    "section": h.section,
                    "quote": h.quote,
                    "offset": h.offset,
                }
                for h in hits
            ],
        }
        click.echo(_json(document))
        return
    if not hits:
        click.echo("No passage matches.")
        return
    for h in hits:
        where = f" — {shown(h.section)}" if h.section else ""
        mark = "saved" if h.saved else "read"
        click.echo(f"{shown(h.paper)} [{mark}] {shown(h.title)}{where} (byte {h.offset})")
        # Quotes come bounded (store.library); their matched words in **bold**.
        click.echo(f"    {terminal_bold(one_line(h.quote), sys.stdout.isatty())}")


_BOLD = re.compile(r"\*\*(.+?)\*\*")


def terminal_bold(quote: str, terminal: bool) -> str:
    """A quote's Markdown `**bold**` as a terminal's bold (ANSI) on a terminal, else as is
    (a file or pipe gets the Markdown). `quote` is sanitised already: no escapes of its own."""
    if not terminal:
        return quote
    return _BOLD.sub(lambda match: click.style(match.group(1), bold=True), quote)


@library.command(context_settings=CONTEXT_SETTINGS)
def reindex() -> None:
    """Check the search index and rebuild it from the stored Markdown."""
    with _opened() as opened:
        healthy = opened.check_index()
        passages = opened.rebuild_index()
    state = "was sound" if healthy else "was damaged"
    click.echo(f"The index {state}; rebuilt with {passages} passages.")


# JSON escapes C0 controls (ESC is `\u001b`) but not C1 ones, which a terminal reads as
# CSI, OSC ...; they occur only inside strings, where `\u009b` means the same.
_C1_ESCAPED = {code: f"\\u{code:04x}" for code in range(0x80, 0xA0)}


def _json(document: dict[str, Any]) -> str:
    """`--json` output: readable Unicode, and no control character a terminal would act on
    (library text through the one sanitiser, `printable_tree`; C1 escaped besides)."""
    return json.dumps(printable_tree(document), indent=2, ensure_ascii=False).translate(_C1_ESCAPED)


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat(timespec="seconds")
