"""Outlines and section reads: the heading rules, byte offsets, budgets and cursors."""

from __future__ import annotations

import json
from functools import partial

import pytest

from pwc_local.common.cursors import CursorCodec
from pwc_local.queries.outline import PREAMBLE_ID, parse_outline
from pwc_local.queries.sections import (
    MAX_HEADING_CHARS,
    MAX_OUTLINE_SECTIONS,
    cut_point,
    find_section,
    listed_sections,
)
from pwc_local.queries.whole_markdown import Document, slice_chunk
from pwc_local.server.tools import call_query
from pwc_local.upstream.errors import (
    Ambiguous,
    ExpiredCursor,
    InvalidCursor,
    NoMarkdown,
    NotFound,
    PaperChanged,
    UpstreamUnreachable,
    UsageError,
)
from pwc_local.upstream.source import MarkdownChunk
from tests.fake_catalog import big_document
from tests.scripted_catalog import ScriptedCatalog, error, markdown_pages
from tests.scripted_reading import READ, reading_fixtures

# The query functions, called as a tools/call calls them: the contract table's defaults.
get_paper_outline = partial(call_query, "get_paper_outline")
read_paper_section = partial(call_query, "read_paper_section")
read_paper = partial(call_query, "read_paper")

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000.0

DOCUMENT = (
    "Front matter before any heading.\n\n"
    "# Attention Is All You Need\n\n"
    "## Abstract\n\nWe propose the Transformer. αβγ\n\n"
    "## Method\n\n"
    "```python\n# a comment, not a heading\n```\n\n"
    "### Attention\n\n" + "Scaled dot-product attention 注意力. " * 200 + "\n\n"
    "### Results\n\nBLEU 28.4.\n\n"
    "## Results\n\nMore results 🚀.\n"
)


codec, scripted = reading_fixtures(DOCUMENT)


# -- the parser ------------------------------------------------------------------------


def test_sections_tile_the_document_and_nest() -> None:
    outline = parse_outline(DOCUMENT)
    data = DOCUMENT.encode()
    ids = [(s.id, s.level, s.heading) for s in outline.sections]
    assert ids == [
        (PREAMBLE_ID, 0, "(text before the first heading)"),
        ("s1", 1, "Attention Is All You Need"),
        ("s1.1", 2, "Abstract"),
        ("s1.2", 2, "Method"),
        ("s1.2.1", 3, "Attention"),
        ("s1.2.2", 3, "Results"),
        ("s1.3", 2, "Results"),
    ]
    assert outline.title == "Attention Is All You Need"
    assert outline.size == len(data)
    for section in outline.sections[1:]:
        assert data[section.offset :].startswith(b"#" * section.level + b" ")
    assert b"".join(data[s.offset : s.end] for s in outline.top_level()) == data
    method = outline.by_id("S1.2")
    assert method is not None and method.end == outline.sections[-1].offset


@pytest.mark.parametrize(
    ("text", "headings"),
    [
        ("````\n# no\n```\n# still code\n````\n# yes\n", ["yes"]),
        ("~~~\n# no\n```\n~~~~\n## yes\n", ["yes"]),
        ("```\n# never closed\n", []),
        ("    # indented code\n#hashtag\n", []),
        ("# Closing hashes ##\n## C#\n", ["Closing hashes", "C#"]),
        ("Setext one\n===\n\nSetext\ntwo lines\n---\n", ["Setext one", "Setext two lines"]),
        ("para\n\n---\n\n- item\n---\n| a |\n---\n", []),
        ("text\u2028# not a line start\n# CRLF\r\nbody\n", ["CRLF"]),
    ],
)
def test_heading_rules(text: str, headings: list[str]) -> None:
    found = [s.heading for s in parse_outline(text).sections if s.level > 0]
    assert found == (headings or ["(untitled document)"])


def test_no_headings_is_one_section() -> None:
    outline = parse_outline("just text\n")
    assert [(s.id, s.offset, s.length) for s in outline.sections] == [("s1", 0, 10)]
    assert outline.title is None


def test_big_fixture_offsets_are_bytes() -> None:
    document = big_document()
    data = document.encode()
    outline = parse_outline(document)
    assert [s.id for s in outline.sections] == ["s1", "s1.1", "s1.2"]
    last = outline.sections[-1]
    assert data[last.offset : last.end] == "## End of appendix ✅\n".encode()
    assert last.end == len(data)


