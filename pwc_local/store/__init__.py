"""Everything on disk: the source chain's caching layers and the user's own data.

* The catalog source's decorators: `library_catalog` (saved papers answer first),
  `cached_catalog` over `cache` (the shared diskcache, busy-aware), `outage` (the
  outage memory in front of HTTP), and `freshness` (was a stale entry served?), a
  light module the tool layer reaches without importing the cache at start-up.
* User data in the library database (user data dir, not the cache): `library`
  (the `Library` class: saved papers, the index of read papers, search), `watchlist`
  (watches and baselines), `vocabulary` (names for completions). They implement the
  protocols in `pwc_local.common.shelf`; the queries never import them. Beneath
  `library`, one job each:
  - `library_db`: opening the one database file the three share (where it lives,
    its private directory and file, connections, pragmas, transactions, locks, why
    it cannot be written);
  - `library_schema`: the library's tables, their upgrades and the re-cut of every
    passage, and the read-only stand-ins;
  - `saved_pieces`: a saved paper's Markdown as sealed pieces (digests, the seal,
    verification, the pieces a chunk is served from);
  - `markdown_chunks`: `cut`, stored Markdown chunked the way the catalog chunks it;
  - `passages` (cutting Markdown into passages), `passage_index` (the FTS5 index of
    them, its searches and quotes) and `ranking` (exact matches first).
* `keys`: the per-machine cursor key.
  (0700 directories, 0600 files: the root module `pwc_local.private_files`.)

It sits on `upstream/` and `common/`; it imports neither `queries/` nor `server/`.
"""
