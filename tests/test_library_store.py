"""The library store: saves are whole, private, verified; the index finds passages and heals."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from pwc_local.common.cursors import CursorCodec
from pwc_local.common.shelf import MAX_QUOTE_CHARS, LibraryError, SavedPaper
from pwc_local.contract import CHUNK_BYTES as PIECE_BYTES
from pwc_local.queries.library_search import query_words, search_library
from pwc_local.store.library import Library
from pwc_local.store.markdown_chunks import cut
from pwc_local.store.passages import split_passages
from pwc_local.store.saved_pieces import digest
from pwc_local.upstream.errors import NotFound, UsageError

VERSION = "ab" * 32
DOC = (
    "# Attention Is All You Need\n\nWe propose the Transformer.\n\n"
    "## 3 Model Architecture\n\n### 3.2 Attention\n\nScaled dot-product attention "
    "divides by the square root of the key dimension.\n\n```\n# not a heading\n```\n\n"
    "## 6 Résultats\n\nBLEU improves on WMT 2014 — naïve baselines lose.\n"
)


def paper(paper_id: str = "1706.03762", markdown: str | None = DOC, **extra: object) -> SavedPaper:
    fields: dict[str, object] = {
        "paper": paper_id,
        "title": "Attention Is All You Need",
        "in_catalog": True,
        "metadata": {"id": "755", "arxiv_id": paper_id},
        "citation": {"key": "vaswani2017attention"},
        "markdown": markdown,
        "content_version": VERSION if markdown else None,
        "aliases": ("755", "Attention Is All You Need"),
    }
    fields.update(extra)
    return SavedPaper(**fields)  # type: ignore[arg-type]


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library.open(tmp_path / "data")
    yield lib
    lib.close()


def test_files_are_private_and_a_shared_directory_is_refused(tmp_path: Path) -> None:
    with Library.open(tmp_path / "data") as lib:
        lib.save(paper())
    assert stat.S_IMODE(os.stat(tmp_path / "data").st_mode) == 0o700
    for name in os.listdir(tmp_path / "data"):
        assert stat.S_IMODE(os.stat(tmp_path / "data" / name).st_mode) == 0o600, name
    os.chmod(tmp_path / "data", 0o755)
    with pytest.raises(LibraryError, match="chmod 700"):
        Library.open(tmp_path / "data")


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and symbolic links as POSIX has them")
def test_a_database_path_that_is_no_private_file_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO (which would block an open) or a link at the database's path: a clear
    refusal naming the file, never a hang or a database opened elsewhere."""
    from pwc_local.store.library_db import DB_FILE_NAME

    fifo_home, link_home = tmp_path / "fifo", tmp_path / "link"
    for home in (fifo_home, link_home):
        home.mkdir(mode=0o700)
    os.mkfifo(fifo_home / DB_FILE_NAME, 0o600)
    with pytest.raises(LibraryError, match="not a regular file"):
        Library.open(fifo_home)
    elsewhere = tmp_path / "elsewhere.sqlite3"
    with Library.open(tmp_path / "real") as lib:
        lib.save(paper())
    os.rename(tmp_path / "real" / DB_FILE_NAME, elsewhere)
    os.symlink(elsewhere, link_home / DB_FILE_NAME)
    with pytest.raises(LibraryError, match="symbolic link"):
        Library.open(link_home)


def test_save_get_list_remove_by_any_alias(library: Library) -> None:
    library.save(paper())
    assert library.get("  attention is ALL you need ").paper == "1706.03762"  # type: ignore[union-attr]
    got = library.get("755")
    assert got is not None and got.markdown == DOC and got.content_version == VERSION
    [entry] = library.entries()
    assert entry.paper == "1706.03762" and entry.size == len(DOC.encode()) and entry.has_markdown
    assert library.remove("755") == "1706.03762"
    assert library.get("1706.03762") is None and library.entries() == []
    assert library.search(["transformer"], limit=5) == []
    assert library.remove("755") is None


