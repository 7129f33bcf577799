"""What both `queries/` and `store/` speak, so that neither imports the other.

* `references`: paper references (arXiv IDs, URLs, slugs, titles) parsed and resolved.
* `cursors`: the signed `read_paper` cursor codec; `store.keys` holds its key.
* `shelf`: the reading library's and the watch list's records and the protocols the
  queries call them through; `store/` implements them.

It sits on `upstream/` only.
"""
