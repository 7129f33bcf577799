"""The fake catalog's data, assembled and indexed: one `Catalog` per fake server.

The fixture tables live in the `data_*` modules (papers and authors, taxonomy,
benchmarks and evaluations, public metadata); this module joins them, computes
the counts the API reports, renders rows in the JSON shapes of catalog-api.md
§2.0, and holds the little mutable state a test may change: the stored Markdown
(swap a document to provoke the 409 of §3.5), optional filler papers, and what a
`changes` change adds (papers, evaluation rows, lineage links; `apply`).

Notable fixture references (also exported from the package):

* `ATTENTION_ID` "755" = 1706.03762; `BIGGERGAIT_ID` "86122" (arxiv_id "2505.18132v1");
  `LEGACY_ARXIV_ID` "math.GT/0309136" (id "900"); `EXTERNAL_ID` "4242" (no arXiv ID,
  Markdown under "4242"); `MISSING_ARXIV_ID` "2308.10195" (404 everywhere).
* `NO_MARKDOWN_ARXIV_ID` "1412.6980" (Adam): in the catalog, no stored Markdown.
* `BIG_MARKDOWN_ARXIV_ID` "1911.02116": Markdown is `markdown.big_document()`.
* `SAME_TITLE` shared by `SAME_TITLE_ARXIV_IDS` ("2607.01234", "2609.05678").
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from . import data_benchmarks, data_papers, data_taxonomy
from .data_benchmarks import Dataset
from .data_papers import (
    ATTENTION_ID,
    BIG_MARKDOWN_ARXIV_ID,
    BIGGERGAIT_ID,
    EXTERNAL_ID,
    LEGACY_ARXIV_ID,
    LEGACY_ID,
    MISSING_ARXIV_ID,
    NO_MARKDOWN_ARXIV_ID,
    SAME_TITLE,
    SAME_TITLE_ARXIV_IDS,
    Author,
    Paper,
    strip_version,
)
from .data_taxonomy import Framework, Method, Task
from .markdown import big_document, render_paper

if TYPE_CHECKING:
    from .changes import Change

__all__ = [
    "ATTENTION_ID",
    "BIGGERGAIT_ID",
    "BIG_MARKDOWN_ARXIV_ID",
    "EXTERNAL_ID",
    "LEGACY_ARXIV_ID",
    "LEGACY_ID",
    "MISSING_ARXIV_ID",
    "NO_MARKDOWN_ARXIV_ID",
    "SAME_TITLE",
    "SAME_TITLE_ARXIV_IDS",
    "Catalog",
]

SITE = "https://paperswithcode.co"
FILLER_TITLE_WORDS = "Survey Notes on Sparse Graph Methods"


class Catalog:
    """Indexed fixture data plus the per-server mutable state.

    Lookups take *decoded* references (`math.GT/0309136`, not `math.GT%2F0309136`);
    the routes decode path segments before calling them.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.papers: list[Paper] = list(data_papers.PAPERS)
        self.authors: dict[str, Author] = data_papers.build_authors(data_papers.PAPERS)
        self.areas: list[dict[str, str]] = [
            {"id": area_id, "name": name} for area_id, name in data_taxonomy.AREAS
        ]
        self.tasks: dict[str, Task] = {task.id: task for task in data_taxonomy.TASKS}
        self.methods: dict[str, Method] = {method.id: method for method in data_taxonomy.METHODS}
        self.conferences = {conf.slug: conf for conf in data_taxonomy.CONFERENCES}
        self.organizations = {org.id: org for org in data_taxonomy.ORGANIZATIONS}
        self.frameworks: dict[str, tuple[Framework, str, str, str, str]] = {}
        for domain_slug, domain_name, categories in data_taxonomy.FRAMEWORK_TREE:
            for category_slug, category_name, frameworks in categories:
                for framework in frameworks:
                    self.frameworks[framework.id] = (
                        framework,
                        domain_slug,
                        domain_name,
                        category_slug,
                        category_name,
                    )
        self.datasets: dict[str, Dataset] = {ds.id: ds for ds in data_benchmarks.DATASETS}
        self.lineage_pairs: tuple[tuple[str, str], ...] = data_papers.LINEAGE
        self._markdown: dict[str, str] = {}
        self._reindex()
        self.evaluations: list[dict[str, Any]] = [
            self._evaluation_row(index, spec)
            for index, spec in enumerate(data_benchmarks.evaluation_specs(), start=1)
        ]
        for paper in self.papers:
            if paper.markdown:
                self._markdown[self.read_key(paper)] = self._render_markdown(paper)

    # -- indexes --------------------------------------------------------------------

    def _reindex(self) -> None:
        self._by_id = {paper.id: paper for paper in self.papers}
        self._by_arxiv = {
            paper.bare_arxiv_id.casefold(): paper for paper in self.papers if paper.bare_arxiv_id
        }

    def paper(self, reference: str) -> Paper | None:
        """A paper by numeric ID or arXiv ID (modern or legacy, any `vN` suffix)."""
        reference = reference.strip()
        if reference.isdigit():
            return self._by_id.get(reference)
        return self._by_arxiv.get(strip_version(reference).casefold())

    def paper_by_id(self, paper_id: str) -> Paper | None:
        return self._by_id.get(paper_id)

    @staticmethod
    def read_key(paper: Paper) -> str:
        """Where the read route stores a paper: its bare arXiv ID, else its numeric ID (§3.1)."""
        return paper.bare_arxiv_id or paper.id

    def paper_for_read_key(self, key: str) -> Paper | None:
        """The paper the read route knows under `key`; numeric keys only for external papers."""
        key = key.strip()
        if key.isdigit():
            paper = self._by_id.get(key)
            return paper if paper is not None and paper.bare_arxiv_id is None else None
        return self._by_arxiv.get(strip_version(key).casefold())

    # -- stored Markdown --------------------------------------------------------------

    def _render_markdown(self, paper: Paper) -> str:
        if paper.bare_arxiv_id == BIG_MARKDOWN_ARXIV_ID:
            return big_document()
        return render_paper(
            paper.title,
            self.author_names(paper),
            paper.abstract,
            paper.points,
            extra=paper.markdown_extra,
        )

    def markdown(self, reference: str) -> str | None:
        """The stored Markdown of a paper (by read key, arXiv ID or numeric ID), or None."""
        with self._lock:
            paper = self.paper(reference)
            if paper is None:
                return None
            return self._markdown.get(self.read_key(paper))

    def markdown_for_read_key(self, key: str) -> tuple[Paper | None, str | None]:
        with self._lock:
            paper = self.paper_for_read_key(key)
            if paper is None:
                return None, None
            return paper, self._markdown.get(self.read_key(paper))

    def set_markdown(self, reference: str, text: str) -> None:
        """Replace (or add) a paper's stored Markdown; its content version changes with it."""
        with self._lock:
            paper = self.paper(reference)
            if paper is None:
                raise KeyError(f"no fixture paper {reference!r}")
            self._markdown[self.read_key(paper)] = text

    def set_title(self, reference: str, title: str) -> None:
        """Give a paper another title (say, one full of LaTeX specials), for one test."""
        with self._lock:
            paper = self.paper(reference)
            if paper is None:
                raise KeyError(f"no fixture paper {reference!r}")
            self.papers[self.papers.index(paper)] = dataclasses.replace(paper, title=title)
            self._reindex()

    def remove_markdown(self, reference: str) -> None:
        """Forget a paper's stored Markdown, so reads answer 404 "Paper Markdown was not found"."""
        with self._lock:
            paper = self.paper(reference)
            if paper is None:
                raise KeyError(f"no fixture paper {reference!r}")
            self._markdown.pop(self.read_key(paper), None)

    # -- filler papers ------------------------------------------------------------------

    def add_filler_papers(self, count: int) -> list[Paper]:
        """Add `count` old, low-ranked papers whose titles all contain FILLER_TITLE_WORDS.

        They make a keyword search run past many 100-row pages (the title resolver's
        10-page budget, catalog-api.md §4.4) without changing what the other
        listings show first: they are old, never trending, and cite nothing.
        """
        with self._lock:
            start = 500_000 + len(self.papers)
            added = [
                Paper(
                    id=str(start + index),
                    arxiv_id=None,
                    title=f"{FILLER_TITLE_WORDS}, Part {index + 1}",
                    authors=("Filler Author",),
                    published="2012-01-01",
                    abstract="A filler paper of the fake catalog.",
                    points=("Filler.",),
                    source="external",
                    added="2012-01-01",
                    markdown=False,
                )
                for index in range(count)
            ]
            self.papers.extend(added)
            self.authors.setdefault("Filler Author", Author("99999", "Filler Author"))
            self._reindex()
            return added

    # -- changes between two looks (tests/fake_catalog/changes.py) ----------------------

    def apply(self, change: Change) -> None:
        """Apply one `changes` change under the lock (lists are replaced, not edited)."""
        with self._lock:
            change.apply_to(self)

    def add_paper(self, paper: Paper) -> None:
        """Hold `paper` from now on; unknown author keys get the next generated IDs."""
        if paper.id in self._by_id:
            raise KeyError(f"the fake already holds paper {paper.id}")
        authors = dict(self.authors)
        next_id = 1 + max(int(author.id) for author in authors.values())
        for key in paper.authors:
            if key not in authors:
                authors[key] = Author(str(next_id), key)
                next_id += 1
        self.authors = authors
        self.papers = [*self.papers, paper]
        self._reindex()
        if paper.markdown:
            self._markdown[self.read_key(paper)] = self._render_markdown(paper)

    def add_evaluation(self, spec: dict[str, Any]) -> None:
        """A new evaluation row (an `_ev` spec); rows at or below its rank in its task move down."""
        rank, board = spec["best_rank"], (spec["dataset_id"], spec["task_id"])
        moved = []
        for row in self.evaluations:
            ranked = isinstance(row["best_rank"], int) and rank is not None
            if ranked and (row["dataset_id"], row["task_id"]) == board and row["best_rank"] >= rank:
                row = {**row, "best_rank": row["best_rank"] + 1}
            moved.append(row)
        index = 1 + max(int(row["id"]) for row in moved)
        self.evaluations = [*moved, self._evaluation_row(index, spec)]

    def add_lineage(self, before: str, after: str) -> None:
        """`after` becomes a successor of `before` (both catalog IDs of held papers)."""
        for paper_id in (before, after):
            if paper_id not in self._by_id:
                raise KeyError(f"no fixture paper {paper_id!r}")
        self.lineage_pairs = (*self.lineage_pairs, (before, after))

    # -- shapes -------------------------------------------------------------------------

    def author_names(self, paper: Paper) -> list[str]:
        return [self.authors[key].name for key in paper.authors]

    def paper_author_ids(self, paper: Paper) -> set[str]:
        return {self.authors[key].id for key in paper.authors}

    def paper_row(self, paper: Paper, *, with_methods: bool = False) -> dict[str, Any]:
        """The paper row of §2.0 (search results, listings, related, task papers)."""
        if paper.url_abs:
            url_abs = paper.url_abs
        elif paper.arxiv_id:
            url_abs = f"https://arxiv.org/abs/{paper.arxiv_id}"
        else:
            url_abs = None
        row: dict[str, Any] = {
            "id": paper.id,
            "arxiv_id": paper.arxiv_id,
            "route_identifier": paper.route_identifier,
            "slug": paper.slug,
            "title": paper.title,
            "authors": self.author_names(paper),
            "published": paper.published,
            "date_published": paper.published,
            "citation_count": paper.citation_count,
            "has_official_implementation": paper.has_official_implementation,
            "code_repository_count": max(len(paper.repositories), paper.citation_count // 400),
            "url_abs": url_abs,
            "source_url": f"{SITE}/paper/{paper.route_identifier}",
        }
        if with_methods:
            row["methods"] = self._refs(self.methods[m] for m in paper.methods)
        return row

    def paper_detail(self, paper: Paper, *, include_resources: bool) -> dict[str, Any]:
        """The paper detail of §2.0: the row plus abstract, links, taxonomy and lineage."""
        detail = self.paper_row(paper)
        url_abs = detail["url_abs"]
        conference = self.conferences.get(paper.conference or "")
        detail.update(
            {
                "abstract": paper.abstract,
                "url_pdf": url_abs.replace("/abs/", "/pdf/") + ".pdf"
                if url_abs and "arxiv.org/abs/" in url_abs
                else None,
                "organizations": self._refs(self.organizations[o] for o in paper.organizations),
                "conference_name": conference.name if conference else None,
                "conference": conference.slug if conference else None,
                "tasks": self._refs(self.tasks[t] for t in paper.tasks),
                "methods": self._refs(self.methods[m] for m in paper.methods),
                "predecessor_papers": [
                    self._lineage_link(p) for p in self.lineage(paper, predecessors=True)
                ],
                "successor_papers": [
                    self._lineage_link(p) for p in self.lineage(paper, predecessors=False)
                ],
                "source": paper.source,
            }
        )
        if include_resources:
            # Resources are only populated on request (inferred, §2.0).
            detail.update(
                {
                    "repositories": [
                        {"url": url, "is_official": official}
                        for url, official in paper.repositories
                    ],
                    "project_pages": [
                        {"url": url, "is_official": True} for url in paper.project_pages
                    ],
                    "hf_models": list(paper.hf_models),
                    "hf_datasets": list(paper.hf_datasets),
                    "hf_spaces": list(paper.hf_spaces),
                }
            )
        return detail

    @staticmethod
    def _refs(items: Iterable[Any]) -> list[dict[str, Any]]:
        return [{"id": item.id, "name": item.name, "slug": item.slug} for item in items]

    @staticmethod
    def _lineage_link(paper: Paper) -> dict[str, Any]:
        return {
            "title": paper.title,
            "route_identifier": paper.route_identifier,
            "published": paper.published,
        }

    def lineage(self, paper: Paper, *, predecessors: bool) -> list[Paper]:
        pairs = self.lineage_pairs
        if predecessors:
            ids = [before for before, after in pairs if after == paper.id]
        else:
            ids = [after for before, after in pairs if before == paper.id]
        return [self._by_id[paper_id] for paper_id in ids if paper_id in self._by_id]

    # -- taxonomy helpers -----------------------------------------------------------------

    def task_level(self, task: Task) -> int:
        level, current = 0, task
        while current.parent_id is not None:
            level += 1
            current = self.tasks[current.parent_id]
        return level

    def task_descendants(self, task_id: str) -> list[str]:
        found: list[str] = []
        frontier = [task_id]
        while frontier:
            current = frontier.pop(0)
            children = [t.id for t in self.tasks.values() if t.parent_id == current]
            found.extend(children)
            frontier.extend(children)
        return found

    def papers_with_task(self, task_id: str) -> list[Paper]:
        return [paper for paper in self.papers if task_id in paper.tasks]

    def evaluations_for_dataset(self, dataset_id: str) -> list[dict[str, Any]]:
        return [row for row in self.evaluations if row["dataset_id"] == dataset_id]

    def task_row(self, task: Task) -> dict[str, Any]:
        """A task row of §2.15 with counts computed from papers and evaluations."""
        return {
            "id": task.id,
            "slug": task.slug,
            "name": task.name,
            "area_id": task.area_id,
            "level": self.task_level(task),
            "paper_count": len(self.papers_with_task(task.id)),
            "benchmark_count": sum(1 for ds in self.datasets.values() if task.id in ds.task_ids),
            "evaluation_count": sum(1 for row in self.evaluations if row["task_id"] == task.id),
            "created_at": task.created_at,
        }

    def method_row(self, method: Method, *, detail: bool = False) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": method.id,
            "slug": method.slug,
            "name": method.name,
            "full_name": method.full_name,
            "area_id": method.area_id,
            "introduced_year": method.introduced_year,
            "paper_count": sum(1 for paper in self.papers if method.id in paper.methods),
            "created_at": method.created_at,
        }
        if detail:
            source = self._by_id.get(method.source_paper_id or "")
            row.update(
                {
                    "description": method.description,
                    "source_paper_id": source.id if source else None,
                    "source_url": f"/paper/{source.route_identifier}" if source else None,
                    "source_title": source.title if source else None,
                }
            )
        return row

    def dataset_row(self, dataset: Dataset) -> dict[str, Any]:
        evaluations = self.evaluations_for_dataset(dataset.id)
        return {
            "id": dataset.id,
            "name": dataset.name,
            "slug": dataset.slug,
            "full_name": dataset.full_name,
            "description": dataset.description,
            "hf_url": dataset.hf_url,
            "paper_count": len(evaluations),
            "evaluation_count": len(evaluations),
            "created_at": dataset.created_at,
        }

    def _evaluation_row(self, index: int, spec: dict[str, Any]) -> dict[str, Any]:
        paper = self._by_id[spec["paper_id"]]
        task = self.tasks[spec["task_id"]]
        dataset = self.datasets[spec["dataset_id"]]
        row = {
            "id": str(index),
            "paper_id": paper.id,
            "paper_title": paper.title,
            "paper_arxiv_id": paper.bare_arxiv_id,
            "paper_published_date": paper.published,
            "task_id": task.id,
            "task_name": task.name,
            "task_slug": task.slug,
            "dataset_id": dataset.id,
            "dataset_name": dataset.name,
            **{key: spec[key] for key in ("model_name", "harness", "metrics", "best_metric")},
            "best_rank": spec["best_rank"],
            "num_parameters": spec["num_parameters"],
            "is_open": spec["is_open"],
            "methodology": spec["methodology"],
            "split": spec["split"],
            "uses_additional_data": spec["uses_additional_data"],
            # Site-relative on purpose: clients prefix the site (§2.0).
            "source_url": f"/paper/{paper.route_identifier}#results",
            "result_url": f"https://example.test/results/{index}" if index % 3 == 0 else None,
            "code_url": paper.repositories[0][0] if paper.repositories else None,
            "hf_model_url": paper.hf_models[0] if paper.hf_models else None,
            "updated_at": "2026-10-01T12:00:00Z",
        }
        return row

    def framework_item(self, framework_id: str) -> dict[str, Any]:
        framework = self.frameworks[framework_id][0]
        return {
            "id": framework.id,
            "slug": framework.slug,
            "name": framework.name,
            "description": framework.description,
            "platforms": list(framework.platforms),
            "paper_count": sum(1 for paper in self.papers if framework.id in paper.frameworks),
            "when_to_use": framework.when_to_use,
            "github_url": framework.github_url,
            "docs_url": framework.docs_url,
            "introducing_paper_arxiv_id": framework.introducing_paper_arxiv_id,
            "organization_name": framework.organization_name,
        }
