"""Everything on disk: the source chain's caching layers and the user's own data.

* The catalog source's decorators: `library_catalog` (saved papers answer first),
  `cached_catalog` over `cache` (the shared diskcache, busy-aware), `outage` (the
  outage memory in front of HTTP), and `freshness` (was a stale entry served?), a
  light module the tool layer reaches without importing the cache at start-up.
* User data in the library database (user data dir, not the cache): `library`
  (saved papers, the passage index, `passages`, `ranking`), `watchlist` (watches
  and baselines), `vocabulary` (names for completions). They implement the
  protocols in `pwc_local.common.shelf`; the queries never import them.
* `keys`: the per-machine cursor key.

It sits on `upstream/` and `common/`; it imports neither `queries/` nor `server/`.
"""
