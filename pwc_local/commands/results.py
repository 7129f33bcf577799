"""`pwc-mcp-local table BENCHMARK` and `pwc-mcp-local check BENCHMARK PAPER`: results to cite.

The `results_table` and `check_claim` tools from a terminal, through the same catalog
chain (`commands.history`'s runner) and the same presentation:

    pwc-mcp-local table ImageNet-1k --format latex --bib refs.bib > table.tex
    pwc-mcp-local check "Vision History" 1605.99005 --sota --as-of 2016-12-31

`table` prints the table alone on stdout (so it can be redirected into a document)
and what it is of on stderr; `--bib FILE` writes the BibTeX of its `\\cite` keys as
every file written for the user is (`settings.write_output`: never through a link, a
file replaced only with `--force`). `check` prints the verdict, its reason and
the evidence; its exit status is the verdict: 0 supported, 3 contradicted, 4 not
comparable, 5 unknown (1 is a failure, 2 a usage error). `--json` prints the tool's
structured result.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from pwc_local.commands.history import Progress
from pwc_local.commands.history import _run as run_on_catalog
from pwc_local.commands.history import _stale_note as stale_note
from pwc_local.commands.settings import check_output, settings_for, write_output
from pwc_local.contract import MAX_TABLE_ROWS, TABLE_FORMATS
from pwc_local.safe_text import shown
from pwc_local.store.freshness import Freshness
from pwc_local.upstream.source import CatalogSource

T = TypeVar("T")

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
EXIT_STATUS = {"supported": 0, "contradicted": 3, "not_comparable": 4, "unknown": 5}


def _answer(
    ctx: click.Context,
    query: Callable[[CatalogSource, Progress], Awaitable[T]],
    freshness: Freshness,
) -> T:
    """Run `query` on the tools' catalog chain with a progress line on the terminal; an
    answer from stale cache entries says so on stderr (stdout keeps the output alone)."""
    progress = Progress()
    answer = run_on_catalog(
        settings_for(ctx), lambda catalog: query(catalog, progress), progress, freshness
    )
    if note := stale_note(freshness):
        click.echo(f"pwc-mcp-local: {note}", err=True)
    return answer


def _tool_json(
    ctx: click.Context, name: str, answer: Any, arguments: dict[str, Any], freshness: Freshness
) -> str:
    """Tool `name`'s JSON for `answer`, as `call NAME --json` prints it: the settings'
    profile, catalog text as printable as the text's."""
    from pwc_local.commands.settings import structured_json, tool_output

    return structured_json(tool_output(name, answer, arguments, settings_for(ctx), freshness))


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("benchmark", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(TABLE_FORMATS),
    default="markdown",
    show_default=True,
)
@click.option("--metric", "metrics", multiple=True, help="A column (repeat; default: primary).")
@click.option("--settings", default="", help='A settings group as named, or "all".')
@click.option("--as-of", "as_of", default="", metavar="DATE", help="Papers up to YYYY-MM-DD.")
@click.option("--paper", "papers", multiple=True, help="Keep this paper's row (repeatable).")
@click.option("--open/--closed", "is_open", default=None, help="Only open (or closed) models.")
@click.option("--max-parameters", metavar="SIZE", help="Only models of at most SIZE (500M, 1.5B).")
@click.option("--limit", type=click.IntRange(1, MAX_TABLE_ROWS), default=10, show_default=True)
@click.option("--bib", type=click.Path(dir_okay=False, path_type=Path), help="Write the BibTeX.")
@click.option("--force", is_flag=True, help="Let --bib replace an existing file.")
@click.option("--json", "as_json", is_flag=True, help="Print the results_table tool's JSON.")
@click.pass_context
def table(
    ctx: click.Context,
    benchmark: tuple[str, ...],
    fmt: str,
    metrics: tuple[str, ...],
    settings: str,
    as_of: str,
    papers: tuple[str, ...],
    is_open: bool | None,
    max_parameters: str | None,
    limit: int,
    bib: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """A results table of BENCHMARK to cite: comparable rows, best first, with BibTeX.

    Only results of one settings group (extra data, split, shots, protocol) by
    default, the largest; --settings all shows every group with a settings column.
    """
    from pwc_local.present.results import table_model, table_text
    from pwc_local.present.words import plural
    from pwc_local.queries.results_table import results_table

    if bib is not None:  # refused now (a link, a file without --force), before any request
        check_output(bib, force=force, option="--bib")
    freshness = Freshness()
    answer = _answer(
        ctx,
        lambda catalog, progress: results_table(
            catalog,
            progress,
            " ".join(benchmark),
            metrics=list(metrics),
            settings=settings,
            as_of=as_of,
            papers=list(papers),
            is_open=is_open,
            max_parameters=max_parameters,
            limit=limit,
        ),
        freshness,
    )
    model = table_model(answer, {"format": fmt})
    if as_json:
        click.echo(_tool_json(ctx, "results_table", answer, {"format": fmt}, freshness))
    else:
        head = table_text(model.model_copy(update={"table": "", "bib": ""}))
        click.echo(head, err=True)
        if model.table:
            click.echo(model.table.rstrip("\n"))
    if bib is not None:
        write_output(bib, model.bib.encode("utf-8"), force=force)
        cited = plural(len(answer.citations), "paper")
        click.echo(f"BibTeX of {cited} written to {shown(str(bib))}", err=True)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("benchmark")
@click.argument("paper")
@click.option("--sota", is_flag=True, help="The claim: PAPER was the best (the default).")
@click.option("--beats", default="", metavar="OTHER", help="The claim: PAPER beats OTHER.")
@click.option("--value", type=float, help="The claim: PAPER reports VALUE on the metric.")
@click.option("--metric", default="", help="The metric (default: the leaderboard's primary).")
@click.option("--as-of", "as_of", default="", metavar="DATE", help="The claim on YYYY-MM-DD.")
@click.option("--json", "as_json", is_flag=True, help="Print the check_claim tool's JSON.")
@click.pass_context
def check(
    ctx: click.Context,
    benchmark: str,
    paper: str,
    sota: bool,
    beats: str,
    value: float | None,
    metric: str,
    as_of: str,
    as_json: bool,
) -> None:
    """Check a claim about PAPER on BENCHMARK against the leaderboard.

    Exit status: 0 supported, 3 contradicted, 4 not comparable, 5 unknown.
    """
    from pwc_local.present.claims import claim_model, claim_text
    from pwc_local.queries.claims import check_claim

    if sum((sota, bool(beats.strip()), value is not None)) > 1:
        raise click.UsageError("claim one thing: --sota, --beats OTHER or --value V")
    freshness = Freshness()
    answer = _answer(
        ctx,
        lambda catalog, progress: check_claim(
            catalog,
            progress,
            benchmark,
            paper=paper,
            beats=beats,
            value=value,
            metric=metric,
            as_of=as_of,
        ),
        freshness,
    )
    model = claim_model(answer)
    if as_json:
        click.echo(_tool_json(ctx, "check_claim", answer, {}, freshness))
    else:
        click.echo(claim_text(model))
    sys.exit(EXIT_STATUS[model.verdict])
