"""Reading-list files, the source's kind and venue in exports, and terminal-safe echoes."""

from __future__ import annotations

import json

import pytest

from pwc_local.common.references import spelled_identifier
from pwc_local.queries.citations import (
    CitationFields,
    citation_fields,
    format_citation,
    ris,
    source_citation,
)
from pwc_local.queries.reading_list import parse_reading_list
from pwc_local.safe_text import one_line, shown
from tests.bibtex_check import entries

NATURE_DOI = "10.1038/nature14539"
NATURE_ENTRY = (
    "@article{lecun2015deep,\n  title = {Deep learning},\n  journal = {Nature},\n"
    "  volume = {521}, number = {7553}, pages = {436--444},\n"
    f"  doi = {{{NATURE_DOI}}}\n}}\n"
)


def test_a_byte_order_mark_does_not_turn_a_bib_file_into_title_searches() -> None:
    found = parse_reading_list(
        "\ufeff@article{a, eprint = {1706.03762}, archivePrefix = {arXiv}}\n"
    )
    assert found.references == ["1706.03762"]


def test_a_bib_file_is_bibtex_even_when_it_opens_with_plain_text() -> None:
    text = "Exported by a tool\n@article{a, doi = {10.1/x}}\n"
    assert parse_reading_list(text, bibtex=True).references == ["10.1/x"]
    assert parse_reading_list(text).references == [
        "Exported by a tool",
        "@article{a, doi = {10.1/x}}",
    ]


def test_an_unclosed_brace_costs_only_its_own_entry() -> None:
    found = parse_reading_list(
        "% my papers\n"
        "@article{broken, title = {Never closed, eprint = {1111.11111}\n"
        "@article{next, eprint = {1706.03762}, archivePrefix = {arXiv}}\n"
        "@misc{last, journal = {arXiv preprint arXiv:2312.00752}}\n"
    )
    assert found.references == ["1706.03762", "2312.00752"]  # not 1111.11111, not swallowed
    [broken] = found.broken
    assert (broken.line, broken.key) == (2, "broken")
    assert "closing" in broken.reason


def test_a_repeated_key_is_still_a_paper() -> None:
    found = parse_reading_list("@misc{a, eprint = {1706.03762}}\n@misc{a, eprint = {1301.3781}}\n")
    assert found.references == ["1706.03762", "1301.3781"] and not found.broken


def test_an_inline_comment_is_not_part_of_the_reference() -> None:
    found = parse_reading_list("1412.6980   # adam\nhttps://arxiv.org/abs/1706.03762#s2\n")
    assert found.references == ["1412.6980", "https://arxiv.org/abs/1706.03762#s2"]


def test_a_doi_from_a_journal_entry_exports_as_that_journal_article() -> None:
    found = parse_reading_list(NATURE_ENTRY)
    assert found.references == [NATURE_DOI]
    detail = {"id": NATURE_DOI, "doi": NATURE_DOI, "title": "Deep learning", "published": "2015"}
    fields = citation_fields(detail).with_source(found.sources[NATURE_DOI])
    stored = CitationFields.from_dict(json.loads(json.dumps(fields.as_dict())))
    assert stored == fields  # what the library keeps round-trips
    [entry] = entries(format_citation(stored, "bibtex"))
    assert entry["ENTRYTYPE"] == "article"
    assert (entry["journal"], entry["volume"], entry["pages"]) == ("Nature", "521", "436--444")
    lines = ris(stored).splitlines()
    assert lines[0] == "TY  - JOUR" and "T2  - Nature" in lines
    assert "SP  - 436" in lines and "EP  - 444" in lines and "IS  - 7553" in lines
    [item] = json.loads(format_citation(stored, "csl-json"))
    assert item["type"] == "article-journal" and item["container-title"] == "Nature"
    assert (item["volume"], item["issue"], item["page"]) == ("521", "7553", "436--444")


def test_a_source_entry_type_is_kept_only_when_it_is_a_word() -> None:
    assert source_citation("Article", {}).entry_type == "article"
    hostile = source_citation("x}\n@misc{evil", {"journal": "A\nB"})
    assert hostile.entry_type == "" and hostile.venue == {"journal": "A B"}
    tampered = CitationFields.from_dict({"title": "t", "entry_type": "misc{x,\n@article"})
    assert entries(format_citation(tampered, "bibtex"))[0]["ENTRYTYPE"] == "misc"


@pytest.mark.parametrize(
    "spelling",
    [
        "1706.03762",
        "arXiv:1706.03762v5",
        "https://arxiv.org/abs/1706.03762v5",
        "https://arxiv.org/pdf/1706.03762v5.pdf",
        "https://huggingface.co/papers/1706.03762",
    ],
)
def test_every_spelling_names_one_identifier(spelling: str) -> None:
    assert spelled_identifier(spelling) == "1706.03762"


def test_titles_and_unknown_urls_spell_no_identifier() -> None:
    assert spelled_identifier("Attention Is All You Need") is None
    assert spelled_identifier("https://example.org/1706.03762") is None
    assert spelled_identifier("") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b]0;pwned\x07Title", "Title"),  # window title
        ("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ here", "click here"),  # OSC 8
        ("a \x1b[2J\x1b[31mred\x1b[0m b", "a red b"),  # clear screen, colour
        ("\x9b2Jz \x9d0;t\x07w", "z w"),  # 8-bit CSI and OSC
        ("x\n- 9999.99999: Fake Paper (saved)", "x - 9999.99999: Fake Paper (saved)"),
        ("cut \x1b]0;to the end", "cut"),  # an unterminated OSC swallows the rest
    ],
)
def test_the_sanitiser_drops_whole_escape_sequences(text: str, expected: str) -> None:
    assert one_line(text) == expected
    assert "\x1b" not in shown(text) and "\n" not in shown(text)
