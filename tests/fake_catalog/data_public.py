"""Fixture public-metadata records (catalog-api.md §2.27/§2.28, ASSUMED shapes).

The spec only proposes these endpoints; the records follow its proposed fields
(`in_catalog`, `catalog_id`, `arxiv_id`, `doi`, `title`, `authors`, `published`,
`abstract`, `metadata_source`, `requested_title` and the link fields
`hf_paper_url`, `arxiv_url`, `pdf_url`, `doi_url`, `publisher_url`).

Records here are papers the catalog does NOT hold, one per public source, plus
one DOI that points at a catalog paper. Catalog papers with an arXiv ID are also
answered (as `in_catalog: true`) by the routes module, built from the paper
itself. Titles and identifiers are real; abstracts are invented.
"""

from __future__ import annotations

from typing import Any


def public_record(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "in_catalog": False,
        "catalog_id": None,
        "arxiv_id": None,
        "doi": None,
        "title": "",
        "authors": [],
        "published": None,
        "abstract": None,
        "metadata_source": "arxiv",
        "requested_title": None,
        "hf_paper_url": None,
        "arxiv_url": None,
        "pdf_url": None,
        "doi_url": None,
        "publisher_url": None,
    }
    base.update(fields)
    return base


PUBLIC_RECORDS: tuple[dict[str, Any], ...] = (
    # arXiv paper outside the catalog.
    public_record(
        arxiv_id="1301.3781",
        title="Efficient Estimation of Word Representations in Vector Space",
        authors=["Tomas Mikolov", "Kai Chen", "Greg Corrado", "Jeffrey Dean"],
        published="2013-01-16",
        abstract=(
            "Two simple architectures learn word vectors from very large corpora in "
            "hours, and the vectors capture syntactic and semantic regularities."
        ),
        metadata_source="arxiv",
        arxiv_url="https://arxiv.org/abs/1301.3781",
        pdf_url="https://arxiv.org/pdf/1301.3781",
    ),
    # Hugging Face Papers record with a "Name: subtitle" title (the search endpoint's
    # leading-name rule matches it).
    public_record(
        arxiv_id="2312.00752",
        title="Mamba: Linear-Time Sequence Modeling with Selective State Spaces",
        authors=["Albert Gu", "Tri Dao"],
        published="2023-12-01",
        abstract=(
            "A selective state-space layer whose parameters depend on the input gives "
            "linear-time sequence models that rival attention on language."
        ),
        metadata_source="huggingface",
        hf_paper_url="https://huggingface.co/papers/2312.00752",
        arxiv_url="https://arxiv.org/abs/2312.00752",
        pdf_url="https://arxiv.org/pdf/2312.00752",
    ),
    # Crossref (DOI-only) record, no arXiv ID.
    public_record(
        doi="10.1038/nature14539",
        title="Deep learning",
        authors=["Yann LeCun", "Yoshua Bengio", "Geoffrey Hinton"],
        published="2015-05-27",
        abstract=None,
        metadata_source="crossref",
        doi_url="https://doi.org/10.1038/nature14539",
        publisher_url="https://www.nature.com/articles/nature14539",
    ),
    # A publisher's DOI that resolves to a catalog paper (arXiv's own DOIs,
    # 10.48550/arXiv.<id>, name the arXiv ID without any lookup).
    public_record(
        in_catalog=True,
        catalog_id="755",
        arxiv_id="1706.03762",
        doi="10.5555/3295222.3295349",
        title="Attention Is All You Need",
        authors=["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"],
        published="2017-06-12",
        metadata_source="crossref",
        arxiv_url="https://arxiv.org/abs/1706.03762",
        pdf_url="https://arxiv.org/pdf/1706.03762",
        doi_url="https://doi.org/10.5555/3295222.3295349",
    ),
)

PUBLIC_ARXIV_ID = "1301.3781"
PUBLIC_HF_ARXIV_ID = "2312.00752"
PUBLIC_DOI = "10.1038/nature14539"
PUBLIC_TITLE = "Deep learning"
PUBLIC_IN_CATALOG_DOI = "10.5555/3295222.3295349"
