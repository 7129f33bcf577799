"""Papers: searches and listings, one paper's facts, its evaluations and its lineage.

Each builder takes the hosted projection (`hosted.py`: the catalog's odd values already
made safe), the query's answer and the call's arguments, and returns the record both
halves are shown from; each `*_text` spells that record.

| tools                                           | record            |
| ----------------------------------------------- | ----------------- |
| search_papers, list_papers, list_recent_papers, | `PaperList`       |
| list_trending_papers, get_related_papers        |                   |
| get_paper_info                                  | `PaperFacts`      |
| get_paper_evaluations                           | `PaperEvaluations`|
| get_paper_lineage                               | `Lineage`         |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pwc_local.present import benchmarks
from pwc_local.present.hosted import (
    EvaluationPage,
    PaperInfoResult,
    PaperLineageResult,
    PaperPage,
    PaperReference,
)
from pwc_local.present.record import (
    Record,
    Shown,
    Table,
    by_name,
    counted,
    markdown_table,
    next_page_line,
    paragraphs,
    table_of,
)
from pwc_local.present.words import AUTHORS_LISTED, AUTHORS_SHOWN, clean, plural

ABSTRACT_CHARS = 3000  # an abstract is the point of get_paper_info: whole, within reason
PAPER_COLUMNS = ("paper", "title", "authors", "published", "citations", "repos", "official_code")
LINEAGE_NOTE = "Only links the catalog records explicitly are listed."


def paper_key(arxiv_id: str | None, paper_id: str | None) -> str:
    """The one reference a paper is shown by: its arXiv ID, else its catalog ID."""
    return arxiv_id or paper_id or ""


def total_of(payload: Any) -> int | None:
    """A listing's total from the catalog's `count`, when it gives one."""
    count = payload.get("count") if isinstance(payload, Mapping) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def authors_cell(authors: Sequence[str], shown: int = AUTHORS_SHOWN) -> str:
    """`A, B, C et al.`: the first `shown` authors."""
    cell = ", ".join(clean(name, 80) for name in authors[:shown])
    return cell + (" et al." if len(authors) > shown else "")


def links_of(available_at: Sequence[Any]) -> dict[str, str] | None:
    """`available_at` links as label -> URL (papers outside the catalog)."""
    return {link.label: link.url for link in available_at} or None


def links_line(links: Mapping[str, str] | None) -> str | None:
    if not links:
        return None
    return "Available at: " + " · ".join(
        f"{clean(label, 80)} {clean(url, 500)}" for label, url in links.items()
    )


# -- listings ------------------------------------------------------------------------------


class PaperList(Record):
    page: int | None = None
    next_page: int | None = None
    total: int | None = None
    papers: Table | None = None
    note: str | None = None
    available_at: dict[str, str] | None = None


def paper_list(model: PaperPage, _answer: Any, arguments: Mapping[str, Any]) -> PaperList:
    rows = [
        [
            paper_key(p.arxiv_id, p.id),
            p.title,
            authors_cell(p.authors) or None,
            p.published,
            p.citation_count,
            p.code_repository_count,
            True if p.has_official_implementation else None,
        ]
        for p in model.items
    ]
    return PaperList(
        page=arguments.get("page"),
        next_page=model.next_page,
        total=total_of(model.data),  # the catalog's page document, as the hosted `data`
        papers=table_of(PAPER_COLUMNS, rows),
        note=model.note,
        available_at=links_of(model.available_at),
    )


def paper_list_text(record: PaperList, shown: Shown) -> str:
    page = f" (page {record.page})" if record.page else ""
    blocks: list[str | None] = []
    if record.papers:
        head = f"{counted(len(record.papers.rows), record.total, 'paper')}{page}:"
        blocks.append(
            head + "\n" + markdown_table(record.papers, {"official_code": "official code"})
        )
    else:
        blocks.append(
            f"No papers{page}." if record.total is None else f"No papers{page} of {record.total:,}."
        )
    blocks += [clean(record.note, 1000) if record.note else None, links_line(record.available_at)]
    blocks.append(next_page_line(record, shown))
    return paragraphs(blocks)


# -- one paper -----------------------------------------------------------------------------


class PaperFacts(Record):
    paper: str
    title: str
    published: str | None = None
    citations: int | None = None
    code_repositories: int | None = None
    authors: list[str] | None = None
    more_authors: int | None = None
    abstract: str | None = None
    tasks: dict[str, str] | None = None
    methods: dict[str, str] | None = None
    links: dict[str, list[str]] | None = None  # official code, other code, PDF, ...
    evaluation_count: int | None = None
    evaluations: Table | None = None
    in_catalog: bool | None = None
    note: str | None = None
    available_at: dict[str, str] | None = None


def _links(groups: Mapping[str, Sequence[str]]) -> dict[str, list[str]] | None:
    """The paper's links by kind, the kinds it has none of left out."""
    return {kind: list(urls) for kind, urls in groups.items() if urls} or None


