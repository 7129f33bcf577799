"""Paper references: every accepted spelling, canonicalisation and title resolution."""

from __future__ import annotations

import pytest

from pwc_local.common.references import parse_reference, resolve_paper
from pwc_local.upstream.errors import (
    Ambiguous,
    HTTPStatusError,
    NotFound,
    PaperMissing,
    UsageError,
)
from pwc_local.upstream.http import HttpCatalog
from tests.fake_catalog import (
    BIGGERGAIT_ID,
    EXTERNAL_ID,
    FILLER_TITLE_WORDS,
    LEGACY_ARXIV_ID,
    SAME_TITLE,
    SAME_TITLE_ARXIV_IDS,
)
from tests.scripted_catalog import ScriptedCatalog, error, json_response, paper_row, search_page

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "text, kind, candidate",
    [
        ("1706.03762", "arxiv", "1706.03762"),
        ("  1706.03762v7 ", "arxiv", "1706.03762"),
        ("2501.01234V2", "arxiv", "2501.01234"),
        ("hep-th/9901001", "legacy", "hep-th/9901001"),
        ("math.GT/0309136v2", "legacy", "math.GT/0309136"),
        ("755", "numeric", "755"),
        ("https://arxiv.org/abs/1706.03762v7", "arxiv", "1706.03762"),
        ("https://arxiv.org/pdf/1706.03762v7.pdf", "arxiv", "1706.03762"),
        ("http://arxiv.org/pdf/1706.03762", "arxiv", "1706.03762"),
        ("https://www.arxiv.org/abs/hep-th/9901001", "legacy", "hep-th/9901001"),
        ("HTTPS://ArXiv.org/abs/1706.03762?context=cs#x", "arxiv", "1706.03762"),
        ("https://huggingface.co/papers/1706.03762", "arxiv", "1706.03762"),
        ("https://paperswithcode.co/paper/1706.03762", "arxiv", "1706.03762"),
        ("https://www.paperswithcode.co/paper/755/", "numeric", "755"),
        (
            "https://paperswithcode.co/paper/attention-is-all-you-need",
            "slug",
            "attention-is-all-you-need",
        ),
        ("Attention Is All You Need", "title", "Attention Is All You Need"),
        # Deliberate: titles keep a trailing version-like word (the hosted server cut it).
        ("YOLOv3", "title", "YOLOv3"),
        ("1706.03762 extra", "title", "1706.03762 extra"),
        # arXiv's DOIs name the arXiv ID; any other DOI is a DOI, never a title.
        ("10.48550/arXiv.1810.04805", "arxiv", "1810.04805"),
        ("doi:10.48550/ARXIV.1810.04805v2", "arxiv", "1810.04805"),
        ("https://doi.org/10.48550/arXiv.1810.04805", "arxiv", "1810.04805"),
        ("10.48550/arXiv.hep-th/9901001", "legacy", "hep-th/9901001"),
        ("10.1109/CVPR.2016.90", "doi", "10.1109/CVPR.2016.90"),
        ("10.48550/arXiv.notanid", "doi", "10.48550/arXiv.notanid"),
    ],
)
def test_parse_reference_forms(text: str, kind: str, candidate: str) -> None:
    parsed = parse_reference(text)
    assert (parsed.kind, parsed.candidate) == (kind, candidate)


def test_slug_searches_with_spaces() -> None:
    parsed = parse_reference("https://paperswithcode.co/paper/attention-is-all-you-need")
    assert parsed.search_text == "attention is all you need"
    assert not parsed.is_identifier


