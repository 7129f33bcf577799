"""`pwc-mcp-local sota BENCHMARK` and `pwc-mcp-local beaten PAPER`: leaderboards through time.

The `sota_history` and `who_beat_paper` tools from a terminal: the same queries
(`pwc_local.queries.history`), through the same catalog chain as the tools (saved
papers, the disk cache, the catalog), with the same text (`pwc_local.present.history`):

    pwc-mcp-local sota ImageNet-1k                      # the running best on the primary metric
    pwc-mcp-local sota ImageNet-1k --metric "Top-5 Accuracy" --as-of 2020-12-31
    pwc-mcp-local sota ImageNet-1k --plot sota.png      # and the chart (PNG or SVG)
    pwc-mcp-local beaten 1512.03385                     # who beat ResNet, and by how much

On a terminal, a progress line on stderr follows the pages read; `beaten` prints each
benchmark's table as soon as its leaderboard is read. `--json` prints the tool's
structured result instead. A failure prints its `code: sentence` line on stderr and
exits 1. `--plot` needs matplotlib, an optional extra; without it the command says
how to add it, before reading anything.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pwc_local.commands.settings import settings_for
from pwc_local.config import Settings
from pwc_local.safe_text import printable_tree

if TYPE_CHECKING:
    from pwc_local.upstream.source import CatalogSource

T = TypeVar("T")

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
PLOT_SUFFIXES = (".png", ".svg")
NO_MATPLOTLIB = (
    "--plot needs matplotlib, an optional extra: pipx inject pwc-mcp-local matplotlib "
    "(or pipx install 'pwc-mcp-local[plot]'; in a virtual environment, "
    "pip install 'pwc-mcp-local[plot]')"
)


class Progress:
    """One line on stderr, rewritten in place, while pages are read (a terminal only)."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self.shown = 0

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        if not self.live or not message:
            return
        from pwc_local.safe_text import one_line

        line = one_line(message, 100)
        click.echo("\r" + line.ljust(self.shown), nl=False, err=True)
        self.shown = len(line)

    def clear(self) -> None:
        if self.live and self.shown:
            click.echo("\r" + " " * self.shown + "\r", nl=False, err=True)
            self.shown = 0


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("benchmark", nargs=-1, required=True)
@click.option("--metric", default="", help="Metric to follow (default: the leaderboard's primary).")
@click.option("--as-of", "as_of", default="", metavar="DATE", help="The series up to YYYY-MM-DD.")
@click.option("--open/--closed", "is_open", default=None, help="Only open (or closed) models.")
@click.option("--max-parameters", metavar="SIZE", help="Only models of at most SIZE (500M, 1.5B).")
@click.option(
    "--extra-data/--no-extra-data",
    "extra_data",
    default=None,
    help="Only results with (or without) extra training data.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the chart here (.png or .svg; needs the [plot] extra).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the sota_history tool's JSON.")
@click.pass_context
def sota(
    ctx: click.Context,
    benchmark: tuple[str, ...],
    metric: str,
    as_of: str,
    is_open: bool | None,
    max_parameters: str | None,
    extra_data: bool | None,
    plot: Path | None,
    as_json: bool,
) -> None:
    """The state of the art on BENCHMARK through time: each new best by paper date.

    Every row of the leaderboard is read (and cached); the last row of the table is
    the state of the art (on --as-of, when given). BENCHMARK is its exact name, slug
    or ID; the words after `sota` are the name.
    """
    from pwc_local.present.history import sota_model, sota_text
    from pwc_local.queries.history import state_of_the_art

    if plot is not None:
        _check_plot(plot)
    progress = Progress()
    answer = _run(
        settings_for(ctx),
        lambda catalog: state_of_the_art(
            catalog,
            progress,
            " ".join(benchmark),
            metric=metric,
            as_of=as_of,
            is_open=is_open,
            max_parameters=max_parameters,
            extra_data=extra_data,
        ),
        progress,
    )
    model = sota_model(answer)
    if as_json:
        click.echo(
            json.dumps(printable_tree(model.model_dump(mode="json")), indent=2, ensure_ascii=False)
        )
    else:
        click.echo(sota_text(model))
    if plot is not None:
        from pwc_local.commands.sota_plot import draw

        if not answer.steps:
            click.echo(
                f"pwc-mcp-local: no chart written to {plot}: no dated result to draw", err=True
            )
            sys.exit(1)
        try:
            draw(answer, plot)
        except OSError as exc:
            click.echo(f"pwc-mcp-local: cannot write the chart to {plot}: {exc.strerror}", err=True)
            sys.exit(1)
        click.echo(f"chart written to {plot}", err=True)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("paper", nargs=-1, required=True)
