"""End to end: every message a way forward (issue 28, "Messages").

The installed `pwc-mcp-local`, spawned over stdio with the SDK client, against the
loopback fake; one server per module, the fake reset before every test. Each test
provokes one message a newcomer met and checks it says what happened and what to do:
a misspelt benchmark or task gets the closest real names, a failed catalog request
says why, blank references are invalid arguments, a page past the end says how many
pages there are, and sections are found, outlined and cut in words a model can act on.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fake_catalog import BIG_MARKDOWN_ARXIV_ID
from tests.installed import LiveSession, module_session, rows

pytestmark = pytest.mark.e2e

BIG = BIG_MARKDOWN_ARXIV_ID


class Session(LiveSession):
    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = self.call(name, **arguments)
        assert not result.is_error, result.content[0].text
        assert result.structured_content is not None
        return {**result.structured_content, "_text": result.content[0].text}


session, fresh_fake = module_session(Session, "messages", PWC_MCP_LOCAL_TIMEOUT="5")


# -- not_found gives the closest names ---------------------------------------------------


def _searches(session: Session, path: str) -> int:
    return sum(1 for request in session.fake.requests if request.path == path)


@pytest.mark.parametrize(
    ("tool", "argument", "typed", "suggested"),
    [
        ("get_benchmark", "benchmark", "imagnet", "ImageNet-1k"),
        ("get_benchmark", "benchmark", "ImageNet-1k v2", "ImageNet-1k"),
        ("get_task", "task", "image classifcation", "Image Classification"),
    ],
)
def test_a_misspelt_name_gets_the_closest_real_ones(
    session: Session, tool: str, argument: str, typed: str, suggested: str
) -> None:
    message = session.error(tool, **{argument: typed})
    label = "Benchmark" if tool == "get_benchmark" else "Task"
    assert message.startswith(f"not_found: {label} not found: {typed}; closest results: ")
    assert suggested in message.split("closest results: ", 1)[1].split(", ")
    # Bounded: the lookup's own search and at most one more.
    assert _searches(session, "datasets/" if label == "Benchmark" else "tasks/") <= 2


def test_a_name_the_catalog_search_cannot_find_comes_from_the_known_names(
    session: Session,
) -> None:
    session.ok("get_benchmark", benchmark="CIFAR-10", limit=1)  # now a known name
    message = session.error("get_benchmark", benchmark="cfar10")
    assert message == "not_found: Benchmark not found: cfar10; closest results: CIFAR-10"
    assert _searches(session, "datasets/") <= 3  # the success's one, then at most two


# -- a failed catalog request says why -----------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ("server_error", "answered HTTP 500"),
        ("invalid_json", "is not JSON"),
        ("oversized", "over 2 MiB"),
    ],
)
def test_a_failed_catalog_request_says_what_happened_and_what_to_do(
    session: Session, fault: str, says: str
) -> None:
    getattr(session.fake.faults, fault)(prefix="papers/search")
    message = session.error("search_papers", query=f"messages {fault}", mode="keyword")
    assert message.startswith("upstream_error: the Papers With Code catalog")
    assert says in message
    assert "retry" in message or "ask for less" in message
    # The catalog asked may be named (its API base), the request never: it holds the query.
    assert "papers/search" not in message and f"messages {fault}" not in message


# -- blank references ----------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["get_paper_info", "read_paper", "get_paper_outline"])
def test_a_blank_paper_is_an_invalid_argument_like_an_empty_one(
    session: Session, tool: str
) -> None:
    empty = session.error(tool, paper="")
    blank = session.error(tool, paper="   ")
    assert empty.startswith("invalid_argument: paper ")
    assert blank.startswith("invalid_argument: paper ")


# -- paging past the end -------------------------------------------------------------------


def test_a_page_past_the_end_says_how_many_pages_there_are(session: Session) -> None:
    session.ok("save_papers", papers=["1706.03762"])
    page = session.ok("list_library", page=50)
    assert page["results"] == [] and page["count"] >= 1
    assert page["pages"] == 1
    assert "page 50 is past the end" in page["_text"].lower()
    assert "1 page" in page["_text"]


# -- sections ------------------------------------------------------------------------------


def test_a_heading_is_found_by_the_words_it_starts_with(session: Session) -> None:
    part = session.ok("read_paper_section", paper=BIG, section="Appendix C", max_bytes=1024)
    assert part["section"]["id"] == "s1.1"
    assert part["markdown"].startswith("## Appendix C: Per-language samples")


DEEP_PAPER = "2006.16236"


def test_the_default_outline_is_compact_and_says_how_to_get_the_rest(session: Session) -> None:
    document = "# Deep paper\n\n" + "".join(
        f"## Part {a}\n\nText.\n\n"
        + "".join(
            f"### Part {a}.{b}\n\nText.\n\n"
            + "".join(f"#### Part {a}.{b}.{c}\n\nText.\n\n" for c in range(1, 6))
            for b in range(1, 9)
        )
        for a in range(1, 9)
    )
    session.fake.set_markdown(DEEP_PAPER, document)
    compact = session.ok("get_paper_outline", paper=DEEP_PAPER)
    full = session.ok("get_paper_outline", paper=DEEP_PAPER, depth=6)
    assert len(rows(full["sections"])) == 1 + 8 + 64 + 320
    assert len(rows(compact["sections"])) == 1 + 8 + 64  # the title, parts and their subsections
    assert len(compact["_text"]) < len(full["_text"]) / 3
    assert "320 deeper sections left out" in compact["note"]
    assert "depth=3" in compact["note"]
    assert compact["note"] in compact["_text"]
    assert "note" not in full


def test_a_cut_section_says_what_was_cut_and_how_to_read_on(session: Session) -> None:
    result = session.call("read_paper_section", paper=BIG, section="s1.1", max_bytes=4096)
    text = result.content[0].text
    part = result.structured_content or {}
    assert part["truncated"]
    assert "bytes into the paper" not in text
    tail = text.rsplit("\n\n", 1)[1]
    assert "of the section's" in tail  # how much of it was shown
    assert f"cursor={part['next_cursor']}" in tail
    assert "'End of appendix ✅'" in tail  # where the section ends, as read_paper reads on
