"""Issue 37 end to end: `results_table` and `check_claim` over MCP, `table` and `check`
on the command line (the BibTeX file, the verdict as exit status), and the hosted
profile without them. What the queries decide: tests/test_results_table.py.

The installed `table --format latex --bib FILE` is compiled as written into a minimal
document when `pdflatex` and `bibtex` are installed (CI installs them:
texlive-latex-base and -recommended from Debian, about a minute).
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.bibtex_check import entries
from tests.fake_catalog import FakeCatalog, HistoryBoards
from tests.installed import InstalledServer, call, error_of

pytestmark = pytest.mark.e2e


@pytest.fixture
def dated(fake_catalog: FakeCatalog) -> FakeCatalog:
    fake_catalog.apply(HistoryBoards())
    return fake_catalog


def test_both_tools_over_mcp_and_not_in_the_hosted_profile(
    dated: FakeCatalog, installed_server: InstalledServer
) -> None:
    seen: dict[str, Any] = {}

    async def script() -> None:
        async with installed_server.session() as session:
            seen["table"] = await call(
                session, "results_table", benchmark="Settings Mix", format="latex"
            )
            seen["claim"] = await call(
                session, "check_claim", benchmark="Vision History", paper="1605.99005"
            )
            seen["bad"] = await session.call_tool(
                "results_table", {"benchmark": "Settings Mix", "settings": "nope"}
            )
        installed_server.set(PWC_MCP_LOCAL_TOOLS="hosted")
        async with installed_server.session() as session:
            seen["hosted"] = {tool.name for tool in (await session.list_tools()).tools}

    anyio.run(script)
    found = seen["table"]
    assert found["head"]["settings"] == "no extra data, test split"
    cites = re.findall(r"\\cite\{([^}]*)\}", found["table"])
    assert cites == ["author2021later", "author2019mixed", "author2018mixed"]
    assert {entry["ID"] for entry in entries(found["bib"])} == set(cites)
    assert "```latex\n\\begin{table}" in found["_text"]
    claim = seen["claim"]
    assert claim["verdict"] == "contradicted" and "OpenSmall" in claim["reason"]
    bad = seen["bad"]
    assert bad.is_error and "invalid_argument: settings: no group" in bad.content[0].text
    assert not {"results_table", "check_claim"} & seen["hosted"]


def _models(found: dict[str, Any]) -> list[str]:
    """The model column of a CSV table."""
    return [row["model"] for row in csv.DictReader(io.StringIO(found["table"]))]


def test_the_table_filters_models_as_get_benchmark_does(
    dated: FakeCatalog, installed_server: InstalledServer
) -> None:
    seen: dict[str, Any] = {}

    async def script() -> None:
        async with installed_server.session() as session:
            for name, benchmark, filters in (
                ("every", "Vision History", {}),
                ("open", "Vision History", {"is_open": True}),
                ("closed", "Vision History", {"is_open": False}),
                ("any size", "ImageNet-1k", {}),
                ("small", "ImageNet-1k", {"max_parameters": "100M"}),
            ):
                seen[name] = await call(
                    session, "results_table", benchmark=benchmark, format="csv", **filters
                )
            for name, value in (("max_parameters", "big"), ("is_open", "maybe")):
                seen[f"bad {name}"] = await error_of(
                    session, "results_table", benchmark="Vision History", **{name: value}
                )

    anyio.run(script)
    assert "EffNet-B7" in _models(seen["every"])  # the one closed model
    assert "EffNet-B7" not in _models(seen["open"])
    assert _models(seen["closed"]) == ["EffNet-B7"]
    assert seen["closed"]["head"]["filters"] == ["closed models only"]
    assert "closed models only, best first" in seen["closed"]["_text"]
    assert "ViT-H/14" in _models(seen["any size"])  # 632M parameters
    assert "ViT-H/14" not in _models(seen["small"]) and _models(seen["small"])
    assert seen["small"]["head"]["filters"] == ["at most 100M parameters"]
    assert "filters" not in seen["every"]["head"]
    for name in ("max_parameters", "is_open"):
        message = seen[f"bad {name}"]
        assert f"invalid_argument: {name} must be" in message, message


def test_table_writes_the_bib_and_never_replaces_it_without_force(
    dated: FakeCatalog, cli: Any, tmp_path: Path
) -> None:
    bib = tmp_path / "refs.bib"
    done = cli("table", "Settings", "Mix", "--format", "latex", "--bib", str(bib))
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("\\begin{table}[ht]")  # the table alone on stdout
    assert "no extra data, test split" in done.stderr
    written = bib.read_text()
    assert "BibTeX of 3 papers written" in done.stderr
    assert {entry["ID"] for entry in entries(written)} == set(
        re.findall(r"\\cite\{([^}]*)\}", done.stdout)
    )
    bib.write_text("% mine\n")
    refused = cli("table", "Settings", "Mix", "--bib", str(bib))
    assert refused.exit_code == 1 and "--force" in refused.stderr, refused.output
    assert bib.read_text() == "% mine\n"
    forced = cli("table", "Settings", "Mix", "--settings", "all", "--bib", str(bib), "--force")
    assert forced.exit_code == 0, forced.output
    assert "author2019mixeda" in bib.read_text()
    closed = cli("table", "Vision History", "--closed", "--bib", str(tmp_path / "one.bib"))
    assert closed.exit_code == 0 and "EffNet-B7" in closed.stdout, closed.output
    assert "closed models only" in closed.stderr and "BibTeX of 1 paper written" in closed.stderr


def test_check_exits_with_its_verdict(dated: FakeCatalog, cli: Any) -> None:
    then = cli("check", "Vision History", "1605.99005", "--sota", "--as-of", "2016-12-31")
    assert then.exit_code == 0 and then.stdout.startswith("**supported**"), then.output
    today = cli("check", "Vision History", "1605.99005")
    assert today.exit_code == 3 and "OpenSmall" in today.stdout
    apart = cli("check", "Settings Mix", "1906.99033", "--beats", "2001.99034")
    assert apart.exit_code == 4
    absent = cli("check", "Settings Mix", "1706.03762", "--value", "1")
    assert absent.exit_code == 5
    both = cli("check", "Settings Mix", "1706.03762", "--value", "1", "--beats", "1901.99031")
    assert both.exit_code == 2


@pytest.mark.skipif(
    not (shutil.which("pdflatex") and shutil.which("bibtex")), reason="no LaTeX installed"
)
def test_the_latex_and_its_bib_file_compile_into_a_minimal_document(
    dated: FakeCatalog, installed_server: InstalledServer, tmp_path: Path
) -> None:
    # Every group (a settings column, two papers sharing a key told apart) and two metrics.
    made = installed_server.command(
        "table", "Settings Mix", "--format", "latex", "--settings", "all",
        "--metric", "accuracy", "--metric", "Top-5 Accuracy", "--bib", str(tmp_path / "refs.bib"),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    (tmp_path / "table.tex").write_text(made.stdout)
    cited = set(re.findall(r"\\cite\{([^}]*)\}", made.stdout))
    assert {"author2019mixeda", "author2019mixedb"} <= cited  # one key, told apart
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
        "\\input{table}\n\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    )
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc"]
    for step in (latex, ["bibtex", "doc"], latex, latex):
        done = subprocess.run(step, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert "undefined" not in log.lower(), "a \\cite key without its BibTeX entry"
    assert set(re.findall(r"\\bibitem\{([^}]*)\}", (tmp_path / "doc.bbl").read_text())) == cited
    assert (tmp_path / "doc.pdf").stat().st_size > 1000