@click.option("--top", type=click.IntRange(1, 100), default=5, help="Results shown per metric.")
@click.option("--json", "as_json", is_flag=True, help="Print the who_beat_paper tool's JSON.")
@click.pass_context
def beaten(ctx: click.Context, paper: tuple[str, ...], top: int, as_json: bool) -> None:
    """Who beat PAPER: per benchmark and metric, the later results better than its best.

    PAPER is an arXiv ID, catalog ID, paper URL or exact title (the words after
    `beaten`). Each benchmark's table prints as soon as its leaderboard is read.
    """
    from pwc_local.present.history import beaten_head, beaten_model, board_text
    from pwc_local.queries.history import BeatenAnswer, beaten_boards

    progress = Progress()
    reference = " ".join(paper)

    async def run(catalog: CatalogSource) -> BeatenAnswer:
        head: BeatenAnswer | None = None
        boards = []
        undated = 0
        async for part in beaten_boards(catalog, reference, progress):
            if isinstance(part, BeatenAnswer):
                head = part
                if not as_json:
                    _say(progress, beaten_head(beaten_model(part)))
                continue
            boards += part.boards
            undated += part.undated
            if not as_json:
                shown = beaten_model(_with(head, part.boards, 0), top=top)
                for board in shown.results:
                    _say(progress, board_text(board, board.benchmark in shown.scan.partial))
        if head is None:  # beaten_boards always starts with its head
            raise RuntimeError("beaten_boards did not name the paper")
        return _with(head, boards, undated)

    answer = _run(settings_for(ctx), run, progress)
    model = beaten_model(answer, top=top)
    if as_json:
        click.echo(
            json.dumps(printable_tree(model.model_dump(mode="json")), indent=2, ensure_ascii=False)
        )
    elif model.scan.undated:
        from pwc_local.present.words import plural

        click.echo(f"Left out: {plural(model.scan.undated, 'result')} without a date.")


def _with(head: Any, boards: list[Any], undated: int) -> Any:
    from dataclasses import replace

    return replace(head, boards=boards, undated=undated)


def _say(progress: Progress, block: str) -> None:
    """Print a block of results between progress lines, with a blank line after it."""
    progress.clear()
    click.echo(block + "\n")


def _check_plot(path: Path) -> None:
    """Refuse a chart that cannot be written before any page is read."""
    import importlib.util

    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise click.UsageError(f"--plot writes PNG or SVG: name the file .png or .svg ({path})")
    if not path.parent.is_dir():
        raise click.UsageError(f"--plot: no directory {path.parent} to write the chart in")
    if importlib.util.find_spec("matplotlib") is None:
        click.echo(f"pwc-mcp-local: {NO_MATPLOTLIB}", err=True)
        sys.exit(1)


def _run(
    settings: Settings, query: Callable[[CatalogSource], Awaitable[T]], progress: Progress
) -> T:
    """Run `query` on the tools' catalog chain (saved papers, cache, catalog), then close it.

    A failure the tools would report prints its `code: sentence` line and exits 1.
    """
    import anyio
    import anyio.to_thread

    from pwc_local.commands.settings import run_tool_work, start_logging

    start_logging(settings)

    async def run() -> T:
        from pwc_local.runtime import build_runtime

        runtime = await anyio.to_thread.run_sync(build_runtime, settings)
        try:
            return await query(runtime.catalog)
        finally:
            progress.clear()
            await runtime.aclose()

    return run_tool_work(run)
