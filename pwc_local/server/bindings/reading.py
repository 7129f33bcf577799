"""The reading tools: read less, cite more (local additions; see `bindings`)."""

from __future__ import annotations

from pwc_local.present import reading as shown_reading
from pwc_local.present.record import Presenter
from pwc_local.present.render import of_model
from pwc_local.queries import citing, sections
from pwc_local.server.bindings import ToolSpec, bind, group_tools

TOOLS: tuple[ToolSpec, ...] = (
    bind(
        "get_paper_outline",
        query=sections.get_paper_outline,
        output=shown_reading.PaperOutlineResult,
        project=shown_reading.paper_outline,
        text=(of_model(shown_reading.outline_model_text),),
        compact=Presenter(shown_reading.Outline, shown_reading.outline, shown_reading.outline_text),
    ),
    bind(
        "read_paper_section",
        query=sections.read_paper_section,
        needs=("catalog", "codec"),
        output=shown_reading.PaperSectionResult,
        project=shown_reading.paper_section,
        text=(of_model(shown_reading.section_text),),
    ),
    bind(
        "cite_paper",
        query=citing.cite_paper,
        output=shown_reading.CitationResult,
        project=shown_reading.citation,
        text=(of_model(shown_reading.citation_text),),
    ),
)

BY_NAME = group_tools("reading", TOOLS)
