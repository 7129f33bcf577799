"""Leaderboard logic: merging evaluation rows, reading metrics, selecting and sorting rows.

Everything here is pure: lists of catalog evaluation rows go in, new lists come out,
and nothing touches the network. Two commands share it:

* `paper evaluations` merges one page of a paper's rows with `merge_rows`;
* `benchmark --name` merges a leaderboard, then (when the caller asked for metric
  filters) resolves the requested metric names against the metrics the leaderboard
  really reports and keeps, orders and thins the rows with `select_rows`.

A catalog leaderboard stores one row per (paper, model, task) ranking, so the same
result often appears several times, once per task the benchmark belongs to. Merging
folds those copies into one row whose `rank_scopes` keep every task-scoped rank:

    >>> merged = merge_rows([
    ...     {"paper_id": "1", "model_name": "A", "metrics": {"Resolved": 55.5},
    ...      "task_id": "3", "best_rank": 1},
    ...     {"paper_id": "1", "model_name": "A", "metrics": {"Resolved": 55.5},
    ...      "task_id": "8", "best_rank": 4},
    ... ])
    >>> [(s["task_id"], s["rank"]) for s in merged[0]["rank_scopes"]]
    [('3', 1), ('8', 4)]

Bad options are `UsageError`s whose text names the MCP parameter to fix; a metric the
leaderboard does not report is an `UnknownMetric` listing the metrics it does report.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, TypeGuard

from pwc_local.upstream.errors import UnknownMetric, UsageError

__all__ = [
    "MAX_PARAMETER_SIZE",
    "Direction",
    "MetricRequest",
    "Objective",
    "SortOrder",
    "available_metrics",
    "merge_rows",
    "metric_direction",
    "metric_request",
    "metric_value",
    "parse_metric_bounds",
    "parse_parameter_size",
    "parse_pareto",
    "parse_sort",
    "resolve_metrics",
    "result_key",
    "row_split",
    "select_rows",
    "shot_count",
]

# 2^63 - 2: the catalog adds one to the inclusive limit (`max_parameters_exclusive`),
# and the result must still fit a signed 64-bit integer.
MAX_PARAMETER_SIZE = 2**63 - 2

# -- merging ---------------------------------------------------------------------------

# "5-shot", "0 shot", "5shot", "10 -shot": a number, optional blanks, an optional hyphen
# or space, then the word "shot". ASCII digits only, so "５-shot" is not a shot count.
_SHOTS = re.compile(r"\b([0-9]+)\s*[- ]?shot\b", re.IGNORECASE | re.ASCII)


def shot_count(methodology: Any) -> str:
    """The few-shot count written in an evaluation's methodology text, or `""`.

    >>> shot_count("Test split, 5-shot; Table 3")
    '5'
    >>> shot_count("zero-shot")
    ''
    """
    if not isinstance(methodology, str):
        return ""
    found = _SHOTS.search(methodology)
    return found.group(1) if found else ""


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def row_split(row: Mapping[str, Any]) -> str:
    """The row's split: the first non-empty of `split`, `split_name`, `evaluated_on`."""
    for key in ("split", "split_name", "evaluated_on"):
        value = row.get(key)
        if value:
            return str(value)
    return ""


def _group_key(row: Mapping[str, Any]) -> tuple[str, ...]:
    """Rows can only describe the same result when all of these agree."""
    return (
        _text(row.get("paper_id")),
        _text(row.get("dataset_id")),
        _text(row.get("model_name")),
        _text(row.get("harness")),
        row_split(row),
        shot_count(row.get("methodology")),
    )


def result_key(row: Mapping[str, Any]) -> str:
    """One text naming the result a (merged) row reports: the fields `merge_rows` groups by."""
    return "|".join(_group_key(row))


