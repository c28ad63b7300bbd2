"""perfkit: campaign-to-PR publishing and two-level precision bisects, as plain functions.

The adapters (server.py for MCP, cli.py for the shell) only translate; every decision lives
in the core modules so that an agent, a script and a person get the same answer.
"""

__version__ = "0.1.0"
