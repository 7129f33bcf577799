"""Command-line subcommands other than `serve`, each imported only when invoked."""
