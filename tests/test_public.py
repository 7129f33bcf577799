"""Public-metadata fallback: lookups, miss reasons, catalog retries, notes and Markdown."""

from __future__ import annotations

from functools import partial

import httpx
import pytest

from pwc_local.common.cursors import CursorCodec
from pwc_local.queries.public import (
    PublicMiss,
    PublicRecord,
    lookup_public,
    public_markdown,
    public_note,
)
from pwc_local.server.errors import error_message
from pwc_local.server.tools import call_query
from pwc_local.store.cache import DiskCache
from pwc_local.store.cached_catalog import CachingCatalog
from pwc_local.upstream.errors import Ambiguous, NotFound, PaperMissing
from pwc_local.upstream.http import HttpCatalog
from tests.fake_catalog import (
    MISSING_ARXIV_ID,
    PUBLIC_ARXIV_ID,
    PUBLIC_DOI,
    PUBLIC_IN_CATALOG_DOI,
    PUBLIC_TITLE,
)
from tests.scripted_catalog import (
    BASE,
    ScriptedCatalog,
    error,
    json_response,
    markdown_pages,
    paper_row,
    search_page,
)

# The query functions, called as a tools/call calls them: the contract table's defaults.
paper_info_or_public = partial(call_query, "get_paper_info")
related_or_public = partial(call_query, "get_related_papers")
read_paper = partial(call_query, "read_paper")

pytestmark = pytest.mark.anyio

UNCATALOGUED = {
    "in_catalog": False,
    "catalog_id": None,
    "arxiv_id": "2401.00001v2",
    "doi": None,
    "title": "An Uncatalogued Paper",
    "authors": ["Ada Researcher", "Grace Scientist"],
    "published": "2024-01-02",
    "abstract": "We study things.\n\nAt length.",
    "metadata_source": "arxiv",
    "requested_title": None,
    "hf_paper_url": "https://huggingface.co/papers/2401.00001",
    "arxiv_url": "https://arxiv.org/abs/2401.00001",
    "pdf_url": "https://arxiv.org/pdf/2401.00001",
    "doi_url": None,
    "publisher_url": "javascript:alert(1)",
}
CATALOGUED = {"in_catalog": True, "catalog_id": "755", "arxiv_id": "1706.03762", "title": "A"}
ATTENTION_DETAIL = {"id": "755", "arxiv_id": "1706.03762", "title": "Attention Is All You Need"}


# -- lookup ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference, path, params",
    [
        ("2401.00001v2", "public-metadata", {"reference": ["2401.00001v2"]}),
        ("hep-th/9901001", "public-metadata", {"reference": ["hep-th/9901001"]}),
        (
            "10.1007/s10479-024-06277-x",
            "public-metadata",
            {"reference": ["10.1007/s10479-024-06277-x"]},
        ),
        (
            "https://doi.org/10.1007/s10479-024-06277-x",
            "public-metadata",
            {"reference": ["https://doi.org/10.1007/s10479-024-06277-x"]},
        ),
        (
            "https://huggingface.co/papers/2401.00001",
            "public-metadata",
            {"reference": ["https://huggingface.co/papers/2401.00001"]},
        ),
        (
            " https://arxiv.org/abs/2401.00001 ",
            "public-metadata",
            {"reference": ["https://arxiv.org/abs/2401.00001"]},
        ),
        ("An Uncatalogued Paper", "public-metadata/search", {"title": ["An Uncatalogued Paper"]}),
    ],
)
async def test_lookup_requests(
    scripted: ScriptedCatalog, reference: str, path: str, params: dict
) -> None:
    scripted.on(path, UNCATALOGUED)
    async with scripted.client() as catalog:
        record = await lookup_public(catalog, reference)
    assert isinstance(record, PublicRecord)
    assert [(r.path, r.multi) for r in scripted.requests] == [(path, params)]


@pytest.mark.parametrize(
    "reference",
    [
        "4242",
        "https://paperswithcode.co/paper/some-slug",
        "https://aclanthology.org/2020.acl-main.1/",
        "https://huggingface.co/models",
        "",
    ],
)
async def test_unsupported_references_are_not_looked_up(
    scripted: ScriptedCatalog, reference: str
) -> None:
    async with scripted.client() as catalog:
        assert await lookup_public(catalog, reference) == PublicMiss("unsupported")
    assert scripted.requests == []