def test_cut_prefers_a_paragraph_end_near_the_budget() -> None:
    body = b"a" * 900 + b"\n\n" + b"b" * 500
    assert cut_point(body, 1024) == 902
    line = b"a" * 900 + b"\n" + b"b" * 500
    assert cut_point(line, 1024) == 901
    early = b"a" * 100 + b"\n\n" + "é".encode() * 600
    cut = cut_point(early, 1024)
    assert cut == 1024 and early[:cut].decode()


def test_slice_chunk_matches_the_catalog_rule() -> None:
    text = "αβγ" * 10
    document = Document("1706.03762", "0" * 64, text)
    chunk = slice_chunk(document, 2, 5)
    assert chunk == MarkdownChunk("βγ", "0" * 64, True, 6)


# -- the queries -----------------------------------------------------------------------


async def test_outline_query(scripted: ScriptedCatalog) -> None:
    async with scripted.client() as catalog:
        result = await get_paper_outline(catalog, paper="1706.03762")
    assert result.paper == "1706.03762"
    assert len(result.version) == 64
    assert [s.id for s in result.outline.sections][:2] == ["s0", "s1"]


async def test_outline_without_markdown() -> None:
    scripted = ScriptedCatalog()
    scripted.on(READ, lambda params: error(404, "Paper Markdown was not found"))
    scripted.on("papers/1706.03762", {"id": "755", "arxiv_id": "1706.03762"})
    async with scripted.client() as catalog:
        with pytest.raises(NoMarkdown):
            await get_paper_outline(catalog, paper="1706.03762")


async def test_section_by_id_and_heading(scripted: ScriptedCatalog, codec: CursorCodec) -> None:
    data = DOCUMENT.encode()
    outline = parse_outline(DOCUMENT)
    async with scripted.client() as catalog:
        abstract = await read_paper_section(
            catalog, codec, paper="1706.03762", section="ABSTRACT", now=NOW
        )
        front = await read_paper_section(catalog, codec, paper="1706.03762", section="s0", now=NOW)
        with pytest.raises(Ambiguous, match=r"s1\.2\.2 .*s1\.3"):
            await read_paper_section(catalog, codec, paper="1706.03762", section="results", now=NOW)
        with pytest.raises(NotFound, match="Section not found"):
            await read_paper_section(catalog, codec, paper="1706.03762", section="Nope", now=NOW)
        with pytest.raises(UsageError, match="max_bytes"):
            await read_paper_section(
                catalog, codec, paper="1706.03762", section="s1", max_bytes=10, now=NOW
            )
    section = outline.sections[2]
    assert abstract.markdown.encode() == data[section.offset : section.end]
    assert not abstract.truncated and abstract.next_cursor is None
    assert front.markdown == "Front matter before any heading.\n\n"


async def test_cut_section_continues_with_read_paper(
    scripted: ScriptedCatalog, codec: CursorCodec
) -> None:
    data = DOCUMENT.encode()
    async with scripted.client() as catalog:
        part = await read_paper_section(
            catalog, codec, paper="1706.03762", section="s1", max_bytes=1024, now=NOW
        )
        assert part.truncated and part.next_cursor
        assert len(part.markdown.encode()) <= 1024
        pieces = [part.markdown]
        cursor: str | None = part.next_cursor
        while cursor:
            chunk = await read_paper(catalog, codec, paper="1706.03762", cursor=cursor, now=NOW)
            pieces.append(chunk.markdown)
            cursor = chunk.next_cursor
        tampered = part.next_cursor[:-2] + ("A" if part.next_cursor[-2] != "A" else "B") + "x"
        with pytest.raises(InvalidCursor):
            await read_paper(catalog, codec, paper="1706.03762", cursor=tampered, now=NOW)
    offset = parse_outline(DOCUMENT).sections[1].offset
    assert "".join(pieces).encode() == data[offset:]