def _int_or_none(value: Any) -> int | None:
    """An integer rank as the catalog sends it; booleans and text are not ranks."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def _smaller_rank(first: Any, second: Any) -> int | None:
    ranks = [rank for rank in (_int_or_none(first), _int_or_none(second)) if rank is not None]
    return min(ranks) if ranks else None


def _parameter_count(value: Any) -> int | None:
    """A usable parameter count: a positive integer that is not a boolean."""
    count = _int_or_none(value)
    return count if count is not None and count > 0 else None


def _is_mapping(value: Any) -> TypeGuard[Mapping[Any, Any]]:
    # Parsed JSON gives dicts: their check is a type test, while the ABC's costs a
    # lookup; a whole leaderboard (thousands of rows) is checked several times a call.
    return isinstance(value, (dict, Mapping))  # dict first: the usual case, and cheap


def _metrics_of(row: Mapping[str, Any]) -> dict[str, Any]:
    metrics = row.get("metrics")
    return dict(metrics) if _is_mapping(metrics) else {}


def _scope(row: Mapping[str, Any]) -> dict[str, Any]:
    task_id = row.get("task_id")
    return {
        "task_id": None if task_id is None else str(task_id),
        "task_name": row.get("task_name"),
        "task_slug": row.get("task_slug"),
        "rank": _int_or_none(row.get("best_rank")),
    }


@dataclass
class _Merged:
    """One merged row under construction, plus what it needs to stay consistent."""

    row: dict[str, Any]
    counts: set[int | None] = field(default_factory=set)

    def conflicts_with(self, metrics: Mapping[str, Any]) -> bool:
        mine = self.row["metrics"]
        return any(name in mine and mine[name] != value for name, value in metrics.items())

    def join(self, row: Mapping[str, Any], metrics: Mapping[str, Any]) -> None:
        merged = self.row
        merged["metrics"].update(metrics)
        scope = _scope(row)
        for existing in merged["rank_scopes"]:
            if existing["task_id"] == scope["task_id"]:
                existing["rank"] = _smaller_rank(existing["rank"], scope["rank"])
                break
        else:
            merged["rank_scopes"].append(scope)
        merged["best_rank"] = _smaller_rank(merged.get("best_rank"), row.get("best_rank"))
        if not merged.get("best_metric") and row.get("best_metric"):
            merged["best_metric"] = row.get("best_metric")
        self.counts.add(_parameter_count(row.get("num_parameters")))


def merge_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fold evaluation rows that describe the same result into one row each.

    Rows belong together when they share paper, benchmark (`dataset_id`), model name,
    harness, split (first non-empty of `split`, `split_name`, `evaluated_on`) and shot
    count (from `methodology`). Within such a group a row joins the first merged row
    whose metrics it does not contradict (every shared metric has an equal value), else
    it starts a new one, so genuinely different results are never blended.

    A merged row is a copy of its first row with:

    * `metrics`: the union of the members' metrics;
    * `rank_scopes`: one `{task_id, task_name, task_slug, rank}` per distinct task,
      keeping the smaller integer rank when a task repeats;
    * `best_rank`: the smallest integer rank (`None` when no member has one);
    * `best_metric`: the first non-empty one among the members;
    * `num_parameters`: the members' count when they all agree (a count is a positive
      integer; anything else counts as unknown), otherwise `None`.

    The result is ordered by integer `best_rank` (rows without one last), then model
    name case-insensitively, then `paper_id`. The input rows are not modified.
    """
    groups: dict[tuple[str, ...], list[_Merged]] = {}
    order: list[_Merged] = []
    for row in rows:
        metrics = _metrics_of(row)
        candidates = groups.setdefault(_group_key(row), [])
        target = next((merged for merged in candidates if not merged.conflicts_with(metrics)), None)
        if target is not None:
            target.join(row, metrics)
            continue
        fresh = _Merged(row={**row, "metrics": metrics, "rank_scopes": [_scope(row)]})
        fresh.counts.add(_parameter_count(row.get("num_parameters")))
        candidates.append(fresh)
        order.append(fresh)

    result = []
    for merged in order:
        # One shared value survives (including "all unknown"); disagreement means unknown.
        merged.row["num_parameters"] = (
            next(iter(merged.counts)) if len(merged.counts) == 1 else None
        )
        result.append(merged.row)
    result.sort(key=_merged_order)
    return result