def _tamper(library: Library, sql: str, *params: object) -> None:
    db = sqlite3.connect(library.path)
    db.execute(sql, params)
    db.commit()
    db.close()


def test_a_tampered_saved_paper_is_not_served(library: Library) -> None:
    library.save(paper())
    _tamper(library, "UPDATE saved_pieces SET text = 'something else'")
    assert library.get("1706.03762") is None
    assert library.read("1706.03762", offset=0, limit=100, content_version=None) is None
    assert library.entry("1706.03762") is not None  # the seal holds: only the text is bad


def test_read_cuts_on_character_boundaries_and_pins_the_version(library: Library) -> None:
    library.save(paper())
    data = DOC.encode()
    pieces, offset = [], 0
    while True:
        found = library.read("1706.03762", offset=offset, limit=7, content_version=VERSION)
        assert found is not None and found.chunk is not None
        chunk = found.chunk
        pieces.append(chunk.text)
        if not chunk.truncated:
            break
        assert chunk.next_offset is not None
        offset = chunk.next_offset
    assert "".join(pieces).encode() == data
    other = library.read("1706.03762", offset=0, limit=7, content_version="cd" * 32)
    assert other is not None and other.has_markdown and other.chunk is None
    assert cut("é".encode(), VERSION, 0, 1).text == "é"  # a character longer than the limit


def _long_document() -> str:
    """Several pieces of Markdown, multi-byte characters on and around every piece edge."""
    line = "Plain words, then λ, 語, 🧬 and ∑ on one line of a long paper.\n"
    body = "".join(f"## Part {n}\n\n" + line * 40 for n in range(400))
    return "# A Long Paper\n\n" + body


@pytest.mark.parametrize("given_as", ["one string", "the catalog's chunks"])
def test_pieces_by_offset_match_the_whole_document(library: Library, given_as: str) -> None:
    text = _long_document()
    data = text.encode()
    assert len(data) > 4 * PIECE_BYTES
    markdown: str | list[bytes] = text
    if given_as != "one string":
        markdown, offset = [], 0
        while offset < len(data):
            chunk = cut(data, VERSION, offset, 50_000)
            markdown.append(chunk.text.encode())
            offset = chunk.next_offset or len(data)
    assert library.save(paper(markdown=markdown))
    assert library.entry("755").size == len(data)  # type: ignore[union-attr]
    for offset in (
        0,
        1,
        2,
        49_999,
        PIECE_BYTES - 1,
        PIECE_BYTES,
        3 * PIECE_BYTES + 5,
        len(data) - 3,
    ):
        for limit in (1, 7, 4096, PIECE_BYTES):
            found = library.read("1706.03762", offset=offset, limit=limit, content_version=VERSION)
            assert found is not None
            assert found.chunk == cut(data, VERSION, offset, limit), (offset, limit)
    past = library.read("1706.03762", offset=len(data), limit=10, content_version=None)
    assert past is not None and past.chunk == cut(data, VERSION, len(data), 10)
    got = library.get("1706.03762")
    assert got is not None and got.markdown == text


def test_verification_catches_one_corrupted_piece_of_a_long_paper(library: Library) -> None:
    library.save(paper(markdown=_long_document()))
    db = sqlite3.connect(library.path)
    [(second,)] = db.execute("SELECT start FROM saved_pieces ORDER BY start LIMIT 1 OFFSET 1")
    db.close()
    _tamper(
        library,
        "UPDATE saved_pieces SET text = replace(text, 'Plain', 'Plane') WHERE start = ?",
        second,
    )
    first = library.read("1706.03762", offset=0, limit=1000, content_version=VERSION)
    assert first is not None and first.chunk is not None  # an intact piece is still served
    assert library.read("1706.03762", offset=second + 5, limit=10, content_version=None) is None
    assert library.get("1706.03762") is None
    _tamper(library, "UPDATE saved_pieces SET digest = 'x' WHERE start = 0")
    assert library.read("1706.03762", offset=0, limit=10, content_version=None) is None
    assert library.entry("1706.03762") is None  # the seal no longer holds
    assert library.save(paper(markdown=DOC))  # and a new save replaces the broken copy
    assert library.get("755").markdown == DOC  # type: ignore[union-attr]


