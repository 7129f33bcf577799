"""Library search ranking: for each query, the passage that must come first (issue 21 item 4).

Every paper of the fake catalog with Markdown is saved into a scratch library, as
`library add` would store it, and searched through the query layer
(`search_library`), the way the tool and the CLI search. The cases are what a
reader would expect: the paper's title counts once per paper (not in every
passage's heading path), and a passage with the query's words as written ranks
above one that only shares their stems.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pwc_local.common.shelf import SavedPaper
from pwc_local.queries.library_search import search_library
from pwc_local.store.library import Library
from tests.fake_catalog.data_papers import PAPERS
from tests.fake_catalog.markdown import content_version
from tests.fake_catalog.server import FakeCatalog

# query -> (paper, section) of the passage that must be the first hit
FIRST = {
    "residual learning": ("1512.03385", ""),
    "position encodings": ("1706.03762", "2 Key ideas"),
    "momentum updated key encoder": ("1911.05722", "2 Key ideas"),
    "identity shortcuts": ("1512.03385", "2 Key ideas"),
    "deep networks hard to optimise": ("1512.03385", "Abstract"),
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    fake = FakeCatalog()  # not started: only its documents are needed
    opened = Library.open(Path(tmp_path_factory.mktemp("ranking")) / "data")
    for paper in PAPERS:
        text = fake.markdown(paper.id)
        if not text or not paper.arxiv_id:
            continue
        opened.save(
            SavedPaper(
                paper=paper.arxiv_id,
                title=paper.title,
                in_catalog=True,
                metadata={"id": paper.id},
                citation={},
                markdown=text,
                content_version=content_version(text),
            )
        )
    yield opened
    opened.close()


@pytest.mark.parametrize("query", FIRST)
def test_the_expected_passage_comes_first(library: Library, query: str) -> None:
    hits = search_library(library, None, query, limit=5)
    assert hits, query
    innermost = hits[0].section.split(" > ")[-1]  # the paper's title is not the section
    assert (hits[0].paper, innermost) == FIRST[query], [
        (h.paper, h.section, h.quote[:60]) for h in hits
    ]


def test_the_title_counts_once_per_paper_not_in_every_passage(library: Library) -> None:
    hits = search_library(library, None, "residual learning", limit=20, paper="1512.03385")
    sections = [hit.section for hit in hits]
    # The title passage, the abstract ("learn residual functions") and the
    # introduction (which names the paper); not the sections with neither word.
    assert sections[0] == "" and set(sections) <= {"", "Abstract", "1 Introduction"}
    assert all("Deep Residual Learning" not in hit.section for hit in hits)


def test_a_stem_only_match_ranks_below_the_words_as_written(library: Library) -> None:
    hits = search_library(library, None, "position encodings", limit=10, paper="1706.03762")
    sections = [hit.section.split(" > ")[-1] for hit in hits]
    # The abstract has only "positions" and "encoder-decoder": stems of both words.
    assert sections.index("2 Key ideas") < sections.index("Abstract")
