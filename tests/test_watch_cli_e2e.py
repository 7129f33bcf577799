"""End to end: the installed `pwc-mcp-local watch ...` and `whats-new` against the loopback fake.

Every command is a new process with the test's own HOME, data and cache directories
(`installed_server.command`), so each run also proves the watch list survives a restart.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pwc_local.common.watches import MAX_WATCHES
from pwc_local.store.watchlist import Watchlist
from tests.fake_catalog import (
    NEW_PAPER,
    FakeCatalog,
    NewPaper,
    NewResult,
    NewSuccessor,
    NewVersion,
)
from tests.installed import InstalledServer, looks

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

WATCHES = [
    ("benchmark", "imagenet-1k"),
    ("task", "Image Classification"),
    ("paper", "1706.03762"),
    ("author", "Kaiming He"),
    ("query", "vision transformer"),
]


def _ok(done: subprocess.CompletedProcess[str], status: int = 0) -> str:
    assert done.returncode == status, (done.stdout, done.stderr)
    return done.stdout


def _json(home: InstalledServer, *args: str, status: int = 0) -> Any:
    return json.loads(_ok(home.command(*args, "--json"), status))


def _looks(home: InstalledServer, *args: str, status: int = 0) -> list[dict[str, Any]]:
    """`whats-new ARGS --json`, one dict per watch (`tests.installed.looks`)."""
    return looks(_json(home, "whats-new", *args, status=status))


def _changes(report: dict[str, Any]) -> list[tuple[str, str | None]]:
    """Each change's type and what it names (model, paper reference or content version)."""
    return [
        (change["type"], change.get("model") or change.get("paper") or change["version"])
        for change in report["changes"]
    ]


def _change_everything(fake: FakeCatalog) -> None:
    fake.apply(NewResult("72", paper="2432", model="ViT-G/14", metrics={"Top-1 Accuracy": 90.1}))
    fake.apply(NewResult("12", paper="755", model="Transformer (huge)", metrics={"BLEU score": 30}))
    fake.apply(NewPaper(NEW_PAPER))
    fake.apply(NewVersion("1706.03762", "# Attention Is All You Need, revised\n"))
    fake.apply(NewSuccessor(before="755", after="91100"))


