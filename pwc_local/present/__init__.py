"""The presentation of results: a query's answer in, both halves of a tool result out.

Each MCP client hands its model one half of a result (the text block, or
`structuredContent`), so in the default `compact` profile both halves are built from
one record and carry the same facts once (`record.py` says how). The `hosted` profile
keeps the hosted server's shapes byte for byte.

| module          | holds                                                              |
| --------------- | ------------------------------------------------------------------ |
| record          | `Record`, `Table`, `Presenter`: the machinery every family uses     |
| words           | the words texts are made of (`clean`, `plural`, tables, call hints) |
| papers          | searches and listings, one paper, its evaluations and lineage       |
| benchmarks      | a leaderboard page, benchmark listings, the leaderboard table      |
| taxonomy        | tasks, methods, conferences, organizations, frameworks             |
| reading         | a chunk of a paper's Markdown, its outline                         |
| history         | the state of the art over time, who beat a paper                   |
| hosted          | the hosted server's output models (the `hosted` profile)           |
| projections     | catalog payloads into the hosted models                            |
| render          | the text block of a result, in each `result_text` mode             |
| pieces, generic | the hosted profile's Markdown: per-tool pieces, any model's walk   |
| summaries       | the hosted server's sentences (`result_text = "summary"`)          |
"""