@pytest.mark.parametrize(
    "url",
    [
        "https://doi.org/10.1007/s10479-024-06277-x",
        "https://aclanthology.org/2020.acl-main.1/",
        "https://arxiv.org:8443/abs/1706.03762",
        "https://export.arxiv.org/abs/1706.03762",
        "https://arxiv.org/list/cs.LG",
        "https://arxiv.org/abs",
        "https://huggingface.co/1706.03762",
        "https://huggingface.co/papers/trending",
        "https://paperswithcode.co/method/transformer",
        "https://paperswithcode.co/paper",
        "http://[broken",
    ],
)
def test_unsupported_urls_fail_without_a_request(url: str) -> None:
    with pytest.raises(PaperMissing, match=r"^Paper URL not supported") as caught:
        parse_reference(url)
    assert "arxiv.org" in str(caught.value)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_a_blank_reference_is_an_invalid_argument_not_a_catalog_miss(text: str) -> None:
    with pytest.raises(UsageError, match=r"^paper must not be empty"):
        parse_reference(text)


async def test_a_doi_is_not_found_as_a_doi_without_a_title_search() -> None:
    scripted = ScriptedCatalog()
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "10.48550/arXiv.1810.04805") == "1810.04805"
        with pytest.raises(PaperMissing) as caught:
            await resolve_paper(catalog, "10.1109/CVPR.2016.90")
    assert str(caught.value) == "Paper not found: 10.1109/CVPR.2016.90"
    assert scripted.requests == []


async def test_arxiv_ids_resolve_without_requests() -> None:
    scripted = ScriptedCatalog()
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "https://arxiv.org/abs/1706.03762v7") == "1706.03762"
        assert await resolve_paper(catalog, "math.GT/0309136") == "math.GT/0309136"
    assert scripted.requests == []


async def test_numeric_id_becomes_the_version_free_arxiv_id() -> None:
    scripted = ScriptedCatalog()
    scripted.on("papers/86122", {"id": "86122", "arxiv_id": "2505.18132v1"})
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "86122") == "2505.18132"
    assert len(scripted.requests) == 1
    assert scripted.requests[0].multi == {}  # the canonicalisation probe sends no parameters


async def test_numeric_id_of_an_external_paper_stands() -> None:
    scripted = ScriptedCatalog()
    scripted.on("papers/4242", {"id": "4242", "arxiv_id": None, "source": "external"})
    scripted.on("papers/04242", {"id": "4242", "arxiv_id": "  "})
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "4242") == "4242"
        assert await resolve_paper(catalog, "04242") == "4242"


async def test_numeric_id_unknown_to_the_catalog_is_a_paper_miss() -> None:
    scripted = ScriptedCatalog()
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing, match=r"^Paper not found: 999$"):
            await resolve_paper(catalog, "999")


async def test_numeric_canonicalisation_passes_other_failures_through() -> None:
    scripted = ScriptedCatalog()
    scripted.on("papers/755", lambda _params: error(500, "boom"))
    async with scripted.client() as catalog:
        with pytest.raises(HTTPStatusError) as caught:
            await resolve_paper(catalog, "755")
    assert caught.value.status == 500


ATTENTION = paper_row("1706.03762v7", "Attention Is All You Need", "755")
SPEECH = paper_row("2010.13154", "Attention is All You Need in Speech Separation", "901")


async def test_title_resolved_by_the_phrase_query_costs_one_request() -> None:
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([SPEECH, ATTENTION])))
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "  attention   is all YOU need ") == "1706.03762"
    assert len(scripted.requests) == 1
    sent = scripted.requests[0]
    assert sent.multi == {
        "q": ['"attention   is all YOU need"'],
        "page": ["1"],
        "page_size": ["100"],
        "mode": ["keyword"],
    }


async def test_plain_query_runs_only_when_the_phrase_finds_nothing() -> None:
    scripted = ScriptedCatalog()

    def search(params: dict) -> object:
        if params["q"].startswith('"'):
            return json_response(search_page([SPEECH]))
        return json_response(search_page([SPEECH, ATTENTION]))

    scripted.on("papers/search", search)
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "Attention Is All You Need") == "1706.03762"
    assert [request.one("q") for request in scripted.requests] == [
        '"Attention Is All You Need"',
        "Attention Is All You Need",
    ]


