"""`pwc-mcp-local library add | list | remove | export | search | reindex`: the reading library.

Saved papers live in the user data directory (`pwc_local.store.library`), apart
from the cache: `cache clear` and the cache's size bound never touch them.

`library add` fetches through the same caching catalog the server uses and saves
each paper in one transaction once all of it has arrived. It prints one outcome
line per reference on stdout (a progress bar goes to stderr when that is a
terminal), then a summary; the exit status is 1 when any reference failed. It can
be interrupted at any point and simply run again: papers already saved are
skipped without a request.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click

from pwc_local.catalog.limits import MAX_ROWS, SEARCH_LIBRARY_LIMIT
from pwc_local.config import Settings, format_size
from pwc_local.store.library import Library, LibraryError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


def _settings(ctx: click.Context) -> Settings:
    from pwc_local.cli import resolve_settings

    root = ctx.find_root()
    flags = dict(root.obj.get("flags", {})) if isinstance(root.obj, dict) else {}
    return resolve_settings(**flags)


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
    if from_file is not None:
        from pwc_local.catalog.reading_list import parse_reading_list

        try:
            listed = parse_reading_list(from_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise click.UsageError(f"cannot read {from_file}: {exc}") from None
        for key in listed.skipped:
            click.echo(f"skipped   BibTeX entry {key}: no arXiv ID, DOI or URL", err=True)
        wanted += listed.references
    wanted = list(dict.fromkeys(wanted))
    if not wanted:
        raise click.UsageError("name at least one paper, or a file with --from")
    settings = _settings(ctx)
    with _opened() as opened:
        import anyio

        try:
            counts = anyio.run(_add_all, settings, opened, wanted)
        except KeyboardInterrupt:
            # Each paper is saved whole or not at all, so nothing needs undoing.
            click.echo(
                "pwc-mcp-local: interrupted; the papers saved so far are kept. To resume, "
                "run the same command again: saved papers are skipped.",
                err=True,
            )
            sys.exit(130)
    saved, already, failed = counts
    click.echo(
        f"{len(wanted)} papers: {saved} saved, {already} already in the library, {failed} failed."
    )
    if failed:
        sys.exit(1)


async def _add_all(settings: Settings, opened: Library, wanted: list[str]) -> tuple[int, int, int]:
    from pwc_local.runtime import build_runtime
    from pwc_local.server.errors import error_message
    from pwc_local.store.saving import ALREADY, SAVED, save_paper

    runtime = build_runtime(settings)
    counts = {SAVED: 0, ALREADY: 0, "failed": 0}
    show_bar = sys.stderr.isatty()
    try:
        with click.progressbar(
            length=len(wanted), label="Saving", file=sys.stderr if show_bar else io.StringIO()
        ) as bar:
            for reference in wanted:
                outcome = await save_paper(
                    runtime.catalog, opened, reference, namespace=settings.api_url
                )
                counts[outcome.status if outcome.ok else "failed"] += 1
                if show_bar:
                    click.echo("", err=True)  # keep the outcome line off the bar's line
                if outcome.error is not None:
                    click.echo(f"failed    {reference}: {error_message(outcome.error)}")
                else:
                    label = "saved    " if outcome.status == SAVED else "kept     "
                    size = format_size(outcome.size) if outcome.size else "no Markdown"
                    click.echo(f"{label} {outcome.paper}  {outcome.title} ({size})")
                bar.update(1)
    finally:
        await runtime.aclose()
    return counts[SAVED], counts[ALREADY], counts["failed"]


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
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    if not entries:
        click.echo(f"The library is empty ({location}). Add papers with: library add REF...")
        return
    for e in entries:
        size = format_size(e.size) if e.has_markdown else "no Markdown"
        note = "" if e.in_catalog else "  [not in the catalog]"
        click.echo(f"{e.paper:<24} {_when(e.saved_at)}  {size:>10}  {e.title}{note}")
    click.echo(f"{len(entries)} saved papers in {location}")


@library.command(context_settings=CONTEXT_SETTINGS)
@click.argument("references", nargs=-1, required=True)
def remove(references: tuple[str, ...]) -> None:
    """Remove saved papers (by ID, catalog ID or exact title). Exit 1 if one was not saved."""
    missing = 0
    with _opened() as opened:
        for reference in references:
            paper = opened.remove(reference)
            if paper is None:
                missing += 1
                click.echo(f"not saved {reference}")
            else:
                click.echo(f"removed   {paper}")
    if missing:
        sys.exit(1)


@library.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bibtex", "ris", "csl-json"]),
    default="bibtex",
    show_default=True,
    help="Citation format (Zotero, Mendeley, JabRef and EndNote import all three).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to FILE instead of stdout.",
)
def export(fmt: str, output: Path | None) -> None:
    """Export every saved paper's citation."""
    from pwc_local.catalog.citations import CitationFields, format_citations

    with _opened() as opened:
        fields = [CitationFields.from_dict(p.citation) for p in opened.saved_papers()]
    document = format_citations(fields, fmt)
    if output is None:
        click.echo(document, nl=False)
        return
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as exc:
        click.echo(f"pwc-mcp-local: cannot write {output}: {exc.strerror or exc}", err=True)
        sys.exit(1)
    click.echo(f"Wrote {len(fields)} citations ({fmt}) to {output}.", err=True)


@library.command(context_settings=CONTEXT_SETTINGS)
@click.argument("query")
@click.option(
    "--limit", type=click.IntRange(1, MAX_ROWS), default=SEARCH_LIBRARY_LIMIT, show_default=True
)
@click.option("--paper", help="Only search this paper.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def search(query: str, limit: int, paper: str | None, as_json: bool) -> None:
    """Full-text search over saved papers and papers read through the server."""
    from pwc_local.catalog.errors import CatalogError
    from pwc_local.catalog.library_search import search_library
    from pwc_local.server.errors import error_message

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
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    if not hits:
        click.echo("No passage matches.")
        return
    for h in hits:
        where = f" — {h.section}" if h.section else ""
        mark = "saved" if h.saved else "read"
        click.echo(f"{h.paper} [{mark}] {h.title}{where} (byte {h.offset})")
        click.echo(f"    {h.quote}")


@library.command(context_settings=CONTEXT_SETTINGS)
def reindex() -> None:
    """Check the search index and rebuild it from the stored Markdown."""
    with _opened() as opened:
        healthy = opened.check_index()
        passages = opened.rebuild_index()
    state = "was sound" if healthy else "was damaged"
    click.echo(f"The index {state}; rebuilt with {passages} passages.")


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).isoformat(timespec="seconds")
