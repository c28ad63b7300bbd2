"""Which chunk of the bad-input table a row belongs to, from the row's id alone.

The table's test module computes each chunk once, in one world, for all of the chunk's rows; the test
scheduler (conftest.py) sends every test of a chunk to one test process, so no process waits for a
chunk another is computing. The scheduler sees only test ids, so the chunk is a function of the id.
Any row can share any world, so a hash spreads the rows, and the slow ones, evenly enough.
"""

from __future__ import annotations

import re
import zlib

CHUNKS = 16  # about 15 rows each: one world, one MCP session and one CLI driver serve them all
TABLE = "test_bad_input_table.py::"


def chunk_of(row_id: str) -> int:
    return zlib.crc32(row_id.encode()) % CHUNKS


def group_of(nodeid: str) -> str | None:
    """The chunk's group for a test of the table ('bad-input-K'); None for any other test."""
    if TABLE not in nodeid:
        return None
    m = re.search(r"\[([^\[\]]+)\](?:@[^\]]*)?$", nodeid)
    return f"bad-input-{chunk_of(m.group(1))}" if m else None