@pytest.mark.parametrize(
    "reference, answer, reason",
    [
        ("2401.99999", error(404, "none"), "identifier"),
        ("No Such Title", error(404, "none"), "title"),
        ("2401.99999", error(422, "bad"), "unsupported"),
        ("2401.99999", error(503, "down"), "unavailable"),
        ("2401.99999", error(429, "slow down"), "unavailable"),
        ("2401.99999", httpx.Response(200, content=b"{not json"), "unavailable"),
        ("2401.99999", json_response(["not", "an", "object"]), "unavailable"),
    ],
)
async def test_miss_reasons(
    scripted: ScriptedCatalog, reference: str, answer: httpx.Response, reason: str
) -> None:
    scripted.on("public-metadata", lambda params: answer)
    scripted.on("public-metadata/search", lambda params: answer)
    async with scripted.client() as catalog:
        miss = await lookup_public(catalog, reference)
    assert miss == PublicMiss(reason)


async def test_unreachable_public_sources_are_unavailable(scripted: ScriptedCatalog) -> None:
    scripted.fail_with(httpx.ConnectError("refused"))
    async with scripted.client() as catalog:
        assert await lookup_public(catalog, "2401.00001") == PublicMiss("unavailable")


async def test_record_fields_are_cleaned(scripted: ScriptedCatalog) -> None:
    scripted.on("public-metadata", UNCATALOGUED)
    async with scripted.client() as catalog:
        record = await lookup_public(catalog, "2401.00001")
    assert isinstance(record, PublicRecord)
    assert record.arxiv_id == "2401.00001" and not record.in_catalog
    assert record.links == [
        ("Hugging Face Papers", "https://huggingface.co/papers/2401.00001"),
        ("arXiv", "https://arxiv.org/abs/2401.00001"),
        ("PDF", "https://arxiv.org/pdf/2401.00001"),
    ]  # null and non-http links dropped
    assert record.retry_ids("2401.00001") == []


# -- get_paper_info ----------------------------------------------------------------------


async def test_catalog_paper_needs_no_public_lookup(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/1706.03762", {"id": "755", "title": "Attention Is All You Need"})
    async with scripted.client() as catalog:
        answer = await paper_info_or_public(catalog, paper="1706.03762")
    assert answer.in_catalog and answer.payload == answer.paper
    assert answer.note is None and answer.available_at == []
    assert scripted.paths() == ["papers/1706.03762"]


async def test_paper_outside_the_catalog_answers_from_public_metadata(
    scripted: ScriptedCatalog,
) -> None:
    scripted.on("public-metadata", UNCATALOGUED)
    async with scripted.client() as catalog:
        answer = await paper_info_or_public(catalog, paper="2401.00001v2")
    assert not answer.in_catalog and answer.payload is None
    assert answer.paper["title"] == "An Uncatalogued Paper"
    assert answer.paper["tasks"] == [] and answer.paper["code_repository_count"] == 0
    assert answer.paper["url_pdf"] == "https://arxiv.org/pdf/2401.00001"
    assert "not indexed on Papers With Code" in (answer.note or "")
    assert answer.available_at[1] == ("arXiv", "https://arxiv.org/abs/2401.00001")
    assert scripted.paths() == ["papers/2401.00001", "public-metadata"]


async def test_in_catalog_record_retries_with_its_ids(scripted: ScriptedCatalog) -> None:
    scripted.on("public-metadata", CATALOGUED)
    scripted.on("papers/1706.03762", {"id": "755", "title": "Attention Is All You Need"})
    url = f"https://doi.org/{PUBLIC_IN_CATALOG_DOI}"
    async with scripted.client() as catalog:
        answer = await paper_info_or_public(catalog, paper=url)
    assert answer.in_catalog and answer.paper["id"] == "755"
    assert scripted.paths() == ["public-metadata", "papers/1706.03762"]


async def test_failed_retries_keep_the_original_miss(scripted: ScriptedCatalog) -> None:
    scripted.on("public-metadata", CATALOGUED)
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing, match=r"^Paper not found: 2401\.00009$"):
            await paper_info_or_public(catalog, paper="2401.00009")
    # arXiv ID first, then the catalog ID (whose canonicalisation also misses).
    assert scripted.paths() == [
        "papers/2401.00009",
        "public-metadata",
        "papers/1706.03762",
        "papers/755",
    ]


