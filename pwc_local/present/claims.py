"""What `check_claim` sends: the verdict, its reason and the evidence rows, and their text.

`claim_model(answer)` is the `structuredContent`; `claim_text(model)` says the same
verdict and reason above the same rows as a Markdown table. Catalog text goes through
the one sanitiser (`words.clean`, `table`).
"""

from __future__ import annotations

from typing import Any

from pwc_local.present.hosted import ToolOutput, _Strict
from pwc_local.present.words import clean, metric, table
from pwc_local.queries.claims import ClaimAnswer, Evidence


class Claim(_Strict):
    benchmark: str
    metric: str  # with its direction: "Accuracy (higher is better)"
    claim: str  # "sota", "beats OTHER" or "value V"
    as_of: str | None = None


class Row(_Strict):
    role: str  # paper, best, other, other settings
    date: str | None = None
    model: str
    paper: str | None = None
    ref: str | None = None
    score: float
    settings: str
    differ: list[str] | None = None  # the settings that differ from the paper's


class ClaimResult(ToolOutput):
    """`check_claim`: the verdict, one sentence of reason, the evidence rows."""

    verdict: str  # supported, contradicted, not_comparable or unknown
    reason: str
    claim: Claim
    rows: list[Row]


def _row(evidence: Evidence) -> Row:
    result = evidence.result
    return Row(
        role=evidence.role,
        date=result.date.isoformat() if result.date else None,
        model=result.model,
        paper=result.paper_title,
        ref=result.paper_ref,
        score=result.value,
        settings=result.setting.label if result.setting else "",
        differ=evidence.differ or None,
    )


def claim_model(answer: ClaimAnswer, _arguments: Any = None) -> ClaimResult:
    better = "assumed higher" if answer.assumed else answer.better
    return ClaimResult(
        verdict=answer.verdict,
        reason=answer.reason,
        claim=Claim(
            benchmark=answer.benchmark,
            metric=f"{answer.metric} ({better} is better)" if answer.metric else "",
            claim=answer.claim,
            as_of=answer.as_of.isoformat() if answer.as_of else None,
        ),
        rows=[_row(item) for item in answer.evidence],
    )


def claim_text(model: ClaimResult) -> str:
    """`**supported**: reason.`, what was claimed, and the evidence table."""
    claim = model.claim
    when = f" as of {claim.as_of}" if claim.as_of else ""
    head = (
        f"**{model.verdict}**: {clean(model.reason, None)}.\n"
        f"Claim: {clean(claim.claim)} on {clean(claim.benchmark)}, "
        f"{clean(claim.metric) or 'no metric'}{when}."
    )
    if not model.rows:
        return head
    rows = [
        (
            row.role,
            row.date or "",
            row.model,
            f"{row.paper} ({row.ref})" if row.paper and row.ref else row.paper or row.ref,
            metric(row.score),
            row.settings + (f" (differs: {', '.join(row.differ)})" if row.differ else ""),
        )
        for row in model.rows
    ]
    return head + "\n\n" + table(("role", "date", "model", "paper", "score", "settings"), rows)
