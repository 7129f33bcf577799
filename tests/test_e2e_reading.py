"""End to end: outlines, section reads, citations, completions and resource links.

The installed `pwc-mcp-local`, spawned over stdio with the SDK client, against the
loopback fake. One server per module; the fake is reset before every test. The
offline tests refuse connections on the fake and check what the server still
answers from its cache.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_types import CallToolResult, PromptReference, ResourceTemplateReference

from tests.fake_catalog import (
    BIG_MARKDOWN_ARXIV_ID,
    MISSING_ARXIV_ID,
    NO_MARKDOWN_ARXIV_ID,
    big_document,
)
from tests.installed import LiveSession, module_session, rows

ATTENTION_ARXIV_ID = "1706.03762"
# Papers whose Markdown or title a test changes, one per test: the server's cache
# rightly keeps serving what it saw for a few minutes, so no two tests may share one.
STRUCTURED_PAPER = "2006.16236"
DUPLICATES_PAPER = "2307.09288"
LATEX_PAPER = "2302.13971"
LINKED_PAPER = "1810.04805"

pytestmark = pytest.mark.e2e

TIMEOUT_SECONDS = 3


class Session(LiveSession):
    """The module's live session; `ok()` returns a successful answer's structuredContent."""

    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = self.call(name, **arguments)
        assert not result.is_error, result.content[0].text
        assert result.structured_content is not None
        return result.structured_content


session, fresh_fake = module_session(Session, "reading", PWC_MCP_LOCAL_TIMEOUT=str(TIMEOUT_SECONDS))


# -- completions ------------------------------------------------------------------------

PROMPT_CASES = [
    (PromptReference(name="survey_task", type="ref/prompt"), "task", "Image Classification"),
    (PromptReference(name="find_papers", type="ref/prompt"), "topic", "Image Classification"),
    (PromptReference(name="compare_leaderboard", type="ref/prompt"), "benchmark", "ImageNet-1k"),
]
TEMPLATE_CASES = [
    (
        ResourceTemplateReference(uri="pwc://tasks/{task}", type="ref/resource"),
        "task",
        "image-classification",
    ),
    (
        ResourceTemplateReference(uri="pwc://benchmarks/{benchmark}", type="ref/resource"),
        "benchmark",
        "imagenet-1k",
    ),
]


def test_completions_capability_is_advertised(session: Session) -> None:
    capabilities = session.client.server_capabilities
    assert capabilities is not None and capabilities.completions is not None


@pytest.mark.parametrize(("ref", "name", "expected"), PROMPT_CASES + TEMPLATE_CASES)
def test_completions_online_then_offline(
    session: Session, ref: Any, name: str, expected: str
) -> None:
    online = session.complete(ref, name, "Ima")
    assert expected in online and len(online) <= 20
    session.fake.faults.refuse_connections()
    # A longer prefix was never asked online: the local vocabulary answers it.
    offline = session.complete(ref, name, "Image" if expected[0] == "I" else "imag")
    assert expected in offline


@pytest.mark.parametrize("uri", ["pwc://papers/{paper}", "pwc://papers/{paper}/markdown"])
def test_paper_completion_online_and_offline(session: Session, uri: str) -> None:
    ref = ResourceTemplateReference(uri=uri, type="ref/resource")
    online = session.complete(ref, "paper", "attention")
    assert "1706.03762" in online
    session.fake.faults.refuse_connections()
    assert "1706.03762" in session.complete(ref, "paper", "Attention is")


def test_unknown_completions_are_empty_not_errors(session: Session) -> None:
    task = PromptReference(name="survey_task", type="ref/prompt")
    assert session.complete(task, "task", "zzqqxx-no-such") == []
    assert session.complete(task, "nope", "Ima") == []
    assert session.complete(PromptReference(name="nope", type="ref/prompt"), "task", "I") == []
    other = ResourceTemplateReference(uri="pwc://nowhere/{x}", type="ref/resource")
    assert session.complete(other, "x", "Ima") == []


# -- outlines and sections ----------------------------------------------------------------

BIG = BIG_MARKDOWN_ARXIV_ID
# Text before the first heading, three top-level sections, a fenced block whose `#`
# lines are code, a setext heading and multi-byte text on every line.
STRUCTURED = (
    "Preprint — not peer reviewed. αβγ\n\n"
    "# Part one 🚀\n\nIntro 注意力.\n\n## Details\n\n```sh\n# not a heading\n```\n\n"
    "Part two\n========\n\nBody ∑.\n\n"
    "# Part three\n\n" + "Long paragraph with ünïcödé text. " * 400 + "\n\nEnd ✅\n"
)


def _headings_by_bytes(document: str) -> list[tuple[int, int, str]]:
    """(byte offset, level, text) of every ATX heading line, counted independently."""
    found, offset = [], 0
    for line in document.encode().splitlines(keepends=True):
        text = line.decode().rstrip("\n")
        if text.startswith("#"):
            marks = len(text) - len(text.lstrip("#"))
            found.append((offset, marks, text[marks:].strip()))
        offset += len(line)
    return found


def _read_on(session: Session, paper: str, cursor: str | None) -> str:
    """read_paper from `cursor` to the end of the paper."""
    parts = []
    while cursor:
        chunk = session.ok("read_paper", paper=paper, cursor=cursor)
        parts.append(chunk["markdown"])
        cursor = chunk.get("next_cursor")
    return "".join(parts)


def test_outline_of_the_big_paper_has_exact_byte_offsets(session: Session) -> None:
    document = big_document()
    outline = session.ok("get_paper_outline", paper=BIG)
    assert outline["size"] == len(document.encode())
    assert outline["title"] == "Unsupervised Cross-lingual Representation Learning at Scale"
    got = [(s["offset"], s["level"], s["heading"]) for s in rows(outline["sections"])]
    assert got == _headings_by_bytes(document)
    assert [s["id"] for s in rows(outline["sections"])] == ["s1", "s1.1", "s1.2"]
    ends = [s["offset"] + s["length"] for s in rows(outline["sections"])]
    # The title section holds everything; the appendix ends where the next H2 starts.
    assert ends == [outline["size"], rows(outline["sections"])[2]["offset"], outline["size"]]


def test_a_section_by_the_name_a_person_uses_as_the_readme_shows(session: Session) -> None:
    # The title is the only H1, so "2 Key ideas" is s1.3.
    outline = session.ok("get_paper_outline", paper=ATTENTION_ARXIV_ID)
    ids = {s["heading"]: s["id"] for s in rows(outline["sections"])}
    assert ids["Attention Is All You Need"] == "s1" and ids["Abstract"] == "s1.1"
    assert ids["2 Key ideas"] == "s1.3"
    part = session.ok("read_paper_section", paper=ATTENTION_ARXIV_ID, section="Key ideas")
    assert part["section"]["id"] == "s1.3" and part["markdown"].startswith("## 2 Key ideas")
    missed = session.call("read_paper_section", paper=ATTENTION_ARXIV_ID, section="Key idea")
    assert missed.is_error
    assert "not_found: Section not found: 'Key idea'; closest: s1.3 (2 Key ideas)" in (
        missed.content[0].text
    )


HUGE_OUTLINE_PAPER = "2010.11929"


def test_an_outline_of_20000_headings_and_a_60_kb_heading_still_answers(session: Session) -> None:
    long_heading = "Long heading " * 4700  # about 60 KB
    document = f"# Title\n\n## {long_heading}\n\nText.\n\n" + "".join(
        f"## Part {n}\n\nText {n}.\n\n" for n in range(20_000)
    )
    session.fake.set_markdown(HUGE_OUTLINE_PAPER, document)
    result = session.call("get_paper_outline", paper=HUGE_OUTLINE_PAPER)
    assert not result.is_error, result.content[0].text
    outline = result.structured_content or {}
    assert outline["size"] == len(document.encode()) and len(rows(outline["sections"])) == 500
    assert outline["note"].startswith("Outline cut: 500 of 20002 sections listed (every section")
    assert [s["id"] for s in rows(outline["sections"])][:3] == ["s1", "s1.1", "s1.2"]
    assert max(len(s["heading"]) for s in rows(outline["sections"])) <= 300
    assert outline["note"] in result.content[0].text
    # What the note points at works: a section left out, by heading.
    part = session.ok("read_paper_section", paper=HUGE_OUTLINE_PAPER, section="Part 19999")
    assert part["markdown"] == "## Part 19999\n\nText 19999.\n\n"


def _section_bytes(session: Session, paper: str, section: dict[str, Any]) -> bytes:
    """One section, read by ID and, if cut, continued through read_paper."""
    part = session.ok("read_paper_section", paper=paper, section=section["id"], max_bytes=65536)
    assert part["section"]["id"] == section["id"]
    text = part["markdown"] + (
        _read_on(session, paper, part["next_cursor"]) if part["truncated"] else ""
    )
    return text.encode()[: section["length"]]


@pytest.mark.parametrize("which", ["structured", "big"])
def test_top_level_sections_reproduce_the_document(session: Session, which: str) -> None:
    paper, document = STRUCTURED_PAPER, STRUCTURED
    if which == "big":
        paper, document = BIG, big_document()
    else:
        session.fake.set_markdown(paper, document)
    outline = session.ok("get_paper_outline", paper=paper)
    top = [s for s in rows(outline["sections"]) if "." not in s["id"]]  # no parent
    if which == "structured":
        assert [(s["id"], s["heading"]) for s in top] == [
            ("s0", "(text before the first heading)"),
            ("s1", "Part one 🚀"),
            ("s2", "Part two"),
            ("s3", "Part three"),
        ]
        assert "not a heading" not in {s["heading"] for s in rows(outline["sections"])}
    rebuilt = b"".join(_section_bytes(session, paper, s) for s in top)
    assert rebuilt == document.encode()


def test_a_cut_section_continues_through_read_paper_to_the_end(session: Session) -> None:
    document = big_document().encode()
    appendix = rows(session.ok("get_paper_outline", paper=BIG)["sections"])[1]
    part = session.ok(
        "read_paper_section",
        paper=BIG,
        section="appendix c: PER-language samples (ελληνικά, 中文, 日本語, 한국어, 🌐)",
        max_bytes=4096,
    )
    assert part["truncated"] and part["next_cursor"]
    head = part["markdown"].encode()
    assert len(head) <= 4096 and head.endswith(b"\n")  # cut at a line end near the budget
    rest = _read_on(session, BIG, part["next_cursor"]).encode()
    assert head + rest == document[appendix["offset"] :]


def test_a_tampered_section_cursor_is_refused(session: Session) -> None:
    part = session.ok("read_paper_section", paper=BIG, section="s1", max_bytes=1024)
    body, _, signature = part["next_cursor"].partition(".")
    forged = body[:-3] + ("AAA" if body[-3:] != "AAA" else "BBB") + "." + signature
    assert session.error("read_paper", paper=BIG, cursor=forged).startswith("invalid_cursor:")
    other = session.error("read_paper", paper=ATTENTION_ARXIV_ID, cursor=part["next_cursor"])
    assert other.startswith("cursor_mismatch:") or other.startswith("invalid_cursor:"), other
    assert session.ok("read_paper", paper=BIG, cursor=part["next_cursor"])["markdown"]


def test_section_errors_are_codes(session: Session) -> None:
    session.fake.set_markdown(DUPLICATES_PAPER, "# A\n\n## Same\n\nx\n\n## Same\n\ny\n")
    ambiguous = session.error("read_paper_section", paper=DUPLICATES_PAPER, section="same")
    assert ambiguous.startswith("ambiguous:") and "s1.1" in ambiguous and "s1.2" in ambiguous
    missing = session.error("read_paper_section", paper=DUPLICATES_PAPER, section="nope")
    assert missing.startswith("not_found: Section not found")
    small = session.error("read_paper_section", paper=DUPLICATES_PAPER, section="s1", max_bytes=10)
    assert small.startswith("invalid_argument:")
    assert session.error("get_paper_outline", paper=NO_MARKDOWN_ARXIV_ID).startswith("no_markdown:")
    assert session.error("get_paper_outline", paper=MISSING_ARXIV_ID).startswith("not_found:")
    outside = session.error("read_paper_section", paper="10.1038/nature14539", section="s1")
    assert outside.startswith("no_markdown:")  # a paper outside the catalog has none


def test_outline_offline_from_the_cache(session: Session) -> None:
    online = session.ok("get_paper_outline", paper=BIG)
    session.fake.faults.refuse_connections()
    offline = session.call("get_paper_outline", paper=BIG)
    assert not offline.is_error, offline.content[0].text
    assert offline.structured_content is not None
    assert offline.structured_content["sections"] == online["sections"]
    part = session.ok("read_paper_section", paper=BIG, section="s1.1", max_bytes=2048)
    rest = _read_on(session, BIG, part["next_cursor"])  # odd offset, cut from cached chunks
    assert (part["markdown"] + rest).encode() == big_document().encode()[
        rows(online["sections"])[1]["offset"] :
    ]


# -- citations ----------------------------------------------------------------------------

LATEX_TITLE = r"Attention & 50% of $\alpha$_x {Braces} ~ ^ \ #1"


def _bibtex_entry(text: str) -> dict[str, str]:
    """The one entry of `text` as bibtexparser reads it (field values as written)."""
    from tests.bibtex_check import entries

    found = entries(text)
    assert len(found) == 1, text
    return dict(found[0])


def test_cite_an_arxiv_paper_in_every_format(session: Session) -> None:
    bib = session.ok("cite_paper", paper=ATTENTION_ARXIV_ID)
    assert bib["key"] == "vaswani2017attention" and bib["in_catalog"] is True
    entry = _bibtex_entry(bib["citation"])
    assert entry["ID"] == "vaswani2017attention"
    assert entry["title"].strip("{}") == "Attention Is All You Need"
    assert entry["eprint"] == ATTENTION_ARXIV_ID
    assert "Vaswani" in entry["author"]
    ris = session.ok("cite_paper", paper=ATTENTION_ARXIV_ID, format="ris")["citation"]
    lines = ris.strip().splitlines()
    assert lines[0].startswith("TY  - ") and lines[-1].startswith("ER  -")
    assert "TI  - Attention Is All You Need" in lines
    csl = json.loads(
        session.ok("cite_paper", paper=ATTENTION_ARXIV_ID, format="csl-json")["citation"]
    )
    assert csl[0]["id"] == "vaswani2017attention" and csl[0]["title"] == "Attention Is All You Need"
    assert session.error("cite_paper", paper=ATTENTION_ARXIV_ID, format="mla").startswith(
        "invalid_argument:"
    )


def test_cite_a_doi_only_paper_outside_the_catalog(session: Session) -> None:
    bib = session.ok("cite_paper", paper="10.1038/nature14539")
    assert bib["in_catalog"] is False
    entry = _bibtex_entry(bib["citation"])
    assert entry["doi"] == "10.1038/nature14539"
    assert entry["title"].strip("{}") == "Deep learning"
    csl = json.loads(
        session.ok("cite_paper", paper="10.1038/nature14539", format="csl-json")["citation"]
    )
    assert csl[0]["DOI"] == "10.1038/nature14539"


def test_cite_a_title_with_latex_specials(session: Session) -> None:
    session.fake.set_title(LATEX_PAPER, LATEX_TITLE)
    bib = session.ok("cite_paper", paper=LATEX_PAPER)["citation"]
    entry = _bibtex_entry(bib)
    # The parser found the entry's end and every field boundary, so no special broke
    # out; the title reads as LaTeX with each special escaped (written out by hand).
    assert entry["ID"].startswith("touvron2023")
    assert entry["title"] == (
        r"{Attention \& 50\% of \$\textbackslash{}alpha\$\_x \{Braces\} "
        r"\textasciitilde{} \textasciicircum{} \textbackslash{} \#1}"
    )
    ris = session.ok("cite_paper", paper=LATEX_PAPER, format="ris")["citation"]
    assert f"TI  - {LATEX_TITLE}" in ris.splitlines()
    csl = session.ok("cite_paper", paper=LATEX_PAPER, format="csl-json")["citation"]
    assert json.loads(csl)[0]["title"] == LATEX_TITLE


def test_cite_offline_from_the_cache(session: Session) -> None:
    online = session.ok("cite_paper", paper=ATTENTION_ARXIV_ID)
    session.fake.faults.refuse_connections()
    offline = session.call("cite_paper", paper=ATTENTION_ARXIV_ID)
    assert not offline.is_error, offline.content[0].text
    assert offline.structured_content is not None
    assert offline.structured_content["citation"] == online["citation"]


# -- resource links -----------------------------------------------------------------------


def _links(result: CallToolResult) -> list[Any]:
    return [item for item in result.content if item.type == "resource_link"]


def test_resource_links_resolve(session: Session) -> None:
    info = session.call("get_paper_info", paper=LINKED_PAPER)
    links = _links(info)
    assert [str(link.uri) for link in links] == [f"pwc://papers/{LINKED_PAPER}"]
    assert (
        json.loads(session.read(str(links[0].uri)))["title"]
        == session.fake.catalog.paper(LINKED_PAPER).title
    )
    session.ok("read_paper", paper=LINKED_PAPER)  # now its Markdown is cached whole
    info = session.call("get_paper_info", paper=LINKED_PAPER)
    uris = [str(link.uri) for link in _links(info)]
    assert uris == [
        f"pwc://papers/{LINKED_PAPER}",
        f"pwc://papers/{LINKED_PAPER}/markdown",
    ]
    assert session.read(uris[1]) == session.fake.markdown(LINKED_PAPER)
    for tool, arguments in [
        ("search_papers", {"query": "attention", "mode": "keyword", "limit": 3}),
        ("list_papers", {"task": "image-classification", "limit": 3}),
    ]:
        result = session.call(tool, **arguments)
        assert result.structured_content is not None
        items = rows(result.structured_content["papers"])
        paper_links = [
            str(link.uri) for link in _links(result) if not str(link.uri).endswith("/markdown")
        ]
        assert len(paper_links) == len(items) > 0
        for uri in paper_links:
            assert json.loads(session.read(uri))["paper"]


def test_no_links_for_papers_outside_the_catalog(session: Session) -> None:
    assert _links(session.call("get_paper_info", paper="10.1038/nature14539")) == []


# -- the tools setting --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("hosted", set()),
        ("all", {"get_paper_outline", "read_paper_section", "cite_paper"}),
        ("cite_paper,read_paper", {"cite_paper"}),
    ],
)
def test_the_tools_setting_decides_which_reading_tools_are_listed(
    setting: str, expected: set[str]
) -> None:
    # In-process; the installed server honours the setting in tests/test_library_e2e.py.
    from pwc_local.contract import names
    from tests.test_library_e2e import listing_in_process

    tools = {tool["name"] for tool in listing_in_process(setting)}
    assert tools & set(names("reading")) == expected
    if setting == "hosted":
        assert tools == set(names("hosted")) and len(tools) == 21


# -- saved papers ---------------------------------------------------------------------------

SAVED_PAPER = "1512.03385"


def test_saved_papers_are_outlined_sectioned_and_cited_with_the_cache_cleared(
    session: Session,
) -> None:
    saved = session.ok("save_papers", papers=[SAVED_PAPER, BIG])
    assert saved["failed"] == 0
    outline = session.ok("get_paper_outline", paper=SAVED_PAPER)
    citation = session.ok("cite_paper", paper=SAVED_PAPER, format="ris")["citation"]
    cleared = session.command("cache", "clear", timeout=60)
    assert cleared.returncode == 0, cleared.stderr
    session.fake.faults.refuse_connections()
    assert session.ok("get_paper_outline", paper=SAVED_PAPER)["sections"] == outline["sections"]
    assert session.ok("cite_paper", paper=SAVED_PAPER, format="ris")["citation"] == citation
    # The cleared cache took the completion vocabulary with it: this comes from the library.
    papers = ResourceTemplateReference(uri="pwc://papers/{paper}", type="ref/resource")
    assert SAVED_PAPER in session.complete(papers, "paper", "deep residual")
    document = session.fake.markdown(SAVED_PAPER)
    assert document is not None
    last = rows(outline["sections"])[-1]
    part = session.ok("read_paper_section", paper=SAVED_PAPER, section=last["id"], max_bytes=1024)
    data = document.encode()
    assert part["markdown"].encode() == data[last["offset"] : last["offset"] + last["length"]]
    # A cut section of a saved paper continues offline, served by the library.
    appendix = session.ok("read_paper_section", paper=BIG, section="s1.1", max_bytes=4096)
    rest = _read_on(session, BIG, appendix["next_cursor"])
    start = big_document().encode().index(b"## Appendix C")
    assert (appendix["markdown"] + rest).encode() == big_document().encode()[start:]