def paper_facts(model: PaperInfoResult, _answer: Any, _arguments: Any) -> PaperFacts:
    paper = model.paper
    repos = paper.repositories
    return PaperFacts(
        paper=paper_key(paper.arxiv_id, paper.id),
        title=paper.title,
        published=paper.published,
        citations=paper.citation_count,
        code_repositories=paper.code_repository_count if model.in_catalog else None,
        authors=list(paper.authors[:AUTHORS_LISTED]) or None,
        more_authors=max(len(paper.authors) - AUTHORS_LISTED, 0) or None,
        abstract=clean(paper.abstract, ABSTRACT_CHARS) if paper.abstract else None,
        tasks=by_name(paper.tasks),
        methods=by_name(paper.methods),
        links=_links(
            {
                "official code": [r.url for r in repos if r.is_official],
                "other code": [r.url for r in repos if not r.is_official],
                "project pages": paper.project_pages,
                "Hugging Face models": paper.hf_models,
                "Hugging Face datasets": paper.hf_datasets,
                "Hugging Face spaces": paper.hf_spaces,
                "PDF": [paper.pdf_url] if paper.pdf_url else [],
            }
        ),
        evaluation_count=model.evaluation_count,
        evaluations=benchmarks.leaderboard(model.evaluations or [], with_paper=False),
        in_catalog=None if model.in_catalog else False,
        note=model.note,
        available_at=links_of(model.available_at),
    )


def paper_facts_text(record: PaperFacts, _shown: Shown) -> str:
    facts = [clean(record.paper, 100), clean(record.published, 40) if record.published else ""]
    if record.citations is not None:
        facts.append(plural(record.citations, "citation"))
    if record.code_repositories is not None:
        facts.append(plural(record.code_repositories, "code repository", "code repositories"))
    lines = [f"## {clean(record.title)}", " · ".join(fact for fact in facts if fact)]
    if record.authors:
        more = f" and {record.more_authors} more" if record.more_authors else ""
        lines.append("Authors: " + ", ".join(clean(a, 80) for a in record.authors) + more)
    if record.abstract:
        lines.append("Abstract: " + record.abstract)
    for label, named in (("Tasks", record.tasks), ("Methods", record.methods)):
        if named:
            lines.append(
                f"{label}: " + ", ".join(f"{clean(n)} ({clean(s, 100)})" for n, s in named.items())
            )
    for label, urls in (record.links or {}).items():
        lines.append(f"{label[0].upper()}{label[1:]}: " + " · ".join(clean(u, 500) for u in urls))
    if record.in_catalog is False:
        lines.append("Not in the Papers With Code catalog.")
    blocks: list[str | None] = ["\n".join(lines)]
    blocks.append(clean(record.note, 1000) if record.note else None)
    blocks.append(links_line(record.available_at))
    if record.evaluations:
        count = record.evaluation_count or len(record.evaluations.rows)
        blocks.append(
            f"{plural(count, 'evaluation')}:\n"
            + benchmarks.leaderboard_markdown(record.evaluations)
        )
    return paragraphs(blocks)


# -- evaluations ---------------------------------------------------------------------------


class PaperEvaluations(Record):
    page: int
    next_page: int | None = None
    total: int
    paper: str
    title: str | None = None
    evaluations: Table | None = None


def paper_evaluations(model: EvaluationPage, _answer: Any, _arguments: Any) -> PaperEvaluations:
    first = model.evaluations[0] if model.evaluations else None
    return PaperEvaluations(
        page=model.page,
        next_page=model.next_page,
        total=model.evaluation_count,
        paper=paper_key(first.paper_arxiv_id, first.paper_id) if first else model.paper,
        title=first.paper_title if first else None,
        evaluations=benchmarks.leaderboard(model.evaluations, with_paper=False),
    )


def paper_evaluations_text(record: PaperEvaluations, shown: Shown) -> str:
    title = (
        f"{clean(record.title)} ({clean(record.paper, 100)})"
        if record.title
        else clean(record.paper, 200)
    )
    rows = len(record.evaluations.rows) if record.evaluations else 0
    head = f"Evaluations of {title}: {counted(rows, record.total, 'row')}, page {record.page}."
    blocks: list[str | None] = [head]
    if record.evaluations:
        blocks.append(benchmarks.leaderboard_markdown(record.evaluations))
    blocks.append(next_page_line(record, shown))
    return paragraphs(blocks)


# -- lineage -------------------------------------------------------------------------------


class Lineage(Record):
    paper: str
    title: str
    predecessors: Table | None = None
    successors: Table | None = None
    note: str = LINEAGE_NOTE


def _references(rows: Sequence[PaperReference]) -> Table | None:
    return table_of(("paper", "title"), [[row.reference or row.id, row.title] for row in rows])


def lineage(model: PaperLineageResult, _answer: Any, _arguments: Any) -> Lineage:
    return Lineage(
        paper=model.paper.reference or model.paper.id,
        title=model.paper.title,
        predecessors=_references(model.predecessors),
        successors=_references(model.successors),
    )


def lineage_text(record: Lineage, _shown: Shown) -> str:
    lines = [f"Lineage of {clean(record.title)} ({clean(record.paper, 100)}):"]
    for label, found in (("Predecessors", record.predecessors), ("Successors", record.successors)):
        if not found:
            lines.append(f"{label}: none recorded.")
            continue
        lines.append(f"{label}:")
        lines += [f"- {clean(title)} ({clean(key, 100)})" for key, title in found.rows]
    lines.append(record.note)
    return "\n".join(lines)
