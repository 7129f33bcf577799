"""The MCP layer: the server, its stdio transport, and how each tool is bound and shown.

* `app`: the server (identity, instructions, capabilities, the lazy start-up); `sdk`:
  every use of the SDK's private attributes, in one place; `stdio` and `framing`: our
  stdio transport and its line framing.
* `bindings`: each contract entry's query function, output model, projection and text;
  `tools`: the one call path over them; `listing`: the compact `tools/list`.
* the output models, their records and the text of results are in `pwc_local.present`;
  `text`: the server's identity and instructions.
* `resources`, `prompts`, `completions`, `links`, `named`: the rest of the protocol
  surface; `hygiene`, `lenient`: input at the boundary; `errors`: failures as
  `code: sentence`, the only place.
"""
