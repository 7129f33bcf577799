"""Leaderboards through time and results to cite (local additions; see `bindings`)."""

from __future__ import annotations

from typing import Any

from pwc_local.present import claims as shown_claims
from pwc_local.present import history
from pwc_local.present import results as shown_results
from pwc_local.present.render import of_model
from pwc_local.queries import claims, results_table
from pwc_local.queries import history as history_queries
from pwc_local.server import links
from pwc_local.server.bindings import ToolSpec, bind, group_tools


def _history_links(model: Any) -> list[links.PaperLink]:
    return [links.PaperLink(key, title) for key, title in history.linked(model)]


TOOLS: tuple[ToolSpec, ...] = (
    bind(
        "sota_history",
        query=history_queries.state_of_the_art,
        needs=("catalog", "progress"),
        output=history.SotaResult,
        project=history.project,
        text=(of_model(history.text),),
        links=_history_links,
        viewed=True,
    ),
    bind(
        "who_beat_paper",
        query=history_queries.beaten,
        needs=("catalog", "progress"),
        output=history.BeatenResult,
        project=history.project,
        text=(of_model(history.text),),
        links=_history_links,
    ),
    bind(
        "results_table",
        query=results_table.results_table,
        needs=("catalog", "progress"),
        output=shown_results.ResultsTableResult,
        project=shown_results.table_model,
        text=(of_model(shown_results.table_text),),
        viewed=True,
        view_data=lambda _, answer: shown_results.view_rows(answer),  # whatever the format
    ),
    bind(
        "check_claim",
        query=claims.check_claim,
        needs=("catalog", "progress"),
        output=shown_claims.ClaimResult,
        project=shown_claims.claim_model,
        text=(of_model(shown_claims.claim_text),),
    ),
)

BY_NAME = group_tools("history", TOOLS)