def test_every_kind_then_peek_then_mark_seen(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    for kind, target in WATCHES:
        assert "baseline taken now" in _ok(home.command("watch", "add", kind, *target.split()))
    listed = _json(home, "watch", "list")
    assert [(item["kind"], item["name"]) for item in listed["watches"]] == [
        ("benchmark", "ImageNet-1k"),
        ("task", "Image Classification"),
        ("paper", "Attention Is All You Need"),
        ("author", "Kaiming He"),
        ("query", "vision transformer"),
    ]
    quiet = _looks(home, "--peek")
    assert {report["status"] for report in quiet} == {"unchanged"}

    _change_everything(fake_catalog)
    peeked = _json(home, "whats-new", "--peek")
    assert _json(home, "whats-new", "--peek") == peeked
    by_kind = {report["kind"]: report for report in looks(peeked)}
    assert all(report["status"] == "changed" for report in by_kind.values())
    assert _changes(by_kind["benchmark"]) == [
        ("new_leader", "ViT-G/14"),
        ("new_result", "ViT-G/14"),
    ]
    leader = by_kind["benchmark"]["changes"][0]
    assert (leader["metric"], leader["value"]) == ("Top-1 Accuracy", 90.1)
    assert leader["was"] == "ViT-H/14, 88.55"
    result = by_kind["benchmark"]["changes"][1]
    assert result["paper"] == "2010.11929" and result["rank"] == 1
    for kind in ("task", "author", "query"):
        assert _changes(by_kind[kind]) == [("new_paper", NEW_PAPER.arxiv_id)], kind
    version = fake_catalog.content_version("1706.03762")
    assert _changes(by_kind["paper"]) == [
        ("new_version", version[:12]),  # the record's 12 digits
        ("new_result", "Transformer (huge)"),
        ("new_successor", NEW_PAPER.arxiv_id),
    ]
    evaluation = by_kind["paper"]["changes"][1]
    assert evaluation["benchmark"] == "WMT2014 English-German"
    assert (evaluation["metric"], evaluation["value"], evaluation["rank"]) == ("BLEU score", 30, 1)
    assert "schema_version" not in peeked  # the default profile's record
    assert all(report["more"] == 0 and report["reason"] is None for report in by_kind.values())

    table = _ok(home.command("whats-new"))  # the terminal table, and the baselines move
    assert "ImageNet-1k (benchmark, last look " in table
    assert "new leader    ViT-G/14  Top-1 Accuracy 90.1  (was ViT-H/14, 88.55)" in table
    assert "new paper     Giant Vision Transformer Networks (2610.04321, 2026-10-30)" in table
    assert "5 changed, 0 unchanged" in table
    after = _looks(home)
    assert {report["status"] for report in after} == {"unchanged"}


def test_offline_nothing_moves_and_back_the_change_is_reported(
    fake_catalog: FakeCatalog, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    _ok(home.command("watch", "add", "benchmark", "ImageNet-1k"))
    _ok(home.command("watch", "add", "task", "Image Classification"))
    looked = [item["last_look"] for item in _json(home, "watch", "list")["watches"]]
    fake_catalog.stop()
    _change_everything(fake_catalog)  # made during the outage
    offline = _looks(home, status=1)
    assert {report["status"] for report in offline} == {"not_checked"}
    assert all(report["reason"].startswith("upstream_error: ") for report in offline)
    table = home.command("whats-new")
    assert table.returncode == 1 and "not checked (their baselines stay)" in table.stdout
    assert [item["last_look"] for item in _json(home, "watch", "list")["watches"]] == looked

    fake_catalog.start()
    back = _looks(home)
    assert [report["status"] for report in back] == ["changed", "changed"]
    assert ("new_leader", "ViT-G/14") in _changes(back[0])
    assert _changes(back[1]) == [("new_paper", NEW_PAPER.arxiv_id)]


def test_bad_input_stores_nothing(installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    unknown_kind = home.command("watch", "add", "dataset", "COCO")
    assert unknown_kind.returncode == 2 and "'dataset' is not one of" in unknown_kind.stderr
    empty = home.command("watch", "add", "query", " ")
    assert empty.returncode == 2  # a bad argument (README)
    assert empty.stderr.strip() == "pwc-mcp-local: invalid_argument: target must not be empty"
    unknown = home.command("watch", "add", "task", "Image Classificatio")
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == (
        "pwc-mcp-local: not_found: Task not found: Image Classificatio; closest results: "
        "Image Classification, Fine-Grained Image Classification"
    )
    nobody = home.command("watch", "add", "author", "Nobody Atall")
    assert "not_found: Author not found: Nobody Atall" in nobody.stderr
    not_watched = home.command("watch", "remove", "benchmark", "COCO")
    assert "not_found: Watch not found: benchmark COCO" in not_watched.stderr
    assert _json(home, "watch", "list")["watches"] == []
    assert "No watches yet" in _ok(home.command("whats-new"))


def test_the_hundredth_watch_is_the_last(tmp_path: Path, installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    with Watchlist.open(tmp_path / "data" / "pwc-mcp-local") as watchlist:
        for index in range(MAX_WATCHES - 1):
            key = f"filler {index}"
            watchlist.add("query", key, target=key, name=key, snapshot={"papers": {}})
    _ok(home.command("watch", "add", "benchmark", "COCO"))
    full = home.command("watch", "add", "benchmark", "ImageNet-1k")
    assert full.returncode == 2  # invalid_argument, as every refused argument
    assert "invalid_argument: the watch list holds 100 watches, its limit" in full.stderr
    assert "already watched" in _ok(home.command("watch", "add", "benchmark", "coco")).casefold()
    assert "No longer watching" in _ok(home.command("watch", "remove", "query", "filler 7"))
    _ok(home.command("watch", "add", "benchmark", "ImageNet-1k"))
    assert len(_json(home, "watch", "list")["watches"]) == MAX_WATCHES


def test_cache_clear_keeps_the_watches(installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    _ok(home.command("watch", "add", "paper", "Attention Is All You Need"))
    _ok(home.command("cache", "clear"))
    assert [item["target"] for item in _json(home, "watch", "list")["watches"]] == [
        "Attention Is All You Need"
    ]
    assert _ok(home.command("watch", "remove", "paper", "1706.03762"))
    assert _json(home, "watch", "list")["watches"] == []


def test_the_json_is_the_tools_json_in_the_default_profile(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PWC_MCP_LOCAL_STRUCTURED", raising=False)
    assert cli("watch", "add", "benchmark", "ImageNet-1k").exit_code == 0
    command = json.loads(cli("whats-new", "--peek", "--json").stdout)
    tool = json.loads(cli("call", "whats_new", "mark_seen=false", "--json").stdout)
    assert "schema_version" not in command  # the compact record, not the hosted model
    assert command.keys() == tool.keys()
    assert command["watches"]["columns"] == tool["watches"]["columns"]
    assert len(command["watches"]["rows"]) == len(tool["watches"]["rows"]) == 1
    listed = json.loads(cli("watch", "list", "--json").stdout)
    kept = json.loads(cli("call", "watch", "kind=benchmark", "target=imagenet-1k", "--json").stdout)
    assert kept.pop("status") == "kept" and listed == kept  # on main: the hosted model
