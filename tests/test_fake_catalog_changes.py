"""The fake catalog's data changes between two looks (tests/fake_catalog/changes.py)."""

from __future__ import annotations

import httpx

from tests.fake_catalog import (
    NEW_PAPER,
    FakeCatalog,
    NewPaper,
    NewResult,
    NewSuccessor,
    NewVersion,
)


def _get(fake: FakeCatalog, path: str, **params: object) -> object:
    return httpx.get(fake.url(path), params=params).json()  # type: ignore[arg-type]


def test_a_new_result_leads_and_moves_the_others_down(fake_catalog: FakeCatalog) -> None:
    before = _get(fake_catalog, "datasets/72/evaluations/", page_size=2, ordering="best_rank")
    fake_catalog.apply(
        NewResult("72", paper="2432", model="ViT-G/14", metrics={"Top-1 Accuracy": 90.1})
    )
    after = _get(fake_catalog, "datasets/72/evaluations/", page_size=2, ordering="best_rank")
    assert isinstance(before, dict) and isinstance(after, dict)
    assert after["count"] == before["count"] + 1
    assert [(r["model_name"], r["best_rank"]) for r in after["results"]] == [
        ("ViT-G/14", 1),
        (before["results"][0]["model_name"], 2),
    ]
    paper_rows = _get(fake_catalog, "evaluations/", paper_id="2432", page_size=100)
    assert isinstance(paper_rows, dict)
    assert "ViT-G/14" in [row["model_name"] for row in paper_rows["results"]]


def test_a_new_paper_shows_in_its_task_author_and_search(fake_catalog: FakeCatalog) -> None:
    fake_catalog.apply(NewPaper(NEW_PAPER))
    task = _get(fake_catalog, "tasks/10/papers", order_by="date_published")
    author = _get(fake_catalog, "papers/", author="Kaiming He", order_by="date_published")
    newcomer = _get(fake_catalog, "papers/", author="Watch Newcomer")
    found = _get(fake_catalog, "papers/search", q="giant vision transformer networks")
    for listing in (task, author, newcomer, found):
        assert isinstance(listing, dict)
        assert listing["results"][0]["id"] == "91100"
    assert _get(fake_catalog, "papers/2610.04321")["title"] == NEW_PAPER.title  # type: ignore[index]


def test_a_new_version_and_a_new_successor(fake_catalog: FakeCatalog) -> None:
    version = fake_catalog.content_version("1706.03762")
    fake_catalog.apply(NewVersion("1706.03762", "# Attention Is All You Need, revised\n"))
    assert fake_catalog.content_version("1706.03762") != version
    fake_catalog.apply(NewPaper(NEW_PAPER))
    fake_catalog.apply(NewSuccessor(before="755", after="91100"))
    lineage = _get(fake_catalog, "research/papers/1706.03762/lineage")
    assert isinstance(lineage, dict)
    assert lineage["successors"][-1]["reference"] == "2610.04321"


def test_changes_last_until_reset(fake_catalog: FakeCatalog) -> None:
    fake_catalog.apply(NewPaper(NEW_PAPER))
    fake_catalog.reset()
    assert httpx.get(fake_catalog.url("papers/91100")).status_code == 404
