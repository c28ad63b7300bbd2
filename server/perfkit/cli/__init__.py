"""The command-line adapter: `perfkit <command>`, generated from the same ToolSpecs as the MCP server.

Holds the commands' parser, help and dispatch (commands), the wording of core text in a shell user's terms
(terms), the "did you mean" hints (hints), the progress bar (progressbar) and the `perfkit demo` command
with the repositories it builds (demo). No tool logic lives here.
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """The `perfkit` command's entry point; imports the parser only when called, so importing stays free."""
    from perfkit.cli.commands import main as run

    return run(argv)