async def test_public_miss_extends_the_original_error(scripted: ScriptedCatalog) -> None:
    scripted.on("public-metadata", lambda params: error(404, "nothing"))
    async with scripted.client() as catalog:
        with pytest.raises(NotFound) as caught:
            await paper_info_or_public(catalog, paper="2401.00009")
    assert str(caught.value) == (
        "Paper not found: 2401.00009; it is not indexed on Papers With Code and no public "
        "record for this identifier was found on Hugging Face Papers, arXiv or Crossref"
    )


async def test_unsupported_url_miss_names_the_reason(scripted: ScriptedCatalog) -> None:
    async with scripted.client() as catalog:
        with pytest.raises(NotFound) as caught:
            await paper_info_or_public(catalog, paper="https://aclanthology.org/2020.acl-main.1/")
    message = str(caught.value)
    assert message.startswith("Paper URL not supported: https://aclanthology.org/")
    assert "; it is not indexed on Papers With Code and public records were not searched" in message
    assert scripted.requests == []


async def test_ambiguous_titles_do_not_fall_back(scripted: ScriptedCatalog) -> None:
    twins = [paper_row("2401.00001", "Same", "1"), paper_row("2401.00002", "Same", "2")]
    scripted.on("papers/search", search_page(twins))
    async with scripted.client() as catalog:
        with pytest.raises(Ambiguous):
            await paper_info_or_public(catalog, paper="Same")
    assert "public-metadata/search" not in scripted.paths()


async def test_title_miss_uses_the_title_search_and_explains_a_different_title(
    scripted: ScriptedCatalog,
) -> None:
    scripted.on("papers/search", search_page([]))
    record = dict(UNCATALOGUED, title="Gait: Walking Far", requested_title="Gait: Running")
    scripted.on("public-metadata/search", record)
    async with scripted.client() as catalog:
        answer = await paper_info_or_public(catalog, paper="Gait: Running")
    assert scripted.requests[-1].multi == {"title": ["Gait: Running"]}
    assert (answer.note or "").startswith(
        'No paper is titled exactly "Gait: Running"; this is the paper with the same name: '
        '"Gait: Walking Far". This paper is not indexed on Papers With Code'
    )


# -- get_related_papers ------------------------------------------------------------------


async def test_related_falls_back_to_a_search_on_the_public_title(
    scripted: ScriptedCatalog,
) -> None:
    hits = search_page([paper_row("2401.00005", "Nearby", "5")])
    scripted.on("public-metadata", UNCATALOGUED)
    scripted.on("papers/search", hits)
    async with scripted.client() as catalog:
        answer = await related_or_public(catalog, paper="2401.00001", limit=3)
    assert not answer.in_catalog and answer.payload == hits
    assert scripted.requests[-1].multi == {
        "q": ["An Uncatalogued Paper"],
        "page": ["1"],
        "page_size": ["3"],
        "mode": ["hybrid"],
    }
    note = answer.note or ""
    assert note.startswith('"An Uncatalogued Paper" is not indexed on Papers With Code')
    assert "not curated related work" in note and "available_at" in note
    assert answer.available_at[0][0] == "Hugging Face Papers"


async def test_related_for_a_catalog_paper(scripted: ScriptedCatalog) -> None:
    scripted.on("papers/1706.03762/related", {"results": []})
    async with scripted.client() as catalog:
        answer = await related_or_public(catalog, paper="1706.03762")
    assert answer.in_catalog and answer.note is None and answer.payload == {"results": []}


# -- read_paper --------------------------------------------------------------------------


EXPECTED_MARKDOWN = (
    "# An Uncatalogued Paper\n"
    "\n"
    "> This paper is not indexed on Papers With Code, so it has no Papers With Code page, "
    "and the catalog holds no tasks, methods, evaluations or curated code for it. "
    "This metadata comes from public arXiv records. Link to it where it is available "
    "instead: Hugging Face Papers: https://huggingface.co/papers/2401.00001; arXiv: "
    "https://arxiv.org/abs/2401.00001; PDF: https://arxiv.org/pdf/2401.00001. "
    "Its full text is not available here.\n"
    "\n"
    "**Authors:** Ada Researcher, Grace Scientist\n"
    "**Published:** 2024-01-02\n"
    "\n"
    "## Available at\n"
    "\n"
    "- [Hugging Face Papers](https://huggingface.co/papers/2401.00001)\n"
    "- [arXiv](https://arxiv.org/abs/2401.00001)\n"
    "- [PDF](https://arxiv.org/pdf/2401.00001)\n"
    "\n"
    "## Abstract\n"
    "\n"
    "We study things.\n"
    "\n"
    "At length.\n"
)


