"""Results to cite (issue 37), in-process: `results_table` and `check_claim`.

The queries run as a tools/call runs them (`call_query`), through a real `HttpCatalog`
against the loopback fake with its dated boards (`tests/fake_catalog/data_history.py`):
Settings Mix holds results that differ in extra data, split, shots and protocol, and
two papers sharing a citation key; Vision History a best of 2016 beaten in 2022.
The LaTeX is parsed here; the installed command's (`table --bib`) is compiled with
its BibTeX into a document in the e2e file.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pwc_local.present import claims as shown_claims
from pwc_local.present import results as shown
from pwc_local.queries.citing import cite_paper
from pwc_local.server.tools import call_query
from pwc_local.upstream.errors import UsageError
from tests.bibtex_check import entries
from tests.fake_catalog import FakeCatalog, HistoryBoards
from tests.test_history import _silent, run

MAIN = "no extra data, test split"


@pytest.fixture
def fake(fake_catalog: FakeCatalog) -> FakeCatalog:
    fake_catalog.apply(HistoryBoards())
    return fake_catalog


def table(fake: FakeCatalog, fmt: str = "markdown", **arguments: Any) -> Any:
    answer = run(
        fake,
        lambda catalog: call_query(
            "results_table", catalog, _silent, benchmark="Settings Mix", **arguments
        ),
    )
    return answer, shown.table_model(answer, {"format": fmt})


def claim(fake: FakeCatalog, benchmark: str, **arguments: Any) -> Any:
    answer = run(
        fake,
        lambda catalog: call_query(
            "check_claim", catalog, _silent, benchmark=benchmark, **arguments
        ),
    )
    return shown_claims.claim_model(answer)


def test_the_largest_settings_group_is_shown_and_the_others_counted(fake: FakeCatalog) -> None:
    answer, model = table(fake)
    assert [row.result.model for row in answer.rows] == ["Later_Net #2", "Base", "Old"]
    assert model.head.settings == MAIN and model.head.comparable == 3
    others = {group.settings: group.results for group in model.head.others}
    assert others == {
        "extra data, test split": 1,
        "no extra data, val split": 1,
        "no extra data, test split, 5-shot": 1,
        "no extra data, test split, 0-shot": 1,
        "no extra data, test split, timm protocol": 1,
    }
    text = shown.table_text(model)
    assert '"extra data, test split" (1)' in text and 'settings="all"' in text
    assert "| 1 | Later_Net #2 |" in text and "| 72.0 | author2021later |" in text
    # Another group by its label; every group, each row naming its settings.
    answer, _ = table(fake, settings="No Extra Data,  val split")
    assert [row.result.model for row in answer.rows] == ["ValNet"]
    answer, model = table(fake, "csv", settings="all")
    assert [row.result.model for row in answer.rows][:2] == ["Extra-L", "ValNet"]
    assert model.table.splitlines()[0] == "rank,model,paper,ref,date,Accuracy (higher),settings,key"
    assert (
        "2,ValNet,Validation Split Study,1906.99033,2019-06-01,76.0,no extra data, val split"
        in (model.table.replace('"', ""))
    )


def test_an_unknown_group_names_the_groups(fake: FakeCatalog) -> None:
    with pytest.raises(UsageError, match=r'the groups are "no extra data, test split"; .*or all'):
        table(fake, settings="test split")


def test_papers_are_kept_whatever_their_rank_and_as_of_keeps_earlier_papers(
    fake: FakeCatalog,
) -> None:
    answer, model = table(fake, limit=1, papers=["arXiv:1801.99030v2", "1906.99033"])
    assert [(row.rank, row.result.model, row.asked) for row in answer.rows] == [
        (1, "Later_Net #2", False),
        (3, "Old", True),
    ]
    assert model.head.missing == ["1906.99033"]  # on the val split, not in the group
    assert "No row in these settings for: 1906.99033" in shown.table_text(model)
    answer, model = table(fake, as_of="2019-12-31")
    assert [row.result.model for row in answer.rows] == ["Base", "Old"]
    assert model.head.as_of == "2019-12-31"


def test_keys_are_cite_papers_and_unique_within_the_table(fake: FakeCatalog) -> None:
    answer, model = table(fake, settings="all")
    keys = [row.key for row in answer.rows]
    by_paper = dict(zip([row.result.paper_ref for row in answer.rows], keys, strict=True))
    assert by_paper["2001.99034"] == "author2020few"  # Shot5 and Shot0: one paper, one key
    cited = run(fake, lambda catalog: cite_paper(catalog, "2101.99036", format="bibtex"))
    assert by_paper["2101.99036"] == cited.key == "author2021later"
    # The two "Mixed Results" papers of 2019 share cite_paper's key: told apart here.
    assert {by_paper["1905.99032"], by_paper["1901.99031"]} == {
        "author2019mixeda",
        "author2019mixedb",
    }
    parsed = {entry["ID"] for entry in entries(model.bib)}
    assert parsed == set(keys) and len(parsed) == len(model.bib.split("@")) - 1


def _latex(fake: FakeCatalog) -> Any:
    return table(fake, "latex", settings="all", metrics=["accuracy", "Top-5 Accuracy"])


def test_the_latex_is_booktabs_with_bold_bests_directions_and_a_cite_per_row(
    fake: FakeCatalog,
) -> None:
    answer, model = _latex(fake)
    latex = model.table
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    assert "Accuracy ($\\uparrow$) & Top-5 Accuracy ($\\uparrow$) \\\\" in latex
    body = latex.split("\\midrule")[1].split("\\bottomrule")[0].strip().splitlines()
    assert len(body) == len(answer.rows) == 8
    for line, row in zip(body, answer.rows, strict=True):
        assert f"\\cite{{{row.key}}}" in line
    assert "\\textbf{78.0} & --" in body[0]  # the best Accuracy
    assert "72.0 & \\textbf{91.5}" in latex  # the only (so best) Top-5 Accuracy
    assert latex.count("\\textbf") == 2
    # Catalog text is escaped: "Later_Net #2".
    assert "Later\\_Net \\#2~\\cite{author2021later}" in latex
    cited = set(re.findall(r"\\cite\{([^}]*)\}", latex))
    assert cited <= {entry["ID"] for entry in entries(model.bib)}


def test_latex_from_hostile_catalog_text_stays_one_escaped_ascii_line() -> None:
    hostile = "Net}\\end{table}\n\\input{/etc/passwd} % é ✓ $x$"
    escaped = shown.latex_text(hostile)
    assert "\n" not in escaped and escaped.isascii()
    assert "\\end{" not in escaped and "\\input{" not in escaped
    assert "\\}" in escaped and "\\%" in escaped and "\\$" in escaped and "e" in escaped


# -- check_claim -------------------------------------------------------------------------


def test_a_sota_claim_is_supported_then_and_contradicted_today_naming_the_beater(
    fake: FakeCatalog,
) -> None:
    then = claim(fake, "Vision History", paper="Wide Networks", as_of="2016-12-31")
    assert then.verdict == "supported"
    assert [(row.role, row.model) for row in then.rows] == [
        ("paper", "Wide-28"),
        ("best", "Deep-B"),  # the next best by then
    ]
    today = claim(fake, "Vision History", paper="1605.99005")
    assert today.verdict == "contradicted"
    assert "OpenSmall (Open Small Models, 2022-02-02) scores 82" in today.reason
    assert [(row.role, row.model, row.score) for row in today.rows] == [
        ("paper", "Wide-28", 75.0),
        ("best", "OpenSmall", 82.0),  # not BigPre-L's 84.5: trained with extra data
    ]
    text = shown_claims.claim_text(today)
    assert text.startswith("**contradicted**: OpenSmall") and "| best | 2022-02-02 |" in text


def test_a_better_result_in_other_settings_is_evidence_not_a_contradiction(
    fake: FakeCatalog,
) -> None:
    found = claim(fake, "Settings Mix", paper="2101.99036")  # Later 72.0: best of its group
    assert found.verdict == "supported"
    other = found.rows[-1]
    assert (other.role, other.model, other.differ) == ("other settings", "Extra-L", ["extra data"])


def test_beats_value_and_what_cannot_be_said(fake: FakeCatalog) -> None:
    assert claim(fake, "Settings Mix", paper="1901.99031", beats="1801.99030").verdict == (
        "supported"
    )
    lost = claim(fake, "Settings Mix", paper="1801.99030", beats="1901.99031")
    assert lost.verdict == "contradicted" and lost.reason.startswith("Base (")
    apart = claim(fake, "Settings Mix", paper="1906.99033", beats="2001.99034")
    assert apart.verdict == "not_comparable"
    assert apart.rows[1].differ == ["test split", "5-shot"]
    assert claim(fake, "Settings Mix", paper="2101.99036", value=72).verdict == "supported"
    wrong = claim(fake, "Settings Mix", paper="2101.99036", value=72.04)
    assert wrong.verdict == "contradicted" and "not 72.04" in wrong.reason
    early = claim(fake, "Settings Mix", paper="2101.99036", as_of="2020-01-01")
    assert early.verdict == "unknown" and "after 2020-01-01" in early.reason
    absent = claim(fake, "Settings Mix", paper="1706.03762")
    assert absent.verdict == "unknown" and not absent.rows
    with pytest.raises(UsageError, match="beats or value"):
        claim(fake, "Settings Mix", paper="2101.99036", beats="1801.99030", value=1.0)


# -- the history tools keep settings apart too ----------------------------------------------


def test_history_says_when_a_step_or_a_beater_comes_from_other_settings(
    fake: FakeCatalog,
) -> None:
    from pwc_local.present import history as present

    sota = run(
        fake,
        lambda catalog: call_query("sota_history", catalog, _silent, benchmark="Vision History"),
    )
    model = present.sota_model(sota)
    assert model.series.settings == MAIN
    assert [(s.model, s.settings) for s in model.steps][-2:] == [
        ("EffNet-B7", None),
        ("BigPre-L", "extra data"),  # the step from a result trained with extra data
    ]
    text = present.sota_text(model)
    assert "| 84.5 | 4.25 | extra data |" in text
    beaten = run(
        fake, lambda catalog: call_query("who_beat_paper", catalog, _silent, paper="1409.99002")
    )
    board = present.beaten_model(beaten).results[0]
    assert [(b.model, b.settings) for b in board.by][:2] == [
        ("BigPre-L", "extra data"),
        ("OpenSmall", None),
    ]
    assert "| other settings |" in present.board_text(board)
    mixed = run(
        fake,
        lambda catalog: call_query("sota_history", catalog, _silent, benchmark="Settings Mix"),
    )
    steps = present.sota_model(mixed).steps
    assert [(s.model, s.settings) for s in steps] == [
        ("Old", None),
        ("Base", None),
        ("Extra-L", "extra data"),
    ]


def test_the_model_filters_are_named_in_the_head_and_the_caption(fake: FakeCatalog) -> None:
    _, model = table(fake, "latex", is_open=True)
    assert model.head.filters == ["open models only"]
    assert "\\caption{Settings Mix: no extra data, test split; open models only.}" in model.table
