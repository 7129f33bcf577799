"""Leaderboards with dated rows over years, for the state of the art through time.

Not part of the default fixture set (every other answer stays as it was): a test,
the benchmark or `python -m tests.fake_catalog --history` adds them with
`fake.apply(HistoryBoards())`. Three benchmarks, their papers and rows:

* **Vision History** (id 901, Accuracy, higher is better), dated 2012-2022: two
  papers on one day (2014-09-04: the better one is the step), a later tie (71.5 in
  2015 is no step), a paper without a date (99.0, left out), a row with only
  Top-5 Accuracy (no value for Accuracy), a regression (74.0 in 2018), a closed model
  (is_open false) and a result with extra training data (84.5 in 2021).
* **Speech History** (id 902, Word Error Rate (WER), lower is better), 2013-2022,
  with a tie and one day with two results.
* **History Big** (id 903, Accuracy): `big_rows` generated rows (2,000 by default)
  over 400 papers dated 2010-2026, for the speed figures.
* **Settings Mix** (id 904, Accuracy), 2018-2021: results that differ in the settings
  the catalog records (issue 37): the largest group, no extra data on the test split,
  is Old 65.0 (2018), Base 70.0 (2019), Later 72.0 (2021); one result each with extra
  data (Extra-L 78.0), on the val split (ValNet 76.0), 5-shot (Shot5 74.0), 0-shot
  (Shot0 71.0, the same paper) and under the timm protocol (TimmNet 73.0). Its two
  "Mixed Results" papers of 2019 share a citation key.

Steps of Vision History by date: 60.0 (2012), 71.5 (2014-09-04, +11.5), 75.0
(2016, +3.5), 80.25 (2019, +5.25), 84.5 (2021, +4.25); with `extra_data=false` the
last is 82.0 (2022, +1.75) instead. Speech History: 12.0, 9.5 (-2.5), 6.0 (-3.5),
2.1 (-3.9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .data_benchmarks import Dataset, _ev
from .data_papers import Paper

if TYPE_CHECKING:
    from .fixtures import Catalog

VISION, SPEECH, BIG, MIX = "901", "902", "903", "904"
BIG_PAPERS = 400
DEFAULT_BIG_ROWS = 2_000

DATASETS = (
    Dataset(VISION, "vision-history", "Vision History", "Vision History",
            "Image classification results over a decade.", ("10",)),
    Dataset(SPEECH, "speech-history", "Speech History", "Speech History",
            "Speech recognition results over a decade.", ("260",)),
    Dataset(BIG, "history-big", "History Big", "History Big",
            "A large generated leaderboard.", ("10",)),
    Dataset(MIX, "settings-mix", "Settings Mix", "Settings Mix",
            "Results under different settings.", ("10",)),
)  # fmt: skip


def _paper(paper_id: str, arxiv_id: str | None, title: str, published: str) -> Paper:
    return Paper(
        id=paper_id,
        arxiv_id=arxiv_id,
        title=title,
        authors=("History Author",),
        published=published,
        abstract="A paper of the fake catalog's dated leaderboards.",
        points=("Dated result.",),
        tasks=("10",),
        markdown=False,
    )


# (paper id, arXiv ID, title, date); "" is a paper without a date.
PAPERS = tuple(
    _paper(*row)
    for row in (
        ("96001", "1206.99001", "Early Convolutional Networks", "2012-06-01"),
        ("96002", "1409.99002", "Deeper Networks A", "2014-09-04"),
        ("96003", "1409.99003", "Deeper Networks B", "2014-09-04"),
        ("96004", "1512.99004", "Residual Tie", "2015-12-10"),
        ("96005", "1605.99005", "Wide Networks", "2016-05-01"),
        ("96006", None, "Undated Marvel", ""),
        ("96007", "1703.99007", "Top-5 Only", "2017-03-01"),
        ("96008", "1901.99008", "Efficient Scaling", "2019-01-01"),
        ("96009", "1807.99009", "A Regression", "2018-07-01"),
        ("96010", "2111.99010", "Big Data Pretraining", "2021-11-11"),
        ("96011", "2202.99011", "Open Small Models", "2022-02-02"),
        ("96012", "2001.99012", "A Weak Later Model", "2020-01-01"),
        ("96013", "1303.99013", "Speech Baseline", "2013-03-01"),
        ("96014", "1506.99014", "Speech Attention", "2015-06-01"),
        ("96015", "1709.99015", "Speech Tie", "2017-09-01"),
        ("96016", "1804.99016", "Speech Transformers", "2018-04-01"),
        ("96017", "2005.99017", "Speech Regression", "2020-05-01"),
        ("96018", "2203.99018", "Speech Foundation", "2022-03-01"),
        ("96030", "1801.99030", "Mixed Old Results", "2018-01-10"),
        ("96031", "1901.99031", "Mixed Results for the Baseline", "2019-01-10"),
        ("96032", "1905.99032", "Mixed Results with Extra Data", "2019-05-01"),
        ("96033", "1906.99033", "Validation Split Study", "2019-06-01"),
        ("96034", "2001.99034", "Few Shot Study", "2020-01-01"),
        ("96035", "2003.99035", "Timm Reproduction", "2020-03-01"),
        ("96036", "2101.99036", "Later & Better: 100% Tested_Models", "2021-01-01"),
    )
)

ACC, WER = "Accuracy", "Word Error Rate (WER)"

# (paper, dataset, model, metrics, keywords for `_ev`)
_ROWS: tuple[tuple[str, str, str, dict[str, Any], dict[str, Any]], ...] = (
    ("96001", VISION, "ConvNet-8", {ACC: 60.0}, {}),
    ("96002", VISION, "Deep-A", {ACC: 70.0}, {}),
    ("96002", VISION, "Deep-A small", {ACC: 65.0}, {}),
    ("96003", VISION, "Deep-B", {ACC: 71.5}, {}),
    ("96004", VISION, "ResTie", {ACC: 71.5}, {}),
    ("96005", VISION, "Wide-28", {ACC: 75.0}, {}),
    ("96006", VISION, "Marvel", {ACC: 99.0}, {}),
    ("96007", VISION, "Top5Net", {"Top-5 Accuracy": 90.0}, {}),
    ("96008", VISION, "EffNet-B7", {ACC: 80.25}, {"is_open": False}),
    ("96009", VISION, "Regress-1", {ACC: 74.0}, {}),
    ("96010", VISION, "BigPre-L", {ACC: 84.5}, {"uses_additional_data": True}),
    ("96011", VISION, "OpenSmall", {ACC: 82.0}, {}),
    ("96012", VISION, "Weak-2020", {ACC: 68.0}, {}),
    ("96013", SPEECH, "HMM-DNN", {WER: 12.0}, {}),
    ("96014", SPEECH, "LAS", {WER: 9.5}, {}),
    ("96014", SPEECH, "LAS small", {WER: 10.1}, {}),
    ("96015", SPEECH, "TieNet", {WER: 9.5}, {}),
    ("96016", SPEECH, "Speech-Transformer", {WER: 6.0}, {}),
    ("96017", SPEECH, "Regress-WER", {WER: 6.3}, {}),
    ("96018", SPEECH, "Foundation-ASR", {WER: 2.1}, {}),
    ("96005", SPEECH, "Wide-ASR", {WER: 11.0}, {}),
    ("96030", MIX, "Old", {ACC: 65.0}, {}),
    ("96031", MIX, "Base", {ACC: 70.0}, {}),
    ("96032", MIX, "Extra-L", {ACC: 78.0}, {"uses_additional_data": True}),
    ("96033", MIX, "ValNet", {ACC: 76.0}, {"split": "val"}),
    ("96034", MIX, "Shot5", {ACC: 74.0}, {"methodology": "5-shot"}),
    ("96034", MIX, "Shot0", {ACC: 71.0}, {"methodology": "0-shot"}),
    ("96035", MIX, "TimmNet", {ACC: 73.0}, {"harness": "timm"}),
    ("96036", MIX, "Later_Net #2", {ACC: 72.0, "Top-5 Accuracy": 91.5}, {}),
)


# Real paper titles run to 70 characters and more; so do these (the text/JSON ratio).
_TOPICS = (
    "Scaling Convolutional Networks with Better Data",
    "Training Vision Models Efficiently at Scale",
    "Regularisation Strategies for Deep Image Classifiers",
    "Self-Supervised Pretraining for Visual Recognition",
)


def _big_papers() -> list[Paper]:
    """`BIG_PAPERS` papers, dated every 15 days or so from 2010 to 2026 (no arXiv IDs)."""
    papers = []
    for index in range(BIG_PAPERS):
        title = f"Generated Study {index + 1}: {_TOPICS[index % len(_TOPICS)]}"
        year = 2010 + index * 16 // BIG_PAPERS
        month = 1 + (index * 7) % 12
        day = 1 + (index * 11) % 28
        papers.append(
            _paper(str(97000 + index), None, title, f"{year}-{month:02d}-{day:02d}")
        )  # fmt: skip
    return papers


def _big_rows(count: int) -> list[tuple[str, str, str, dict[str, Any], dict[str, Any]]]:
    """`count` rows on History Big: accuracy rising with the paper's index, plus noise."""
    rows = []
    state = 12345
    for index in range(count):
        state = (state * 1103515245 + 12345) % 2**31  # a fixed LCG: the same rows each time
        paper = index % BIG_PAPERS
        value = round(40 + 50 * paper / BIG_PAPERS + (state % 1000) / 100 - 5, 2)
        rows.append((str(97000 + paper), BIG, f"GenNet-{index + 1:04d}", {ACC: value}, {}))
    return rows


