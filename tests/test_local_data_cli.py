"""The library commands' answers about local data (issue 28, "Local data"), through `cli`.

Each test runs `pwc-mcp-local ...` in this process against the loopback fake, in the
private home of the `cli` fixture: an export to a directory that does not exist, a
reading list with entries that name no paper, a saved paper added again by another
spelling, query syntax in `search_library`, and `uninstall --all --purge` beside the
`tools/list` snapshot a server leaves in the cache directory.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

SMALL = "1706.03762"
OUTSIDE = "1301.3781"


def test_export_to_a_missing_directory_fails_and_creates_nothing(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    assert cli("library", "add", SMALL).exit_code == 0
    target = tmp_path / "nonexistent" / "dir" / "x.bib"
    done = cli("library", "export", "--output", str(target))
    assert done.exit_code == 1, done.output
    assert f"the directory {target.parent} does not exist" in done.stderr, done.stderr
    assert "Wrote" not in done.output
    assert not (tmp_path / "nonexistent").exists()


def test_reading_list_entries_that_name_no_paper_are_failures(
    tmp_path: Path, cli: Callable[..., Result]
) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{open, title = {Never closed, eprint = {2401.99999}\n"
        "@book{no_ids, title = {A Book Without Identifiers}}\n"
        f"@misc{{good, journal = {{arXiv preprint arXiv:{OUTSIDE}}}}}\n",
        encoding="utf-8",
    )
    done = cli("library", "add", "--from", str(bib))
    assert done.exit_code == 1, done.output
    failed = [line for line in done.stdout.splitlines() if line.startswith("failed")]
    assert len(failed) == 2, done.stdout
    assert any("BibTeX entry no_ids: no arXiv ID, DOI or URL" in line for line in failed)
    assert any("line 1: BibTeX entry open cannot be read" in line for line in failed)
    assert f"saved     {OUTSIDE}" in done.stdout
    assert "3 papers: 1 saved, 0 already in the library, 2 failed." in done.stdout

    only_broken = tmp_path / "broken.bib"
    only_broken.write_text("@book{no_ids, title = {No Identifiers}}\n", encoding="utf-8")
    none = cli("library", "add", "--from", str(only_broken))
    assert none.exit_code == 1, none.output
    assert "1 paper: 0 saved, 0 already in the library, 1 failed." in none.stdout


def test_adding_a_saved_paper_by_another_spelling_shows_its_size(
    cli: Callable[..., Result],
) -> None:
    first = cli("library", "add", SMALL)
    size = first.stdout.split("(")[-1].split(")")[0]  # "1.2 KiB"
    assert size.endswith("KiB"), first.stdout
    again = cli("library", "add", f"10.48550/arXiv.{SMALL}")  # arXiv's DOI of it
    assert again.exit_code == 0, again.output
    assert f"kept      {SMALL}" in again.stdout and "no Markdown" not in again.stdout
    assert f"({size})" in again.stdout, again.stdout
    assert "1 paper: 1 saved, 0 already in the library, 0 failed." in first.stdout, first.output
    assert "1 paper: 0 saved, 1 already in the library, 0 failed." in again.stdout


def test_search_takes_operators_and_punctuation_as_words_and_stop_words_alone_find_nothing(
    cli: Callable[..., Result],
) -> None:
    assert cli("library", "add", SMALL).exit_code == 0

    def hits(query: str) -> list[dict[str, object]]:
        done = cli("call", "search_library", f"query={query}", "--json")
        assert done.exit_code == 0, done.output
        return list(json.loads(done.stdout)["results"])

    # "and" and "or" are in most passages of the saved paper; "unbalanced" in none.
    assert hits('"unbalanced AND OR ( *') == []
    assert hits("and") == [] and hits("or") == []
    found = hits("softmax AND subspaces (")
    assert found and found[0]["paper"] == SMALL
    assert "**softmax**" in str(found[0]["quote"]) and "**and**" not in str(found[0]["quote"])
    phrase = hits("limitations and future")
    assert phrase and "**limitations** and **future**" in str(phrase[0]["quote"]), phrase


def test_purge_removes_a_cache_holding_the_servers_tools_list_snapshot(
    cli: Callable[..., Result],
) -> None:
    from pwc_local.config import load_settings
    from pwc_local.server.listing import save_snapshot, snapshot_path

    assert cli("call", "get_paper_info", f"paper={SMALL}").exit_code == 0  # a cache entry
    cache = load_settings().resolved_cache_dir()
    save_snapshot(snapshot_path(cache), [{"name": "ping"}])  # as a server does after tools/list
    assert list(cache.glob("tools-list-*.json")), list(cache.iterdir())

    dry = cli("uninstall", "--all", "--purge", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "would delete the cache" in dry.output and "not removed by --purge" not in dry.output
    done = cli("uninstall", "--all", "--purge", "--yes")
    assert done.exit_code == 0, done.output
    assert "Deleted the cache" in done.output and not cache.exists()


def test_purge_says_what_it_left_and_exits_non_zero(
    cli: Callable[..., Result],
) -> None:
    from pwc_local.config import load_settings

    assert cli("call", "get_paper_info", f"paper={SMALL}").exit_code == 0
    cache = load_settings().resolved_cache_dir()
    (cache / "thesis.pdf").write_bytes(b"%PDF")  # a cache directory shared with other files

    dry = cli("uninstall", "--all", "--purge", "--dry-run")
    assert dry.exit_code == 1, dry.output
    assert "would leave the cache" in dry.output or "and leave the cache" in dry.output
    done = cli("uninstall", "--all", "--purge", "--yes")
    assert done.exit_code == 1, done.output
    assert "Left the cache" in done.stderr and (cache / "thesis.pdf").exists()


def test_search_quotes_bold_on_a_terminal_and_markdown_elsewhere() -> None:
    from pwc_local.commands.library import terminal_bold

    quote = "the **scaled** dot-product **attention** of **"
    assert terminal_bold(quote, True) == (
        "the \x1b[1mscaled\x1b[0m dot-product \x1b[1mattention\x1b[0m of **"
    )
    assert terminal_bold(quote, False) == quote
