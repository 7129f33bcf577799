"""The reading library: saved papers and a full-text index of everything read, on disk.

Two kinds of paper live here, in one SQLite database (`library.sqlite3` in the
app's platformdirs user *data* directory, on Linux `~/.local/share/pwc-mcp-local`):

* **saved** papers: metadata, citation fields and the complete Markdown (in the
  chunks it was read in, with its content version), kept until `remove()`. This is user
  data, not cache: the cache's size bound never evicts it and `cache clear` never
  touches it, because it lives in another directory.
* **read** papers: Markdown chunks that passed through the caching catalog, kept
  (with their text) only so that search can find them and point into them. At most
  `MAX_READ_DOCUMENTS` of them are kept; the least recently read go first.

Both feed one FTS5 index of passages (`pwc_local.store.passages` cuts them,
`passage_index` holds and searches them): heading path, text, and the byte offset a
`read_paper` cursor can continue from.

Guarantees, and how they are kept:

* *All or nothing.* A paper is written in one transaction, after all of its chunks
  were fetched, so a killed `library add` leaves either the whole paper or no row
  at all: nothing half-saved is ever listed. The same transaction checks whether
  the paper is saved already (then it only learns the new spellings), so two
  processes saving one paper under two spellings keep both.
* *Several processes at once.* SQLite in WAL mode: writers queue (`BEGIN
  IMMEDIATE`), readers never block; nothing written is lost. Within a process one
  connection is shared behind a lock, so worker threads may call in. A write waits
  for another process's write lock in short tries (`_write`) and releases the
  connection between them, so this process's reads (search, list, a saved paper)
  answer while a `library add` elsewhere writes. A save gives up after
  `SAVE_WAIT` with `LibraryBusy` (`library_busy:`, "try again"), having written
  nothing; what the serving path only learns on the side (aliases, the index of
  read papers) gives up after `LEARN_WAIT` and is learnt next time.
* *Never serve a corrupt entry.* A saved paper's Markdown is stored as the pieces it
  came in (the catalog's 64 KiB chunks), each with a BLAKE2b digest, and the paper's
  row is sealed by one digest over its metadata, version, size and the pieces'
  digests (`saved_pieces`). A read checks the seal (a few KiB of digests, whatever
  the paper's size) and the digests of the one or two pieces it serves, so the byte
  offset `read_paper` asks for is served without loading the rest of the document; a
  mismatch is reported as missing. The seal is checked once per database state (a
  walk through a long paper's chunks checks it once). A damaged search index (FTS5
  reports corruption, or any `sqlite3.DatabaseError` on a query) is rebuilt from
  the stored Markdown and the query retried once; it is never served.
* *Read even when it cannot be written.* On a full disk, a read-only mount or a
  read-only file the database is opened read-only (`Library.read_only` says why):
  listing, search and reading work; saving and removing raise `LibraryError` with
  the reason, and what reading would teach the index is skipped.
* *Private.* The directory is created 0700 and the database 0600 (SQLite gives its
  `-wal`/`-shm` files the database's mode); a directory that other users can reach
  is refused with the `chmod` that fixes it (`library_db`, on `private_files`).

Where SQLite was built without FTS5 (rare on current Python builds), the library
still saves, lists and serves papers, and search falls back to a substring scan
of the passages (`LIKE`), ranked by how many query words a passage holds: slower
and cruder, but it answers. `Library.has_fts` says which one is in use.

Nothing here logs references, queries or text.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pwc_local.common.shelf import (
    LibraryBusy,
    LibraryEntry,
    LibraryFull,
    LibraryReadOnly,
    RawHit,
    SavedPaper,
    shown_title,
)
from pwc_local.config import format_size
from pwc_local.store.library_db import (
    DB_FILE_NAME,
    WRITER_PRAGMAS,
    Unwritable,
    connect,
    default_library_dir,
    ensure_private_dir,
    ensure_private_file,
    is_locked,
    unwritable_error,
    unwritable_or_broken,
    unwritable_reason,
)
from pwc_local.store.library_schema import open_read_only, prepare, reindex
from pwc_local.store.markdown_chunks import LocalChunk, cut
from pwc_local.store.passage_index import (
    check_index,
    fts_search,
    index_passages,
    like_search,
    search_terms,
)
from pwc_local.store.passages import Headings, split_passages
from pwc_local.store.saved_pieces import (
    LAYOUT_PIECES,
    SavedRow,
    chunk_of,
    digest,
    pieces_around,
    seal,
    store_pieces,
    texts,
    verified,
)

log = logging.getLogger(__name__)

# SQLite's own wait for a lock, per statement: short, so a waiting write never keeps
# the shared connection (and this process's reads) for long; `_write` retries.
BUSY_TIMEOUT_MS = 50
SAVE_WAIT = 5.0  # seconds a save (or a removal) waits for another process's writes
LEARN_WAIT = 0.25  # seconds a write on the side of a call waits before it is skipped
BUSY_MEMORY = 30.0  # seconds after a save gave up during which writes try only once
MAX_READ_DOCUMENTS = 2_000
MAX_KNOWN_ALIASES = 50_000
MAX_SEALED = 16  # saved papers whose checked seal a process remembers (`_verified_once`)
# Free disk a save needs per byte of Markdown, measured (a 293 KiB paper: 0.94 MB): the
# text is stored twice (the pieces, and the passages the index points into) plus the
# index, about 3.2 bytes a byte, all in the WAL before the commit. The checkpoint copies
# it into the database later, in free pages or, failing those, as the file grows.
SAVE_SPACE_FACTOR = 4
SAVE_SPACE_MARGIN = 256 * 1024  # the WAL's index and the rows beside the Markdown


# Per library file: the papers `Library.saving` holds (see `Library.__init__`).
_SAVING: dict[str, set[str]] = {}
_SAVING_LOCK = threading.Lock()


@dataclass(frozen=True)
class SavedRead:
    """What a read of a saved paper's Markdown found (`Library.read`).

    `chunk` is the piece asked for; `None` when the paper has no Markdown
    (`has_markdown` false) or was saved at another version than the one asked for.
    """

    in_catalog: bool
    has_markdown: bool
    chunk: LocalChunk | None
    saved_at: float = 0.0


def alias_key(text: str) -> str:
    """How an alias is compared: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


