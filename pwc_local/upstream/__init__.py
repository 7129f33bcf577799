"""The catalog's HTTP client: the bottom of every call.

* `source`: the `CatalogSource` protocol every layer above speaks and its types,
  without httpx; `http`: `HttpCatalog`, its httpx implementation (the bounded client,
  the redirect and TLS rules).
* `bodies`: reading a response within its byte bound; `documents`: the Markdown
  chunks and whole documents; `envelopes`: the JSON envelope shapes the spec marks
  "(inferred)", adapted in one place.
* `causes` and `errors`: the error tree. Each class knows its `code` and its public
  sentence; `pwc_local.server.errors` turns them into tool text.

Nothing here knows MCP, the tools, or the disk.
"""
