"""`python -m perfkit.cli`: the same entry point as the `perfkit` command."""

from perfkit.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