class Library:
    """The library database of one process (see the module docstring).

    Open with `Library.open()`; every method may block on disk or on another
    process's write, so async callers run them in a worker thread.
    """

    def __init__(self, connection: sqlite3.Connection, path: Path, *, has_fts: bool) -> None:
        self._db = connection
        self.path = path
        self.has_fts = has_fts
        self._lock = threading.RLock()
        # Why this library was opened read-only (`open`), or `None` when writable.
        self.read_only: str | None = None
        self._data_version: int | None = None  # for changed_elsewhere
        self._writes = 0  # transactions this connection committed (`_unchanged_since`)
        # Saved papers whose seal was checked, and the database state then: a read of
        # the next chunk of one needs no second check until something is committed.
        self._sealed: dict[str, tuple[tuple[int, int], SavedRow]] = {}
        # Papers being fetched to be saved (`saving`), shared by every `Library` of this
        # file in the process: `library add` saves through one and reads through the
        # runtime's.
        self._saving = _SAVING.setdefault(str(path), set())
        self._busy_until = 0.0  # monotonic; see `_write`
        self._unlearnt: str | None = None  # why learning was last skipped (`_not_learnt`)

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, directory: Path | None = None) -> Library:
        """Open (creating when missing) the library in `directory` or the default one.

        A library that cannot be written (a full disk, a read-only mount or file) is
        opened read-only: listing, search and reading saved papers work, writes
        raise `LibraryError` saying why (`read_only` holds the reason).
        """
        directory = default_library_dir() if directory is None else Path(directory)
        ensure_private_dir(directory)
        path = directory / DB_FILE_NAME
        try:
            ensure_private_file(path)
            return cls._open_writable(path)
        except Unwritable as exc:
            if not path.is_file() or path.stat().st_size == 0:
                raise unwritable_error(
                    exc.reason, f"cannot create the library database {path}: {exc.reason}"
                ) from None
            return cls._open_read_only(path, exc.reason)

    @classmethod
    def _open_writable(cls, path: Path) -> Library:
        try:
            connection = connect(path, BUSY_TIMEOUT_MS, pragmas=WRITER_PRAGMAS)
        except sqlite3.DatabaseError as exc:
            raise unwritable_or_broken(path, exc) from None
        try:
            has_fts = prepare(connection, wait=SAVE_WAIT)
        except sqlite3.DatabaseError as exc:
            connection.close()
            raise unwritable_or_broken(path, exc) from None
        return cls(connection, path, has_fts=has_fts)

    @classmethod
    def _open_read_only(cls, path: Path, reason: str) -> Library:
        """The library opened for reading only, because it cannot be written (`reason`)."""
        connection, has_fts = open_read_only(path, reason, BUSY_TIMEOUT_MS)
        library = cls(connection, path, has_fts=has_fts)
        library.read_only = reason
        return library

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def changed_elsewhere(self) -> bool:
        """Whether another connection (a CLI command, another server) committed a change
        since this was last asked. `True` too when this connection is busy in another
        thread: then nothing can be assumed, and asking costs no wait."""
        with self.unless_busy() as idle:
            if not idle:
                return True
            try:
                version = self._db.execute("PRAGMA data_version").fetchone()[0]
            except sqlite3.Error:
                return True
        changed, self._data_version = version != self._data_version, version
        return changed

    @contextlib.contextmanager
    def unless_busy(self) -> Iterator[bool]:
        """Hold the connection if no other thread is using it (True), else yield False at once.

        Lets an event loop run one indexed read in place, where a worker-thread hop
        would cost more than the read, without ever waiting behind a long write.
        """
        held = self._lock.acquire(blocking=False)
        try:
            yield held
        finally:
            if held:
                self._lock.release()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- saved papers --------------------------------------------------------------------

    def save(
        self,
        paper: SavedPaper,
        responses: Mapping[str, Any] | None = None,
        *,
        replace: bool = False,
    ) -> bool:
        """Store `paper` completely unless it is saved already, in one transaction.

        Returns whether it was stored. A paper saved before (and still verified) is
        kept as it is and learns `paper.aliases` as further spellings: the check and
        the write are one transaction, so two processes saving one paper under two
        spellings keep both. A saved copy that fails verification is replaced, and
        with `replace` (a refresh: the catalog has a newer version) any copy is:
        its spellings stay, its pieces, answers and passages are those of `paper`.

        `responses` maps `response_key(...)` to the catalog JSON documents fetched
        while saving (the paper record, a title search, a public record), so the
        same requests can be answered offline later (`stored_response`).
        """
        try:
            return self._save(paper, responses, replace)
        except LibraryFull:
            # What the failed transaction wrote stays in the WAL until a checkpoint:
            # give the space back now, and say how much a save needs.
            self._shrink_wal()
            raise LibraryFull(self._full_message(_markdown_size(paper))) from None

    def _save(self, paper: SavedPaper, responses: Mapping[str, Any] | None, replace: bool) -> bool:
        saved_at = paper.saved_at or time.time()
        aliases = {alias_key(a) for a in (paper.paper, *paper.aliases) if a.strip()}
        cited = paper.citation
        with self._write() as db:
            if verified(db, paper.paper) is not None:
                if not replace:
                    db.executemany(
                        "INSERT OR IGNORE INTO aliases(alias, paper) VALUES (?, ?)",
                        [(alias, paper.paper) for alias in aliases],
                    )
                    return False
                rows = db.execute("SELECT alias FROM aliases WHERE paper = ?", (paper.paper,))
                aliases.update(str(row[0]) for row in rows)
                old = db.execute("SELECT citation FROM papers WHERE paper = ?", (paper.paper,))
                cited = _with_source_of(old.fetchone()[0], cited)
            self._forget_saved(db, paper.paper)
            for key, document in (responses or {}).items():
                text = json.dumps(document, ensure_ascii=False)
                db.execute(
                    "INSERT OR REPLACE INTO responses(key, paper, body, digest) VALUES (?,?,?,?)",
                    (key, paper.paper, text, digest(text)),
                )
            db.executemany(
                "INSERT OR REPLACE INTO aliases(alias, paper) VALUES (?, ?)",
                [(alias, paper.paper) for alias in aliases],
            )
            doc = self._replace_document(
                db, paper.paper, paper.content_version or "", paper.title, saved=True
            )
            size: int | None = None
            digests: list[str] = []
            if paper.markdown is not None:
                size, digests = store_pieces(db, paper.paper, doc, paper.markdown, paper.title)
            metadata = json.dumps(paper.metadata, ensure_ascii=False)
            citation = json.dumps(cited, ensure_ascii=False)
            db.execute(
                "INSERT INTO papers(paper, title, in_catalog, metadata, citation, markdown, "
                "content_version, digest, saved_at, layout, size) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    paper.paper,
                    paper.title,
                    int(paper.in_catalog),
                    metadata,
                    citation,
                    None,
                    paper.content_version,
                    seal(metadata, citation, paper.content_version, size, digests),
                    saved_at,
                    LAYOUT_PIECES,
                    size,
                ),
            )
        return True

    @contextlib.contextmanager
    def saving(self, paper: str) -> Iterator[None]:
        """While `paper` is fetched to be saved, its chunks are not indexed as read,
        and no saved copy of it answers reads (`is_saving`: a refresh reads the catalog).

        `save` indexes it once, from its pieces; indexing each chunk as it passes
        too would write the whole paper twice (chunks, passages and their index),
        only for `save` to delete the first copy.
        """
        with _SAVING_LOCK:
            self._saving.add(paper)
        try:
            yield
        finally:
            with _SAVING_LOCK:
                self._saving.discard(paper)

    def is_saving(self, paper: str) -> bool:
        """Whether `paper` is being fetched to be saved (`saving`): its reads go to the
        catalog then, not to a saved copy being refreshed."""
        return paper in self._saving  # one set lookup: no lock, so never a wait

    def get(self, reference: str) -> SavedPaper | None:
        """The saved paper `reference` names (canonical ID or alias), verified, or `None`.

        Loads the whole Markdown: for a listing use `entry`, to serve it `read`.
        """
        with self._lock:
            paper = self.resolve(reference)
            row = None if paper is None else verified(self._db, paper)
            if row is None:
                return None
            markdown = row.whole
            if row.size is not None and markdown is None:
                pieces = texts(self._db, row.paper)
                markdown = None if pieces is None else "".join(text for _start, text in pieces)
        try:
            metadata, citation = json.loads(row.metadata), json.loads(row.citation)
        except ValueError:
            metadata = citation = None
        if (
            not isinstance(metadata, dict)
            or not isinstance(citation, dict)
            or (row.size is not None and markdown is None)
        ):
            log.warning("a saved paper failed verification; it is treated as missing")
            return None
        return SavedPaper(
            paper=row.paper,
            title=row.title,
            in_catalog=row.in_catalog,
            metadata=metadata,
            citation=citation,
            markdown=markdown,
            content_version=row.content_version,
            saved_at=row.saved_at,
        )

    def entry(self, reference: str) -> LibraryEntry | None:
        """The listing row of the saved paper `reference` names, verified, or `None`.

        Reads no Markdown (the seal covers its pieces' digests), whatever its size.
        """
        with self._lock:
            paper = self.resolve(reference)
            row = None if paper is None else verified(self._db, paper)
        if row is None:
            return None
        return LibraryEntry(
            paper=row.paper,
            title=shown_title(row.title),
            in_catalog=row.in_catalog,
            has_markdown=row.size is not None,
            size=row.size or 0,
            saved_at=row.saved_at,
            content_version=row.content_version,
        )

    def stored_response(self, key: str) -> tuple[bool, Any]:
        """`(True, document)` for a catalog answer kept with a saved paper, else `(False, None)`."""
        with self._lock:
            row = self._db.execute(
                "SELECT body, digest FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None or digest(row[0]) != row[1]:
            return False, None
        try:
            return True, json.loads(row[0])
        except ValueError:
            return False, None

    def resolve(self, reference: str) -> str | None:
        """The canonical ID of a saved paper that `reference` names exactly, or `None`."""
        key = alias_key(reference)
        if not key:
            return None
        return self._text("SELECT paper FROM aliases WHERE alias = ?", key)

    def learn_aliases(self, paper: str, aliases: Sequence[str]) -> None:
        """Remember that each of `aliases` names `paper` (a paper seen in a catalog answer).

        Only what is new is written, so a repeated answer costs one read and no lock.
        """
        keys = {alias_key(a) for a in aliases if a and alias_key(a) != alias_key(paper)}
        if not keys or self.read_only is not None:
            return
        with self._lock:
            marks = ",".join("?" * len(keys))
            known = {
                row[0]
                for row in self._db.execute(
                    f"SELECT alias FROM known_aliases WHERE paper = ? AND alias IN ({marks})",
                    (paper, *keys),
                )
            }
        if keys <= known:
            return
        try:
            with self._write(LEARN_WAIT) as db:
                db.executemany(
                    "INSERT OR REPLACE INTO known_aliases(alias, paper) VALUES (?, ?)",
                    [(key, paper) for key in keys - known],
                )
                _bound_rows(db, "known_aliases", MAX_KNOWN_ALIASES)
        except LibraryReadOnly as exc:  # learnt on the side: never a failure
            self._not_learnt(exc)

    def learn_query(self, key: str, params: str) -> None:
        """Remember the exact parameters last sent for a request of normalised `key`."""
        if self.read_only is not None:
            return  # a read-only library learns nothing, quietly
        if self.known_query(key) == params:
            return
        try:
            with self._write(LEARN_WAIT) as db:
                db.execute(
                    "INSERT OR REPLACE INTO query_aliases(key, params) VALUES (?, ?)", (key, params)
                )
                _bound_rows(db, "query_aliases", MAX_KNOWN_ALIASES)
        except LibraryReadOnly as exc:  # learnt on the side: never a failure
            self._not_learnt(exc)

    def known_query(self, key: str) -> str | None:
        """The exact parameters (JSON) last sent for normalised `key`, or `None`."""
        return self._text("SELECT params FROM query_aliases WHERE key = ?", key)

    def canonical(self, reference: str) -> str | None:
        """The canonical ID `reference` names among saved papers, then papers seen before."""
        saved = self.resolve(reference)
        if saved is not None:
            return saved
        return self._text("SELECT paper FROM known_aliases WHERE alias = ?", alias_key(reference))

    def _text(self, query: str, key: str) -> str | None:
        """The one column `query` selects for `key`, as text; `None` when no row has it."""
        with self._lock:
            row = self._db.execute(query, (key,)).fetchone()
        return None if row is None else str(row[0])

    def saved_markdown_bytes(self, reference: str) -> int | None:
        """The UTF-8 size of the saved Markdown `reference` names; `None` when there is none."""
        row = self._saved_row(reference, "COALESCE(size, length(CAST(markdown AS BLOB)))")
        return None if row is None or row[0] is None else int(row[0])

    def _saved_row(self, reference: str, columns: str) -> tuple[Any, ...] | None:
        """`columns` (SQL, written by this class) of the saved paper `reference` names."""
        with self._lock:
            paper = self.resolve(reference)
            if paper is None:
                return None
            row: tuple[Any, ...] | None = self._db.execute(
                f"SELECT {columns} FROM papers WHERE paper = ?", (paper,)
            ).fetchone()
        return row

    def remove(self, reference: str) -> str | None:
        """Forget a saved paper; returns its canonical ID, or `None` when it was not saved."""
        with self._write() as db:
            row = db.execute(
                "SELECT paper FROM aliases WHERE alias = ?", (alias_key(reference),)
            ).fetchone()
            if row is None:
                return None
            paper = str(row[0])
            self._forget_saved(db, paper)
        return paper

    def forget_reading(self) -> int:
        """Drop what was learned from reading, not saving: passages, spellings, queries.

        Saved papers (with their own passages and aliases) stay. Returns how many read
        papers' passages were dropped. `cache clear` calls this: what a session read
        is cache, not library.
        """
        with self._write() as db:
            dropped = db.execute("DELETE FROM documents WHERE saved = 0").rowcount
            db.execute("DELETE FROM known_aliases")
            db.execute("DELETE FROM query_aliases")
        return max(dropped, 0)

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM papers").fetchone()[0])

    def entries(self, *, offset: int = 0, limit: int | None = None) -> list[LibraryEntry]:
        """Saved papers, most recently saved first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT paper, title, in_catalog, size IS NOT NULL OR markdown IS NOT NULL, "
                "COALESCE(size, LENGTH(CAST(markdown AS BLOB)), 0), saved_at FROM papers "
                "ORDER BY saved_at DESC, paper LIMIT ? OFFSET ?",
                (-1 if limit is None else limit, offset),
            ).fetchall()
        return [
            LibraryEntry(
                paper=row[0],
                title=shown_title(row[1]),
                in_catalog=bool(row[2]),
                has_markdown=bool(row[3]),
                size=int(row[4]),
                saved_at=float(row[5]),
            )
            for row in rows
        ]

    def saved_titles(self, *, limit: int) -> list[tuple[str, str]]:
        """`(paper, title)` of saved papers, most recently saved first; reads no Markdown.

        Ordered by rowid, which `INSERT OR REPLACE` renews on every save: `saved_at`
        comes after the Markdown in the row, and reading it walks every paper's
        overflow pages (200 papers of 500 KiB: about 100 ms).
        """
        with self._lock:
            rows = self._db.execute(
                "SELECT paper, title FROM papers ORDER BY rowid DESC LIMIT ?", (limit,)
            ).fetchall()
        return [(str(paper), str(title)) for paper, title in rows]

    def saved_papers(self) -> Iterator[SavedPaper]:
        """Every saved paper, verified, in `entries` order: newest save first (for exports)."""
        with self._lock:
            ids = [
                r[0]
                for r in self._db.execute("SELECT paper FROM papers ORDER BY saved_at DESC, paper")
            ]
        for paper in ids:
            found = self.get(paper)
            if found is not None:
                yield found

    # -- serving Markdown ---------------------------------------------------------------

    def read(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> SavedRead | None:
        """A chunk of the saved paper `paper` (its canonical ID), cut like the catalog cuts it.

        `None` when `paper` is not saved (or fails verification). Reads only the
        pieces that hold bytes `offset` to `offset + limit`, after checking the seal
        and their digests; the end of a chunk moves back to a character boundary, as
        the catalog's does. The chunk is `None` when the paper has no Markdown or was
        saved at another version than `content_version`.
        """
        with self._lock:
            row = self._verified_once(paper)
            if row is None:
                return None
            version = row.content_version
            if row.size is None or version is None:
                return SavedRead(row.in_catalog, row.size is not None, None, row.saved_at)
            if content_version is not None and content_version != version:
                return SavedRead(row.in_catalog, True, None, row.saved_at)
            if row.whole is not None:
                chunk = cut(row.whole.encode("utf-8"), version, offset, limit)
                return SavedRead(row.in_catalog, True, chunk, row.saved_at)
            if offset >= row.size:
                end = LocalChunk("", version, False, None)
                return SavedRead(row.in_catalog, True, end, row.saved_at)
            pieces = pieces_around(self._db, paper, offset, limit)
        served = chunk_of(pieces, version, offset, limit, row.size)
        return None if served is None else SavedRead(row.in_catalog, True, served, row.saved_at)

    # -- the index of read papers --------------------------------------------------------

    def index_chunk(
        self, paper: str, version: str, *, start: int, text: str, final: bool, title: str = ""
    ) -> None:
        """Index one cached chunk of `paper` at `version` (a saved paper is left alone).

        The chunk's passages get absolute offsets and the heading path open at the
        end of the preceding chunk, when that one was indexed. A new version of a
        read paper replaces the old one's passages.
        """
        if self.read_only is not None or paper in self._saving:
            return  # a read-only library learns nothing, quietly; `saving` says why not
        now = time.time()
        if not title and start == 0:
            title = _first_heading(text)
        with self._lock:  # the common case, a chunk read before: no write lock at all
            known = self._db.execute(
                "SELECT d.saved, c.start FROM documents d LEFT JOIN chunks c "
                "ON c.doc = d.id AND c.start = ? WHERE d.paper = ? AND d.version = ?",
                (start, paper, version),
            ).fetchone()
        if known is not None and (known[0] or known[1] is not None):
            return
        try:
            with self._write(LEARN_WAIT) as db:
                row = db.execute(
                    "SELECT id, version, saved, title FROM documents WHERE paper = ?", (paper,)
                ).fetchone()
                if row is not None and row[2]:
                    return  # saved papers are indexed from their stored Markdown
                if row is None or row[1] != version:
                    doc = self._replace_document(db, paper, version, title, saved=False)
                else:
                    doc = int(row[0])
                    title = title or str(row[3])
                    db.execute("UPDATE documents SET touched_at = ? WHERE id = ?", (now, doc))
                    if title:
                        db.execute("UPDATE documents SET title = ? WHERE id = ?", (title, doc))
                    if db.execute(
                        "SELECT 1 FROM chunks WHERE doc = ? AND start = ?", (doc, start)
                    ).fetchone():
                        return
                previous = db.execute(
                    "SELECT headings FROM chunks WHERE doc = ? AND stop = ?", (doc, start)
                ).fetchone()
                opened: Headings = _headings_from(previous[0]) if previous else ()
                split = split_passages(text, base=start, headings=opened, title=title)
                stop = start + len(text.encode("utf-8"))
                db.execute(
                    "INSERT INTO chunks(doc, start, stop, final, text, digest, headings) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (doc, start, stop, int(final), text, digest(text), json.dumps(split.headings)),
                )
                index_passages(db, doc, split.passages)
                _bound_rows(db, "documents", MAX_READ_DOCUMENTS, where="saved = 0", by="touched_at")
        except LibraryReadOnly as exc:  # learnt on the side: never a failure
            self._not_learnt(exc)

    def read_indexed(
        self, paper: str, *, offset: int, limit: int, content_version: str
    ) -> LocalChunk | None:
        """A piece of a *read* paper from its indexed chunks, starting at `offset`.

        Serves from the one indexed chunk containing `offset` (up to its end, at most
        `limit` bytes), so a search hit's cursor can be followed offline as far as
        the cached chunks reach. `None` when no verified chunk covers `offset`.
        """
        with self._lock:
            row = self._db.execute(
                "SELECT c.start, c.stop, c.final, c.text, c.digest FROM chunks c "
                "JOIN documents d ON d.id = c.doc WHERE d.paper = ? AND d.version = ? "
                "AND c.start <= ? AND ? < c.stop ORDER BY c.start DESC LIMIT 1",
                (paper, content_version, offset, offset),
            ).fetchone()
        if row is None or digest(row[3]) != row[4]:
            return None
        start, stop, final = int(row[0]), int(row[1]), bool(row[2])
        piece = cut(row[3].encode("utf-8"), content_version, offset - start, limit)
        if piece.next_offset is None and not final:
            return LocalChunk(piece.text, content_version, True, stop)
        next_offset = None if piece.next_offset is None else piece.next_offset + start
        return LocalChunk(piece.text, content_version, piece.truncated, next_offset)

    # -- search ----------------------------------------------------------------------------

    def search(self, words: Sequence[str], *, limit: int, paper: str | None = None) -> list[RawHit]:
        """Passages matching every word (else any word), best first; see `fts_search`.

        Words in `passage_index.STOP_WORDS` ("and", "the") rank but do not match.

        A damaged index is rebuilt from the stored Markdown and the query asked once
        more; if it still fails, the error is raised rather than a result served.
        """
        if not words:
            return []
        try:
            return self._search_once(words, limit, paper)
        except sqlite3.DatabaseError:
            log.warning("the library search index is damaged; rebuilding it")
            self.rebuild_index()
            return self._search_once(words, limit, paper)

    def _search_once(self, words: Sequence[str], limit: int, paper: str | None) -> list[RawHit]:
        search = fts_search if self.has_fts else like_search
        terms = search_terms(words)  # stop words rank but do not match (passage_index)
        if not terms:
            return []

        def ask(every: bool) -> list[RawHit]:
            with self._lock:
                return search(self._db, words, limit, paper, every=every, terms=terms)

        hits = ask(True)
        if not hits and len(terms) > 1:
            hits = ask(False)
        return hits

    def known_paper(self, reference: str) -> str | None:
        """The canonical ID of a saved or read paper `reference` names, or `None`."""
        known = self.canonical(reference)
        if known is not None:
            return known
        with self._lock:
            row = self._db.execute(
                "SELECT paper FROM documents WHERE paper = ? OR title = ? COLLATE NOCASE",
                (reference.strip(), " ".join(reference.split())),
            ).fetchone()
        return None if row is None else str(row[0])

    # -- index upkeep ------------------------------------------------------------------

    def check_index(self) -> bool:
        """Whether the full-text index agrees with the passages (FTS5 `integrity-check`)."""
        if not self.has_fts:
            return True
        with self._lock:
            return check_index(self._db)

    def rebuild_index(self) -> int:
        """Re-cut every stored document into passages and rebuild the index; returns passages.

        Saved papers are re-cut from their verified Markdown, read papers from their
        verified chunks; anything that fails verification is dropped, not indexed.
        """
        with self._write() as db:
            return reindex(db, self.has_fts)

    # -- internals ----------------------------------------------------------------------

    def _forget_saved(self, db: sqlite3.Connection, paper: str) -> None:
        db.execute("DELETE FROM papers WHERE paper = ?", (paper,))
        db.execute("DELETE FROM saved_pieces WHERE paper = ?", (paper,))
        db.execute("DELETE FROM aliases WHERE paper = ?", (paper,))
        db.execute("DELETE FROM responses WHERE paper = ?", (paper,))
        db.execute("DELETE FROM documents WHERE paper = ? AND saved = 1", (paper,))

    @contextlib.contextmanager
    def _write(self, wait: float = SAVE_WAIT) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken within `wait` seconds or `LibraryBusy`.

        Each try holds the connection for at most `BUSY_TIMEOUT_MS`; between tries
        other threads of this process read. After a write gave up its whole
        `SAVE_WAIT`, the writes of the next `BUSY_MEMORY` seconds try once and give
        up at once while the lock stays taken, so saving 25 papers under a long
        lock costs one wait, not 25; the first write that gets through forgets it.
        A library that cannot be written raises `LibraryError` saying why.
        """
        self.check_writable()
        now = time.monotonic()
        deadline = now if now < self._busy_until else now + wait
        pause = 0.01
        while True:
            with self._lock:
                try:
                    self._db.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    if not is_locked(exc):
                        raise self._unwritable(exc) from None
                else:
                    self._writes += 1
                    try:
                        yield self._db
                        self._db.execute("COMMIT")
                    except BaseException as exc:
                        if self._db.in_transaction:
                            self._db.execute("ROLLBACK")
                        if isinstance(exc, sqlite3.OperationalError):
                            raise self._unwritable(exc) from None
                        raise
                    self._busy_until = 0.0
                    return
            if time.monotonic() + pause > deadline:
                if wait >= SAVE_WAIT:
                    self._busy_until = time.monotonic() + BUSY_MEMORY
                raise LibraryBusy(self.path)
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

    def _unwritable(self, exc: sqlite3.OperationalError) -> Exception:
        """`LibraryError` saying why, when `exc` says the library cannot be written; else `exc`."""
        reason = unwritable_reason(exc, self.path)
        return exc if reason is None else unwritable_error(reason, self._unwritable_message(reason))

    def check_writable(self) -> None:
        """Raise the `LibraryError` a write would, without trying one, when read-only."""
        if self.read_only is not None:
            raise unwritable_error(self.read_only, self._unwritable_message(self.read_only))

    def _not_learnt(self, exc: LibraryReadOnly) -> None:
        """What a call only teaches the library on the side (aliases, passages of a paper
        read) was not written, because the library turned out unwritable: logged once
        per reason, in words; the call itself goes on."""
        reason = "the disk is full" if isinstance(exc, LibraryFull) else "it is read-only"
        if self._unlearnt != reason:
            log.warning(
                "the library %s cannot be written (%s): papers read are not indexed for "
                "search_library until it can; reading goes on",
                self.path.parent,
                reason,
            )
        self._unlearnt = reason

    def _shrink_wal(self) -> None:
        """Cut the WAL back to nothing when no one reads it (`wal_checkpoint(TRUNCATE)`);
        best effort: another process reading, or a checkpoint that itself needs space,
        leaves it for a later checkpoint."""
        if self.read_only is not None:
            return
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def _full_message(self, markdown_bytes: int) -> str:
        """Why a save failed on a full disk, with the space it needs and the space there is."""
        needed = SAVE_SPACE_FACTOR * markdown_bytes + SAVE_SPACE_MARGIN
        try:
            disk = os.statvfs(self.path.parent)
            free = f", {format_size(disk.f_bavail * disk.f_frsize)} is free now"
        except (OSError, AttributeError):  # no statvfs on Windows
            free = ""
        return (
            f"the disk holding the library {self.path.parent} is full: saving this paper "
            f"needs about {format_size(needed)} free there{free}; free some space, then "
            "save it again (saved papers can still be listed, searched and read)"
        )

    def _unwritable_message(self, reason: str) -> str:
        return (
            f"the library {self.path} cannot be written ({reason}); saved papers can still "
            "be listed, searched and read, but nothing can be saved, removed or learned "
            "until it can"
        )

    def _verified_once(self, paper: str) -> SavedRow | None:
        """`_verified`, checked once per database state (the caller holds the lock).

        The state is SQLite's `data_version` (moves when another connection commits)
        and this connection's own write count: while neither moves, nothing the
        seal covers can have changed, so a walk through a long paper's chunks checks
        it once. The texts of the pieces served are checked on every read.
        """
        state = (int(self._db.execute("PRAGMA data_version").fetchone()[0]), self._writes)
        known = self._sealed.get(paper)
        if known is not None and known[0] == state:
            return known[1]
        row = verified(self._db, paper)
        if len(self._sealed) >= MAX_SEALED:
            self._sealed.clear()
        if row is not None:
            self._sealed[paper] = (state, row)
        return row

    def _replace_document(
        self, db: sqlite3.Connection, paper: str, version: str, title: str, *, saved: bool
    ) -> int:
        db.execute("DELETE FROM documents WHERE paper = ?", (paper,))
        cursor = db.execute(
            "INSERT INTO documents(paper, version, title, saved, touched_at) VALUES (?,?,?,?,?)",
            (paper, version, title, int(saved), time.time()),
        )
        return int(cursor.lastrowid or 0)


# What a user's BibTeX entry added to a citation (`queries.citations.SourceCitation`).
_SOURCE_FIELDS = ("entry_type", "source_venue")


def _with_source_of(old: str, new: dict[str, Any]) -> dict[str, Any]:
    """`new` keeping what the user's BibTeX entry said in the `old` citation (JSON), if
    `new` says nothing of it: a refresh comes from the catalog alone."""
    try:
        before = json.loads(old)
    except (TypeError, ValueError):
        return new
    if not isinstance(before, dict):
        return new
    kept = {name: before[name] for name in _SOURCE_FIELDS if before.get(name) and not new.get(name)}
    return {**new, **kept}


def _markdown_size(paper: SavedPaper) -> int:
    if isinstance(paper.markdown, str):
        return len(paper.markdown.encode("utf-8"))
    return sum(len(piece) for piece in paper.markdown or ())


def _first_heading(text: str) -> str:
    """The text of a document's first `# ` heading (most papers open with their title)."""
    for line in text.splitlines()[:20]:
        if line.startswith("# "):
            return " ".join(line[2:].split())[:500]
    return ""


def _headings_from(text: str) -> Headings:
    try:
        value = json.loads(text)
        return tuple((int(level), str(title)) for level, title in value)
    except (ValueError, TypeError):
        return ()


def _bound_rows(
    db: sqlite3.Connection, table: str, most: int, *, where: str = "1", by: str = "rowid"
) -> None:
    """Delete the first rows of `table` in `by` order (oldest first) beyond `most`.

    Only rows `where` selects count and go. `table`, `where` and `by` are this
    module's constants, never caller text.
    """
    count = db.execute(f"SELECT COUNT(*) FROM {table} WHERE {where}").fetchone()[0]
    if count > most:
        db.execute(
            f"DELETE FROM {table} WHERE rowid IN "
            f"(SELECT rowid FROM {table} WHERE {where} ORDER BY {by} LIMIT ?)",
            (count - most,),
        )
