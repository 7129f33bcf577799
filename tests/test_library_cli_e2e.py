"""End to end: the installed `pwc-mcp-local library ...` commands against the loopback fake.

Every command runs as a subprocess (`installed_server.command`) with its own HOME,
data, config and cache directories under `tmp_path`, so the library, key and cache
are the test's own. The tests that stop a command part-way start it themselves.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.bibtex_check import entries as bibtex_entries
from tests.installed import EXECUTABLE, InstalledServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SMALL = "1706.03762"
BIG = "1911.02116"
OUTSIDE = "1301.3781"


def listed(home: InstalledServer) -> list[str]:
    done = home.command("library", "list", "--json")
    assert done.returncode == 0, done.stderr
    return sorted(row["paper"] for row in json.loads(done.stdout)["papers"])


def test_add_from_a_bibtex_file_then_list_search_export_remove(
    tmp_path: Path, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    reading_list = tmp_path / "refs.bib"
    reading_list.write_text(
        "% exported from somewhere\n"
        "@article{vaswani2017attention,\n  title = {Attention Is {All} You Need},\n"
        "  eprint = {1706.03762v7}, archivePrefix = {arXiv}\n}\n"
        "@misc{mikolov, title={Word vectors}, journal={arXiv preprint arXiv:1301.3781}}\n"
        "@book{no_ids, title = {A Book Without Identifiers}}\n",
        encoding="utf-8",
    )
    added = home.command("library", "add", "--from", str(reading_list), "nosuchpaper zzqx")
    assert added.returncode == 1, added.stdout  # one reference failed
    assert f"saved     {SMALL}" in added.stdout and f"saved     {OUTSIDE}" in added.stdout
    assert "failed    nosuchpaper zzqx: not_found:" in added.stdout
    assert "failed    BibTeX entry no_ids: no arXiv ID, DOI or URL" in added.stdout
    assert "4 papers: 2 saved, 0 already in the library, 2 failed." in added.stdout
    assert listed(home) == sorted([SMALL, OUTSIDE])

    found = home.command("library", "search", "--json", "word vectors")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits and hits[0]["paper"] == OUTSIDE and "**" in hits[0]["quote"]
    assert home.command("library", "search", "").returncode == 2

    exported = home.command("library", "export", "--format", "bibtex")
    entries = {e["ID"]: e for e in bibtex_entries(exported.stdout)}
    assert set(entries) == {"vaswani2017attention", "mikolov2013efficient"}
    assert entries["vaswani2017attention"]["eprint"] == SMALL
    for fmt in ("ris", "csl-json"):
        out = tmp_path / f"export.{fmt}"
        assert (
            home.command("library", "export", "--format", fmt, "--output", str(out)).returncode == 0
        )
    assert out.read_text().startswith("[") and len(json.loads(out.read_text())) == 2
    assert (tmp_path / "export.ris").read_text().count("ER  -") == 2

    removed = home.command("library", "remove", SMALL, "2401.99999")
    assert removed.returncode == 1 and f"removed   {SMALL}" in removed.stdout
    assert listed(home) == [OUTSIDE]


def test_a_killed_add_lists_nothing_half_saved_and_a_rerun_resumes(
    tmp_path: Path, fake_catalog: Any, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    # The first chunk of the big paper is already cached (read once before), so the
    # add below reaches the fake only for the second chunk, which the fake holds.
    _warm_first_chunk(tmp_path, fake_catalog.api_url)
    fake_catalog.faults.slow(prefix=f"research/papers/{BIG}/read")
    process = subprocess.Popen(  # by hand, not home.command(): the test kills it part-way
        [str(EXECUTABLE), "library", "add", SMALL, BIG, OUTSIDE],
        env=home.env,
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
    assert listed(home) == [SMALL]  # BIG had one chunk in, so it is not listed at all
    fake_catalog.faults.reset()

    again = home.command("library", "add", SMALL, BIG, OUTSIDE)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"kept      {SMALL}" in again.stdout
    assert "3 papers: 2 saved, 1 already in the library, 0 failed." in again.stdout
    assert listed(home) == sorted([SMALL, BIG, OUTSIDE])


def test_an_interrupted_add_says_how_to_resume(
    fake_catalog: Any, installed_server: InstalledServer
) -> None:
    # A catalog timeout long enough that only the interrupt can end the held request:
    # with 5 s, a starved machine could time it out first (a failed save, exit 1).
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="60")
    fake_catalog.faults.slow(prefix=f"papers/{SMALL}")
    process = subprocess.Popen(  # by hand, not home.command(): the test interrupts it
        [str(EXECUTABLE), "library", "add", SMALL],
        env=home.env,
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
    assert listed(home) == []


def _warm_first_chunk(tmp_path: Path, api_url: str) -> None:
    from pwc_local.store.cache import DiskCache
    from pwc_local.store.cached_catalog import CachingCatalog
    from pwc_local.upstream.http import HttpCatalog

    async def warm() -> None:
        async with HttpCatalog(api_url) as http:
            cached = CachingCatalog(http, DiskCache(tmp_path / "cache"), namespace=api_url)
            chunk = await cached.read_markdown(BIG, offset=0, limit=65536, content_version=None)
            assert chunk.truncated
            cached.cache.close()

    anyio.run(warm)


# -- hostile input: untrusted text on the terminal, reading-list files, bounds ------------

HOSTILE = "\x9d0;c1\x07\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example\x1b\\Owned\x1b]8;;\x1b\\"
FORGED = "\n- 9999.99999: Fake Paper (saved)"


def _clean_lines(text: str) -> list[str]:
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)
    return text.splitlines()


def test_catalog_and_file_text_reaches_the_terminal_without_escapes_or_extra_lines(
    tmp_path: Path, fake_catalog: Any, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    fake_catalog.catalog.set_title(SMALL, f"Attention{HOSTILE}{FORGED}")
    fake_catalog.catalog.set_markdown(
        SMALL, f"# Top\n\n## Heading{HOSTILE}\n\nattention{HOSTILE}{FORGED} quote\n"
    )
    hostile_bib = tmp_path / "hostile.bib"
    hostile_bib.write_text(
        f"@article{{{SMALL}, eprint = {{{SMALL}}}}}\n@book{{key{HOSTILE}, title = {{none}}}}\n",
        encoding="utf-8",
    )
    added = home.command("library", "add", "--from", str(hostile_bib), f"nosuch{HOSTILE}{FORGED}")
    assert added.returncode == 1, added.stderr
    out = _clean_lines(added.stdout)
    assert len(out) == 4, out  # the entry without an ID, one line per reference, the summary
    assert out[0].startswith("failed    ") and "BibTeX entry keyOwned" in out[0]
    assert out[1].startswith("failed    nosuchOwned - 9999.99999: Fake Paper (saved): not_found:")
    assert out[2].startswith(f"saved     {SMALL}  AttentionOwned - 9999.99999: Fake Paper")

    shown_list = home.command("library", "list")
    assert len(_clean_lines(shown_list.stdout)) == 2, shown_list.stdout  # the paper, the total
    as_json = home.command("library", "list", "--json").stdout
    _clean_lines(as_json)  # no control character reaches the terminal, C1 controls neither
    # The library keeps listing titles as one bounded printable line (store.library.shown_title).
    assert (
        json.loads(as_json)["papers"][0]["title"]
        == "AttentionOwned - 9999.99999: Fake Paper (saved)"
    )
    found = home.command("library", "search", "attention")
    assert found.returncode == 0, found.stderr
    lines = _clean_lines(found.stdout)
    assert lines and all(line.startswith((SMALL, "    ")) for line in lines), lines
    assert any("> HeadingOwned (byte" in line for line in lines), lines


def test_reading_list_files_are_bounded_and_a_broken_entry_costs_only_itself(
    tmp_path: Path, fake_catalog: Any, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    endless = home.command("library", "add", "--from", "/dev/zero")
    assert endless.returncode == 2 and "larger than 10 MiB" in endless.stderr, endless.stderr
    assert "Traceback" not in endless.stderr

    long_reference = "x" * 65536
    long_list = tmp_path / "long.txt"
    long_list.write_text(f"{long_reference}\n{SMALL}   # attention\n", encoding="utf-8")
    added = home.command("library", "add", "--from", str(long_list))
    assert added.returncode == 1 and "Traceback" not in added.stderr, added.stderr
    failed = next(line for line in added.stdout.splitlines() if line.startswith("failed"))
    assert "invalid_argument: a paper reference is at most 500 characters" in failed
    assert len(failed) < 400  # the echo is bounded, not 64 KB
    assert f"saved     {SMALL}" in added.stdout  # the inline comment is not part of it
    assert "2 papers: 1 saved, 0 already in the library, 1 failed." in added.stdout

    # A .bib with a byte-order mark, and an entry whose brace never closes.
    bib = tmp_path / "refs.bib"
    bib.write_bytes(
        "\ufeff@article{open, title = {Never closed, eprint = {2401.99999}\n"
        f"@misc{{next, journal = {{arXiv preprint arXiv:{OUTSIDE}}}}}\n".encode()
    )
    fake_catalog.requests.clear()
    again = home.command("library", "add", "--from", str(bib))
    assert again.returncode == 1, again.stdout + again.stderr  # the broken entry failed
    assert f"saved     {OUTSIDE}" in again.stdout and "2401.99999" not in again.stdout
    assert "line 1: BibTeX entry open cannot be read" in again.stdout, again.stdout
    assert "the entries after it were read" in again.stdout
    # Each line went to the catalog as an identifier, none as a title search.
    assert [r.path for r in fake_catalog.requests if "search" in r.path] == []


def test_export_keeps_the_source_venue_uses_the_list_order_and_never_half_writes(
    tmp_path: Path, fake_catalog: Any, installed_server: InstalledServer
) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    # A title long enough that the export is larger than the file-size limit below,
    # which must leave room for the library's own 32 KiB shared-memory index.
    fake_catalog.catalog.set_title(SMALL, "Attention " + "is all you need " * 3000)
    bib = tmp_path / "nature.bib"
    bib.write_text(
        "@article{lecun2015deep, title = {Deep learning}, journal = {Nature},\n"
        "  volume = {521}, pages = {436--444}, doi = {10.1038/nature14539}}\n",
        encoding="utf-8",
    )
    for references in (["--from", str(bib)], [SMALL]):  # SMALL is saved last
        done = home.command("library", "add", *references)
        assert done.returncode == 0, done.stdout + done.stderr
    papers = json.loads(home.command("library", "list", "--json").stdout)["papers"]
    exported = bibtex_entries(home.command("library", "export").stdout)
    assert [p["paper"] for p in papers] == [SMALL, "10.1038/nature14539"]
    assert [e["ENTRYTYPE"] for e in exported] == ["inproceedings", "article"]  # newest first
    nature = exported[1]
    assert (nature["journal"], nature["volume"], nature["doi"]) == (
        "Nature",
        "521",
        "10.1038/nature14539",
    )

    target = tmp_path / "library.bib"
    target.write_text("% the good copy\n", encoding="utf-8")
    refused = home.command("library", "export", "--output", str(target))
    assert refused.returncode == 1 and "--force" in refused.stderr, refused.stderr
    assert target.read_text(encoding="utf-8") == "% the good copy\n"

    # A full disk, as a file-size limit: the export cannot be written in full.
    limited = _export_with_file_size_limit(home.env, target, limit=40_000)
    assert limited.returncode == 1 and "left as it was" in limited.stderr, limited.stderr
    assert "Traceback" not in limited.stderr
    assert target.read_text(encoding="utf-8") == "% the good copy\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".library.bib")] == []

    replaced = home.command("library", "export", "--output", str(target), "--force")
    assert replaced.returncode == 0 and "Replaced" in replaced.stderr, replaced.stderr
    assert [e["ID"] for e in bibtex_entries(target.read_text())] == [e["ID"] for e in exported]


def test_remove_takes_every_spelling_add_takes(installed_server: InstalledServer) -> None:
    home = installed_server.set(PWC_MCP_LOCAL_TIMEOUT="5")
    spellings = [
        f"arXiv:{SMALL}v5",
        f"https://arxiv.org/abs/{SMALL}v5",
        f"https://huggingface.co/papers/{SMALL}",
    ]
    for spelling in spellings:
        assert home.command("library", "add", SMALL).returncode == 0
        removed = home.command("library", "remove", spelling)
        assert removed.returncode == 0 and f"removed   {SMALL}" in removed.stdout, removed.stdout
        assert listed(home) == []


def _export_with_file_size_limit(
    env: dict[str, str], target: Path, *, limit: int
) -> subprocess.CompletedProcess[str]:
    import resource

    def limit_writes() -> None:  # in the child: writes past `limit` bytes fail with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [str(EXECUTABLE), "library", "export", "--output", str(target), "--force"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit_writes,
    )
