"""The three prompts (README, "Tools"): one user message each, argument quoted verbatim.

The argument is embedded as a JSON string literal, so quotes or newlines inside it
cannot break out of the sentence around it.
"""

from __future__ import annotations

import json
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field


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


def register_prompts(server: MCPServer) -> None:
    """Add find_papers, compare_leaderboard and survey_task to `server`."""
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