async def test_read_of_a_paper_outside_the_catalog(scripted: ScriptedCatalog) -> None:
    scripted.on("public-metadata", UNCATALOGUED)
    async with scripted.client() as catalog:
        result = await read_paper(catalog, CursorCodec("k"), paper="2401.00001", now=0.0)
    assert result.markdown == EXPECTED_MARKDOWN
    assert (result.paper, result.truncated, result.next_cursor) == ("2401.00001", False, None)
    assert not result.in_catalog and len(result.available_at) == 3


async def test_read_retry_names_the_catalog_paper_it_followed(scripted: ScriptedCatalog) -> None:
    text = "Attention. " * 20
    scripted.on("public-metadata", CATALOGUED)
    scripted.on("research/papers/1706.03762/read", lambda params: markdown_pages(text, params))
    codec = CursorCodec("k")
    async with scripted.client() as catalog:
        url = f"https://doi.org/{PUBLIC_IN_CATALOG_DOI}"
        first = await read_paper(catalog, codec, paper=url, now=0.0, chunk_limit=50)
        assert first.paper == "1706.03762" and first.in_catalog
        second = await read_paper(
            catalog, codec, paper=first.paper, cursor=first.next_cursor, now=1.0
        )
    assert text.startswith(first.markdown + second.markdown)


async def test_read_retry_moves_past_a_paper_without_markdown(scripted: ScriptedCatalog) -> None:
    scripted.on("public-metadata", CATALOGUED)
    scripted.on("papers/1706.03762", {"id": "755"})  # exists, but has no Markdown
    scripted.on("papers/755", {"id": "755", "arxiv_id": "1706.03762"})
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing, match=r"^Paper not found: 2401\.00009$"):
            await read_paper(catalog, CursorCodec("k"), paper="2401.00009", now=0.0)


def test_markdown_without_optional_parts() -> None:
    record = PublicRecord(
        in_catalog=False,
        catalog_id=None,
        arxiv_id=None,
        doi="10.1/x",
        title=None,
        authors=[],
        published=None,
        abstract=None,
        metadata_source="mystery",
        requested_title=None,
        links=[],
    )
    note = public_note(record)
    assert note.endswith("public arXiv records. Do not link to a Papers With Code page for it.")
    assert (
        public_markdown(record)
        == f"# Untitled paper\n\n> {note} Its full text is not available here.\n"
    )


# -- against the loopback fake -----------------------------------------------------------


@pytest.fixture
async def fake(fake_catalog):
    async with HttpCatalog(fake_catalog.api_url, timeout=5) as catalog:
        yield fake_catalog, catalog


async def test_fake_arxiv_paper_outside_the_catalog(fake) -> None:
    server, catalog = fake
    info = await paper_info_or_public(catalog, paper=f"https://arxiv.org/abs/{PUBLIC_ARXIV_ID}v2")
    assert not info.in_catalog and info.paper["arxiv_id"] == PUBLIC_ARXIV_ID
    assert info.paper["title"] == "Efficient Estimation of Word Representations in Vector Space"
    read = await read_paper(catalog, CursorCodec("k"), paper=PUBLIC_ARXIV_ID, now=0.0)
    assert read.markdown.startswith(
        "# Efficient Estimation of Word Representations in Vector Space\n\n> This paper is "
        "not indexed on Papers With Code"
    )
    assert "## Abstract\n\nTwo simple architectures" in read.markdown
    assert read.available_at == [
        ("arXiv", f"https://arxiv.org/abs/{PUBLIC_ARXIV_ID}"),
        ("PDF", f"https://arxiv.org/pdf/{PUBLIC_ARXIV_ID}"),
    ]
    related = await related_or_public(catalog, paper=PUBLIC_ARXIV_ID, limit=2)
    assert not related.in_catalog and len(related.payload["results"]) <= 2
    search = server.requests.with_path("papers/search")[-1]
    assert search.param("q") == "Efficient Estimation of Word Representations in Vector Space"
    assert search.param("mode") == "hybrid"


