"""Changes a test makes to the fake catalog's data between two looks (the watch list).

A watch-list test looks at the catalog, changes it, and looks again. Each change
here is one thing the catalog can gain, built from the same fixture records the
tables use (`Paper`, evaluation specs), so the routes serve it exactly as they serve
the fixture data:

    fake.apply(NewResult("72", paper="2432", model="ViT-G/14",
                         metrics={"Top-1 Accuracy": 90.1}, rank=1))   # a new ImageNet leader
    fake.apply(NewPaper(NEW_PAPER))     # or any `Paper(...)` the fake does not hold
    fake.apply(NewVersion("1706.03762", "# Attention, revised\\n"))   # a new content version
    fake.apply(NewSuccessor(before="755", after="91100"))             # lineage grows

A new paper shows in its tasks' paper listings, in `papers/?author=` for each of its
authors and in `papers/search`; a new result in the benchmark's leaderboard (the
rows at or below its rank move down one within its task), in `evaluations/` and in
the paper's evaluations. `FakeCatalog.apply` applies a change under the catalog's
lock, replacing lists rather than editing them, so a request in flight sees the data
before or after, never half of it. Changes last until `reset()` or the end of the
fixture's fake (each `fake_catalog` fixture is a new one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .data_benchmarks import _ev
from .data_papers import Paper

if TYPE_CHECKING:
    from .fixtures import Catalog


# A paper the fake does not hold, ready to add: in Image Classification (task 10), by
# Kaiming He and a newcomer, matching "vision transformer", newer than every fixture.
NEW_PAPER = Paper(
    id="91100",
    arxiv_id="2610.04321",
    title="Giant Vision Transformer Networks",
    authors=("Kaiming He", "Watch Newcomer"),
    published="2026-10-30",
    abstract="A vision transformer paper that appears between two looks.",
    points=("Added by a test.",),
    tasks=("10",),
)


class Change(Protocol):
    """One change of the catalog's data; `Catalog.apply` calls it under the lock."""

    def apply_to(self, catalog: Catalog) -> None: ...


@dataclass(frozen=True)
class NewResult:
    """A new evaluation row on benchmark `dataset_id` (task: the benchmark's first).

    `rank` is its `best_rank` in the task (rows ranked at or below it move down one),
    `None` for an unranked row.
    """

    dataset_id: str
    paper: str
    model: str
    metrics: dict[str, Any]
    rank: int | None = 1
    task_id: str | None = None
    num_parameters: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # any other `_ev` keyword

    def apply_to(self, catalog: Catalog) -> None:
        dataset = catalog.datasets[self.dataset_id]
        task_id = self.task_id or dataset.task_ids[0]
        spec = _ev(
            self.paper,
            task_id,
            self.dataset_id,
            self.model,
            dict(self.metrics),
            self.rank,
            num_parameters=self.num_parameters,
            **self.extra,
        )
        catalog.add_evaluation(spec)


@dataclass(frozen=True)
class NewPaper:
    """A paper the catalog did not hold; its author keys follow `data_papers.PAPERS`."""

    paper: Paper

    def apply_to(self, catalog: Catalog) -> None:
        catalog.add_paper(self.paper)


@dataclass(frozen=True)
class NewVersion:
    """The paper's stored Markdown replaced by `text`: a new content version."""

    reference: str
    text: str

    def apply_to(self, catalog: Catalog) -> None:
        catalog.set_markdown(self.reference, self.text)


@dataclass(frozen=True)
class NewSuccessor:
    """Lineage gains `before -> after` (catalog IDs of papers the fake holds)."""

    before: str
    after: str

    def apply_to(self, catalog: Catalog) -> None:
        catalog.add_lineage(self.before, self.after)
