"""Words the model reads once per session: the server's identity and instructions.

Short on purpose: every session pays for them. Tool and parameter descriptions live
with their tool in `contract.py`; the text of results is `pwc_local.present`'s (the
hosted server's templates: `present/summaries.py`).
"""

from __future__ import annotations

SERVER_NAME = "pwc-local"
SERVER_TITLE = "Papers With Code (local)"
WEBSITE_URL = "https://paperswithcode.co"
SERVER_DESCRIPTION = (
    "Read-only access to the Papers With Code research catalog (papers, tasks, methods, "
    "conferences, organizations, frameworks, benchmarks), served locally over stdio with a "
    "disk cache."
)

INSTRUCTIONS = """\
- search_papers ranks by relevance; list_* tools filter deterministically. Exact lookups \
(get_*) take the slugs or IDs that list tools return. Dates are YYYY-MM-DD.
- For "best / state-of-the-art model" questions call get_task, then get_benchmark on one of \
its benchmarks; ranks only hold within their own task scope.
- read_paper returns Markdown in chunks: pass back next_cursor (with the same paper) until it \
is null.
- structuredContent is complete; the text block may trim long text.
- "Official implementation" is the catalog's own designation, not verified; an evaluation's \
is_open may be null when nobody recorded it."""

# The default (compact) profile: each half of a result is whole, and clients pass on one.
COMPACT_INSTRUCTIONS = INSTRUCTIONS.replace(
    "- structuredContent is complete; the text block may trim long text.",
    "- A result's text and its structuredContent carry the same facts; either alone is "
    "complete. Lists come as tables (columns, then rows).",
)
