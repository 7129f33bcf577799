"""read_paper against a scripted catalog: chunks, cursors, and every failure path."""

from __future__ import annotations

from functools import partial

import pytest

from pwc_local.common.cursors import CursorCodec
from pwc_local.queries.reading import ReadResult
from pwc_local.server.tools import call_query
from pwc_local.upstream.errors import (
    CursorMismatch,
    ExpiredCursor,
    HTTPStatusError,
    InvalidCursor,
    NoMarkdown,
    NotFound,
    PaperChanged,
    PaperMissing,
    UsageError,
)
from pwc_local.upstream.http import HttpCatalog
from pwc_local.upstream.source import MarkdownChunk
from tests.fake_catalog import (
    BIG_MARKDOWN_ARXIV_ID,
    BIGGERGAIT_ID,
    EXTERNAL_ID,
    LEGACY_ARXIV_ID,
    MISSING_ARXIV_ID,
    NO_MARKDOWN_ARXIV_ID,
    big_document,
)
from tests.scripted_catalog import ScriptedCatalog, error, markdown_pages
from tests.scripted_reading import READ, reading_fixtures

# The query functions, called as a tools/call calls them: the contract table's defaults.
read_paper = partial(call_query, "read_paper")

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000.0
# Multi-byte characters everywhere, so small chunks end inside them unless cut carefully.
DOCUMENT = "# Attention\n\nα β γ — 注意力 🚀 ∑∫ " * 7 + "end\n"


codec, scripted = reading_fixtures(
    DOCUMENT, {"papers/755": {"id": "755", "arxiv_id": "1706.03762v7"}}
)


async def read_all(catalog, codec, reference, *, limit=40, now=NOW) -> list[ReadResult]:
    results = [await read_paper(catalog, codec, paper=reference, now=now, chunk_limit=limit)]
    while results[-1].truncated:
        cursor = results[-1].next_cursor
        results.append(await read_paper(catalog, codec, paper=reference, cursor=cursor, now=now))
    return results


async def test_whole_document_in_one_chunk(scripted: ScriptedCatalog, codec: CursorCodec) -> None:
    async with scripted.client() as catalog:
        result = await read_paper(catalog, codec, paper=" 1706.03762v2 ", now=NOW)
    assert result == ReadResult("1706.03762v2", DOCUMENT, False, None)
    assert scripted.requests[0].multi == {"offset": ["0"], "limit": ["65536"]}


async def test_multi_chunk_read_reassembles_byte_for_byte(
    scripted: ScriptedCatalog, codec: CursorCodec
) -> None:
    async with scripted.client() as catalog:
        results = await read_all(catalog, codec, "1706.03762", limit=40)
    assert len(results) > 5
    assert "".join(result.markdown for result in results) == DOCUMENT
    assert all(result.next_cursor for result in results[:-1])
    assert results[-1].next_cursor is None and not results[-1].truncated
    # Exactly one upstream read per call; continuations pin the version and keep the limit.
    assert scripted.count(READ) == len(results)
    later = scripted.requests[1]
    assert later.one("limit") == "40" and len(later.one("content_version") or "") == 64


async def test_placeholder_cursors_start_at_the_beginning(
    scripted: ScriptedCatalog, codec: CursorCodec
) -> None:
    async with scripted.client() as catalog:
        for placeholder in ["next", " NULL ", "", "0", "1", "start", "None"]:
            result = await read_paper(
                catalog, codec, paper="1706.03762", cursor=placeholder, now=NOW
            )
            assert result.markdown == DOCUMENT
    assert all(request.one("offset") == "0" for request in scripted.requests)


async def test_cursor_continues_with_a_rotated_key(scripted: ScriptedCatalog) -> None:
    old = CursorCodec("old-key", ttl=3600)
    async with scripted.client() as catalog:
        first = await read_paper(catalog, old, paper="1706.03762", now=NOW, chunk_limit=40)
        rotated = CursorCodec("new-key", "old-key", ttl=3600)
        second = await read_paper(
            catalog, rotated, paper="1706.03762", cursor=first.next_cursor, now=NOW
        )
    assert DOCUMENT.startswith(first.markdown + second.markdown)
    # The next cursor is signed with the new key only.
    with pytest.raises(InvalidCursor):
        old.verify(second.next_cursor or "", reference="1706.03762", now=NOW)


async def test_cursor_errors_make_no_catalog_request(
    scripted: ScriptedCatalog, codec: CursorCodec
) -> None:
    async with scripted.client() as catalog:
        first = await read_paper(catalog, codec, paper="1706.03762", now=NOW, chunk_limit=40)
        scripted.requests.clear()
        token = first.next_cursor or ""
        with pytest.raises(InvalidCursor, match=r"^invalid continuation cursor"):
            await read_paper(
                catalog, codec, paper="1706.03762", cursor=token[:-4] + "AAAA", now=NOW
            )
        with pytest.raises(InvalidCursor):
            await read_paper(
                catalog, CursorCodec("other"), paper="1706.03762", cursor=token, now=NOW
            )
        with pytest.raises(ExpiredCursor, match=r"^expired continuation cursor"):
            await read_paper(catalog, codec, paper="1706.03762", cursor=token, now=NOW + 3600)
        with pytest.raises(CursorMismatch, match="different paper"):
            await read_paper(catalog, codec, paper="2006.16236", cursor=token, now=NOW)
    assert scripted.requests == []  # the arXiv ID of the other paper resolves offline


