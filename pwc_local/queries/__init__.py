"""Research logic per tool or feature, between the tool bindings and the catalog source.

One module per tool family: `papers`, `public` (open-access fallbacks), `reading`,
`sections` and `outline`, `leaderboard` and `benchmarks`, `taxonomy` (tasks, methods,
datasets), `citations` and `citing`, `library`, `library_search`, `saving` and
`reading_list` (the reading library), `watch` (the watch list). `arguments` and
`lookup` are the argument checks and ID lookups they share.

Each function takes a `CatalogSource` (and, for local features, a store's protocol
from `pwc_local.common.shelf`) and returns plain, typed results. Nothing here knows
MCP (no SDK, no tool declarations), the disk (no `store/` import: the runtime hands
the stores in), or HTTP details beyond the catalog's paths (`upstream/` owns them).
"""
