"""`check_claim`: a claim about a paper's result, checked against the whole leaderboard.

The claim is structured, never parsed from prose, one of three:

* **sota**: the paper's result was the best comparable one, on the date `as_of`
  (today when not given): no other paper's result of the same settings
  (`result_settings`) dated by then is strictly better. A tie is still the best.
* **beats** OTHER: the paper's best result is strictly better than OTHER's, in
  settings they share (their largest shared group); no shared settings is
  `not_comparable`, naming the settings that differ.
* **value** V: the paper reports V on the metric: some result of the paper equals V
  to the decimals V is written with (84.52 reads as 84.5).

The verdict is `supported`, `contradicted`, `not_comparable` or `unknown` (the paper,
or the other paper, has no result on the metric, or none by `as_of`), with one
sentence of reason and the evidence rows: the paper's result, the best comparable
result with its paper and date, and a better result in other settings, naming
what differs. The leaderboard is read as the history tools read it
(`history.read_board`); papers are found among its rows by arXiv or catalog ID, in
any spelling, or by exact title (`results_table.find_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Literal

from pwc_local.queries.arguments import check_finite, parse_date
from pwc_local.queries.history import (
    Better,
    Progress,
    Result,
    best_first,
    metric_better,
    read_board,
    result_of,
    score_key,
)
from pwc_local.queries.result_settings import Setting, differences
from pwc_local.queries.results_table import find_rows
from pwc_local.upstream.errors import UsageError
from pwc_local.upstream.source import CatalogSource

__all__ = ["ClaimAnswer", "Evidence", "Verdict", "check_claim"]

Verdict = Literal["supported", "contradicted", "not_comparable", "unknown"]


@dataclass(frozen=True)
class Evidence:
    """One row of evidence. `role`: `paper` (the claimed paper's result), `best` (the
    best comparable result of another paper), `other` (the paper it claims to beat),
    `other settings` (a better result in settings that differ: `differ` names them)."""

    role: str
    result: Result
    differ: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ClaimAnswer:
    benchmark: str
    metric: str
    better: Better
    assumed: bool
    claim: str  # "sota", "beats OTHER" or "value V"
    as_of: date | None
    verdict: Verdict
    reason: str
    evidence: list[Evidence]


def _name(result: Result) -> str:
    paper = result.paper_title or result.paper_ref or "an unnamed paper"
    when = f", {result.date}" if result.date else ""
    return f"{result.model} ({paper}{when})"


def _value_text(value: float) -> str:
    return f"{value:g}"


def _same_value(reported: float, claimed: float) -> bool:
    """Whether `reported` is `claimed` to the decimals `claimed` is written with."""
    try:
        places = -min(Decimal(repr(claimed)).normalize().as_tuple().exponent, 0)  # type: ignore[operator]
    except (InvalidOperation, TypeError):
        places = 6
    return round(reported, int(places)) == round(claimed, int(places))


def _better(a: Result, b: Result, better: Better) -> bool:
    return score_key(a, better) > score_key(b, better)


@dataclass
class _Check:
    """One claim's inputs: the results with a value, the date, the direction."""

    results: list[Result]
    cutoff: date | None
    better: Better

    def in_time(self, result: Result) -> bool:
        """Dated by the date (undated results are left out, as the history tools do)."""
        if result.date is None:
            return False
        return self.cutoff is None or result.date <= self.cutoff

    def others_like(self, mine: Result) -> list[Result]:
        """Other papers' results in `mine`'s settings by the date, best first."""
        return best_first(
            (
                r
                for r in self.results
                if r.setting == mine.setting and r.paper_ref != mine.paper_ref and self.in_time(r)
            ),
            self.better,
        )

    def elsewhere(self, mine: Result) -> list[Evidence]:
        """The best result by the date in other settings, when it is better than `mine`."""
        found = best_first(
            (r for r in self.results if r.setting != mine.setting and self.in_time(r)),
            self.better,
        )
        if not found or not _better(found[0], mine, self.better):
            return []
        differ = differences(mine.setting or _NONE, found[0].setting or _NONE)
        return [Evidence("other settings", found[0], differ)]


_NONE = Setting(False, "", "", "")


def _sota(check: _Check, mine: list[Result], when: str) -> tuple[Verdict, str, list[Evidence]]:
    for result in best_first(mine, check.better):
        rivals = check.others_like(result)
        if not rivals or not _better(rivals[0], result, check.better):
            shown = [Evidence("paper", result)] + [Evidence("best", r) for r in rivals[:1]]
            tie = " (tied)" if rivals and rivals[0].value == result.value else ""
            reason = (
                f"{_name(result)} scores {_value_text(result.value)}{tie}, the best in its "
                f"settings ({_label(result)}) {when}"
            )
            return "supported", reason, shown + check.elsewhere(result)
    result = best_first(mine, check.better)[0]
    best = check.others_like(result)[0]
    reason = (
        f"{_name(best)} scores {_value_text(best.value)}, better than the paper's "
        f"{_value_text(result.value)} in the same settings ({_label(result)}), {when}"
    )
    return "contradicted", reason, [Evidence("paper", result), Evidence("best", best)]


