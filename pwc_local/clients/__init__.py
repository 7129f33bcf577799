"""Registering pwc-mcp-local in MCP clients' configuration files (`install`, `uninstall`).

`targets` declares each client (where its config lives, its shape, how it reloads) as
one data entry; `entry` is the command a client runs; `installer` plans and applies a
change through `files` (atomic writes, `.bak` copies), `jsonc` (JSON with comments kept)
and `tomltables` (TOML through tomlkit); `leftovers` finds what remains after
uninstalling; `errors` says why a file could not change.
"""
