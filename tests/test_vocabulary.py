"""The completion vocabulary store: matching, persistence, and never blocking a caller."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pwc_local.common.shelf import SavedPaper
from pwc_local.config import Settings
from pwc_local.runtime import LazyRuntime, Runtime
from pwc_local.server.completions import suggestions
from pwc_local.store import vocabulary
from pwc_local.store.library import Library
from pwc_local.store.vocabulary import PAPER, TASK, Name, Vocabulary

_NO_CATALOG: Any = None  # one-character prefixes never ask the catalog
ATTENTION = Name("Attention Is All You Need", "1706.03762")
RESNET = Name("Deep Residual Learning for Image Recognition", "1512.03385")


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    with Library.open(tmp_path / "library") as opened:
        yield opened


def written(library: Library, kind: str, prefix: str) -> list[str]:
    """What a fresh process finds on disk for `prefix` (nothing queued in it)."""
    reader = Vocabulary(library.path)
    try:
        return [name.ident for name in reader.lookup(kind, prefix)]
    finally:
        reader.close()


def test_names_are_found_by_id_title_or_word_prefix_and_kept_on_disk(library: Library) -> None:
    store = Vocabulary(library.path)
    store.note(PAPER, [ATTENTION, RESNET])
    assert store.lookup(PAPER, "1706") == [ATTENTION]  # queued: found before it is written
    store.close()
    assert written(library, PAPER, "1706") == ["1706.03762"]
    assert written(library, PAPER, "ATTEN") == ["1706.03762"]
    assert written(library, PAPER, "residual learn") == ["1512.03385"]
    assert sorted(written(library, PAPER, "")) == ["1512.03385", "1706.03762"]
    assert written(library, TASK, "1706") == []  # kinds are apart


def test_like_wildcards_in_the_prefix_match_only_themselves(library: Library) -> None:
    store = Vocabulary(library.path)
    store.note(TASK, [Name("100% Accuracy", "a"), Name("Image Classification", "b")])
    store.close()
    assert written(library, TASK, "%") == []
    assert written(library, TASK, "100%") == ["a"]
    assert written(library, TASK, "_") == []


def test_an_id_alone_never_replaces_a_title_seen_before(library: Library) -> None:
    store = Vocabulary(library.path)
    store.note(PAPER, [ATTENTION])
    store.close()
    later = Vocabulary(library.path)
    later.note(PAPER, [Name("1706.03762", "1706.03762")])  # read_paper shows no title
    later.close()
    assert written(library, PAPER, "atten") == ["1706.03762"]


def test_recent_names_rank_first_and_each_kind_is_bounded(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vocabulary, "MAX_NAMES", 3)
    clock = iter(range(100, 200))
    store = Vocabulary(library.path, clock=lambda: float(next(clock)))
    for index in range(5):
        store.note(TASK, [Name(f"Task {index}", f"task-{index}")])
        store.close()  # one write each, in order
        store = Vocabulary(library.path, clock=lambda: float(next(clock)))
    assert written(library, TASK, "task") == ["task-4", "task-3", "task-2"]


def test_a_locked_database_never_holds_up_note_or_lookup(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vocabulary, "RETRY_SECONDS", 0.05)
    other = sqlite3.connect(str(library.path), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's long write
    store = Vocabulary(library.path)
    done = threading.Event()

    def note_and_look() -> None:
        store.note(PAPER, [ATTENTION])
        assert store.lookup(PAPER, "1706") == [ATTENTION]
        done.set()

    threading.Thread(target=note_and_look, daemon=True).start()
    assert done.wait(5), "note or lookup waited for the lock"
    other.execute("COMMIT")
    other.close()
    store.close()  # the writer tries again and gets through
    assert written(library, PAPER, "1706") == ["1706.03762"]


def test_a_read_only_database_skips_writing_and_keeps_the_names_in_memory(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect = vocabulary._connect

    def read_only(path: Path, wait_ms: int) -> sqlite3.Connection | None:
        db = connect(path, wait_ms)  # as a read-only mount would open it (root ignores modes)
        assert db is not None
        db.execute("PRAGMA query_only = ON")
        return db

    monkeypatch.setattr(vocabulary, "_connect", read_only)
    store = Vocabulary(library.path)
    store.note(PAPER, [ATTENTION])
    store.close()
    assert store.lookup(PAPER, "atten") == [ATTENTION]
    monkeypatch.undo()
    assert written(library, PAPER, "atten") == []


def test_forget_drops_every_name(library: Library) -> None:
    store = Vocabulary(library.path)
    store.forget()  # no table yet: nothing to do
    store.note(PAPER, [ATTENTION])
    store.close()
    Vocabulary(library.path).forget()
    assert written(library, PAPER, "1706") == []


@pytest.mark.anyio
async def test_saved_papers_come_before_names_seen_later(library: Library) -> None:
    library.save(
        SavedPaper(RESNET.ident, RESNET.label, True, {}, {}, markdown=None, content_version=None)
    )
    store = Vocabulary(library.path)
    store.note(PAPER, [RESNET])
    store.note(PAPER, [ATTENTION])  # seen later: first among the names seen
    settings = Settings()
    runtime = Runtime(settings, catalog=_NO_CATALOG, library=library, vocabulary=store)
    lazy = LazyRuntime(settings, builder=lambda _settings: runtime)
    try:
        assert await suggestions(lazy, PAPER, "1", identifiers=True) == [
            RESNET.ident,
            ATTENTION.ident,
        ]
        assert await suggestions(lazy, PAPER, "", identifiers=True) == [
            RESNET.ident,
            ATTENTION.ident,
        ]
    finally:
        store.close()
