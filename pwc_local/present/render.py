"""The one text block of a tool result, in each `result_text` mode.

Compact profile (the default): `record_text` sends the text the tool's family spells
from its record (`pwc_local.present.record`), whole, beside a `structuredContent` of
the same facts. Hosted profile: `text_block` joins the Markdown pieces the contract
entry names (`ToolSpec.text`) over the hosted model, where long free text is trimmed
(the hosted `structuredContent` holds it whole); an entry that names none gets
`generic.generic`, a compact Markdown walk over the model.

    ToolSpec(..., text=(piece.papers, piece.note, piece.next_page()))

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
| `summary` | hosted tools: the hosted server's templates (`summaries.py`) or JSON dump |
| `json` | the compact JSON of `structuredContent` |

(Local tools have no hosted text to match: in the `summary` mode they send their
Markdown.)

Hosted profile: the Markdown never exceeds the compact JSON (where it would, the JSON
is sent instead). Compact profile: each half within 1.5 times the other
(`TEXT_OVER_JSON`). A stale answer's first line comes on top of either.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pwc_local.present.words import (
    AUTHORS_SHOWN,
    clean,
    compact_json,
    paper_ids,
    plural,
    printable_json,
    stale_line,
)

if TYPE_CHECKING:
    from pwc_local.contract import Tool

logger = logging.getLogger(__name__)


Piece = Callable[["Call"], str | None]


@dataclass(frozen=True)
class Call:
    """What a piece renders: one tool call's output model (and its JSON), answer, arguments.

    `tool` is the contract entry called; `pieces` are its binding's text pieces.
    """

    tool: Tool
    pieces: tuple[Piece, ...]
    model: Any
    answer: Any
    arguments: Mapping[str, Any]
    structured: dict[str, Any]  # `model` dumped in JSON mode: the `structuredContent`


def paper_line(paper: Any, number: int | None = None) -> str:
    """One paper: title, arXiv ID and catalog ID, first authors, date, citations, code."""
    facts = [paper_ids(paper.arxiv_id, paper.id)]
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


def of_model(function: Callable[[Any], str]) -> Piece:
    """A piece from a text function of the output model alone (the reading tools')."""
    return lambda call: function(call.model)


# -- assembling -----------------------------------------------------------------------------


def markdown(call: Call) -> str:
    """The declared pieces of the call, joined by blank lines."""
    return "\n\n".join(block for piece in call.pieces if (block := piece(call)))


def text_block(call: Call, mode: str, summary: str | None, stale_since: datetime | None) -> str:
    """The one text block of a successful result, in `mode` (see the module docstring).

    `summary` is the entry's hosted-server text (`None`: the JSON dump), used in the
    `summary` mode; `stale_since` is when the oldest stale cache entry used was saved.
    """
    document = call.structured
    if mode == "json":
        return compact_json(document)
    if mode == "summary" and call.tool.group == "hosted":
        text = summary if summary is not None else printable_json(document, indent=2)
        if stale_since is not None:
            from pwc_local.present.summaries import stale_notice

            text += "\n\n" + stale_notice(stale_since.isoformat())
        return text
    try:
        text = markdown(call)
    except Exception as exc:  # a rendering fault must not cost the answer: send the JSON
        logger.warning("text of %s fell back to JSON: %s", call.tool.name, type(exc).__name__)
        text = compact_json(document)
    bound = compact_json(document)
    if len(text.encode()) > len(bound.encode()):
        text = bound
    return text if stale_since is None else stale_line(stale_since) + "\n\n" + text


# Each half of a compact result within 1.5x the other (issue 26): both stay small.
TEXT_OVER_JSON = 1.5


def record_text(
    structured: dict[str, Any],
    mode: str,
    summary: str | None,
    stale_since: datetime | None,
    spell: Callable[[], str],
) -> str:
    """The text block of a compact result (`pwc_local.present`), in `mode`.

    `markdown`: the record's own text (`spell`) after the stale line; where it would be
    over `TEXT_OVER_JSON` times the compact JSON (a record the text spells badly), the
    JSON is sent instead. `summary`: the hosted template (`summary`, else the Markdown);
    `json`: the compact JSON.
    """
    bound = compact_json(structured)
    if mode == "json":
        return bound
    if mode == "summary" and summary is not None:
        text = summary
    else:
        try:
            text = spell()
        except Exception as exc:  # a rendering fault must not cost the answer
            logger.warning("text fell back to JSON: %s", type(exc).__name__)
            text = bound
        if len(text.encode()) > TEXT_OVER_JSON * len(bound.encode()):
            text = bound
    return text if stale_since is None else stale_line(stale_since) + "\n\n" + text
