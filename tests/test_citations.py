"""Citations parse with real parsers, keys are stable, specials are escaped; reading lists parse."""

from __future__ import annotations

import json

import pytest

from pwc_local.common.references import ARXIV, parse_reference
from pwc_local.queries.citations import (
    CitationFields,
    bibtex,
    citation_fields,
    format_citation,
    format_citations,
    ris,
)
from pwc_local.queries.public import PublicRecord
from pwc_local.queries.reading_list import parse_reading_list
from tests.bibtex_check import entries

ATTENTION = {
    "id": "755",
    "arxiv_id": "1706.03762",
    "title": "Attention Is All You Need",
    "authors": ["Ashish Vaswani", "Noam Shazeer", "Łukasz Kaiser"],
    "published": "2017-06-12",
    "conference_name": "NeurIPS 2017",
    "url_abs": "https://arxiv.org/abs/1706.03762v7",
}
SPECIAL_TITLE = r"50% of {GPUs} & $x_1$ #1 ~ ^ \ cost"


def test_catalog_fields_and_a_stable_key() -> None:
    fields = citation_fields(ATTENTION)
    assert fields.key == "vaswani2017attention"
    assert (fields.year, fields.date, fields.venue) == ("2017", "2017-06-12", "NeurIPS 2017")
    assert fields.arxiv_id == "1706.03762" and fields.url.startswith("https://arxiv.org/")
    assert citation_fields(dict(ATTENTION)).key == fields.key
    assert CitationFields.from_dict(fields.as_dict()) == fields


def test_bibtex_escapes_latex_specials_and_parses() -> None:
    detail = {**ATTENTION, "title": SPECIAL_TITLE}
    text = bibtex(citation_fields(detail))
    [entry] = entries(text)
    assert entry["ENTRYTYPE"] == "inproceedings" and entry["eprint"] == "1706.03762"
    title = entry["title"]
    for escaped in (r"\%", r"\{GPUs\}", r"\&", r"\$x\_1\$", r"\#1", r"\textasciitilde{}"):
        assert escaped in title
    assert r"\textasciicircum{}" in title and r"\textbackslash{}" in title
    assert "Łukasz Kaiser" in entry["author"]


def test_a_doi_only_paper_outside_the_catalog() -> None:
    record = PublicRecord(
        in_catalog=False,
        catalog_id=None,
        arxiv_id=None,
        doi="10.1038/nature14539",
        title="Deep learning",
        authors=["Yann LeCun", "Yoshua Bengio", "Geoffrey Hinton"],
        published="2015-05-28",
        abstract=None,
        metadata_source="crossref",
        requested_title=None,
        links=[("DOI", "https://doi.org/10.1038/nature14539")],
    )
    fields = citation_fields(record.paper_detail())
    assert fields.doi == "10.1038/nature14539" and fields.key == "lecun2015deep"
    [entry] = entries(bibtex(fields))
    assert entry["doi"] == "10.1038/nature14539" and entry["ENTRYTYPE"] == "misc"
    lines = ris(fields).splitlines()
    assert lines[0] == "TY  - JOUR" and "DO  - 10.1038/nature14539" in lines
    assert lines[-1] == "ER  -"
    [item] = json.loads(format_citation(fields, "csl-json"))
    assert item["DOI"] == "10.1038/nature14539"
    assert item["author"][0] == {"family": "LeCun", "given": "Yann"}
    assert item["issued"] == {"date-parts": [[2015, 5, 28]]}


def test_several_papers_get_unique_keys_and_bad_formats_are_refused() -> None:
    one = citation_fields(ATTENTION)
    text = format_citations([one, one], "bibtex")
    keys = [e["ID"] for e in entries(text)]
    assert keys == ["vaswani2017attentiona", "vaswani2017attentionb"]
    assert ris(citation_fields({"title": "A\nB"})).count("\n") == 4  # TY, ID, TI, ER
    with pytest.raises(ValueError):
        format_citations([one], "endnote")


def test_reading_lists_line_by_line_and_bibtex() -> None:
    assert parse_reading_list(
        "1706.03762\n# comment\n\n  Deep Residual Learning \n"
    ).references == [
        "1706.03762",
        "Deep Residual Learning",
    ]
    found = parse_reading_list(
        "% comment\n@article{a, eprint = {1706.03762v5}, archivePrefix = {arXiv}}\n"
        '@inproceedings(b, title = "Deep {Residual} (Learning", '
        "doi = {https://doi.org/10.1109/CVPR.2016.90})\n"
        "@comment{@article{ignored, eprint={1111.11111}}}\n"
        "@misc{c, journal = {arXiv preprint arXiv:2312.00752}}\n"
        "@misc{d, url = {https://huggingface.co/papers/2401.00001}}\n"
        "@book{e, title = {No identifiers}}\n"
    )
    assert found.references == [
        "1706.03762v5",
        "10.1109/CVPR.2016.90",
        "2312.00752",
        "https://huggingface.co/papers/2401.00001",
    ]
    assert found.skipped == ["e"]


def test_an_arxiv_prefix_is_an_arxiv_id() -> None:
    parsed = parse_reference("arXiv:1706.03762v7")
    assert (parsed.kind, parsed.candidate) == (ARXIV, "1706.03762")
    assert parse_reference("arxiv: 2312.00752").candidate == "2312.00752"
    assert parse_reference("arXiv: the paper").kind == "title"
