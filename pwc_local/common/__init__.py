"""What both `queries/` and `store/` speak, so that neither imports the other.

* `references`: paper references (arXiv IDs, URLs, slugs, titles) parsed and resolved.
* `cursors`: the signed `read_paper` cursor codec; `store.keys` holds its key.
* `shelf` and `watches`: the reading library's and the watch list's records, errors
  and the protocols (`Shelf`, `WatchStore`) the queries call them through; `store/`
  implements them and `pwc_local.runtime` hands them in.
* `names`: the task and benchmark names seen before (`KnownNames`), for suggestions.

It sits on `upstream/` and the root modules only.
"""