async def test_section_cursor_continues_from_cached_chunks_in_an_outage(
    codec: CursorCodec,
) -> None:
    """An odd-offset chunk that is not cached is cut from the standard chunks."""
    chunks: dict[tuple[int, int], MarkdownChunk] = {}

    class Flaky:
        online = True

        async def get_json(self, path: str, params: object = None, **_: object) -> object:
            raise UpstreamUnreachable("down")

        async def read_markdown(
            self, paper: str, *, offset: int, limit: int, content_version: str | None
        ) -> MarkdownChunk:
            if (offset, limit) in chunks:
                return chunks[(offset, limit)]
            if not self.online:
                raise UpstreamUnreachable("down")
            chunk = slice_chunk(Document(paper, "a" * 64, DOCUMENT), offset, limit)
            chunks[(offset, limit)] = chunk
            return chunk

    flaky = Flaky()
    part = await read_paper_section(
        flaky, codec, paper="1706.03762", section="s1", max_bytes=1024, now=NOW
    )
    flaky.online = False
    assert part.next_cursor
    rest = await read_paper(flaky, codec, paper="1706.03762", cursor=part.next_cursor, now=NOW)
    assert (part.markdown + rest.markdown).encode() == DOCUMENT.encode()[
        parse_outline(DOCUMENT).sections[1].offset :
    ]


async def test_section_cursors_get_read_papers_checks(codec: CursorCodec) -> None:
    """Expiry and content version are checked exactly as for read_paper's own cursors."""
    current = {"text": DOCUMENT}
    scripted = ScriptedCatalog()
    scripted.on(READ, lambda params: markdown_pages(current["text"], params))
    async with scripted.client() as catalog:
        part = await read_paper_section(
            catalog, codec, paper="1706.03762", section="s1", max_bytes=1024, now=NOW
        )
        assert part.next_cursor
        with pytest.raises(ExpiredCursor):
            await read_paper(
                catalog, codec, paper="1706.03762", cursor=part.next_cursor, now=NOW + 3601
            )
        current["text"] = DOCUMENT.replace("BLEU 28.4", "BLEU 41.8")
        with pytest.raises(PaperChanged):
            await read_paper(catalog, codec, paper="1706.03762", cursor=part.next_cursor, now=NOW)


# -- bounded answers (issue 22 item 5) ---------------------------------------------------


def test_an_outline_of_20000_flat_headings_lists_the_first_with_a_note() -> None:
    text = "".join(f"# Part {n}\n\nText {n}.\n\n" for n in range(1, 20_001))
    outline = parse_outline(text)
    listed, note = listed_sections(outline)
    assert len(outline.sections) == 20_000 and len(listed) == MAX_OUTLINE_SECTIONS
    assert [s.id for s in listed[:2]] == ["s1", "s2"] and listed[-1].id == "s500"
    assert note is not None and note.startswith(
        "Outline cut: 500 of 20000 sections listed (the first 500 top-level sections, to s500)"
    )


def test_an_outline_too_long_to_list_leaves_out_the_deepest_sections_first() -> None:
    text = "".join(
        f"# Chapter {c}\n\n" + "".join(f"## Part {c}.{p}\n\nText.\n\n" for p in range(1, 200))
        for c in range(1, 101)
    )
    listed, note = listed_sections(parse_outline(text))
    assert len(listed) == MAX_OUTLINE_SECTIONS
    assert [s.id for s in listed if s.level == 1] == [f"s{c}" for c in range(1, 101)]
    deeper = [s.id for s in listed if s.level == 2]
    assert deeper[:2] == ["s1.1", "s1.2"] and deeper[-1] == "s3.2" and len(deeper) == 400
    assert note is not None and "then the first 400 one level deeper, to s3.2" in note


async def test_a_60_kb_heading_is_cut_in_the_outline_and_still_read() -> None:
    heading = "Very long heading " * 3400  # about 60 KB
    document = f"# Title\n\n## {heading}\n\nBody text.\n\n## Short\n\nMore.\n"
    codec = CursorCodec("secret-one", ttl=3600)
    scripted = ScriptedCatalog()
    scripted.on(READ, lambda params: markdown_pages(document, params))
    scripted.on("papers/1706.03762", {"id": "755", "arxiv_id": "1706.03762"})
    async with scripted.client() as catalog:
        outline = await get_paper_outline(catalog, paper="1706.03762")
        section = await read_paper_section(catalog, codec, paper="1706.03762", section="s1.1")
    [long] = [s for s in outline.sections if s.id == "s1.1"]
    assert len(long.heading) == MAX_HEADING_CHARS and long.heading.endswith("…")
    assert outline.note is None and len(outline.sections) == 3
    assert len(section.section.heading) == MAX_HEADING_CHARS
    assert section.markdown.startswith("## Very long heading")
    assert section.truncated and section.next_cursor  # the 60 KB heading is the text to read