def _ranked(specs: list[dict[str, Any]], metric: str, lower: bool) -> list[dict[str, Any]]:
    """Rank a board's specs by `metric` (rows without it last, unranked)."""

    def value(spec: dict[str, Any]) -> float | None:
        found = spec["metrics"].get(metric)
        return float(found) if isinstance(found, int | float) else None

    scored = sorted(
        (spec for spec in specs if value(spec) is not None),
        key=lambda spec: value(spec) if lower else -(value(spec) or 0.0),
    )
    ranked = [{**spec, "best_rank": rank} for rank, spec in enumerate(scored, start=1)]
    return ranked + [spec for spec in specs if value(spec) is None]


@dataclass(frozen=True)
class HistoryBoards:
    """The change that adds the three dated leaderboards (see the module docstring)."""

    big_rows: int = DEFAULT_BIG_ROWS

    def apply_to(self, catalog: Catalog) -> None:
        if VISION in catalog.datasets:
            return  # applied already
        catalog.datasets = {**catalog.datasets, **{ds.id: ds for ds in DATASETS}}
        for paper in [*PAPERS, *_big_papers()]:
            catalog.add_paper(paper)
        task = {VISION: "10", SPEECH: "260", BIG: "10", MIX: "10"}
        boards: dict[str, list[dict[str, Any]]] = {VISION: [], SPEECH: [], BIG: [], MIX: []}
        for paper_id, dataset, model, metrics, extra in [*_ROWS, *_big_rows(self.big_rows)]:
            spec = _ev(paper_id, task[dataset], dataset, model, dict(metrics), None, **extra)
            boards[dataset].append(spec)
        specs = [
            *_ranked(boards[VISION], ACC, lower=False),
            *_ranked(boards[SPEECH], WER, lower=True),
            *_ranked(boards[BIG], ACC, lower=False),
            *_ranked(boards[MIX], ACC, lower=False),
        ]
        start = 1 + max(int(row["id"]) for row in catalog.evaluations)
        added = [catalog._evaluation_row(start + n, spec) for n, spec in enumerate(specs)]
        catalog.evaluations = [*catalog.evaluations, *added]
