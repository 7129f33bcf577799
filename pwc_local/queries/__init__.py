"""Research logic per tool or feature, between the tool bindings and the catalog source.

Each module answers one feature's questions (today: `watch`, the watch list) by
calling the catalog query functions (`pwc_local.catalog.*`) and the stores it needs,
and returns plain, JSON-able results. Nothing here knows MCP (no SDK, no tool
declarations) or HTTP details (paths, parameters, envelopes stay in the catalog
layer); the bindings stay thin declarations over these functions.
"""
