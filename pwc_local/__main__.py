"""`python -m pwc_local` behaves exactly like the `pwc-mcp-local` command."""

from pwc_local.entry import main

if __name__ == "__main__":
    main()
