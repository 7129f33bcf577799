"""The reading library's tools (local additions; see `bindings`)."""

from __future__ import annotations

from pwc_local.present import library as shown_library
from pwc_local.present import pieces as piece
from pwc_local.present.render import of_model
from pwc_local.queries import library
from pwc_local.server import links
from pwc_local.server.bindings import ToolSpec, bind, group_tools
from pwc_local.server.errors import error_message

TOOLS: tuple[ToolSpec, ...] = (
    bind(
        "save_papers",
        query=library.save_papers,
        needs=("catalog", "library", "progress"),
        output=shown_library.SavePapersResult,
        project=lambda answer, _: shown_library.saved_result(answer, error_message),
        text=(of_model(shown_library.saved_text),),
        links=links.row_links,
    ),
    bind(
        "list_library",
        query=library.list_library,
        needs=("library",),
        output=shown_library.LibraryPage,
        project=shown_library.library_page,
        text=(of_model(shown_library.library_text), piece.next_page()),
        links=links.row_links,
    ),
    bind(
        "search_library",
        query=library.search_library,
        needs=("library", "codec"),
        output=shown_library.LibrarySearchResult,
        project=shown_library.search_result,
        text=(of_model(shown_library.search_text),),
        links=links.row_links,
    ),
)

BY_NAME = group_tools("library", TOOLS)