async def test_unknown_title_costs_two_requests_and_is_a_paper_miss() -> None:
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([])))
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing, match=r"^Paper title not found: No Such Paper$"):
            await resolve_paper(catalog, "No Such Paper")
    assert len(scripted.requests) == 2


async def test_title_not_found_lists_up_to_three_closest_results() -> None:
    rows = [paper_row(f"2101.0000{i}", f"Close Title {i}", str(i)) for i in range(1, 6)]
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page(rows)))
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing) as caught:
            await resolve_paper(catalog, "Close Title")
    assert str(caught.value) == (
        "Paper title not found: Close Title; closest results: Close Title 1 (2101.00001), "
        "Close Title 2 (2101.00002), Close Title 3 (2101.00003)"
    )


async def test_two_papers_with_the_same_title_are_ambiguous() -> None:
    twin = paper_row("2401.00002", "attention is all you need", "77")
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([ATTENTION, twin])))
    async with scripted.client() as catalog:
        with pytest.raises(Ambiguous) as caught:
            await resolve_paper(catalog, "Attention Is All You Need")
    message = str(caught.value)
    # The title as asked is said once; a candidate spelt otherwise shows its spelling.
    assert message == (
        "Paper title is ambiguous: Attention Is All You Need; 1706.03762; "
        "attention is all you need (2401.00002); pass one of these IDs as paper"
    )
    assert len(scripted.requests) == 1  # the phrase query settles it, no plain query


async def test_later_phrase_pages_are_read_to_detect_a_second_match() -> None:
    twin = paper_row("2401.00002", "Attention Is All You Need", "77")
    scripted = ScriptedCatalog()

    def search(params: dict) -> object:
        if params["page"] == "1":
            return json_response(search_page([ATTENTION], next_page=2))
        return json_response(search_page([SPEECH, twin], next_page=None))

    scripted.on("papers/search", search)
    async with scripted.client() as catalog:
        with pytest.raises(Ambiguous):
            await resolve_paper(catalog, "Attention Is All You Need")
    assert [request.one("page") for request in scripted.requests] == ["1", "2"]


async def test_versions_of_one_paper_are_one_match() -> None:
    again = paper_row("1706.03762v5", "Attention Is All You Need", "755")
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([ATTENTION, again])))
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "Attention Is All You Need") == "1706.03762"


async def test_external_paper_resolves_to_its_catalog_id() -> None:
    row = paper_row(None, "An External Report", "4242")
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([row])))
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "An External Report") == "4242"


async def test_endless_plain_results_hit_the_page_budget() -> None:
    scripted = ScriptedCatalog()

    def search(params: dict) -> object:
        if params["q"].startswith('"'):
            return json_response(search_page([]))
        page = int(params["page"])
        return json_response(search_page([SPEECH], next_page=page + 1))

    scripted.on("papers/search", search)
    async with scripted.client() as catalog:
        with pytest.raises(NotFound, match=r"^Too many results to resolve paper title") as caught:
            await resolve_paper(catalog, "Attention Is All You Need")
    assert not isinstance(caught.value, PaperMissing)
    assert len(scripted.requests) == 1 + 10


async def test_a_match_found_before_the_budget_runs_out_still_resolves() -> None:
    scripted = ScriptedCatalog()

    def search(params: dict) -> object:
        if params["q"].startswith('"'):
            return json_response(search_page([]))
        page = int(params["page"])
        rows = [ATTENTION] if page == 3 else [SPEECH]
        return json_response(search_page(rows, next_page=page + 1))

    scripted.on("papers/search", search)
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "Attention Is All You Need") == "1706.03762"
    assert len(scripted.requests) == 11


async def test_non_advancing_next_page_stops_paging() -> None:
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([SPEECH], next_page=1)))
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing):
            await resolve_paper(catalog, "Attention Is All You Need")
    assert len(scripted.requests) == 2