def _merged_order(row: Mapping[str, Any]) -> tuple[int, int, str, str]:
    rank = _int_or_none(row.get("best_rank"))
    return (
        0 if rank is not None else 1,
        rank if rank is not None else 0,
        _text(row.get("model_name")).casefold(),
        _text(row.get("paper_id")),
    )


# -- metric values ---------------------------------------------------------------------


def _number(value: Any) -> float | None:
    """A metric value as a float: numbers as they are, numeric text after clean-up."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # a JSON integer with hundreds of digits
            return None
    elif isinstance(value, str):
        text = value.strip().replace(",", "")
        if text.endswith("%"):
            text = text[:-1]
        try:
            number = float(text)
        except ValueError:
            return None
    else:
        return None
    # NaN and infinities compare in surprising ways; they are not usable scores.
    return number if math.isfinite(number) else None


def metric_value(row: Mapping[str, Any], name: str) -> float | None:
    """The numeric value a row reports for metric `name` (case-insensitive), or `None`.

    Text values are trimmed and lose thousands separators and a trailing `%`, so
    `"58"`, `"1,234"` and `"91.2%"` read as 58.0, 1234.0 and 91.2. Booleans,
    non-numeric text and non-finite numbers are not values.
    """
    metrics = row.get("metrics")
    if not _is_mapping(metrics):
        return None
    wanted = name.casefold()
    for key, value in metrics.items():
        if isinstance(key, str) and key.casefold() == wanted:
            return _number(value)
    return None


def available_metrics(rows: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Every metric name across `rows`: case-folded name -> first spelling seen."""
    names: dict[str, str] = {}
    for row in rows:
        metrics = row.get("metrics")
        if not _is_mapping(metrics):
            continue
        for key in metrics:
            if isinstance(key, str):
                names.setdefault(key.casefold(), key)
    return names


# -- metric direction -----------------------------------------------------------------

Direction = Literal["higher", "lower", "unknown"]

_WORDS = re.compile(r"[a-z0-9]+")
_LOWER_IS_BETTER = frozenset(
    {"error", "loss", "perplexity", "latency", "runtime", "wer", "cer", "eer", "fid", "mae", "rmse"}
)
_HIGHER_IS_BETTER = frozenset(
    {"accuracy", "precision", "recall", "f1", "bleu", "rouge", "map", "auc", "score", "em"}
)


def metric_direction(name: str) -> Direction:
    """Whether a larger value of the metric is better, judged from the words of its name.

    `get_benchmark` shows it beside each metric; the state-of-the-art series steps by it.
    """
    words = set(_WORDS.findall(name.lower()))
    if words & _LOWER_IS_BETTER:
        return "lower"
    if words & _HIGHER_IS_BETTER:
        return "higher"
    return "unknown"


# -- metric name matching --------------------------------------------------------------

# Names that mean the same measurement on different leaderboards. Each group is tried in
# the order written, so the most common spelling comes first. The catalog's own alias
# table is not published (spec gap); these cover the documented pairs (AP/mAP,
# top1/Accuracy, AUROC/AUC, Pass@1/Pass Rate, Overall/GenEval Score) and the spellings
# the catalog's leaderboards use for them.
_ALIAS_GROUPS: tuple[tuple[str, ...], ...] = (
    ("map", "ap"),
    ("top-1 accuracy", "top1", "top-1", "top 1", "top1 accuracy", "top 1 accuracy", "accuracy"),
    ("auroc", "auc", "roc auc", "roc-auc", "auc-roc"),
    ("pass@1", "pass rate"),
    ("geneval score", "overall"),
)


def _aliases(name: str) -> list[str]:
    """The other names of `name` (case-folded), in their group's order."""
    for group in _ALIAS_GROUPS:
        if name in group:
            return [alias for alias in group if alias != name]
    return []


