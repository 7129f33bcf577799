"""A loopback fake of the Papers With Code catalog REST API, for tests and benchmarks.

Built from `catalog-api.md` (sections 1-3, 5, 6 and appendix B): real HTTP on
127.0.0.1, the endpoints and envelopes of §2, the Markdown read protocol of §3,
fixture data with real arXiv IDs and titles, fault switches and a request log.

    from tests.fake_catalog import FakeCatalog

    with FakeCatalog() as fake:
        ...  # point the client at fake.api_url

Module map: `server` (HTTP server and lifecycle), `routing` (route table),
`routes_*` (endpoint behaviour), `wire` (query parsing, envelopes, errors),
`fixtures` (indexed data and row shapes), `data_*` (the fixture tables),
`markdown` (documents, versions, chunking), `faults`, `requestlog`, `changes`
(data changes between two looks: `fake.apply(NewResult(...))`), `data_history`
(dated leaderboards, added with `fake.apply(HistoryBoards())`).
"""

from __future__ import annotations

from .changes import NEW_PAPER, Change, NewPaper, NewResult, NewSuccessor, NewVersion
from .data_history import HistoryBoards
from .data_papers import CATALOG_TODAY, Paper
from .data_public import (
    PUBLIC_ARXIV_ID,
    PUBLIC_DOI,
    PUBLIC_HF_ARXIV_ID,
    PUBLIC_IN_CATALOG_DOI,
    PUBLIC_TITLE,
)
from .faults import Fault, Faults
from .fixtures import (
    ATTENTION_ID,
    BIG_MARKDOWN_ARXIV_ID,
    BIGGERGAIT_ID,
    EXTERNAL_ID,
    FILLER_TITLE_WORDS,
    LEGACY_ARXIV_ID,
    LEGACY_ID,
    MISSING_ARXIV_ID,
    NO_MARKDOWN_ARXIV_ID,
    SAME_TITLE,
    SAME_TITLE_ARXIV_IDS,
    Catalog,
)
from .markdown import big_document, content_version
from .requestlog import LoggedRequest, RequestLog
from .server import FakeCatalog

__all__ = [
    "ATTENTION_ID",
    "BIGGERGAIT_ID",
    "BIG_MARKDOWN_ARXIV_ID",
    "CATALOG_TODAY",
    "EXTERNAL_ID",
    "FILLER_TITLE_WORDS",
    "LEGACY_ARXIV_ID",
    "LEGACY_ID",
    "MISSING_ARXIV_ID",
    "NEW_PAPER",
    "NO_MARKDOWN_ARXIV_ID",
    "PUBLIC_ARXIV_ID",
    "PUBLIC_DOI",
    "PUBLIC_HF_ARXIV_ID",
    "PUBLIC_IN_CATALOG_DOI",
    "PUBLIC_TITLE",
    "SAME_TITLE",
    "SAME_TITLE_ARXIV_IDS",
    "Catalog",
    "Change",
    "FakeCatalog",
    "Fault",
    "Faults",
    "HistoryBoards",
    "LoggedRequest",
    "NewPaper",
    "NewResult",
    "NewSuccessor",
    "NewVersion",
    "Paper",
    "RequestLog",
    "big_document",
    "content_version",
]