async def test_another_spelling_of_the_same_paper_continues(
    scripted: ScriptedCatalog, codec: CursorCodec
) -> None:
    async with scripted.client() as catalog:
        first = await read_paper(catalog, codec, paper="1706.03762", now=NOW, chunk_limit=40)
        second = await read_paper(
            catalog, codec, paper="755", cursor=first.next_cursor, now=NOW + 1
        )
        third = await read_paper(
            catalog, codec, paper="755", cursor=second.next_cursor, now=NOW + 2
        )
    assert DOCUMENT.startswith(first.markdown + second.markdown + third.markdown)
    assert second.paper == "755"
    # The new cursor is bound to the new spelling.
    assert codec.verify(second.next_cursor or "", reference="755", now=NOW).ref == "755"


async def test_expiry_is_fixed_at_the_first_read(
    scripted: ScriptedCatalog, codec: CursorCodec
) -> None:
    async with scripted.client() as catalog:
        first = await read_paper(catalog, codec, paper="1706.03762", now=NOW, chunk_limit=40)
        second = await read_paper(
            catalog, codec, paper="1706.03762", cursor=first.next_cursor, now=NOW + 3000
        )
        shorter = CursorCodec("secret-one", ttl=60)
        third = await read_paper(
            catalog, shorter, paper="1706.03762", cursor=second.next_cursor, now=NOW + 3001
        )
    state = codec.verify(second.next_cursor or "", reference="1706.03762", now=NOW)
    assert state.exp == int(NOW) + 3600
    # A lifetime shortened by configuration applies to live reads too, never lengthens them.
    assert shorter.verify(third.next_cursor or "", reference="1706.03762", now=NOW).exp == (
        int(NOW) + 3001 + 60
    )


async def test_changed_paper_fails_with_restart_advice(codec: CursorCodec) -> None:
    scripted = ScriptedCatalog()
    current = {"text": DOCUMENT}
    scripted.on(READ, lambda params: markdown_pages(current["text"], params))
    async with scripted.client() as catalog:
        first = await read_paper(catalog, codec, paper="1706.03762", now=NOW, chunk_limit=40)
        current["text"] = DOCUMENT + "erratum\n"
        with pytest.raises(PaperChanged, match=r"^paper changed.*without cursor"):
            await read_paper(catalog, codec, paper="1706.03762", cursor=first.next_cursor, now=NOW)


async def test_paper_without_markdown(codec: CursorCodec) -> None:
    scripted = ScriptedCatalog()
    scripted.on(READ, lambda params: error(404, "Paper Markdown was not found"))
    scripted.on("papers/1706.03762", {"id": "755"})
    async with scripted.client() as catalog:
        with pytest.raises(NoMarkdown):
            await read_paper(catalog, codec, paper="1706.03762", now=NOW)
    assert scripted.paths() == [READ, "papers/1706.03762"]
    assert scripted.requests[1].multi == {}  # the existence probe sends no parameters


async def test_missing_paper_on_a_first_read_tries_public_metadata(codec: CursorCodec) -> None:
    scripted = ScriptedCatalog()
    async with scripted.client() as catalog:
        with pytest.raises(NotFound) as caught:
            await read_paper(catalog, codec, paper="2308.10195", now=NOW)
    assert not isinstance(caught.value, PaperMissing)
    assert str(caught.value).startswith(
        "Paper not found: 2308.10195; it is not indexed on Papers With Code and "
    )
    assert scripted.paths() == [
        "research/papers/2308.10195/read",
        "papers/2308.10195",
        "public-metadata",
    ]


async def test_missing_paper_on_a_continuation_is_not_found(codec: CursorCodec) -> None:
    scripted = ScriptedCatalog()
    scripted.on(READ, lambda params: markdown_pages(DOCUMENT, params))
    async with scripted.client() as catalog:
        first = await read_paper(catalog, codec, paper="1706.03762", now=NOW, chunk_limit=40)
        del scripted.routes[READ]  # the paper is withdrawn between calls
        scripted.requests.clear()
        with pytest.raises(NotFound, match=r"^Paper not found: 1706\.03762") as caught:
            await read_paper(catalog, codec, paper="1706.03762", cursor=first.next_cursor, now=NOW)
    assert not isinstance(caught.value, PaperMissing)
    assert "public-metadata" not in scripted.paths()


async def test_other_read_failures_pass_through(codec: CursorCodec) -> None:
    scripted = ScriptedCatalog()
    scripted.on(READ, lambda params: error(503, "busy"))
    async with scripted.client() as catalog:
        with pytest.raises(HTTPStatusError) as caught:
            await read_paper(catalog, codec, paper="1706.03762", now=NOW)
    assert caught.value.status == 503