def _resolve_one(requested: str, available: Mapping[str, str]) -> str | None:
    """The case-folded available metric that serves `requested`, or `None`.

    Exact (case-insensitive) match first, then a known alias, then the ONE available
    metric whose name contains the request, or is contained in it (`Normalized Score`
    serves `D4RL Normalized Score`), then the one related to an alias in that way. The
    request's own relations come before its aliases' because short aliases relate to
    much more (`ap` is inside `ap50`, `ap75` and `box map`; `map` only inside the
    last). Several hits at one step are ambiguous and resolve to nothing.
    """
    if requested in available:
        return requested
    spelled = [name for name in available if _loose(name) == _loose(requested)]
    if len(spelled) == 1:  # `Top-5 Accuracy` for `Top 5 Accuracy`: only the spelling differs
        return spelled[0]
    aliases = _aliases(requested)
    for alias in aliases:
        if alias in available:
            return alias
    for probes in ([requested], aliases):
        related = {n for n in available for probe in probes if probe in n or n in probe}
        if related:
            return related.pop() if len(related) == 1 else None
    return None


def _closest(unknown: Mapping[str, str], available: Mapping[str, str]) -> str:
    """` (did you mean X?)` for the available metric closest to an unknown one, if any."""
    import difflib

    for key in unknown:
        close = difflib.get_close_matches(key, list(available), n=1, cutoff=0.75)
        if close:
            return f" (did you mean {available[close[0]]}?)"
    return ""


def _loose(name: str) -> str:
    """A metric name without its spacing and punctuation: `top5accuracy`."""
    return "".join(char for char in name if char.isalnum())


