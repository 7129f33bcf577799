"""What a tool result teaches the completion vocabulary (`pwc_local.server.named`)."""

from __future__ import annotations

from typing import Any

from pwc_local.present.hosted import PaperPage, QueryResult, TaskResult
from pwc_local.server import named
from pwc_local.store.vocabulary import BENCHMARK, PAPER, TASK, Name


class Recorder:
    """Stands in for `Vocabulary`: what was noted, by kind."""

    def __init__(self) -> None:
        self.noted: dict[str, list[Name]] = {}

    def note(self, kind: str, names: list[Name]) -> None:
        self.noted.setdefault(kind, []).extend(names)


def _paper(paper_id: str, arxiv_id: str | None, title: str) -> dict[str, Any]:
    return {
        "id": paper_id,
        "arxiv_id": arxiv_id,
        "title": title,
        "authors": [],
        "has_official_implementation": False,
        "code_repository_count": 0,
    }


def test_a_page_of_papers_teaches_each_by_its_uri_key_and_title() -> None:
    page = PaperPage.model_validate(
        {
            "items": [
                _paper("755", "1706.03762", " Attention  Is\n\x1b]0;x\x07All "),
                _paper("9", None, "X"),
            ]
        }
    )
    recorder = Recorder()
    named.learn(recorder, page)  # type: ignore[arg-type]
    attention, other = recorder.noted.pop(PAPER)
    assert recorder.noted == {} and other == Name("X", "9")
    # The title goes through the one sanitiser: one printable line, spacing folded.
    assert attention.ident == "1706.03762"
    assert attention.label.startswith("Attention Is ") and attention.label.endswith(" All")
    assert attention.label.isprintable() and "  " not in attention.label


def test_a_task_teaches_itself_its_relatives_and_its_benchmarks() -> None:
    reference = {"id": "21", "name": "Fine-Grained", "slug": "fine-grained"}
    benchmark = {"id": "72", "name": "ImageNet-1k", "slug": None, "paper_count": 1}
    task = TaskResult.model_validate(
        {
            "task": {
                "id": "10",
                "name": "Image Classification",
                "slug": "image-classification",
                "paper_count": 1,
                "parents": [],
                "children": [reference],
                "benchmarks": [benchmark],
            }
        }
    )
    recorder = Recorder()
    named.learn(recorder, task)  # type: ignore[arg-type]
    assert recorder.noted == {
        TASK: [
            Name("Image Classification", "image-classification"),
            Name("Fine-Grained", "fine-grained"),
        ],
        BENCHMARK: [Name("ImageNet-1k", "72")],  # no slug: the ID names it
    }


def test_other_results_teach_nothing_and_nothing_fails_a_call() -> None:
    recorder = Recorder()
    named.learn(recorder, QueryResult(data={"title": "not a paper"}))  # type: ignore[arg-type]
    named.learn(None, PaperPage(items=[]))
    broken = PaperPage.model_construct(items=[object()])  # a shape no projection makes
    named.learn(recorder, broken)  # type: ignore[arg-type]
    assert recorder.noted == {}