async def test_numeric_and_external_references(codec: CursorCodec) -> None:
    scripted = ScriptedCatalog()
    scripted.on("papers/86122", {"id": "86122", "arxiv_id": "2505.18132v1"})
    scripted.on("papers/4242", {"id": "4242", "arxiv_id": None})
    scripted.on("research/papers/2505.18132/read", lambda p: markdown_pages("gait " * 20, p))
    scripted.on("research/papers/4242/read", lambda p: markdown_pages("external " * 20, p))
    async with scripted.client() as catalog:
        gait = await read_paper(catalog, codec, paper="86122", now=NOW, chunk_limit=30)
        external = await read_paper(catalog, codec, paper="4242", now=NOW, chunk_limit=30)
    assert codec.verify(gait.next_cursor or "", reference="86122", now=NOW).paper == "2505.18132"
    state = codec.verify(external.next_cursor or "", reference="4242", now=NOW)
    assert (state.paper, state.source) == ("4242", "external")


async def test_long_legacy_papers_can_be_continued(codec: CursorCodec) -> None:
    scripted = ScriptedCatalog()
    text = "Knot theory. " * 30
    scripted.on("research/papers/math.GT%2F0309136/read", lambda p: markdown_pages(text, p))
    async with scripted.client() as catalog:
        results = await read_all(catalog, codec, "math.GT/0309136", limit=64)
    assert len(results) > 1 and "".join(r.markdown for r in results) == text


class DriftingSource:
    """A source (say, a broken cache) that answers a pinned read with another version."""

    async def get_json(self, path, params=None, *, accept=None):  # pragma: no cover - unused
        raise AssertionError(path)

    async def read_markdown(self, paper, *, offset, limit, content_version):
        if content_version is None:
            return MarkdownChunk("abc", "a" * 64, True, 3)
        return MarkdownChunk("def", "b" * 64, False, None)


async def test_chunk_version_drift_is_a_changed_paper(codec: CursorCodec) -> None:
    source = DriftingSource()
    first = await read_paper(source, codec, paper="1706.03762", now=NOW)
    with pytest.raises(PaperChanged):
        await read_paper(source, codec, paper="1706.03762", cursor=first.next_cursor, now=NOW)


async def test_empty_reference(codec: CursorCodec) -> None:
    with pytest.raises(UsageError, match=r"^paper must not be empty"):
        await read_paper(DriftingSource(), codec, paper="   ", now=NOW)


# -- against the loopback fake -----------------------------------------------------------


@pytest.fixture
async def fake(fake_catalog):
    async with HttpCatalog(fake_catalog.api_url, timeout=5) as catalog:
        yield fake_catalog, catalog


async def test_fake_big_document_reads_back_byte_for_byte(fake, codec: CursorCodec) -> None:
    server, catalog = fake
    results = await read_all(catalog, codec, BIG_MARKDOWN_ARXIV_ID, limit=65536)
    expected = big_document()
    assert len(results) == -(-len(expected.encode()) // 65536)  # chunks end near the limit
    assert "".join(result.markdown for result in results).encode() == expected.encode()
    reads = server.requests.with_path(f"research/papers/{BIG_MARKDOWN_ARXIV_ID}/read")
    assert len(reads) == len(results)
    assert reads[0].param("content_version") is None
    assert {r.param("content_version") for r in reads[1:]} == {
        server.content_version(BIG_MARKDOWN_ARXIV_ID)
    }


async def test_fake_swapped_document_is_a_changed_paper(fake, codec: CursorCodec) -> None:
    server, catalog = fake
    first = await read_paper(catalog, codec, paper=BIG_MARKDOWN_ARXIV_ID, now=NOW)
    server.set_markdown(BIG_MARKDOWN_ARXIV_ID, "# Rewritten\n")
    with pytest.raises(PaperChanged):
        await read_paper(
            catalog, codec, paper=BIG_MARKDOWN_ARXIV_ID, cursor=first.next_cursor, now=NOW
        )
    # Starting over works and reads the new text.
    again = await read_paper(catalog, codec, paper=BIG_MARKDOWN_ARXIV_ID, cursor=None, now=NOW)
    assert again.markdown == "# Rewritten\n" and not again.truncated


async def test_fake_no_markdown_and_missing_paper(fake, codec: CursorCodec) -> None:
    _server, catalog = fake
    with pytest.raises(NoMarkdown):
        await read_paper(catalog, codec, paper=NO_MARKDOWN_ARXIV_ID, now=NOW)
    with pytest.raises(NotFound, match="not indexed on Papers With Code"):
        await read_paper(catalog, codec, paper=MISSING_ARXIV_ID, now=NOW)


async def test_fake_external_legacy_and_numeric_papers(fake, codec: CursorCodec) -> None:
    server, catalog = fake
    for reference, stored in [
        (EXTERNAL_ID, EXTERNAL_ID),
        (LEGACY_ARXIV_ID, LEGACY_ARXIV_ID),
        ("755", "1706.03762"),
        (BIGGERGAIT_ID, "2505.18132"),
    ]:
        results = await read_all(catalog, codec, reference, limit=4096)
        assert "".join(r.markdown for r in results) == server.markdown(stored)
        assert {r.paper for r in results} == {reference}
