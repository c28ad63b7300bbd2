"""The floor for cold start: an MCPServer with no tools, started the same way as perfkit."""

from mcp.server import MCPServer

if __name__ == "__main__":
    MCPServer("bare").run("stdio")