_SCHEMA_1_PAPERS = """CREATE TABLE papers (
    paper TEXT PRIMARY KEY, title TEXT NOT NULL, in_catalog INTEGER NOT NULL,
    metadata TEXT NOT NULL, citation TEXT NOT NULL, markdown TEXT, content_version TEXT,
    digest TEXT NOT NULL, saved_at REAL NOT NULL
)"""


def test_a_library_of_schema_1_is_moved_into_pieces(tmp_path: Path) -> None:
    directory = tmp_path / "data"
    directory.mkdir(mode=0o700)
    db = sqlite3.connect(directory / "library.sqlite3")
    db.execute(_SCHEMA_1_PAPERS)
    db.execute("CREATE TABLE aliases (alias TEXT PRIMARY KEY, paper TEXT NOT NULL)")
    db.execute("INSERT INTO aliases VALUES ('1706.03762', '1706.03762')")
    old = json.dumps(
        [{"id": "755"}, {"key": "v"}, DOC, VERSION], sort_keys=True, ensure_ascii=False
    )
    db.execute(
        "INSERT INTO papers VALUES (?,?,?,?,?,?,?,?,?)",
        ("1706.03762", "Attention", 1, '{"id": "755"}', '{"key": "v"}', DOC, VERSION,
         digest(old), 1.0),
    )  # fmt: skip
    db.commit()
    db.close()
    os.chmod(directory / "library.sqlite3", 0o600)
    with Library.open(directory) as lib:
        found = lib.read("1706.03762", offset=3, limit=50, content_version=VERSION)
        assert found is not None and found.chunk == cut(DOC.encode(), VERSION, 3, 50)
        [entry] = lib.entries()
        assert entry.size == len(DOC.encode()) and entry.has_markdown
    check = sqlite3.connect(directory / "library.sqlite3")
    assert check.execute("SELECT layout, markdown FROM papers").fetchall() == [(2, None)]
    assert check.execute("SELECT count(*) FROM saved_pieces").fetchone()[0] == 1


def test_saving_one_paper_under_two_spellings_keeps_both(library: Library) -> None:
    # Two `library add`s of one paper: each checked first, then saved; the second
    # save must not replace the first (which would drop its spelling).
    assert library.save(paper(aliases=("arXiv:1706.03762v5",)))
    assert not library.save(paper(aliases=("https://arxiv.org/abs/1706.03762",)))
    assert library.resolve("arxiv:1706.03762v5") == "1706.03762"
    assert library.resolve("https://arxiv.org/abs/1706.03762") == "1706.03762"


def test_a_refresh_replaces_the_copy_and_its_passages_and_keeps_what_the_user_gave(
    library: Library,
) -> None:
    source = {"key": "vaswani2017attention", "entry_type": "inproceedings"}
    assert library.save(paper(aliases=("arXiv:1706.03762v5",), citation=source))
    revised = DOC.replace("square root", "zebracorn root")
    newer = paper(markdown=revised, content_version="cd" * 32, aliases=())
    assert not library.save(newer)  # an ordinary save keeps the copy
    assert library.save(newer, replace=True)
    saved = library.get("1706.03762")
    assert saved is not None and saved.content_version == "cd" * 32
    assert saved.citation["entry_type"] == "inproceedings"  # from the user's BibTeX
    assert library.resolve("arxiv:1706.03762v5") == "1706.03762"
    codec = CursorCodec("k" * 32)
    assert [hit.paper for hit in search_library(library, codec, "zebracorn")] == ["1706.03762"]
    assert all("square" not in hit.quote for hit in search_library(library, codec, "root"))


