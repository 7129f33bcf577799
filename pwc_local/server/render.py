"""The text block of a tool result, for clients that hand the model only the text.

Some MCP clients give the model `structuredContent` and drop the text; many do the
opposite. So in the default `result_text = "markdown"` mode the text is a complete,
compact Markdown rendering of the result: every item with its identifiers, tables for
rows, long free text trimmed (the full text stays in `structuredContent`), and how to
get the next page spelled as the exact call. Each contract entry names its pieces
(`ToolSpec.text`); `text_block` joins them, and an entry that names none gets
`generic`, a compact Markdown walk over the model, so every tool has a good text.

    ToolSpec(..., text=(render.papers, render.notes, render.next_page()))

A piece is a function of the `Call` (the tool, its output model, the query's answer
and the arguments) to a block of text, or `None` to add nothing. Every piece of text
that comes from a caller or the catalog goes through `clean` (the one sanitiser,
`safe_text.one_line`: no control characters or escapes, no line breaks, bounded), so a
title or a reference can neither forge a line nor reach a terminal raw; values spelled
into a call go through `literal` (JSON with every non-printable character escaped).

The three modes (`config.RESULT_TEXTS`), chosen by `text_block`:

| mode | text block |
| --- | --- |
| `markdown` | the declared pieces; a stale answer says so in its first line |
| `summary` | hosted tools: the hosted server's templates (`text.py`) or JSON dump |
| `json` | the compact JSON of `structuredContent` |

(Local tools have no hosted text to match: in the `summary` mode they send their
Markdown.)

The Markdown never exceeds the compact JSON: where it would, the JSON is sent instead
(a stale answer's first line comes on top of either).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pwc_local.safe_text import one_line

if TYPE_CHECKING:
    from pwc_local.server.contract import ToolSpec

TITLE_CHARS = 300  # a title or name in a line; longer ones end in an ellipsis
CELL_CHARS = 120  # a free-text table cell
FREE_TEXT_CHARS = 400  # an abstract or description, cut to its first sentences
HINT_CHARS = 400  # a spelled-out call longer than this is described instead
AUTHORS_SHOWN = 3  # in a paper line; the paper's own page lists up to `AUTHORS_LISTED`
AUTHORS_LISTED = 10
METRIC_COLUMNS = 4  # leaderboard metrics with a column; the rest share one cell
ELLIPSIS = "…"


@dataclass(frozen=True)
class Call:
    """What a piece renders: one tool call's output model, answer and arguments."""

    spec: ToolSpec
    model: Any
    answer: Any
    arguments: Mapping[str, Any]


Piece = Callable[[Call], str | None]


# -- words ---------------------------------------------------------------------------------


def clean(value: Any, limit: int = TITLE_CHARS) -> str:
    """Caller or catalog text as one bounded printable line (the one sanitiser)."""
    return one_line("" if value is None else str(value), limit, cut=ELLIPSIS)