def test_a_local_tools_oversized_answer_does_not_blame_the_catalog() -> None:
    from pwc_local.server.framing import OVERSIZED_ANSWER, oversized_answer

    for tool in ("get_paper_outline", "search_library", "read_paper_section"):
        text = json.loads(oversized_answer(1, tool))["result"]["content"][0]["text"]
        assert "response_too_large:" in text and "catalog" not in text, text
    hosted = json.loads(oversized_answer(1, "search_papers"))["result"]["content"][0]["text"]
    assert OVERSIZED_ANSWER in hosted


# -- sections by the name a person uses (issue 21 item 3) --------------------------------

NAMED = (
    "# A Paper\n\n## Abstract\n\nSummary.\n\n## 1 Introduction\n\nWhy.\n\n"
    "## 2 Key ideas\n\nIdeas.\n\n### 2.1. Self-Attention:\n\nHow.\n\n"
    "## 3 Results\n\nNumbers.\n\n## Appendix\n\n### A.1 Results\n\nMore numbers.\n\n"
    "## Key Ideas, again\n\nRepeated.\n"
)


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("Key ideas", "s1.3"),
        ("  KEY   IDEAS ", "s1.3"),
        ("key-ideas", "s1.3"),
        ("2 Key ideas", "s1.3"),
        ("self attention", "s1.3.1"),
        ("2.1 Self-Attention", "s1.3.1"),
        ("Introduction", "s1.2"),
        ("introduction.", "s1.2"),
    ],
)
def test_a_section_is_found_by_the_name_a_person_uses(name: str, found: str) -> None:
    assert find_section(parse_outline(NAMED), name).id == found


def test_an_exact_heading_wins_over_one_that_differs_in_its_number() -> None:
    outline = parse_outline("# T\n\n## Results\n\nA.\n\n## 2 Results\n\nB.\n")
    assert find_section(outline, "results").id == "s1.1"
    assert find_section(outline, "2 Results").id == "s1.2"


def test_a_name_of_several_sections_lists_their_ids() -> None:
    with pytest.raises(Ambiguous, match=r"s1\.4 \(A Paper > 3 Results\); s1\.5\.1 "):
        find_section(parse_outline(NAMED), "Results")


def test_a_miss_lists_the_closest_headings_with_their_ids() -> None:
    with pytest.raises(NotFound) as missed:
        find_section(parse_outline(NAMED), "Key idea")
    message = str(missed.value)
    assert message.startswith("Section not found: 'Key idea'; closest: s1.3 (2 Key ideas)")
    assert "get_paper_outline" in message
    with pytest.raises(NotFound, match="no heading is close to it"):
        find_section(parse_outline(NAMED), "Bibliography")


def test_a_heading_cut_short_in_an_answer_still_names_its_section() -> None:
    heading = "Very long heading " * 100
    outline = parse_outline(f"# T\n\n## {heading}\n\nText.\n\n## Other\n\nMore.\n")
    [listed] = [s for s in listed_sections(outline)[0] if s.id == "s1.1"]
    assert listed.heading.endswith("…") and find_section(outline, listed.heading).id == "s1.1"


def test_the_first_words_of_a_heading_name_its_section() -> None:
    outline = parse_outline(
        "# T\n\n## Appendix A: Proofs\n\nx\n\n## Appendix B — Multilingual results\n\ny\n\n"
        "## Appendix Bx\n\nz\n"
    )
    assert find_section(outline, "Appendix B").id == "s1.2"  # whole words: not "Appendix Bx"
    assert find_section(outline, "appendix b multilingual").id == "s1.2"
    with pytest.raises(Ambiguous, match=r"s1\.1 .*s1\.2 .*s1\.3"):
        find_section(outline, "Appendix")


def test_depth_counts_levels_below_a_lone_title_and_the_note_says_how_to_see_more() -> None:
    deep = "## A\n\n### A.1\n\n#### A.1.1\n\n##### A.1.1.1\n\n## B\n\n"
    titled = parse_outline("# Title\n\n" + deep)
    listed, note = listed_sections(titled, 2)
    assert [s.heading for s in listed] == ["Title", "A", "A.1", "B"]
    assert note == (
        "2 deeper sections left out (4 of 6 listed, 2 levels below the title); depth=3 lists "
        "one level more, depth=4 all, or read_paper_section reads one with the headings "
        "under it."
    )
    untitled = parse_outline(deep)  # two top-level sections: no title to skip
    assert [s.heading for s in listed_sections(untitled, 2)[0]] == ["A", "A.1", "B"]
    assert listed_sections(titled, 4) == (tuple(titled.sections), None)
