"""Files written for the user at a path they name never follow a link or clobber (issue 34, F1, F2).

`private_files.write_file` itself, then each command that writes such a file: `sota
--plot`, `table --bib`, `library export --output` and `install` (a client's config file). A link
another user planted in a shared directory must not turn the write into one of the
victim's files; an existing file is replaced only with `--force`; a link never, even
then. On main `--plot` wrote through the link and replaced files without asking, and
`export --output --force` replaced the link's target.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from pwc_local.private_files import EXISTS, LINK, TargetRefused, write_file
from tests.fake_catalog import FakeCatalog, HistoryBoards

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX links and modes")

VICTIM_TEXT = "the victim's own file\n"


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A directory anyone may write (like /tmp or a team's project), with a victim file
    elsewhere and a link to it planted in the shared directory."""
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT, encoding="utf-8")
    return folder


def _plant(folder: Path, name: str) -> Path:
    link = folder / name
    link.symlink_to(folder.parent / "victim.txt")
    return link


def _victim(folder: Path) -> str:
    return (folder.parent / "victim.txt").read_text(encoding="utf-8")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# -- the helper ----------------------------------------------------------------------------


@posix_only
@pytest.mark.parametrize("replace", [False, True])
def test_a_link_at_the_name_is_refused_and_its_target_untouched(
    shared: Path, replace: bool
) -> None:
    link = _plant(shared, "out.bin")
    with pytest.raises(TargetRefused) as refused:
        write_file(link, b"payload", replace=replace)
    assert refused.value.kind == LINK and str(link) in str(refused.value)
    assert "symbolic link" in str(refused.value)
    assert _victim(shared) == VICTIM_TEXT and link.is_symlink()
    dangling = shared / "dangling.bin"
    dangling.symlink_to(shared.parent / "would-be-created.txt")
    with pytest.raises(TargetRefused):
        write_file(dangling, b"payload", replace=replace)
    assert not (shared.parent / "would-be-created.txt").exists()
    assert _leftovers(shared) == []


@posix_only
def test_an_existing_file_is_replaced_only_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    assert write_file(target, b"first") is False
    assert target.read_bytes() == b"first"
    os.chmod(target, 0o640)
    with pytest.raises(TargetRefused) as refused:
        write_file(target, b"second")
    assert refused.value.kind == EXISTS and "--force" in str(refused.value)
    assert target.read_bytes() == b"first"
    assert write_file(target, b"second", replace=True) is True
    assert target.read_bytes() == b"second"
    assert (target.stat().st_mode & 0o777) == 0o640  # the replaced file's mode is kept
    assert _leftovers(tmp_path) == []


@posix_only
def test_a_name_taken_while_writing_is_not_clobbered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the first look at the name and the rename, another process creates it."""
    target = tmp_path / "out.txt"
    real_fsync = os.fsync

    def fsync_then_race(fd: int) -> None:
        real_fsync(fd)
        if not target.exists():
            target.write_text("theirs", encoding="utf-8")

    monkeypatch.setattr(os, "fsync", fsync_then_race)
    with pytest.raises(TargetRefused):
        write_file(target, b"ours")
    assert target.read_text(encoding="utf-8") == "theirs"
    assert _leftovers(tmp_path) == []


# -- the commands ----------------------------------------------------------------------------


@posix_only
def test_export_never_writes_through_a_planted_link(
    shared: Path, cli: Callable[..., Result]
) -> None:
    link = _plant(shared, "library.bib")
    for extra in ([], ["--force"]):
        done = cli("library", "export", "--output", str(link), *extra)
        assert done.exit_code == 1, done.output
        assert str(link) in done.stderr and "symbolic link" in done.stderr, done.stderr
        assert _victim(shared) == VICTIM_TEXT
    fresh = shared / "fresh.bib"
    assert cli("library", "export", "--output", str(fresh)).exit_code == 0
    again = cli("library", "export", "--output", str(fresh))
    assert again.exit_code == 1 and "--force" in again.stderr
    assert cli("library", "export", "--output", str(fresh), "--force").exit_code == 0
    assert _leftovers(shared) == []


def _written_for_the_user(
    shared: Path,
    fake: FakeCatalog,
    cli: Callable[..., Result],
    command: tuple[str, ...],
    name: str,
) -> bytes:
    """`command PATH` (its option last) at a planted link, refused with and without
    `--force` before any request; at an existing file, refused without `--force` and
    replaced with it. Returns what was written."""
    link = _plant(shared, name)
    for extra in ([], ["--force"]):
        done = cli(*command, str(link), *extra)
        assert done.exit_code == 1, done.output
        assert str(link) in done.stderr and "symbolic link" in done.stderr, done.stderr
        assert link.is_symlink() and _victim(shared) == VICTIM_TEXT
    assert not fake.requests  # refused before any page was read

    existing = shared / f"mine-{name}"
    existing.write_text("keep me", encoding="utf-8")
    kept = cli(*command, str(existing))
    assert kept.exit_code == 1 and "--force" in kept.stderr, kept.stderr
    assert existing.read_text(encoding="utf-8") == "keep me"
    replaced = cli(*command, str(existing), "--force")
    assert replaced.exit_code == 0, replaced.output
    assert _leftovers(shared) == []
    return existing.read_bytes()


@posix_only
@pytest.mark.e2e  # matplotlib may start a process (fonts)
def test_the_chart_never_writes_through_a_link_nor_over_a_file_without_force(
    shared: Path, fake_catalog: FakeCatalog, cli: Callable[..., Result]
) -> None:
    pytest.importorskip("matplotlib")
    fake_catalog.apply(HistoryBoards())
    command = ("sota", "Vision", "History", "--plot")
    chart = _written_for_the_user(shared, fake_catalog, cli, command, "chart.png")
    assert chart[:8] == b"\x89PNG\r\n\x1a\n"


@posix_only
def test_the_bib_never_replaces_a_link_nor_a_file_without_force(
    shared: Path, fake_catalog: FakeCatalog, cli: Callable[..., Result]
) -> None:
    """`table --bib`: on main `--force` replaced a planted link with the file (its own
    writer beside write_file)."""
    fake_catalog.apply(HistoryBoards())
    command = ("table", "Vision", "History", "--bib")
    assert b"@" in _written_for_the_user(shared, fake_catalog, cli, command, "refs.bib")


@posix_only
def test_install_does_not_follow_a_link_in_a_shared_project(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project directory others may write: its `.cursor/mcp.json` link is not ours."""
    from click.testing import CliRunner

    from pwc_local.cli import main

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    folder = shared / ".cursor"
    folder.mkdir()
    os.chmod(folder, 0o777)
    link = _plant(folder, "mcp.json")
    os.rename(folder.parent.parent / "victim.txt", folder.parent / "victim.txt")
    done = CliRunner().invoke(main, ["install", "cursor", "--project", str(shared)])
    assert done.exit_code == 1, done.output
    assert str(link) in done.output and "symbolic link" in done.output, done.output
    assert _victim(folder) == VICTIM_TEXT