def test_passages_carry_heading_paths_and_byte_offsets() -> None:
    passages = split_passages(DOC).passages
    data = DOC.encode()
    for passage in passages:
        assert data[passage.start :].decode().startswith(passage.text)
    headings = [p.heading for p in passages]
    assert "Attention Is All You Need > 3 Model Architecture > 3.2 Attention" in headings
    assert not any("not a heading" in h for h in headings)
    # A piece continues under the headings open at the end of the previous one.
    cut_at = DOC.index("Scaled")
    first = split_passages(DOC[:cut_at])
    second = split_passages(DOC[cut_at:], base=len(DOC[:cut_at].encode()), headings=first.headings)
    assert second.passages[0].heading.endswith("3.2 Attention")
    assert second.passages[0].start == len(DOC[:cut_at].encode())


def test_search_ranks_marks_and_survives_any_punctuation(library: Library) -> None:
    library.save(paper())
    codec = CursorCodec("k" * 32)
    [hit, *_] = search_library(library, codec, "square root", now=1000.0)
    assert hit.section.endswith("3.2 Attention") and hit.saved
    assert "**square**" in hit.quote and "**root**" in hit.quote and len(hit.quote) <= 300
    assert DOC.encode()[hit.offset :].startswith(b"### 3.2 Attention")
    state = codec.verify(hit.cursor or "", reference="1706.03762", now=1000.0)
    assert (state.offset, state.version, state.paper) == (hit.offset, VERSION, "1706.03762")
    for hostile in ['"', "*", "NEAR(a b)", "-attention", "a OR", "'; DROP TABLE papers; --", "^"]:
        search_library(library, codec, hostile)  # never an error
    assert search_library(library, codec, "résultats naive")[0].section.endswith("Résultats")
    with pytest.raises(UsageError):
        search_library(library, codec, "   ")
    with pytest.raises(NotFound):
        search_library(library, codec, "attention", paper="2401.99999")
    assert search_library(library, codec, "attention", paper="755")
    assert query_words('"Self-attention" NEAR/3 *') == ["self", "attention", "near", "3"]


def test_any_word_is_the_fallback_when_no_passage_has_all(library: Library) -> None:
    library.save(paper())
    hits = search_library(library, None, "square zebra")
    assert hits and "**square**" in hits[0].quote and hits[0].cursor is None


def test_read_chunks_are_indexed_and_continue_offline(library: Library) -> None:
    data = DOC.encode()
    middle = DOC.index("Scaled")
    split = len(DOC[:middle].encode())
    library.index_chunk("2401.00001", VERSION, start=0, text=DOC[:middle], final=False)
    library.index_chunk("2401.00001", VERSION, start=split, text=DOC[middle:], final=True)
    [hit] = search_library(library, None, "dimension", paper="2401.00001")
    assert not hit.saved and hit.section.endswith("3.2 Attention")
    assert hit.title == "Attention Is All You Need"  # from the first heading
    piece = library.read_indexed("2401.00001", offset=3, limit=100_000, content_version=VERSION)
    assert piece is not None and piece.truncated and piece.next_offset == split
    assert piece.text.encode() == data[3:split]


def test_a_damaged_index_is_rebuilt_from_the_stored_markdown(library: Library) -> None:
    library.save(paper())
    library.index_chunk("2401.00001", VERSION, start=0, text="A passage about zebras.", final=True)
    db = sqlite3.connect(library.path)
    db.execute("DELETE FROM passages_fts_data WHERE id > 1")  # wreck the FTS5 b-tree
    db.commit()
    db.close()
    assert not library.check_index()
    assert search_library(library, None, "zebras")  # rebuilt, then answered
    assert search_library(library, None, "square root")
    assert library.check_index()


def _save_many(directory: str, start: int) -> None:
    with Library.open(Path(directory)) as lib:
        for n in range(start, start + 20):
            lib.save(paper(f"2401.{n:05d}", markdown=f"# Paper {n}\n\nword{n} shared text\n"))