def printable_block(text: str) -> str:
    """Multi-line text (a citation) with each line through the sanitiser, indentation kept."""
    lines = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        lines.append(line[: len(line) - len(body)] + one_line(body, fold=False))
    return "\n".join(lines)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 paper`, `2 papers`, `0 papers` (`nouns` for irregular plurals)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])")


def trimmed(text: Any, sentences: int = 2, limit: int = FREE_TEXT_CHARS) -> str:
    """The first `sentences` sentences of free text, as one line of at most `limit` chars."""
    flat = clean(text, None)  # type: ignore[arg-type]
    parts = _SENTENCE_END.split(flat, maxsplit=sentences)
    short = " ".join(parts[:sentences])
    cut = ELLIPSIS if len(parts) > sentences else ""
    return one_line(short + (" " + cut if cut else ""), limit, cut=ELLIPSIS)


def printable_json(document: Any, **options: Any) -> str:
    """`json.dumps(document)` with every non-printable character escaped: the same JSON.

    `json` escapes only the C0 controls; DEL, the C1 controls (CSI among them) and the
    line and paragraph separators would reach a terminal or a log line raw.
    """
    text = json.dumps(document, ensure_ascii=False, **options)
    return "".join(c if c.isprintable() or c == "\n" else f"\\u{ord(c):04x}" for c in text)


def literal(value: Any) -> str:
    """`value` as it is spelled in a call: printable JSON."""
    return printable_json(value, separators=(", ", ": "))


def compact_json(document: Any) -> str:
    """The compact JSON of a structured result (the `json` mode, and the size bound)."""
    return printable_json(document, separators=(",", ":"))


def ids(*values: Any) -> str:
    """Identifiers, cleaned and comma-separated, empty ones left out: `1706.03762, id 755`."""
    return ", ".join(clean(value, 100) for value in values if value not in (None, ""))


def id_of(value: Any) -> str | None:
    """A catalog ID as shown beside a name or an arXiv ID: `id 755`."""
    return f"id {clean(value, 100)}" if value not in (None, "") else None


def handle(name: Any, *values: Any) -> str:
    """`Name (slug, id 7)`: a name with the identifiers a tool takes."""
    shown = ids(*values)
    label = clean(name) or "(unnamed)"
    return f"{label} ({shown})" if shown else label


def entity(row: Any) -> str:
    """A catalog reference (`id`, `name`, optional `slug`) as `Name (slug, id N)`."""
    slug = getattr(row, "slug", None)
    return handle(row.name, slug, id_of(row.id))


def yes_no(value: bool) -> str:
    return "yes" if value else "no"


def count_of(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else clean(value)


def parameters(count: int | None) -> str:
    """A parameter count for people: 632M, 1.5B, 7B."""
    if count is None:
        return ""
    for size, unit in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if count >= size:
            return f"{count / size:.3g}{unit}"
    return str(count)


def metric(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e6 else f"{value:.6g}"
    return clean(value, 40)


# -- blocks --------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table; every cell is cleaned, and `|` inside a cell is escaped."""

    def cell(value: Any) -> str:
        return clean(value, CELL_CHARS).replace("|", "\\|") if value not in (None, "") else ""

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def paper_line(paper: Any, number: int | None = None) -> str:
    """One paper: title, arXiv ID and catalog ID, first authors, date, citations, code."""
    facts = [ids(paper.arxiv_id, id_of(paper.id))]
    authors = [clean(name, 80) for name in paper.authors[:AUTHORS_SHOWN]]
    if authors:
        facts.append(", ".join(authors) + (" et al." if len(paper.authors) > AUTHORS_SHOWN else ""))
    if paper.published:
        facts.append(clean(paper.published, 40))
    if paper.citation_count is not None:
        facts.append(plural(paper.citation_count, "citation"))
    code = plural(paper.code_repository_count, "repo")
    facts.append(("official code, " + code) if paper.has_official_implementation else code)
    lead = f"{number}. " if number is not None else "- "
    return f"{lead}**{clean(paper.title)}** · " + " · ".join(fact for fact in facts if fact)


def call_hint(spec: ToolSpec, arguments: Mapping[str, Any], **changes: Any) -> str:
    """`tool(name=value, ...)`: the call that repeats this one with `changes`.

    Arguments left at their declared default are left out; a call too long to spell
    (a long metric filter, say) is described instead.
    """
    given = {**arguments, **changes}
    words = [
        f"{param.name}={literal(given[param.name])}"
        for param in spec.params
        if param.name in given and (param.name in changes or given[param.name] != param.default)
    ]
    spelled = f"{spec.name}({', '.join(words)})"
    if len(spelled) <= HINT_CHARS:
        return spelled
    shown = ", ".join(f"{name}={literal(value)}" for name, value in changes.items())
    return f"{spec.name} with the same arguments and {shown}"


def age(seconds: float) -> str:
    """An age in words: `less than a minute`, `5 minutes`, `3 hours`, `2 days`."""
    minutes = int(max(seconds, 0) // 60)
    if minutes < 1:
        return "less than a minute"
    if minutes < 120:
        return plural(minutes, "minute")
    hours = minutes // 60
    return plural(hours, "hour") if hours < 48 else plural(hours // 24, "day")


def stale_line(cached_at: datetime, now: datetime | None = None) -> str:
    """The first line of a stale answer: where it comes from, how old, and why."""
    now = now or datetime.now(timezone.utc)
    old = age((now - cached_at).total_seconds())
    return (
        f"From the local cache, {old} old, because the catalog could not be reached "
        f"({cached_at.isoformat()})."
    )


# -- generic: any model as Markdown ----------------------------------------------------------

_LABELS = ("name", "title", "model_name")
_HANDLES = ("slug", "arxiv_id", "reference")
_SKIPPED = frozenset({"schema_version", "cache"})


def _label_of(row: Mapping[str, Any]) -> str | None:
    for key in _LABELS:
        if isinstance(row.get(key), str) and row[key]:
            return key
    return None


def _row_handle(row: Mapping[str, Any], label: str | None) -> str:
    values = [*(row.get(key) for key in _HANDLES), id_of(row.get("id"))]
    return handle(row[label], *values) if label else ids(*values)


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _shown(key: str, value: Any, *, in_table: bool) -> bool:
    """Whether a field goes in the text: not empty, and in a table no URL or long text."""
    if value in (None, "", [], {}):
        return False
    return not (in_table and (key.endswith("url") or key == "description"))


def _value(key: str, value: Any) -> str:
    if isinstance(value, list) and all(_scalar(item) for item in value):
        return ", ".join(clean(item, 100) for item in value)
    if key == "description" or (isinstance(value, str) and len(value) > FREE_TEXT_CHARS):
        return trimmed(value)
    if isinstance(value, bool):
        return yes_no(value)
    return clean(value)


def _words(key: str) -> str:
    return key.replace("_", " ")


def _rows_of(value: Any) -> list[Mapping[str, Any]] | None:
    if isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
        return value
    return None


def _record_lines(row: Mapping[str, Any], depth: int) -> list[str]:
    """One object: its label and handle, then its fields, then its nested rows."""
    label = _label_of(row)
    used = {label, *_HANDLES, "id"} if label else set()
    facts = [
        f"{_words(key)}: {_value(key, value)}"
        for key, value in row.items()
        if key not in used
        and key not in _SKIPPED
        and _shown(key, value, in_table=False)
        and (_scalar(value) or (isinstance(value, list) and all(_scalar(v) for v in value)))
    ]
    indent = "  " * depth
    head = _row_handle(row, label)
    lines = [f"{indent}- " + " · ".join(part for part in [head, *facts] if part)]
    for key, value in row.items():
        rows = _rows_of(value)
        if rows is not None and key not in _SKIPPED:
            lines.append(f"{indent}  {_words(key)}:")
            lines += _rows_lines(rows, depth + 1)
        elif isinstance(value, Mapping) and key not in _SKIPPED and value:
            lines.append(f"{indent}  {_words(key)}:")
            lines += _record_lines(value, depth + 1)
    return lines


def _rows_lines(rows: Sequence[Mapping[str, Any]], depth: int) -> list[str]:
    """Rows as a table when they are flat, else as nested list items."""
    nested = any(not _scalar(v) and _rows_of(v) is not None for row in rows for v in row.values())
    if nested or depth > 0 or len(rows) == 1:
        return [line for row in rows for line in _record_lines(row, depth)]
    return [_rows_table(rows)]


def _rows_table(rows: Sequence[Mapping[str, Any]]) -> str:
    label = _label_of(rows[0])
    columns: list[str] = []
    for row in rows:
        for key, value in row.items():
            if key in columns or key in _SKIPPED or key in _LABELS or key in _HANDLES:
                continue
            flat = _scalar(value) or all(_scalar(v) for v in value or [])
            if key != "id" and flat and _shown(key, value, in_table=True):
                columns.append(key)
    headers = [_words(label or "item"), *[_words(key) for key in columns]]
    body = []
    for row in rows:
        row_label = _label_of(row)
        lead = _row_handle(row, row_label)
        body.append(
            [
                lead,
                *[
                    _value(key, row.get(key)) if row.get(key) not in (None, "") else ""
                    for key in columns
                ],
            ]
        )
    return table(headers, body)


def _record_block(row: Mapping[str, Any], label: str) -> str:
    """A single labelled object: a heading with its handle, its facts, its text and links."""
    used = {label, *_HANDLES, "id"}
    facts, texts, links, nested = [], [], [], []
    for key, value in row.items():
        if key in used or key in _SKIPPED or not _shown(key, value, in_table=False):
            continue
        if _rows_of(value) is not None or isinstance(value, Mapping):
            nested.append(markdown_of({key: value}))
        elif key.endswith("url") and isinstance(value, str):
            links.append(f"{_words(key)} {clean(value, 500)}")
        elif key == "description" or (isinstance(value, str) and len(value) > CELL_CHARS):
            texts.append(trimmed(value))
        elif _scalar(value) or all(_scalar(item) for item in value):
            facts.append(f"{_words(key)}: {_value(key, value)}")
    lines = [f"## {_row_handle(row, label)}", " · ".join(facts), *texts, " · ".join(links)]
    return "\n\n".join(["\n".join(line for line in lines if line), *nested])


def markdown_of(document: Any, depth: int = 0) -> str:
    """Any JSON document as compact Markdown: objects as fact lines, flat rows as tables."""
    rows = _rows_of(document)
    if rows is not None:
        return "\n".join(_rows_lines(rows, depth))
    if not isinstance(document, Mapping):
        return clean(document) if document not in (None, "", []) else ""
    label = _label_of(document)
    if label is not None:
        return _record_block(document, label)
    blocks: list[str] = []
    facts = []
    for key, value in document.items():
        if key in _SKIPPED or value in (None, "", [], {}):
            continue
        if (inner := _rows_of(value)) is not None:
            blocks.append(f"{_words(key)} ({len(inner)}):\n" + "\n".join(_rows_lines(inner, 0)))
        elif isinstance(value, Mapping):
            inner_text = markdown_of(value)
            blocks.append(inner_text if _label_of(value) else f"{_words(key)}:\n{inner_text}")
        elif _scalar(value) or isinstance(value, list):
            facts.append(f"{_words(key)}: {_value(key, value)}")
    if facts:
        blocks.insert(0, " · ".join(facts))
    return "\n\n".join(block for block in blocks if block)


def generic(call: Call) -> str:
    """The model as compact Markdown: the fallback of every entry that declares no pieces."""
    document = call.model.model_dump(mode="json")
    data = document.get("data")
    if set(document) - _SKIPPED == {"data"}:
        return markdown_of(data)
    return markdown_of({key: value for key, value in document.items() if key != "data"})


def of_model(function: Callable[[Any], str]) -> Piece:
    """A piece from a text function of the output model alone (the reading tools')."""
    return lambda call: function(call.model)


# -- assembling -----------------------------------------------------------------------------


def markdown(call: Call) -> str:
    """The declared pieces of `call.spec` (or `generic`), joined by blank lines."""
    pieces = call.spec.text or (generic,)
    return "\n\n".join(block for piece in pieces if (block := piece(call)))


def text_block(call: Call, mode: str, summary: str | None, stale_since: datetime | None) -> str:
    """The one text block of a successful result, in `mode` (see the module docstring).

    `summary` is the entry's hosted-server text (`None`: the JSON dump), used in the
    `summary` mode; `stale_since` is when the oldest stale cache entry used was saved.
    """
    document = call.model.model_dump(mode="json")
    if mode == "json":
        return compact_json(document)
    if mode == "summary" and call.spec.group == "hosted":
        text = summary if summary is not None else printable_json(document, indent=2)
        if stale_since is not None:
            from pwc_local.server.text import stale_notice

            text += "\n\n" + stale_notice(stale_since.isoformat())
        return text
    text, bound = markdown(call), compact_json(document)
    if len(text.encode()) > len(bound.encode()):
        text = bound
    return text if stale_since is None else stale_line(stale_since) + "\n\n" + text
