"""The words every result's text is made of: one bounded, printable line at a time.

Both halves of a result are built from one record (`pwc_local.present`); these
helpers spell its values for the text half, and the hosted profile's Markdown
(`pwc_local.present.render`) uses the same ones. Every piece of text that comes from
a caller or the catalog goes through `clean` (the one sanitiser,
`safe_text.one_line`: no control characters or escapes, no line breaks, bounded), so
a title or a reference can neither forge a line nor reach a terminal raw; values
spelled into a call go through `literal` (JSON with every non-printable character
escaped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pwc_local.safe_text import one_line

if TYPE_CHECKING:
    from pwc_local.contract import Tool

TITLE_CHARS = 300  # a title or name in a line; longer ones end in an ellipsis
CELL_CHARS = 420  # a table cell: a title with its IDs, or a trimmed text
FREE_TEXT_CHARS = 400  # an abstract or description, cut to its first sentences
HINT_CHARS = 400  # a spelled-out call longer than this is described instead
AUTHORS_SHOWN = 3  # in a paper line; the paper's own page lists up to `AUTHORS_LISTED`
AUTHORS_LISTED = 10
METRIC_COLUMNS = 4  # leaderboard metrics with a column; the rest share one cell
ELLIPSIS = "…"


def clean(value: Any, limit: int | None = TITLE_CHARS) -> str:
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
    flat = clean(text, None)
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
    if all(line.isprintable() for line in text.split("\n")):  # the usual case, at C speed
        return text
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


def paper_ids(arxiv_id: Any, paper_id: Any) -> str:
    """A paper's identifiers: `1706.03762, id 755` (the catalog ID once, when it is the same)."""
    return ids(arxiv_id, id_of(paper_id) if paper_id != arxiv_id else None)


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
    """A metric value as the catalog gave it; a float with a binary tail to 6 digits."""
    if isinstance(value, float) and len(repr(value)) > 10:
        return f"{value:.6g}"
    return clean(value, 40)


# -- blocks --------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table; every cell is cleaned, and `|` inside a cell is escaped."""

    def cell(value: Any) -> str:
        return clean(value, CELL_CHARS).replace("|", "\\|") if value not in (None, "") else ""

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def call_hint(tool: Tool, arguments: Mapping[str, Any], **changes: Any) -> str:
    """`tool(name=value, ...)`: the call that repeats this one with `changes`.

    Arguments left at their declared default are left out; a call too long to spell
    (a long metric filter, say) is described instead.
    """
    given = {**arguments, **changes}
    words = [
        f"{param.name}={literal(given[param.name])}"
        for param in tool.params
        if param.name in given and (param.name in changes or given[param.name] != param.default)
    ]
    spelled = f"{tool.name}({', '.join(words)})"
    if len(spelled) <= HINT_CHARS:
        return spelled
    shown = ", ".join(f"{name}={literal(value)}" for name, value in changes.items())
    return f"{tool.name} with the same arguments and {shown}"


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
    saved = cached_at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"From the local cache, {old} old (saved {saved}): the catalog could not be reached."