@pytest.mark.e2e  # starts processes
def test_several_processes_saving_at_once_lose_nothing(tmp_path: Path) -> None:
    directory = str(tmp_path / "data")
    Library.open(Path(directory)).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_save_many, args=(directory, s)) for s in (0, 100, 200)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    with Library.open(Path(directory)) as lib:
        assert lib.count() == 60
        assert len(lib.search(["shared"], limit=25)) == 25
        assert lib.search(["word205"], limit=5)[0].paper == "2401.00205"


def test_without_fts5_search_falls_back_to_a_substring_scan(library: Library) -> None:
    library.save(paper())
    library.has_fts = False  # as on a SQLite built without FTS5
    [hit, *_] = search_library(library, None, "square root")
    assert hit.section.endswith("3.2 Attention")
    assert "**square**" in hit.quote and "**root**" in hit.quote
    assert search_library(library, None, '100% _wild_ "cards"') == []
    assert search_library(library, None, "zebra square")[0].section.endswith("3.2 Attention")


def test_heading_paths_and_titles_in_hits_are_bounded_like_quotes(library: Library) -> None:
    outer = "Outer " * 20_000
    document = f"# {outer}\n\n## Method\n\n### 3.2 Inner\n\nThe needle is here.\n"
    library.save(paper(markdown=document, title="T" * 70_000))
    [hit] = library.search(["needle"], limit=5)
    assert len(hit.heading) <= MAX_QUOTE_CHARS and len(hit.title) <= MAX_QUOTE_CHARS
    assert hit.heading == "… > Method > 3.2 Inner"
    library.save(paper("2401.00001", markdown=f"# {'Inner ' * 100}\n\nA needle.\n"))
    [hit] = library.search(["needle"], limit=5, paper="2401.00001")
    assert len(hit.heading) == MAX_QUOTE_CHARS and hit.heading.endswith("…")


def test_a_listing_bounds_titles_whatever_the_catalog_sent(library: Library) -> None:
    library.save(paper(title="A\nvery long title " * 5_000))
    [listed] = library.entries()
    entry = library.entry("1706.03762")
    assert entry is not None and entry.title == listed.title
    assert len(listed.title) == MAX_QUOTE_CHARS and listed.title.startswith("A very long title")


def test_a_paper_being_saved_is_not_indexed_as_read_meanwhile(library: Library) -> None:
    # save() indexes it once, from its pieces; its chunks read meanwhile would be a
    # second copy of every passage, deleted again by save().
    with library.saving("2401.00002"):
        library.index_chunk("2401.00002", VERSION, start=0, text="# T\n\nA needle.\n", final=True)
    assert library.search(["needle"], limit=5) == []
    library.index_chunk("2401.00002", VERSION, start=0, text="# T\n\nA needle.\n", final=True)
    assert [hit.paper for hit in library.search(["needle"], limit=5)] == ["2401.00002"]


def test_learned_facts_and_read_papers_stay_within_their_bounds(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spellings, query parameters and read papers each keep only the newest rows."""
    import pwc_local.store.library as library_module

    monkeypatch.setattr(library_module, "MAX_KNOWN_ALIASES", 3)
    monkeypatch.setattr(library_module, "MAX_READ_DOCUMENTS", 2)
    for n in range(5):
        library.learn_aliases(f"2401.0000{n}", [f"alias {n}"])
        library.learn_query(f"key {n}", f'{{"q": {n}}}')
    assert [library.canonical(f"alias {n}") for n in range(5)] == [
        None,
        None,
        "2401.00002",
        "2401.00003",
        "2401.00004",
    ]
    assert [library.known_query(f"key {n}") for n in range(5)] == [
        None,
        None,
        '{"q": 2}',
        '{"q": 3}',
        '{"q": 4}',
    ]
    for n in range(3):
        paper = f"2402.0000{n}"
        library.index_chunk(paper, VERSION, start=0, text=f"Passage {n} on zebras.", final=True)
    found = [
        library.read_indexed(f"2402.0000{n}", offset=0, limit=100, content_version=VERSION)
        for n in range(3)
    ]
    assert [chunk is not None for chunk in found] == [False, True, True]
