"""The reading library: saved papers and a full-text index of everything read, on disk.

Two kinds of paper live here, in one SQLite database (`library.sqlite3` in the
app's platformdirs user *data* directory, on Linux `~/.local/share/pwc-mcp-local`):

* **saved** papers: metadata, citation fields and the complete Markdown (every
  chunk joined, with its content version), kept until `remove()`. This is user
  data, not cache: the cache's size bound never evicts it and `cache clear` never
  touches it, because it lives in another directory.
* **read** papers: Markdown chunks that passed through the caching catalog, kept
  (with their text) only so that search can find them and point into them. At most
  `MAX_READ_DOCUMENTS` of them are kept; the least recently read go first.

Both feed one FTS5 index of passages (`pwc_local.store.passages`): heading path,
text, and the byte offset a `read_paper` cursor can continue from.

Guarantees, and how they are kept:

* *All or nothing.* A paper is written in one transaction, after all of its chunks
  were fetched, so a killed `library add` leaves either the whole paper or no row
  at all: nothing half-saved is ever listed.
* *Several processes at once.* SQLite in WAL mode: writers queue (`BEGIN
  IMMEDIATE`), readers never block; nothing written is lost. Within a process one
  connection is shared behind a lock, so worker threads may call in. A write waits
  for another process's write lock in short tries (`_write`) and releases the
  connection between them, so this process's reads (search, list, a saved paper)
  answer while a `library add` elsewhere writes. A save gives up after
  `SAVE_WAIT` with `LibraryBusy` (`library_busy:`, "try again"), having written
  nothing; what the serving path only learns on the side (aliases, the index of
  read papers) gives up after `LEARN_WAIT` and is learnt next time.
* *Never serve a corrupt entry.* Each stored Markdown carries a BLAKE2b digest,
  checked on every read; a mismatch is reported as missing. A damaged search index
  (FTS5 reports corruption, or any `sqlite3.DatabaseError` on a query) is rebuilt
  from the stored Markdown and the query retried once; it is never served.
* *Private.* The directory is created 0700 and the database 0600 (SQLite gives its
  `-wal`/`-shm` files the database's mode); a directory that other users can reach
  is refused with the `chmod` that fixes it.

Where SQLite was built without FTS5 (rare on current Python builds), the library
still saves, lists and serves papers, and search falls back to a substring scan
of the passages (`LIKE`), ranked by how many query words a passage holds: slower
and cruder, but it answers. `Library.has_fts` says which one is in use.

Nothing here logs references, queries or text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pwc_local.config import APP_NAME, ConfigError
from pwc_local.failures import CodedError
from pwc_local.store.passages import Headings, Passage, split_passages

log = logging.getLogger(__name__)

DB_FILE_NAME = "library.sqlite3"
SCHEMA_VERSION = 1
# SQLite's own wait for a lock, per statement: short, so a waiting write never keeps
# the shared connection (and this process's reads) for long; `_write` retries.
BUSY_TIMEOUT_MS = 50
SAVE_WAIT = 5.0  # seconds a save (or a removal) waits for another process's writes
LEARN_WAIT = 0.25  # seconds a write on the side of a call waits before it is skipped
BUSY_MEMORY = 30.0  # seconds after a save gave up during which writes try only once
OPEN_WAIT = 1.0  # seconds opening waits to bring an existing library's schema up to date
MAX_READ_DOCUMENTS = 2_000
MAX_KNOWN_ALIASES = 50_000
SNIPPET_TOKENS = 40
MAX_QUOTE_CHARS = 300
MARK = "**"
ELLIPSIS = "…"

_POSIX = os.name == "posix"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers (
    paper TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    in_catalog INTEGER NOT NULL,
    metadata TEXT NOT NULL,
    citation TEXT NOT NULL,
    markdown TEXT,
    content_version TEXT,
    digest TEXT NOT NULL,
    saved_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS aliases (
    alias TEXT PRIMARY KEY,
    paper TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS aliases_by_paper ON aliases(paper);
CREATE TABLE IF NOT EXISTS query_aliases (
    key TEXT PRIMARY KEY,
    params TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS known_aliases (
    alias TEXT PRIMARY KEY,
    paper TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    paper TEXT NOT NULL,
    version TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    saved INTEGER NOT NULL,
    touched_at REAL NOT NULL,
    UNIQUE (paper)
);
CREATE TABLE IF NOT EXISTS chunks (
    doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    start INTEGER NOT NULL,
    stop INTEGER NOT NULL,
    final INTEGER NOT NULL,
    text TEXT NOT NULL,
    digest TEXT NOT NULL,
    headings TEXT NOT NULL,
    PRIMARY KEY (doc, start)
);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY,
    doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    start INTEGER NOT NULL,
    heading TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_by_doc ON passages(doc, start);
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    paper TEXT NOT NULL,
    body TEXT NOT NULL,
    digest TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS responses_by_paper ON responses(paper);
"""

