"""The MCP adapter: `perfkit serve`, one MCP tool per ToolSpec, over stdio.

Holds the server (server), its flow control (flow_control), the bounded reading of request lines
(request_lines), the tools/list answer kept on disk for a fast start (tool_list_cache), and the README's
tool reference generated from the schemas it serves (reference). No tool logic lives here.
"""
