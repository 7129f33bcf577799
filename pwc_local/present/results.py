"""What `results_table` sends: its model, the table in Markdown, LaTeX or CSV, and its text.

`table_model(answer, arguments)` writes the table in the format asked and the BibTeX
of its papers into the model (`structuredContent`); `table_text(model)` says the same
facts in words around the same table and BibTeX, so the two halves match.

Catalog text is untrusted wherever it lands: Markdown cells and every line through
the one sanitiser (`words.clean`, `table`); in LaTeX, folded to ASCII (a pdfLaTeX
document compiles whatever the catalog holds) and every LaTeX special escaped
(`citations.escape_bibtex`); in CSV, one clean line per cell, a text cell starting
with `= + - @` quoted with `'` so a spreadsheet does not run it as a formula.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from pwc_local.present.hosted import ToolOutput, _Strict
from pwc_local.present.words import clean, metric, plural, printable_block, table
from pwc_local.queries.citations import bibtex, escape_bibtex
from pwc_local.queries.results_table import ALL, Column, TableAnswer, TableRow

FORMATS = ("markdown", "latex", "csv")
_ARROWS = {"higher": r"$\uparrow$", "lower": r"$\downarrow$"}


class Group(_Strict):
    settings: str
    results: int


class TableHead(_Strict):
    benchmark: str
    metrics: list[str]  # "Accuracy (higher is better)", the first orders the rows
    settings: str  # the group shown, or "all"
    as_of: str | None = None
    filters: list[str] | None = None  # the model filters asked for, in words
    shown: int  # rows in the table
    comparable: int  # results in the group
    others: list[Group]  # the other settings groups, not in the table
    missing: list[str] | None = None  # papers asked for without a row in the group
    rows_read: int
    rows_total: int
    format: str


class ResultsTableResult(ToolOutput):
    """`results_table`: the table in `head.format` and the BibTeX of its `\\cite` keys."""

    head: TableHead
    table: str
    bib: str  # BibTeX


def direction(column: Column) -> str:
    """`higher is better`, `lower is better` or `assumed higher is better`."""
    return f"{'assumed higher' if column.assumed else column.better} is better"


def _best(rows: Sequence[TableRow], index: int, column: Column) -> float | None:
    values = [value for row in rows if (value := row.values[index]) is not None]
    if not values:
        return None
    return max(values) if column.better == "higher" else min(values)


def _paper(row: TableRow) -> str:
    result = row.result
    title, ref = result.paper_title, result.paper_ref
    return f"{title} ({ref})" if title and ref else title or ref or ""


def _value(value: float | None) -> str:
    return "" if value is None else metric(value)


def markdown_table(answer: TableAnswer) -> str:
    """The rows as a Markdown table: rank, model, paper, date, the metrics, key."""
    every = answer.setting is None
    arrows = {"higher": "↑", "lower": "↓"}
    headers = ["#", "model", "paper", "date"]
    headers += [f"{clean(c.name, 80).replace('|', '/')} {arrows[c.better]}" for c in answer.columns]
    headers += ["settings"] * every + ["key"]
    rows = [
        [
            str(row.rank),
            row.result.model,
            _paper(row),
            str(row.result.date or ""),
            *(_value(value) for value in row.values),
            *([row.result.setting.label if row.result.setting else ""] * every),
            row.key,
        ]
        for row in answer.rows
    ]
    return table(headers, rows)


def latex_text(value: Any, limit: int = 200) -> str:
    """Catalog text for a LaTeX document: one line, ASCII, every special escaped."""
    folded = unicodedata.normalize("NFKD", clean(value, limit))
    return escape_bibtex(folded.encode("ascii", "ignore").decode("ascii"))


def latex_table(answer: TableAnswer) -> str:
    """A booktabs `table`: the best value of each metric in bold, its direction in the
    header, `\\cite{key}` after each model."""
    every = answer.setting is None
    best = [_best(answer.rows, i, column) for i, column in enumerate(answer.columns)]
    spec = "rll" + "l" * every + "r" * len(answer.columns)
    head = ["\\#", "Model", "Date", *(["Settings"] * every)]
    head += [f"{latex_text(c.name, 80)} ({_ARROWS[c.better]})" for c in answer.columns]
    lines = [
        "\\begin{table}[ht]",
        "  \\centering",
        f"  \\caption{{{latex_text(answer.benchmark)}: {latex_text(_caption(answer))}.}}",
        f"  \\begin{{tabular}}{{{spec}}}",
        "    \\toprule",
        "    " + " & ".join(head) + " \\\\",
        "    \\midrule",
    ]
    for row in answer.rows:
        cells = [
            str(row.rank),
            f"{latex_text(row.result.model, 80)}~\\cite{{{row.key}}}",
            str(row.result.date or "--"),
        ]
        if every:
            cells.append(latex_text(row.result.setting.label if row.result.setting else ""))
        for value, top in zip(row.values, best, strict=True):
            shown = latex_text(_value(value)) if value is not None else "--"
            cells.append(f"\\textbf{{{shown}}}" if value is not None and value == top else shown)
        lines.append("    " + " & ".join(cells) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}"]
    return "\n".join(lines)


def _csv_cell(value: str) -> str:
    text = clean(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def csv_table(answer: TableAnswer) -> str:
    """The rows as CSV, one header line: rank, model, paper, arXiv or catalog ID, date,
    each metric with its direction, (settings,) key."""
    every = answer.setting is None
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["rank", "model", "paper", "ref", "date"]
        + [_csv_cell(f"{c.name} ({c.better})") for c in answer.columns]
        + ["settings"] * every
        + ["key"]
    )
    for row in answer.rows:
        result = row.result
        writer.writerow(
            [row.rank, _csv_cell(result.model), _csv_cell(result.paper_title or "")]
            + [_csv_cell(result.paper_ref or ""), str(result.date or "")]
            + [_value(value) for value in row.values]
            + [result.setting.label if result.setting else ""] * every
            + [row.key]
        )
    return out.getvalue()


_WRITERS = {"markdown": markdown_table, "latex": latex_table, "csv": csv_table}


def _settings(answer: TableAnswer) -> str:
    return ALL if answer.setting is None else answer.setting.label


def _caption(answer: TableAnswer) -> str:
    shown = "all settings" if answer.setting is None else answer.setting.label
    return "; ".join((shown, *answer.filters))


def table_model(answer: TableAnswer, arguments: Mapping[str, Any]) -> ResultsTableResult:
    """The model of the answer, its table in `arguments["format"]`."""
    chosen = str(arguments.get("format") or "markdown")
    return ResultsTableResult(
        head=TableHead(
            benchmark=answer.benchmark,
            metrics=[f"{c.name} ({direction(c)})" for c in answer.columns],
            settings=_settings(answer),
            as_of=answer.as_of.isoformat() if answer.as_of else None,
            filters=list(answer.filters) or None,
            shown=len(answer.rows),
            comparable=answer.comparable,
            others=[Group(settings=s.label, results=count) for s, count in answer.others],
            missing=answer.missing or None,
            rows_read=answer.rows_read,
            rows_total=answer.rows_total,
            format=chosen,
        ),
        table=_WRITERS[chosen](answer) if answer.rows else "",
        bib="\n".join(bibtex(fields) for fields in answer.citations),
    )


def table_text(model: ResultsTableResult) -> str:
    """The table between what it is of and the BibTeX of its keys."""
    head = model.head
    metrics = ", ".join(clean(name) for name in head.metrics)
    group = "in all settings" if head.settings == ALL else f"({clean(head.settings)})"
    when = f", as of {head.as_of}" if head.as_of else ""
    only = "".join(f", {clean(words)}" for words in head.filters or ())
    lines = [
        f"**{clean(head.benchmark)}**, {metrics or 'no metric'}: "
        f"{plural(head.comparable, 'result')} {group}{when}{only}, best first; "
        f"{head.shown:,} shown."
    ]
    if head.others:
        groups = "; ".join(f'"{clean(g.settings)}" ({g.results:,})' for g in head.others)
        where = "Settings groups" if head.settings == ALL else "Other settings, not compared"
        lines.append(f'{where}: {groups}. settings="<group>" shows one, settings="all" all.')
    if head.missing:
        lines.append("No row in these settings for: " + ", ".join(clean(p) for p in head.missing))
    if head.rows_read < head.rows_total:
        lines.append(f"Only {head.rows_read:,} of {head.rows_total:,} rows read (the bound).")
    blocks = ["\n".join(lines)]
    if model.table:
        fence = "" if head.format == "markdown" else head.format
        shown = printable_block(model.table)
        blocks.append(shown if not fence else f"```{fence}\n{shown.rstrip()}\n```")
    if model.bib:
        blocks.append(f"BibTeX of the keys:\n```bibtex\n{printable_block(model.bib).rstrip()}\n```")
    return "\n\n".join(blocks)
