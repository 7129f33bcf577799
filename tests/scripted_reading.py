"""The fixtures of the unit tests that read one paper's Markdown from a scripted catalog.

`tests/test_reading.py` (`read_paper`) and `tests/test_sections.py` (outlines and
section reads) each serve a `DOCUMENT` of their own as arXiv 1706.03762 and read it
through the real `HttpCatalog` (`tests.scripted_catalog`), in async tests that sign
cursors with a fixed key (on asyncio: `anyio_backend` is in `tests/conftest.py`). A
module binds the two fixtures by name, which is where pytest looks for them:

    codec, scripted = reading_fixtures(DOCUMENT)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pwc_local.common.cursors import CursorCodec
from tests.scripted_catalog import Route, ScriptedCatalog, markdown_pages

READ = "research/papers/1706.03762/read"  # the read route of the paper served


def reading_fixtures(document: str, more: Mapping[str, Route] | None = None) -> tuple[Any, Any]:
    """The fixtures `codec` and `scripted` for tests reading `document`.

    `codec` signs with "secret-one" for an hour.
    `scripted` answers `READ` with `document` as the read route serves it (byte
    offsets, version pinning), `papers/1706.03762` with the paper's row, and the
    `more` routes as given; each test gets a fresh one it may script further.
    """

    @pytest.fixture(name="codec")
    def codec() -> CursorCodec:
        return CursorCodec("secret-one", ttl=3600)

    @pytest.fixture(name="scripted")
    def scripted() -> ScriptedCatalog:
        catalog = ScriptedCatalog()
        catalog.on(READ, lambda params: markdown_pages(document, params))
        catalog.on("papers/1706.03762", {"id": "755", "arxiv_id": "1706.03762"})
        for path, answer in (more or {}).items():
            catalog.on(path, answer)
        return catalog

    return codec, scripted
