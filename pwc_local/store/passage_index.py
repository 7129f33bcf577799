"""The library's passage index: its FTS5 table, writing passages to it, and searching it.

The passages (`pwc_local.store.passages` cuts them) of saved and read papers live in
the `passages` table; an external-content FTS5 table, `passages_fts`, kept in step
by triggers, indexes their heading paths and text. Search asks it for every word
(else any word), re-ranks the best by BM25 by exactness (`exact_ranker`) and quotes
the passages shown with `snippet()` (`fts_search`). Where SQLite lacks FTS5 the
same question is a `LIKE` scan, ranked by how many words a passage holds and quoted
by `like_quote` (`like_search`). A hit's quote, title and heading path are bounded
(`MAX_QUOTE_CHARS`).

`Library` calls these with its connection, holding its lock.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from pwc_local.common.shelf import ELLIPSIS, MAX_QUOTE_CHARS, RawHit, shown_title
from pwc_local.store.passages import Passage, bounded_path
from pwc_local.store.ranking import exact_ranker

# Words that find nothing by themselves: FTS5's operator words and English function
# words. A query's other words are what it is matched on (these still rank: `exact_ranker`
# gets every word); a query of these alone is matched as a phrase, and one such word
# alone finds nothing, so "and" never matches every passage.
STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it"}
    | {"near", "not", "of", "on", "or", "that", "the", "this", "to", "with"}
)
SNIPPET_TOKENS = 40
CANDIDATES_PER_HIT = 5  # passages fetched by BM25 per hit asked for, to re-rank
MAX_CANDIDATES = 250
MARK = "**"

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


def create_fts(db: sqlite3.Connection) -> bool:
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


def clear_index(db: sqlite3.Connection, has_fts: bool) -> None:
    """Drop every passage, and the FTS5 table with them (made anew, empty)."""
    if has_fts:
        db.execute("DROP TABLE IF EXISTS passages_fts")
        db.execute("DROP TRIGGER IF EXISTS passages_ai")
        db.execute("DROP TRIGGER IF EXISTS passages_ad")
    db.execute("DELETE FROM passages")
    if has_fts:
        create_fts(db)


def index_passages(db: sqlite3.Connection, doc: int, passages: Sequence[Passage]) -> None:
    """Add `passages` of document `doc` to the index."""
    db.executemany(
        "INSERT INTO passages(doc, start, heading, body) VALUES (?,?,?,?)",
        [(doc, p.start, p.heading, p.text) for p in passages],
    )


def search_terms(words: Sequence[str]) -> list[str]:
    """What a query's `words` are matched on: its words but `STOP_WORDS`; a query of
    stop words only is one phrase of them all (`["to be or not"]`), a single one nothing."""
    terms = [word for word in words if word.casefold() not in STOP_WORDS]
    if terms:
        return terms
    return [" ".join(words)] if len(words) > 1 else []


def check_index(db: sqlite3.Connection) -> bool:
    """Whether the FTS5 table agrees with the passages (its `integrity-check`)."""
    try:
        db.execute("INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    return True


def fts_search(
    db: sqlite3.Connection,
    words: Sequence[str],
    limit: int,
    paper: str | None,
    *,
    every: bool,
    terms: Sequence[str] | None = None,
) -> list[RawHit]:
    """The index's best passages, re-ranked: exact phrase, then exact words, then BM25.

    Passages are matched on `terms` (`search_terms(words)` when not given) and ranked
    by all of `words`. The index stems (porter), so "encodings" also finds "encoder".
    The best `limit * CANDIDATES_PER_HIT` by BM25 are fetched and ordered by exactness
    first (`exact_ranker`): a passage with the query's words as written ranks
    above one that has only their stems. Quotes (`snippet()`) are made for the
    passages shown only.
    """
    terms = search_terms(words) if terms is None else terms
    if not terms:
        return []
    # Each term becomes a quoted FTS5 string, so no query syntax can leak in.
    match = (" AND " if every else " OR ").join(_fts_string(t) for t in terms)
    where = "passages_fts MATCH ?"
    params: list[Any] = [match]
    if paper is not None:
        where += " AND d.paper = ?"
        params.append(paper)
    sql = (
        "SELECT d.paper, d.title, d.saved, d.version, p.heading, p.start, p.id, "
        "bm25(passages_fts, 2.0, 1.0) AS score, p.body "
        "FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid "
        f"JOIN documents d ON d.id = p.doc WHERE {where} ORDER BY score LIMIT ?"
    )
    params.append(min(limit * CANDIDATES_PER_HIT, MAX_CANDIDATES))
    rows = db.execute(sql, params).fetchall()
    rank = exact_ranker(words)
    best = sorted(rows, key=lambda row: (rank(f"{row[4]}\n{row[8]}"), row[7], row[5]))
    best = best[:limit]
    # Quotes only for the passages shown: snippet() is the costly part.
    marks = ",".join("?" * len(best))
    snippets = dict(
        db.execute(
            f"SELECT rowid, snippet(passages_fts, 1, '{MARK}', '{MARK}', '{ELLIPSIS}', "
            f"{SNIPPET_TOKENS}) FROM passages_fts WHERE passages_fts MATCH ? "
            f"AND rowid IN ({marks})",
            [match, *(row[6] for row in best)],
        ).fetchall()
    )
    return [_hit((*row[:6], snippets.get(row[6], ""), row[7])) for row in best]


def like_search(
    db: sqlite3.Connection,
    words: Sequence[str],
    limit: int,
    paper: str | None,
    *,
    every: bool,
    terms: Sequence[str] | None = None,
) -> list[RawHit]:
    """Passages holding every term (else any), ranked by how many: where SQLite lacks FTS5.

    `terms` as for `fts_search`."""
    terms = search_terms(words) if terms is None else terms
    if not terms:
        return []
    tests = ["(p.body LIKE ? ESCAPE '\\' OR p.heading LIKE ? ESCAPE '\\')" for _ in terms]
    params: list[Any] = []
    for word in terms:
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
    rows = db.execute(sql, [*score_params, *params, limit]).fetchall()
    return [_hit((*row[:6], like_quote(row[6], terms), row[7])) for row in rows]


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
    return re.sub(re.escape(word), lambda m: f"{MARK}{m.group(0)}{MARK}", text, flags=re.I)


def _hit(row: Sequence[Any]) -> RawHit:
    """A search row as a hit: quote, title and heading path each at most `MAX_QUOTE_CHARS`."""
    quote = " ".join(str(row[6]).split())
    if len(quote) > MAX_QUOTE_CHARS:
        quote = quote[: MAX_QUOTE_CHARS - 1].rstrip() + ELLIPSIS
    return RawHit(
        paper=str(row[0]),
        title=shown_title(str(row[1])),
        saved=bool(row[2]),
        version=str(row[3]),
        heading=bounded_path(str(row[4]), MAX_QUOTE_CHARS),
        start=int(row[5]),
        quote=quote,
        score=float(row[7]),
    )


def _fts_string(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'