async def test_fake_crossref_records_by_doi_and_by_title(fake) -> None:
    server, catalog = fake
    by_doi = await paper_info_or_public(catalog, paper=f"https://doi.org/{PUBLIC_DOI}")
    assert by_doi.public is not None and by_doi.public.metadata_source == "crossref"
    assert "public Crossref records" in (by_doi.note or "")
    by_title = await paper_info_or_public(catalog, paper=PUBLIC_TITLE.upper())
    assert by_title.paper["title"] == PUBLIC_TITLE
    assert "No paper is titled exactly" not in (by_title.note or "")  # only case differs
    assert server.requests.with_path("public-metadata/search")[0].param("title") == (
        PUBLIC_TITLE.upper()
    )


async def test_fake_same_name_title_explains_itself(fake) -> None:
    _server, catalog = fake
    info = await paper_info_or_public(catalog, paper="Mamba: A Different Subtitle")
    note = info.note or ""
    assert note.startswith('No paper is titled exactly "Mamba: A Different Subtitle"')
    assert "public Hugging Face Papers records" in note


async def test_fake_doi_of_a_catalog_paper_answers_from_the_catalog(fake) -> None:
    _server, catalog = fake
    info = await paper_info_or_public(catalog, paper=PUBLIC_IN_CATALOG_DOI)
    assert info.in_catalog and info.paper["id"] == "755"
    read = await read_paper(catalog, CursorCodec("k"), paper=PUBLIC_IN_CATALOG_DOI, now=0.0)
    assert read.in_catalog and read.paper == "1706.03762"


async def test_fake_public_miss_and_unavailable_sources(fake) -> None:
    server, catalog = fake
    with pytest.raises(NotFound, match="no public record for this identifier"):
        await paper_info_or_public(catalog, paper=MISSING_ARXIV_ID)
    server.faults.service_unavailable(prefix="public-metadata")
    with pytest.raises(NotFound, match="could not be consulted just now"):
        await related_or_public(catalog, paper=MISSING_ARXIV_ID)


# -- unusable answers are not cached ------------------------------------------------------


async def _twice(catalog, tmp_path, call) -> tuple[BaseException | None, object]:
    """`call(source)` twice over one disk cache: (first failure, second answer)."""
    cache = DiskCache(tmp_path / "cache")
    source = CachingCatalog(catalog, cache, namespace=BASE)
    failure: BaseException | None = None
    try:
        try:
            await call(source)
        except NotFound as exc:
            failure = exc
        return failure, await call(source)
    finally:
        cache.close()


async def test_an_unusable_public_answer_is_asked_again_next_time(
    scripted: ScriptedCatalog, tmp_path
) -> None:
    # The first answer is not a record: the call reports a public miss, and the next
    # call must ask again instead of replaying that answer from the cache for a week.
    answers = iter([json_response(["not", "a", "record"]), json_response(UNCATALOGUED)])
    scripted.on("public-metadata", lambda params: next(answers))
    async with scripted.client() as catalog:
        failure, answer = await _twice(
            catalog, tmp_path, lambda source: paper_info_or_public(source, paper="2401.00001")
        )
    assert error_message(failure).startswith("not_found: Paper not found: 2401.00001; it is not")
    assert "could not be consulted" in str(failure)
    assert answer.public is not None and answer.public.title == "An Uncatalogued Paper"
    assert scripted.count("public-metadata") == 2


async def test_an_unusable_catalog_retry_is_asked_again_next_time(
    scripted: ScriptedCatalog, tmp_path
) -> None:
    # The public record points into the catalog; the retry's first answer is unusable.
    scripted.on("papers/search", search_page([]))
    scripted.on("public-metadata", CATALOGUED)
    details = iter([json_response(["not", "a", "paper"]), json_response(ATTENTION_DETAIL)])
    scripted.on("papers/1706.03762", lambda params: next(details))
    async with scripted.client() as catalog:
        failure, answer = await _twice(
            catalog,
            tmp_path,
            lambda source: paper_info_or_public(source, paper=PUBLIC_IN_CATALOG_DOI),
        )
    assert str(failure).startswith(f"Paper not found: {PUBLIC_IN_CATALOG_DOI}")
    assert answer.in_catalog and answer.paper["title"] == "Attention Is All You Need"
    assert scripted.count("papers/1706.03762") == 2
