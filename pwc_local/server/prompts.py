"""The prompts (README, "Tools"): one user message each, argument quoted verbatim.

The hosted server's three (`find_papers`, `compare_leaderboard`, `survey_task`), and
the local `whats_new_digest`, listed when the `whats_new` tool is (not with
`tools = "hosted"`). An argument is embedded as a JSON string literal, so quotes or
newlines inside it cannot break out of the sentence around it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

# A prompt listed only when the `tools` setting serves the tool it calls: its name and
# contract group (the early answers, `server/early.py`, filter the listing the same way).
PROMPT_GATES: dict[str, tuple[str, str]] = {"whats_new_digest": ("whats_new", "watch")}


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def find_papers(topic: Annotated[str, Field(description="research topic")]) -> str:
    return (
        f"Find papers on the topic {_quoted(topic)}. Use search_papers (mode semantic for "
        "conceptual queries, keyword for exact terminology), take a closer look at the "
        "strongest hits with get_paper_info, and cite every paper by its canonical URL."
    )


def compare_leaderboard(
    benchmark: Annotated[str, Field(description="benchmark name, slug or ID")],
) -> str:
    return (
        f"Inspect the leaderboard of the benchmark {_quoted(benchmark)} with get_benchmark. "
        "For each metric state whether higher or lower is better (metric_directions) and "
        "under which evaluation settings the rows were measured (split, shots, "
        "evaluation_protocol, harness). Do not compare ranks across different task scopes "
        "(rank_scopes)."
    )


def survey_task(task: Annotated[str, Field(description="task name, slug or ID")]) -> str:
    return (
        f"Survey the research task {_quoted(task)}. First pin down its exact task slug "
        "(list_tasks with search, then get_task), then look at the benchmarks with the widest "
        "coverage with get_benchmark, and end with a summary of typical papers and methods."
    )


def whats_new_digest() -> str:
    return (
        "Call whats_new (again with cursor=next_cursor while it gives one) and write a "
        "short digest of what changed, grouped by watch: a "
        "heading per watch with changes (its name and kind), then one line per change "
        "(model, metric and value, rank or the leader it replaced; the paper's title). "
        "Link each paper: https://arxiv.org/abs/ARXIV_ID when it has an arXiv ID, else "
        "https://paperswithcode.co/paper/ID. End with one line naming the watches with "
        "nothing new, and one per reason a watch was not checked."
    )


def register_prompts(server: MCPServer, select: Callable[[str, str], bool]) -> None:
    """Add find_papers, compare_leaderboard, survey_task and (when `select` serves the
    whats_new tool: the `tools` setting) whats_new_digest to `server`."""
    server.prompt(
        name="find_papers",
        title="Find papers",
        description="Find papers on a topic and cite them by canonical URL.",
    )(find_papers)
    server.prompt(
        name="compare_leaderboard",
        title="Compare a leaderboard",
        description="Inspect a benchmark leaderboard: metric directions, settings, rank scopes.",
    )(compare_leaderboard)
    server.prompt(
        name="survey_task",
        title="Survey a research task",
        description="Survey a task: its slug, its widest benchmarks, typical papers and methods.",
    )(survey_task)
    if select(*PROMPT_GATES["whats_new_digest"]):
        server.prompt(
            name="whats_new_digest",
            title="What's new on my watch list",
            description="A short digest of what changed on each watch, with links.",
        )(whats_new_digest)
