"""The library's tables: creating them, bringing an older library's up to date, and
standing in for what a read-only one lacks.

`prepare` runs when a writable library opens: in one transaction it creates what
is missing (`_SCHEMA`, the FTS5 index of `passage_index`), adds the columns schema 2
added, moves schema-1 rows into pieces (`saved_pieces.migrate_whole_rows`),
re-cuts the passages when the schema version moves (`reindex`, which
`Library.rebuild_index` runs too), and records `SCHEMA_VERSION`
(writing nothing when the library is up to date). `open_read_only` opens one that
cannot be written, with empty temporary stand-ins for what an older library lacks,
so every query still answers. `Library.open` chooses between them.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from pwc_local.common.shelf import LibraryError
from pwc_local.store.library_db import (
    READER_PRAGMAS,
    check_private_file,
    connect,
    is_locked,
    transaction,
)
from pwc_local.store.passage_index import clear_index, create_fts, index_passages
from pwc_local.store.passages import Headings, split_passages
from pwc_local.store.saved_pieces import LAYOUT_WHOLE, digest, migrate_whole_rows, texts, verified

SCHEMA_VERSION = 2  # 2: saved Markdown in `saved_pieces`; heading paths without the title
OPEN_WAIT = 1.0  # seconds opening waits to bring an existing library's schema up to date

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
    saved_at REAL NOT NULL,
    layout INTEGER NOT NULL DEFAULT 1,
    size INTEGER
);
CREATE TABLE IF NOT EXISTS saved_pieces (
    paper TEXT NOT NULL,
    start INTEGER NOT NULL,
    stop INTEGER NOT NULL,
    digest TEXT NOT NULL,
    -- last: the seal check reads every digest without the texts' overflow pages
    text TEXT NOT NULL,
    PRIMARY KEY (paper, start)
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


def prepare(db: sqlite3.Connection, *, wait: float) -> bool:
    """Create the library's schema on `db` or bring it up to date; whether it has FTS5.

    Every passage is re-cut (`reindex`) when the library was written by an older
    schema. When another process holds the write
    lock for more than `OPEN_WAIT` (a long `library add`) and the library is up to
    date already, it opens as it is instead of waiting on: the writer has the
    schema in place. Otherwise it waits up to `wait` seconds, then the lock's error
    goes to the caller.
    """
    started = time.monotonic()
    while True:
        try:
            with transaction(db):
                for statement in _statements(_SCHEMA):
                    db.execute(statement)
                _add_columns(db)
                has_fts = create_fts(db)
                migrate_whole_rows(db)
                if _schema_of(db) < SCHEMA_VERSION:
                    reindex(db, has_fts)  # heading paths without the title
                # Written only when it changes: an open of an up-to-date library
                # writes nothing, so it works on a full disk too.
                db.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)",
                    (str(SCHEMA_VERSION),),
                )
                db.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema' AND value != ?",
                    (str(SCHEMA_VERSION), str(SCHEMA_VERSION)),
                )
            return has_fts
        except sqlite3.OperationalError as exc:
            if not is_locked(exc):
                raise
            waited = time.monotonic() - started
            if waited > OPEN_WAIT and _is_up_to_date(db):
                fts = "SELECT 1 FROM sqlite_master WHERE name = 'passages_fts'"
                return db.execute(fts).fetchone() is not None
            if waited > wait:
                raise
            time.sleep(0.05)


def open_read_only(path: Path, reason: str, wait_ms: int) -> tuple[sqlite3.Connection, bool]:
    """A connection that reads the library at `path`, which cannot be written (`reason`).

    `mode=ro` first, which still sees other processes' commits; where SQLite
    cannot even create its shared-memory file beside the database (a read-only
    mount, a full disk), `immutable=1`, which reads the database file as it is.
    Tables a library of this version has but this one lacks are stood in for
    by empty temporary ones, so every query still answers. Returns whether it has FTS5.
    """
    check_private_file(path)
    failure: sqlite3.Error | None = None
    for mode in ("mode=ro", "immutable=1"):
        connection = None
        try:
            connection = connect(path, wait_ms, mode=mode, pragmas=READER_PRAGMAS)
            has_fts = _read_only_schema(connection)
        except sqlite3.Error as exc:
            failure = exc
            if connection is not None:
                connection.close()
            continue
        return connection, has_fts
    raise LibraryError(
        f"cannot open the library database {path} ({reason}), not even to read it: {failure}"
    )


def reindex(db: sqlite3.Connection, has_fts: bool) -> int:
    """`Library.rebuild_index` inside the caller's transaction (`prepare`'s too)."""
    clear_index(db, has_fts)
    count = 0
    saved = db.execute(
        "SELECT d.id, p.paper, p.title FROM documents d JOIN papers p ON p.paper = d.paper "
        "WHERE d.saved = 1"
    ).fetchall()
    for doc, paper, title in saved:
        found = verified(db, paper)
        if found is None or found.size is None:
            continue
        pieces = [(0, found.whole)] if found.whole is not None else texts(db, paper)
        headings: Headings = ()
        for start, text in pieces or ():
            split = split_passages(text, base=start, headings=headings, title=title)
            index_passages(db, int(doc), split.passages)
            count += len(split.passages)
            headings = split.headings
    for doc, title in db.execute("SELECT id, title FROM documents WHERE saved = 0").fetchall():
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
                text, base=start, headings=opened if stop == start else (), title=title
            )
            index_passages(db, int(doc), split.passages)
            count += len(split.passages)
            opened, stop = split.headings, end
    return count


def _is_up_to_date(db: sqlite3.Connection) -> bool:
    """Whether the database holds this version's schema already (read without a lock)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
        return False
    return _schema_of(db) >= SCHEMA_VERSION


def _schema_of(db: sqlite3.Connection) -> int:
    """The schema version a database was last written with (1 when it predates `meta`)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    try:
        return int(row[0]) if row is not None else SCHEMA_VERSION
    except ValueError:
        return 1


def _add_columns(db: sqlite3.Connection) -> None:
    """The columns schema 2 added to `papers`, on a database that schema 1 created."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(papers)")}
    if "layout" not in columns:
        db.execute(f"ALTER TABLE papers ADD COLUMN layout INTEGER NOT NULL DEFAULT {LAYOUT_WHOLE}")
    if "size" not in columns:
        db.execute("ALTER TABLE papers ADD COLUMN size INTEGER")


def _statements(script: str) -> list[str]:
    return [s.strip() + ";" for s in script.split(";\n") if s.strip()]


def _read_only_schema(db: sqlite3.Connection) -> bool:
    """Stand-ins for what a read-only database lacks (see `open_read_only`); has FTS5?"""
    present = {
        str(name) for (name,) in db.execute("SELECT name FROM main.sqlite_master")
    }  # reading it also proves the database is one
    for statement in _statements(_SCHEMA):
        words = statement.split()
        if words[:2] == ["CREATE", "TABLE"] and words[5] not in present:
            db.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
    if "papers" in present:
        columns = {row[1] for row in db.execute("PRAGMA main.table_info(papers)")}
        if "layout" not in columns:  # schema 1: the whole Markdown in one column
            db.execute(
                f"CREATE TEMP VIEW papers AS SELECT *, {LAYOUT_WHOLE} AS layout, "
                "NULL AS size FROM main.papers"
            )
    return "passages_fts" in present
