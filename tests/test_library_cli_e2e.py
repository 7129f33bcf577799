"""End to end: the installed `pwc-mcp-local library ...` commands against the loopback fake.

Every command runs as a subprocess with its own HOME, data, config and cache
directories under `tmp_path`, so the library, key and cache are the test's own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.e2e

PWC_MCP_LOCAL = Path(sys.executable).parent / "pwc-mcp-local"
SMALL = "1706.03762"
BIG = "1911.02116"
OUTSIDE = "1301.3781"


def command_env(tmp_path: Path, api_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PWC_", "XDG_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
        PWC_MCP_LOCAL_CACHE_DIR=str(tmp_path / "cache"),
        PWC_API_URL=api_url,
        PWC_MCP_LOCAL_TIMEOUT="5",
    )
    return env


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PWC_MCP_LOCAL), *args], env=env, capture_output=True, text=True, timeout=120
    )


def listed(env: dict[str, str]) -> list[str]:
    done = run(env, "library", "list", "--json")
    assert done.returncode == 0, done.stderr
    return sorted(row["paper"] for row in json.loads(done.stdout)["papers"])


def test_add_from_a_bibtex_file_then_list_search_export_remove(
    tmp_path: Path, fake_catalog: Any
) -> None:
    import bibtexparser

    env = command_env(tmp_path, fake_catalog.api_url)
    reading_list = tmp_path / "refs.bib"
    reading_list.write_text(
        "% exported from somewhere\n"
        "@article{vaswani2017attention,\n  title = {Attention Is {All} You Need},\n"
        "  eprint = {1706.03762v7}, archivePrefix = {arXiv}\n}\n"
        "@misc{mikolov, title={Word vectors}, journal={arXiv preprint arXiv:1301.3781}}\n"
        "@book{no_ids, title = {A Book Without Identifiers}}\n",
        encoding="utf-8",
    )
    added = run(env, "library", "add", "--from", str(reading_list), "nosuchpaper zzqx")
    assert added.returncode == 1, added.stdout  # one reference failed
    assert f"saved     {SMALL}" in added.stdout and f"saved     {OUTSIDE}" in added.stdout
    assert "failed    nosuchpaper zzqx: not_found:" in added.stdout
    assert "no_ids" in added.stderr
    assert "3 papers: 2 saved, 0 already in the library, 1 failed." in added.stdout
    assert listed(env) == sorted([SMALL, OUTSIDE])

    found = run(env, "library", "search", "--json", "word vectors")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits and hits[0]["paper"] == OUTSIDE and "**" in hits[0]["quote"]
    assert run(env, "library", "search", "").returncode == 2

    exported = run(env, "library", "export", "--format", "bibtex")
    entries = {e["ID"]: e for e in bibtexparser.loads(exported.stdout).entries}
    assert set(entries) == {"vaswani2017attention", "mikolov2013efficient"}
    assert entries["vaswani2017attention"]["eprint"] == SMALL
    for fmt in ("ris", "csl-json"):
        out = tmp_path / f"export.{fmt}"
        assert run(env, "library", "export", "--format", fmt, "--output", str(out)).returncode == 0
    assert out.read_text().startswith("[") and len(json.loads(out.read_text())) == 2
    assert (tmp_path / "export.ris").read_text().count("ER  -") == 2

    removed = run(env, "library", "remove", SMALL, "2401.99999")
    assert removed.returncode == 1 and f"removed   {SMALL}" in removed.stdout
    assert listed(env) == [OUTSIDE]


def test_a_killed_add_lists_nothing_half_saved_and_a_rerun_resumes(
    tmp_path: Path, fake_catalog: Any
) -> None:
    env = command_env(tmp_path, fake_catalog.api_url)
    # The first chunk of the big paper is already cached (read once before), so the
    # add below reaches the fake only for the second chunk, which the fake holds.
    _warm_first_chunk(tmp_path, fake_catalog.api_url)
    fake_catalog.faults.slow(prefix=f"research/papers/{BIG}/read")
    process = subprocess.Popen(
        [str(PWC_MCP_LOCAL), "library", "add", SMALL, BIG, OUTSIDE],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith(f"saved     {SMALL}"), first
        assert fake_catalog.faults.wait_until_blocked(1, timeout=30)  # mid-way through BIG
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    assert listed(env) == [SMALL]  # BIG had one chunk in, so it is not listed at all
    fake_catalog.faults.reset()

    again = run(env, "library", "add", SMALL, BIG, OUTSIDE)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"kept      {SMALL}" in again.stdout
    assert "3 papers: 2 saved, 1 already in the library, 0 failed." in again.stdout
    assert listed(env) == sorted([SMALL, BIG, OUTSIDE])


def test_an_interrupted_add_says_how_to_resume(tmp_path: Path, fake_catalog: Any) -> None:
    # A catalog timeout long enough that only the interrupt can end the held request:
    # with 5 s, a starved machine could time it out first (a failed save, exit 1).
    env = {**command_env(tmp_path, fake_catalog.api_url), "PWC_MCP_LOCAL_TIMEOUT": "60"}
    fake_catalog.faults.slow(prefix=f"papers/{SMALL}")
    process = subprocess.Popen(
        [str(PWC_MCP_LOCAL), "library", "add", SMALL],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake_catalog.faults.wait_until_blocked(1, timeout=30)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "run the same command again" in err and "Traceback" not in err
    assert listed(env) == []


def _warm_first_chunk(tmp_path: Path, api_url: str) -> None:
    from pwc_local.catalog.http import HttpCatalog
    from pwc_local.store.cache import DiskCache
    from pwc_local.store.cached_catalog import CachingCatalog

    async def warm() -> None:
        async with HttpCatalog(api_url) as http:
            cached = CachingCatalog(http, DiskCache(tmp_path / "cache"), namespace=api_url)
            chunk = await cached.read_markdown(BIG, offset=0, limit=65536, content_version=None)
            assert chunk.truncated
            cached.cache.close()

    anyio.run(warm)