_FTS_TABLE = """
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
    heading, body, content='passages', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
)"""
# External-content FTS5 table: the triggers keep it in step with `passages`.
_FTS_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, heading, body) VALUES (new.id, new.heading, new.body);
END""",
    """CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, heading, body)
    VALUES ('delete', old.id, old.heading, old.body);
END""",
)


class LibraryError(ConfigError):
    """The library cannot be opened or written; the message says what to do about it.

    A local set-up problem, like a key file with loose permissions: tools report it
    as `config_error:` with this message.
    """


class LibraryBusy(CodedError):
    """Another process kept the library's write lock longer than this write may wait.

    Nothing was written. Shown as `library_busy:` with the sentence below.
    """

    code = "library_busy"
    shown = True

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"the library {path} is busy: another process (a `library add`, another server) "
            "is writing to it; nothing was saved, try again in a moment"
        )


@dataclass(frozen=True)
class SavedPaper:
    """One saved paper as stored.

    `paper` is the canonical ID (arXiv ID without version, else the numeric catalog
    ID, else a DOI for a paper known only from public records). `metadata` is the
    paper detail in catalog field names; `citation` the fields a citation needs
    (`pwc_local.catalog.citations.CitationFields.as_dict`). `markdown` is the
    complete document with its `content_version`, or `None` when the paper has no
    stored Markdown. `aliases` are other spellings that name it (catalog ID, title).
    """

    paper: str
    title: str
    in_catalog: bool
    metadata: dict[str, Any]
    citation: dict[str, Any]
    markdown: str | None
    content_version: str | None
    saved_at: float = 0.0
    aliases: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class LibraryEntry:
    """A row of `list()`: what a listing shows, without the Markdown."""

    paper: str
    title: str
    in_catalog: bool
    has_markdown: bool
    size: int
    saved_at: float


@dataclass(frozen=True)
class LocalChunk:
    """A piece of Markdown served from the library; mirrors `MarkdownChunk`."""

    text: str
    content_version: str
    truncated: bool
    next_offset: int | None


@dataclass(frozen=True)
class RawHit:
    """One search match before it becomes a tool answer (cursor and all)."""

    paper: str
    title: str
    saved: bool
    version: str
    heading: str
    start: int
    quote: str
    score: float


def default_library_dir() -> Path:
    """The app's user data directory (honours `XDG_DATA_HOME` on Linux)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def response_key(namespace: str, path: str, params: Mapping[str, Any] | None) -> str:
    """How a catalog request is named in `responses`: API base, path, sorted parameters.

    `params=None` names the path whatever its parameters: a saved paper's record
    is also kept under it, so a probe of `papers/<id>` without the
    `include_resources` flag finds it too.
    """
    pairs = None if params is None else sorted(params.items())
    return json.dumps([namespace, path.strip("/"), pairs], separators=(",", ":"), default=str)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


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
        self._data_version: int | None = None  # for changed_elsewhere
        self._busy_until = 0.0  # monotonic; see `_write`

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, directory: Path | None = None) -> Library:
        """Open (creating when missing) the library in `directory` or the default one."""
        directory = default_library_dir() if directory is None else Path(directory)
        _ensure_private_dir(directory)
        path = directory / DB_FILE_NAME
        _ensure_private_file(path)
        try:
            connection = sqlite3.connect(
                str(path),
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("PRAGMA synchronous = NORMAL")
            has_fts = _ensure_schema(connection)
        except sqlite3.DatabaseError as exc:
            raise LibraryError(
                f"cannot open the library database {path}: {exc}; move it aside to start "
                "an empty library"
            ) from None
        return cls(connection, path, has_fts=has_fts)

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

    def save(self, paper: SavedPaper, responses: Mapping[str, Any] | None = None) -> None:
        """Store `paper` completely, replacing an earlier save, in one transaction.

        `responses` maps `response_key(...)` to the catalog JSON documents fetched
        while saving (the paper record, a title search, a public record), so the
        same requests can be answered offline later (`stored_response`).
        """
        saved_at = paper.saved_at or time.time()
        body = paper.markdown
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO papers(paper, title, in_catalog, metadata, citation, "
                "markdown, content_version, digest, saved_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    paper.paper,
                    paper.title,
                    int(paper.in_catalog),
                    json.dumps(paper.metadata, ensure_ascii=False),
                    json.dumps(paper.citation, ensure_ascii=False),
                    body,
                    paper.content_version,
                    _paper_digest(paper.metadata, paper.citation, body, paper.content_version),
                    saved_at,
                ),
            )
            db.execute("DELETE FROM aliases WHERE paper = ?", (paper.paper,))
            db.execute("DELETE FROM responses WHERE paper = ?", (paper.paper,))
            for key, document in (responses or {}).items():
                text = json.dumps(document, ensure_ascii=False)
                db.execute(
                    "INSERT OR REPLACE INTO responses(key, paper, body, digest) VALUES (?,?,?,?)",
                    (key, paper.paper, text, digest(text)),
                )
            for alias in {alias_key(a) for a in (paper.paper, *paper.aliases) if a.strip()}:
                db.execute(
                    "INSERT OR REPLACE INTO aliases(alias, paper) VALUES (?, ?)",
                    (alias, paper.paper),
                )
            doc = self._replace_document(
                db, paper.paper, paper.content_version or "", paper.title, saved=True
            )
            if body:
                self._index(db, doc, split_passages(body).passages)

    def get(self, reference: str) -> SavedPaper | None:
        """The saved paper `reference` names (canonical ID or alias), verified, or `None`."""
        row = self._saved_row(
            reference,
            "paper, title, in_catalog, metadata, citation, markdown, content_version, digest, "
            "saved_at",
        )
        if row is None:
            return None
        try:
            metadata, citation = json.loads(row[3]), json.loads(row[4])
        except ValueError:
            metadata = citation = None
        if not isinstance(metadata, dict) or not isinstance(citation, dict):
            log.warning("a saved paper failed verification; it is treated as missing")
            return None
        if _paper_digest(metadata, citation, row[5], row[6]) != row[7]:
            log.warning("a saved paper failed verification; it is treated as missing")
            return None
        return SavedPaper(
            paper=row[0],
            title=row[1],
            in_catalog=bool(row[2]),
            metadata=metadata,
            citation=citation,
            markdown=row[5],
            content_version=row[6],
            saved_at=row[8],
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
        with self._lock:
            row = self._db.execute("SELECT paper FROM aliases WHERE alias = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def learn_aliases(self, paper: str, aliases: Sequence[str]) -> None:
        """Remember that each of `aliases` names `paper` (a paper seen in a catalog answer).

        Only what is new is written, so a repeated answer costs one read and no lock.
        """
        keys = {alias_key(a) for a in aliases if a and alias_key(a) != alias_key(paper)}
        if not keys:
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
        with self._write(LEARN_WAIT) as db:
            db.executemany(
                "INSERT OR REPLACE INTO known_aliases(alias, paper) VALUES (?, ?)",
                [(key, paper) for key in keys - known],
            )
            count = db.execute("SELECT COUNT(*) FROM known_aliases").fetchone()[0]
            if count > MAX_KNOWN_ALIASES:  # oldest rows first: rowid order
                db.execute(
                    "DELETE FROM known_aliases WHERE rowid IN (SELECT rowid FROM known_aliases "
                    "ORDER BY rowid LIMIT ?)",
                    (count - MAX_KNOWN_ALIASES,),
                )

    def learn_query(self, key: str, params: str) -> None:
        """Remember the exact parameters last sent for a request of normalised `key`."""
        with self._lock:
            row = self._db.execute(
                "SELECT params FROM query_aliases WHERE key = ?", (key,)
            ).fetchone()
        if row is not None and row[0] == params:
            return
        with self._write(LEARN_WAIT) as db:
            db.execute(
                "INSERT OR REPLACE INTO query_aliases(key, params) VALUES (?, ?)", (key, params)
            )
            count = db.execute("SELECT COUNT(*) FROM query_aliases").fetchone()[0]
            if count > MAX_KNOWN_ALIASES:
                db.execute(
                    "DELETE FROM query_aliases WHERE rowid IN (SELECT rowid FROM query_aliases "
                    "ORDER BY rowid LIMIT ?)",
                    (count - MAX_KNOWN_ALIASES,),
                )

    def known_query(self, key: str) -> str | None:
        """The exact parameters (JSON) last sent for normalised `key`, or `None`."""
        with self._lock:
            row = self._db.execute(
                "SELECT params FROM query_aliases WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def canonical(self, reference: str) -> str | None:
        """The canonical ID `reference` names among saved papers, then papers seen before."""
        saved = self.resolve(reference)
        if saved is not None:
            return saved
        key = alias_key(reference)
        with self._lock:
            row = self._db.execute(
                "SELECT paper FROM known_aliases WHERE alias = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def add_alias(self, alias: str, paper: str) -> None:
        """Let `alias` name the saved `paper` too (no effect when it is not saved)."""
        key = alias_key(alias)
        with self._write() as db:
            if key and db.execute("SELECT 1 FROM papers WHERE paper = ?", (paper,)).fetchone():
                db.execute(
                    "INSERT OR REPLACE INTO aliases(alias, paper) VALUES (?, ?)", (key, paper)
                )

    def saved_markdown_bytes(self, reference: str) -> int | None:
        """The UTF-8 size of the saved Markdown `reference` names; `None` when there is none."""
        row = self._saved_row(reference, "length(CAST(markdown AS BLOB))")
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

    def is_saved(self, paper: str) -> bool:
        with self._lock:
            row = self._db.execute("SELECT 1 FROM papers WHERE paper = ?", (paper,)).fetchone()
        return row is not None

    def remove(self, reference: str) -> str | None:
        """Forget a saved paper; returns its canonical ID, or `None` when it was not saved."""
        with self._write() as db:
            row = db.execute(
                "SELECT paper FROM aliases WHERE alias = ?", (alias_key(reference),)
            ).fetchone()
            if row is None:
                return None
            paper = str(row[0])
            db.execute("DELETE FROM papers WHERE paper = ?", (paper,))
            db.execute("DELETE FROM aliases WHERE paper = ?", (paper,))
            db.execute("DELETE FROM responses WHERE paper = ?", (paper,))
            db.execute("DELETE FROM documents WHERE paper = ? AND saved = 1", (paper,))
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
                "SELECT paper, title, in_catalog, markdown IS NOT NULL, "
                "COALESCE(LENGTH(CAST(markdown AS BLOB)), 0), saved_at FROM papers "
                "ORDER BY saved_at DESC, paper LIMIT ? OFFSET ?",
                (-1 if limit is None else limit, offset),
            ).fetchall()
        return [
            LibraryEntry(
                paper=row[0],
                title=row[1],
                in_catalog=bool(row[2]),
                has_markdown=bool(row[3]),
                size=int(row[4]),
                saved_at=float(row[5]),
            )
            for row in rows
        ]

    def saved_papers(self) -> Iterator[SavedPaper]:
        """Every saved paper, verified, oldest save first (for exports)."""
        with self._lock:
            ids = [r[0] for r in self._db.execute("SELECT paper FROM papers ORDER BY saved_at")]
        for paper in ids:
            found = self.get(paper)
            if found is not None:
                yield found

    # -- serving Markdown ---------------------------------------------------------------

    def read(
        self, paper: str, *, offset: int, limit: int, content_version: str | None
    ) -> LocalChunk | None:
        """A chunk of a saved paper's Markdown cut like the catalog cuts it, or `None`.

        `None` when the paper is not saved, has no Markdown, or was saved at another
        version than `content_version`. The end of a chunk moves back to a character
        boundary, as the catalog's does.
        """
        saved = self.get(paper)
        if saved is None or saved.markdown is None or saved.content_version is None:
            return None
        if content_version is not None and content_version != saved.content_version:
            return None
        return cut(saved.markdown.encode("utf-8"), saved.content_version, offset, limit)

    # -- the index of read papers --------------------------------------------------------

    def index_chunk(
        self, paper: str, version: str, *, start: int, text: str, final: bool, title: str = ""
    ) -> None:
        """Index one cached chunk of `paper` at `version` (a saved paper is left alone).

        The chunk's passages get absolute offsets and the heading path open at the
        end of the preceding chunk, when that one was indexed. A new version of a
        read paper replaces the old one's passages.
        """
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
        with self._write(LEARN_WAIT) as db:
            row = db.execute(
                "SELECT id, version, saved FROM documents WHERE paper = ?", (paper,)
            ).fetchone()
            if row is not None and row[2]:
                return  # saved papers are indexed from their stored Markdown
            if row is None or row[1] != version:
                doc = self._replace_document(db, paper, version, title, saved=False)
            else:
                doc = int(row[0])
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
            split = split_passages(text, base=start, headings=opened)
            stop = start + len(text.encode("utf-8"))
            db.execute(
                "INSERT INTO chunks(doc, start, stop, final, text, digest, headings) "
                "VALUES (?,?,?,?,?,?,?)",
                (doc, start, stop, int(final), text, digest(text), json.dumps(split.headings)),
            )
            self._index(db, doc, split.passages)
            self._bound_read_documents(db)

    def set_title(self, paper: str, title: str) -> None:
        """Remember a read paper's title for search hits (no effect when not indexed)."""
        if not title:
            return
        with self._write(LEARN_WAIT) as db:
            db.execute(
                "UPDATE documents SET title = ? WHERE paper = ? AND saved = 0", (title, paper)
            )

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
        """Passages matching every word (else any word), best first; see `_fts_search`.

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
        search = self._fts_search if self.has_fts else self._like_search
        hits = search(words, limit, paper, every=True)
        if not hits and len(words) > 1:
            hits = search(words, limit, paper, every=False)
        return hits

    def _fts_search(
        self, words: Sequence[str], limit: int, paper: str | None, *, every: bool
    ) -> list[RawHit]:
        # Each word becomes a quoted FTS5 string, so no query syntax can leak in.
        match = (" AND " if every else " OR ").join(_fts_string(w) for w in words)
        where = "passages_fts MATCH ?"
        params: list[Any] = [match]
        if paper is not None:
            where += " AND d.paper = ?"
            params.append(paper)
        sql = (
            "SELECT d.paper, d.title, d.saved, d.version, p.heading, p.start, "
            f"snippet(passages_fts, 1, '{MARK}', '{MARK}', '{ELLIPSIS}', {SNIPPET_TOKENS}), "
            "bm25(passages_fts, 2.0, 1.0) AS score "
            "FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid "
            f"JOIN documents d ON d.id = p.doc WHERE {where} ORDER BY score LIMIT ?"
        )
        params.append(limit)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [_hit(row) for row in rows]

    def _like_search(
        self, words: Sequence[str], limit: int, paper: str | None, *, every: bool
    ) -> list[RawHit]:
        tests = ["(p.body LIKE ? ESCAPE '\\' OR p.heading LIKE ? ESCAPE '\\')" for _ in words]
        params: list[Any] = []
        for word in words:
            pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            params += [pattern, pattern]
        score = " + ".join(f"(CASE WHEN {test} THEN 1 ELSE 0 END)" for test in tests)
        score_params = list(params)
        where = (" AND " if every else " OR ").join(tests)
        if paper is not None:
            where = f"({where}) AND d.paper = ?"
            params.append(paper)
        sql = (
            "SELECT d.paper, d.title, d.saved, d.version, p.heading, p.start, p.body, "
            f"-({score}) AS score FROM passages p JOIN documents d ON d.id = p.doc "
            f"WHERE {where} ORDER BY score, d.paper, p.start LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, [*score_params, *params, limit]).fetchall()
        return [_hit((*row[:6], like_quote(row[6], words), row[7])) for row in rows]

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
        try:
            with self._lock:
                self._db.execute(
                    "INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)"
                )
        except sqlite3.DatabaseError:
            return False
        return True

    def rebuild_index(self) -> int:
        """Re-cut every stored document into passages and rebuild the index; returns passages.

        Saved papers are re-cut from their verified Markdown, read papers from their
        verified chunks; anything that fails verification is dropped, not indexed.
        """
        with self._write() as db:
            if self.has_fts:
                db.execute("DROP TABLE IF EXISTS passages_fts")
                db.execute("DROP TRIGGER IF EXISTS passages_ai")
                db.execute("DROP TRIGGER IF EXISTS passages_ad")
            db.execute("DELETE FROM passages")
            if self.has_fts:
                _create_fts(db)
            count = 0
            saved = db.execute(
                "SELECT d.id, p.paper FROM documents d JOIN papers p ON p.paper = d.paper "
                "WHERE d.saved = 1"
            ).fetchall()
            for doc, paper in saved:
                found = self.get(paper)
                if found is None or not found.markdown:
                    continue
                passages = split_passages(found.markdown).passages
                self._index(db, int(doc), passages)
                count += len(passages)
            for doc in [r[0] for r in db.execute("SELECT id FROM documents WHERE saved = 0")]:
                opened: Headings = ()
                stop = None
                for start, end, text, text_digest in db.execute(
                    "SELECT start, stop, text, digest FROM chunks WHERE doc = ? ORDER BY start",
                    (doc,),
                ).fetchall():
                    if digest(text) != text_digest:
                        db.execute("DELETE FROM chunks WHERE doc = ? AND start = ?", (doc, start))
                        stop = None
                        continue
                    split = split_passages(
                        text, base=start, headings=opened if stop == start else ()
                    )
                    self._index(db, int(doc), split.passages)
                    count += len(split.passages)
                    opened, stop = split.headings, end
        return count

    # -- internals ----------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self, wait: float = SAVE_WAIT) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken within `wait` seconds or `LibraryBusy`.

        Each try holds the connection for at most `BUSY_TIMEOUT_MS`; between tries
        other threads of this process read. After a write gave up its whole
        `SAVE_WAIT`, the writes of the next `BUSY_MEMORY` seconds try once and give
        up at once while the lock stays taken, so saving 25 papers under a long
        lock costs one wait, not 25; the first write that gets through forgets it.
        """
        now = time.monotonic()
        deadline = now if now < self._busy_until else now + wait
        pause = 0.01
        while True:
            with self._lock:
                try:
                    self._db.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) and "busy" not in str(exc):
                        raise
                else:
                    try:
                        yield self._db
                    except BaseException:
                        self._db.execute("ROLLBACK")
                        raise
                    self._db.execute("COMMIT")
                    self._busy_until = 0.0
                    return
            if time.monotonic() + pause > deadline:
                if wait >= SAVE_WAIT:
                    self._busy_until = time.monotonic() + BUSY_MEMORY
                raise LibraryBusy(self.path)
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

    def _replace_document(
        self, db: sqlite3.Connection, paper: str, version: str, title: str, *, saved: bool
    ) -> int:
        db.execute("DELETE FROM documents WHERE paper = ?", (paper,))
        cursor = db.execute(
            "INSERT INTO documents(paper, version, title, saved, touched_at) VALUES (?,?,?,?,?)",
            (paper, version, title, int(saved), time.time()),
        )
        return int(cursor.lastrowid or 0)

    def _index(self, db: sqlite3.Connection, doc: int, passages: Sequence[Passage]) -> None:
        db.executemany(
            "INSERT INTO passages(doc, start, heading, body) VALUES (?,?,?,?)",
            [(doc, p.start, p.heading, p.text) for p in passages],
        )

    def _bound_read_documents(self, db: sqlite3.Connection) -> None:
        count = db.execute("SELECT COUNT(*) FROM documents WHERE saved = 0").fetchone()[0]
        if count > MAX_READ_DOCUMENTS:
            db.execute(
                "DELETE FROM documents WHERE id IN (SELECT id FROM documents WHERE saved = 0 "
                "ORDER BY touched_at LIMIT ?)",
                (count - MAX_READ_DOCUMENTS,),
            )


def cut(document: bytes, version: str, offset: int, limit: int) -> LocalChunk:
    """At most `limit` bytes of `document` from `offset`, ending on a character boundary.

    The catalog's own chunking rule: the end moves back to the previous
    boundary; a character longer than `limit` is returned whole; an offset at or past
    the end gives an empty final chunk. An offset inside a character moves forward
    to the next boundary.
    """
    size = len(document)
    while offset < size and _continues(document[offset]):
        offset += 1
    if offset >= size:
        return LocalChunk("", version, False, None)
    end = min(size, offset + limit)
    while offset < end < size and _continues(document[end]):
        end -= 1
    if end == offset:
        end = offset + 1
        while end < size and _continues(document[end]):
            end += 1
    text = document[offset:end].decode("utf-8")
    return LocalChunk(text, version, end < size, end if end < size else None)


def like_quote(body: str, words: Sequence[str]) -> str:
    """A quote around the first of `words` in `body`, the words marked (LIKE fallback)."""
    folded = body.casefold()
    positions = [folded.find(w.casefold()) for w in words]
    first = min((p for p in positions if p >= 0), default=0)
    begin = max(0, first - MAX_QUOTE_CHARS // 3)
    piece = body[begin : begin + MAX_QUOTE_CHARS - 20]
    for word in sorted(set(words), key=len, reverse=True):
        piece = _mark_word(piece, word)
    prefix = ELLIPSIS if begin else ""
    suffix = ELLIPSIS if begin + MAX_QUOTE_CHARS - 20 < len(body) else ""
    return prefix + " ".join(piece.split()) + suffix


def _mark_word(text: str, word: str) -> str:
    import re

    return re.sub(re.escape(word), lambda m: f"{MARK}{m.group(0)}{MARK}", text, flags=re.I)


def _hit(row: Sequence[Any]) -> RawHit:
    quote = " ".join(str(row[6]).split())
    if len(quote) > MAX_QUOTE_CHARS:
        quote = quote[: MAX_QUOTE_CHARS - 1].rstrip() + ELLIPSIS
    return RawHit(
        paper=str(row[0]),
        title=str(row[1]),
        saved=bool(row[2]),
        version=str(row[3]),
        heading=str(row[4]),
        start=int(row[5]),
        quote=quote,
        score=float(row[7]),
    )


def _first_heading(text: str) -> str:
    """The text of a document's first `# ` heading (most papers open with their title)."""
    for line in text.splitlines()[:20]:
        if line.startswith("# "):
            return " ".join(line[2:].split())[:500]
    return ""


def _fts_string(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _headings_from(text: str) -> Headings:
    try:
        value = json.loads(text)
        return tuple((int(level), str(title)) for level, title in value)
    except (ValueError, TypeError):
        return ()


def _paper_digest(
    metadata: dict[str, Any], citation: dict[str, Any], markdown: str | None, version: str | None
) -> str:
    sealed = json.dumps([metadata, citation, markdown, version], sort_keys=True, ensure_ascii=False)
    return digest(sealed)


def _continues(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _statements(script: str) -> list[str]:
    return [s.strip() + ";" for s in script.split(";\n") if s.strip()]


def _ensure_schema(db: sqlite3.Connection) -> bool:
    """Create what is missing of the schema; whether search uses FTS5.

    When another process holds the write lock for more than `OPEN_WAIT` (a long
    `library add`) and the library exists already, it opens as it is instead of
    waiting on: the writer has the schema in place. A new file waits `SAVE_WAIT`.
    """
    started = time.monotonic()
    while True:
        try:
            with _transaction(db):
                for statement in _statements(_SCHEMA):
                    db.execute(statement)
                has_fts = _create_fts(db)
                db.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)",
                    (str(SCHEMA_VERSION),),
                )
            return has_fts
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            waited = time.monotonic() - started
            row = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
            if row is not None and waited > OPEN_WAIT:
                fts = "SELECT 1 FROM sqlite_master WHERE name = 'passages_fts'"
                return db.execute(fts).fetchone() is not None
            if waited > SAVE_WAIT:
                raise
            time.sleep(0.05)


def _create_fts(db: sqlite3.Connection) -> bool:
    """Create the FTS5 table and its triggers; `False` where SQLite lacks FTS5."""
    try:
        db.execute(_FTS_TABLE)
    except sqlite3.OperationalError as exc:
        if "fts5" in str(exc).lower():
            return False
        raise
    for trigger in _FTS_TRIGGERS:
        db.execute(trigger)
    return True


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """`BEGIN IMMEDIATE` ... `COMMIT`: writers queue up front instead of deadlocking later."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _ensure_private_dir(directory: Path) -> None:
    """Create `directory` 0700 when missing; refuse one that is a link or open to others."""
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(directory, 0o700)
        st = os.lstat(directory)
    except OSError as exc:
        raise LibraryError(
            f"cannot create the library directory {directory}: {exc.strerror or exc}"
        ) from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise LibraryError(f"library directory {directory} is not a plain directory")
    if _POSIX:
        if st.st_uid != os.geteuid():
            raise LibraryError(f"library directory {directory} belongs to another user")
        if stat.S_IMODE(st.st_mode) & 0o077:
            raise LibraryError(
                f"library directory {directory} is accessible to other users; "
                f"run: chmod 700 {directory}"
            )


def _ensure_private_file(path: Path) -> None:
    """Create the database file 0600 before SQLite does, so it is never born readable."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        raise LibraryError(
            f"cannot open the library database {path}: {exc.strerror or exc}"
        ) from None
    try:
        st = os.fstat(fd)
        if _POSIX and stat.S_IMODE(st.st_mode) & 0o077:
            raise LibraryError(
                f"library database {path} is accessible to other users; run: chmod 600 {path}"
            )
    finally:
        os.close(fd)
