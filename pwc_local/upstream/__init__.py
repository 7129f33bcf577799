"""The catalog's HTTP client: the bottom of every call.

* `http`: the `CatalogSource` protocol every layer above speaks, and `HttpCatalog`,
  its httpx implementation (retries, the bounded client, the pwc CLI's settings).
* `bodies`: reading a response within its byte bound; `documents`: the Markdown
  chunks and whole documents; `envelopes`: the JSON envelope shapes the spec marks
  "(inferred)", adapted in one place.
* `causes` and `errors`: the error tree. Each class knows its `code` and its public
  sentence; `pwc_local.server.errors` turns them into tool text.

Nothing here knows MCP, the tools, or the disk.
"""