async def test_slug_matches_the_row_slug_or_one_derived_from_the_title() -> None:
    with_slug = paper_row("2006.16236", "Transformers are RNNs: Fast ...", "5", slug="fast-rnn")
    derived = paper_row("2307.09288", "Llama 2: Open Foundation and Fine-Tuned Chat Models", "6")
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([with_slug, derived])))
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, "https://paperswithcode.co/paper/fast-rnn") == (
            "2006.16236"
        )
        url = "https://paperswithcode.co/paper/llama-2-open-foundation-and-fine-tuned-chat-models"
        assert await resolve_paper(catalog, url) == "2307.09288"
    assert scripted.requests[0].one("q") == '"fast rnn"'


async def test_slug_matching_only_applies_to_slug_references() -> None:
    row = paper_row("2006.16236", "Something Else", "5", slug="fast-rnn")
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([row])))
    async with scripted.client() as catalog:
        with pytest.raises(PaperMissing):
            await resolve_paper(catalog, "fast-rnn")


async def test_title_with_a_double_quote_skips_the_phrase_query() -> None:
    row = paper_row("2101.00001", 'The "Quoted" Paper', "1")
    scripted = ScriptedCatalog()
    scripted.on("papers/search", lambda params: json_response(search_page([row])))
    async with scripted.client() as catalog:
        assert await resolve_paper(catalog, 'The "Quoted" Paper') == "2101.00001"
    assert [request.one("q") for request in scripted.requests] == ['The "Quoted" Paper']


# -- against the loopback fake -----------------------------------------------------------


@pytest.fixture
async def fake(fake_catalog):
    async with HttpCatalog(fake_catalog.api_url, timeout=5) as catalog:
        yield fake_catalog, catalog


async def test_fake_titles_resolve_by_the_phrase_query(fake) -> None:
    server, catalog = fake
    assert await resolve_paper(catalog, "attention is all you need") == "1706.03762"
    assert server.requests.count_path("papers/search") == 1
    assert await resolve_paper(catalog, "Attention is All You Need in Speech Separation") == (
        "2010.13154"
    )


async def test_fake_identifier_forms(fake) -> None:
    _server, catalog = fake
    assert await resolve_paper(catalog, "755") == "1706.03762"
    assert await resolve_paper(catalog, BIGGERGAIT_ID) == "2505.18132"
    assert await resolve_paper(catalog, EXTERNAL_ID) == EXTERNAL_ID
    assert await resolve_paper(catalog, "https://arxiv.org/abs/math.GT/0309136v1") == (
        LEGACY_ARXIV_ID
    )
    url = "https://paperswithcode.co/paper/attention-is-all-you-need-in-speech-separation"
    assert await resolve_paper(catalog, url) == "2010.13154"
    with pytest.raises(PaperMissing, match=r"^Paper not found: 999999$"):
        await resolve_paper(catalog, "999999")


async def test_fake_shared_title_is_ambiguous(fake) -> None:
    _server, catalog = fake
    with pytest.raises(Ambiguous) as caught:
        await resolve_paper(catalog, SAME_TITLE.upper())
    assert all(f"({arxiv_id})" in str(caught.value) for arxiv_id in SAME_TITLE_ARXIV_IDS)


async def test_fake_unknown_title_costs_two_searches(fake) -> None:
    server, catalog = fake
    with pytest.raises(PaperMissing, match=r"^Paper title not found"):
        await resolve_paper(catalog, "A Title Nobody Ever Wrote")
    assert [r.param("q") for r in server.requests] == [
        '"A Title Nobody Ever Wrote"',
        "A Title Nobody Ever Wrote",
    ]


async def test_fake_deep_search_exhausts_the_page_budget(fake) -> None:
    server, catalog = fake
    server.add_filler_papers(1200)
    with pytest.raises(NotFound, match=r"^Too many results"):
        await resolve_paper(catalog, FILLER_TITLE_WORDS)
    # The phrase query pages its budget too before the plain query does.
    assert server.requests.count_path("papers/search") == 20