def _label(result: Result) -> str:
    return (result.setting or _NONE).label


def _beats(
    check: _Check, mine: list[Result], theirs: list[Result], when: str
) -> tuple[Verdict, str, list[Evidence]]:
    shared = [s for s in dict.fromkeys(r.setting for r in mine) if s in {r.setting for r in theirs}]
    if not shared:
        a, b = best_first(mine, check.better)[0], best_first(theirs, check.better)[0]
        differ = differences(a.setting or _NONE, b.setting or _NONE)
        reason = f"no results in shared settings: the other paper's differ in {', '.join(differ)}"
        return "not_comparable", reason, [Evidence("paper", a), Evidence("other", b, differ)]
    size = {s: sum(1 for r in check.results if r.setting == s) for s in shared}
    setting = max(shared, key=lambda s: size[s])
    a = best_first((r for r in mine if r.setting == setting), check.better)[0]
    b = best_first((r for r in theirs if r.setting == setting), check.better)[0]
    evidence = [Evidence("paper", a), Evidence("other", b)]
    if _better(a, b, check.better):
        reason = f"{_value_text(a.value)} against {_value_text(b.value)} ({_label(a)}), {when}"
        return "supported", reason, evidence
    word = "ties" if a.value == b.value else "beats"
    reason = (
        f"{_name(b)} {word} it: {_value_text(b.value)} against {_value_text(a.value)} "
        f"({_label(a)}), {when}"
    )
    return "contradicted", reason, evidence


def _value(mine: list[Result], claimed: float) -> tuple[Verdict, str, list[Evidence]]:
    matching = [r for r in mine if _same_value(r.value, claimed)]
    if matching:
        return (
            "supported",
            f"{_name(matching[0])} reports {_value_text(matching[0].value)}",
            [Evidence("paper", matching[0])],
        )
    closest = sorted(mine, key=lambda r: abs(r.value - claimed))[:3]
    values = ", ".join(_value_text(r.value) for r in closest)
    reason = f"the paper reports {values}, not {_value_text(claimed)}"
    return "contradicted", reason, [Evidence("paper", r) for r in closest]


async def check_claim(
    catalog: CatalogSource,
    progress: Progress | None,
    benchmark: str,
    *,
    paper: str,
    beats: str,
    value: float | None,
    metric: str,
    as_of: str,
) -> ClaimAnswer:
    """Check the claim about `paper` on `benchmark` (see the module docstring): `beats`
    names another paper, `value` a score; neither: the paper was the state of the art."""
    other = beats.strip()
    if other and value is not None:
        raise UsageError("claim one thing: beats or value, not both")
    check_finite(value, "value")
    cutoff = parse_date("as_of", as_of)
    find_rows([], paper, "paper")  # a blank or unsupported reference fails before any request
    if other:
        find_rows([], other, "beats")
    board = await read_board(
        catalog, progress, benchmark, is_open=None, max_parameters=None, extra_data=None
    )
    actual, shown = board.metric(metric)
    better, assumed = metric_better(shown)
    claim = f"beats {other}" if other else ("sota" if value is None else f"value {value:g}")
    results = [r for row in board.merged if actual and (r := result_of(row, actual))]
    check = _Check(results, cutoff, better)
    when = f"as of {cutoff}" if cutoff else "today"

    def answer(verdict: Verdict, reason: str, evidence: list[Evidence]) -> ClaimAnswer:
        return ClaimAnswer(
            board.name, shown, better, assumed, claim, cutoff, verdict, reason, evidence
        )

    mine = find_rows(results, paper)
    if not mine:
        return answer("unknown", f"the paper has no {shown or 'metric'} result here", [])
    if value is not None:
        return answer(*_value(mine, value))
    timely = [r for r in mine if check.in_time(r)]
    if not timely:
        after = f"are all dated after {cutoff}" if cutoff else "have no date"
        return answer("unknown", f"the paper's results {after}", [])
    if not other:
        return answer(*_sota(check, timely, when))
    theirs = [r for r in find_rows(results, other) if check.in_time(r)]
    if not theirs:
        return answer("unknown", f"the other paper has no {shown} result here {when}", [])
    return answer(*_beats(check, timely, theirs, when))