def resolve_metrics(requested: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Map each requested metric name to the leaderboard metric that serves it.

    Keys are the requested names case-folded; values are the case-folded names of the
    leaderboard's metrics (usable with `metric_value`). Raises `UnknownMetric` naming
    every request that nothing serves, with the metrics the rows really report.
    """
    available = available_metrics(rows)
    resolved: dict[str, str] = {}
    unknown: dict[str, str] = {}
    for name in requested:
        key = name.strip().casefold()
        if key in resolved or key in unknown:
            continue
        match = _resolve_one(key, available)
        if match is None:
            unknown[key] = name.strip()
        else:
            resolved[key] = match
    if unknown:
        real = sorted(available.values(), key=str.casefold)
        raise UnknownMetric(
            f"unknown metric(s): {', '.join(unknown.values())}{_closest(unknown, available)}; "
            f"available metrics: {', '.join(real) if real else 'none'}"
        )
    return resolved


# -- option parsing --------------------------------------------------------------------

_SIZE = re.compile(
    r"(?P<integer>[0-9]+(?:_[0-9]+)*)(?P<fraction>\.[0-9]+)?(?P<suffix>[mb])?",
    re.IGNORECASE | re.ASCII,
)
_SIZE_SCALE = {"": 1, "m": 10**6, "b": 10**9}
_SIZE_HELP = "max_parameters must be a positive size such as 500M, 1.5B or 3000000000"


def parse_parameter_size(text: str) -> int:
    """Read a model-size limit: `500M`, `1.5B`, `3_000_000_000`, `7b`.

    Digits (single underscores allowed between them), an optional decimal part, and an
    optional case-insensitive `M` (millions) or `B` (billions). A decimal needs a suffix
    and must come out whole; the result must lie in 1..2^63-2. Surrounding blanks are
    ignored. Anything else (`0`, `-1`, `1.5`, `3K`, `_3B`, `3_B`, `1__000`,
    `3B parameters`) raises `UsageError`.

    >>> parse_parameter_size("1.5B")
    1500000000
    """
    found = _SIZE.fullmatch(text.strip()) if isinstance(text, str) else None
    if found is None or (found["fraction"] and not found["suffix"]):
        raise UsageError(_SIZE_HELP)
    scale = _SIZE_SCALE[(found["suffix"] or "").lower()]
    amount = Decimal(found["integer"].replace("_", "") + (found["fraction"] or "")) * scale
    if amount != amount.to_integral_value():
        raise UsageError(f"{_SIZE_HELP}; it must come out as a whole number of parameters")
    size = int(amount)
    if size < 1:
        raise UsageError(_SIZE_HELP)
    if size > MAX_PARAMETER_SIZE:
        raise UsageError(f"max_parameters must be at most {MAX_PARAMETER_SIZE}")
    return size


@dataclass(frozen=True)
class SortOrder:
    """Sort the leaderboard by `metric`, highest first unless `descending` is false."""

    metric: str
    descending: bool = True


@dataclass(frozen=True)
class Objective:
    """One Pareto objective: `metric` should be high (`higher`) or low."""

    metric: str
    higher: bool


_SORT_HELP = (
    'sort_metric must be METRIC, METRIC:asc or METRIC:desc (for example "mAP" or "FPS:asc")'
)
_PARETO_HELP = (
    'each pareto objective must be METRIC:higher or METRIC:lower (for example "mAP:higher")'
)


def parse_sort(text: str) -> SortOrder:
    """Read `METRIC`, `METRIC:asc` or `METRIC:desc` (direction case-insensitive).

    The text after the last colon is the direction, so a metric whose name contains a
    colon needs an explicit one (`"F1:val:desc"`).
    """
    metric, colon, direction = text.rpartition(":")
    if not colon:
        metric, direction = text, "desc"
    direction = direction.strip().casefold()
    metric = metric.strip()
    if not metric or direction not in ("asc", "desc"):
        raise UsageError(_SORT_HELP)
    return SortOrder(metric=metric, descending=direction == "desc")


def parse_pareto(items: Sequence[str]) -> tuple[Objective, ...]:
    """Read Pareto objectives, each `METRIC:higher` or `METRIC:lower`.

    Items are taken one objective each (no comma splitting), so metric names that
    contain commas work. That there are at least two is the input schema's check.
    """
    objectives = []
    for item in items:
        metric, colon, direction = item.rpartition(":")
        direction = direction.strip().casefold()
        metric = metric.strip()
        if not colon or not metric or direction not in ("higher", "lower"):
            raise UsageError(_PARETO_HELP)
        objectives.append(Objective(metric=metric, higher=direction == "higher"))
    return tuple(objectives)


def parse_metric_bounds(bounds: Mapping[str, Any] | None, parameter: str) -> dict[str, float]:
    """Check a `minimum_metrics` / `maximum_metrics` object: metric name -> finite number.

    The schema has checked that it is an object of numbers; names must not be blank,
    and `NaN` or an infinity (which JSON parsers accept) is no threshold.
    """
    if bounds is None:
        return {}
    parsed: dict[str, float] = {}
    for name, value in bounds.items():
        if not isinstance(name, str) or not name.strip():
            raise UsageError(f"{parameter} keys must be metric names")
        number = None if isinstance(value, bool | str) else _number(value)
        if number is None:
            raise UsageError(
                f"{parameter} values must be finite numbers (got one for {name.strip()!r})"
            )
        parsed[name.strip()] = number
    return parsed


def _require_names(names: Sequence[str] | None) -> tuple[str, ...]:
    """The trimmed metric names (the schema has checked it is a non-empty list of text)."""
    cleaned = [name.strip() for name in names or ()]
    if any(not name for name in cleaned):
        raise UsageError("require_metrics entries must be non-empty metric names")
    return tuple(cleaned)


@dataclass(frozen=True)
class MetricRequest:
    """The metric options of a leaderboard request, parsed and checked.

    Build it with `metric_request(...)`; a falsy request means "no metric options".
    """

    require: tuple[str, ...] = ()
    minimum: Mapping[str, float] = field(default_factory=dict)
    maximum: Mapping[str, float] = field(default_factory=dict)
    sort: SortOrder | None = None
    pareto: tuple[Objective, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.require or self.minimum or self.maximum or self.sort or self.pareto)

    def names(self) -> list[str]:
        """Every metric name mentioned by any option, first spelling kept, no repeats."""
        seen: dict[str, str] = {}
        mentioned = [
            *self.require,
            *self.minimum,
            *self.maximum,
            *([self.sort.metric] if self.sort else []),
            *(objective.metric for objective in self.pareto),
        ]
        for name in mentioned:
            seen.setdefault(name.casefold(), name)
        return list(seen.values())


def metric_request(
    *,
    require_metrics: Sequence[str] | None = None,
    minimum_metrics: Mapping[str, Any] | None = None,
    maximum_metrics: Mapping[str, Any] | None = None,
    sort_metric: str | None = None,
    pareto: Sequence[str] | None = None,
) -> MetricRequest:
    """Parse the five metric options of `get_benchmark`; `UsageError` on bad values."""
    return MetricRequest(
        require=_require_names(require_metrics),
        minimum=parse_metric_bounds(minimum_metrics, "minimum_metrics"),
        maximum=parse_metric_bounds(maximum_metrics, "maximum_metrics"),
        sort=None if sort_metric is None else parse_sort(sort_metric),
        pareto=() if pareto is None else parse_pareto(pareto),
    )


# -- selection -------------------------------------------------------------------------


def _dominates(other: tuple[float, ...], row: tuple[float, ...]) -> bool:
    """`other` is at least as good everywhere and better somewhere (values pre-oriented)."""
    return other != row and all(a >= b for a, b in zip(other, row, strict=True))


def _pareto_front(
    rows: list[dict[str, Any]], points: list[tuple[float, ...]]
) -> list[dict[str, Any]]:
    """Keep the rows no other row dominates; exact duplicates both survive."""
    return [
        row
        for row, point in zip(rows, points, strict=True)
        if not any(_dominates(other, point) for other in points)
    ]


def select_rows(rows: list[dict[str, Any]], request: MetricRequest) -> list[dict[str, Any]]:
    """Apply metric options to merged leaderboard rows and return the rows to show.

    1. Every metric named anywhere in `request` is resolved against the rows' metrics
       (exact, alias, unique containment); an unresolvable name raises `UnknownMetric`.
    2. Rows keep only if they have a numeric value for every named metric and meet
       every minimum (value >= bound) and maximum (value <= bound).
    3. With Pareto objectives, rows dominated by another kept row are dropped.
    4. Rows are sorted stably by `request.sort` (highest first unless ascending), or
       else by the first Pareto objective in its preferred direction; without either,
       the merged order stays.

    An empty request returns the rows unchanged.
    """
    if not request:
        return list(rows)
    names = request.names()
    resolved = resolve_metrics(names, rows)

    def actual(name: str) -> str:
        return resolved[name.strip().casefold()]

    kept: list[dict[str, Any]] = []
    for row in rows:
        found = {name.casefold(): metric_value(row, actual(name)) for name in names}
        values = {name: value for name, value in found.items() if value is not None}
        if len(values) < len(found):
            continue
        if any(values[name.casefold()] < bound for name, bound in request.minimum.items()):
            continue
        if any(values[name.casefold()] > bound for name, bound in request.maximum.items()):
            continue
        kept.append(row)

    if request.pareto:
        points = [
            tuple(
                _oriented(row, actual(objective.metric), objective.higher)
                for objective in request.pareto
            )
            for row in kept
        ]
        kept = _pareto_front(kept, points)

    if request.sort is not None:
        order = request.sort
        kept.sort(key=lambda row: _value(row, actual(order.metric)), reverse=order.descending)
    elif request.pareto:
        first = request.pareto[0]
        kept.sort(key=lambda row: _value(row, actual(first.metric)), reverse=first.higher)
    return kept


def _value(row: Mapping[str, Any], name: str) -> float:
    # Only called on rows already known to carry a value for `name`.
    value = metric_value(row, name)
    return value if value is not None else -math.inf


def _oriented(row: Mapping[str, Any], name: str, higher: bool) -> float:
    value = _value(row, name)
    return value if higher else -value
