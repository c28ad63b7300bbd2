"""Size and depth caps shared by every tool, and a reader that never blocks on what it opens.

A campaign folder or repository may come from someone else: a FIFO where a file belongs would
block a read forever, a 10 GB "report" would fill memory, a line nested 20,000 deep would blow
Python's stack. Every reader of user text goes through here, so each of those ends as an
InputError that names the field and the limit, in bounded time and memory.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

from perfkit.errors import InputError

MiB = 1024**2
MAX_JSON_LINE_CHARS = 1 * MiB  # one JSON object of a .jsonl file
MAX_JSON_DEPTH = 64  # nesting of one JSON value: a record is two or three levels deep
MAX_INT_DIGITS = 400  # more digits than any float holds: a number, not a payload
MAX_REVISION_CHARS = 1024  # a sha, tag or branch name
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux
MAX_ARG_CHARS = 100_000  # a string that becomes a process argument: above 128 KiB none can reach a process
MAX_INLINE_CHARS = 4 * MiB  # any string argument of a tool: inline text included
# benchmark.csv: pandas needs up to about 17 times a file's size while it parses one (object columns
# of short strings), so 1 GiB meant 17 GB. 128 MiB is about 4 million steps, far beyond a campaign,
# and bounds the read near 2 GB; tests/test_hostile_sizes.py measures the ratio.
MAX_BENCHMARK_CSV_BYTES = 128 * MiB


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_regular_bytes(path: Path, field: str, limit: int, fix: str) -> bytes:
    """The bytes of path, refusing anything but a regular file of at most limit bytes.

    Opened with O_NONBLOCK so a FIFO answers at once instead of waiting for a writer, and
    checked with fstat on the open descriptor, so a swap between check and read changes nothing.
    Kernel pseudo-files (/proc, /sys) claim to be regular files of 0 bytes and then give content
    (/proc/self/environ is the process's secrets): a path under them, or a file that gives more
    bytes than its size said, is refused."""
    if _pseudo(path):
        raise InputError(field, f"'{path}' is a kernel pseudo-file (/proc, /sys, /dev), not a file on disk", fix)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise _open_error(exc, field, fix) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(field, f"is {_kind(info.st_mode)}, not a regular file", fix)
        if info.st_size > limit:
            raise InputError(field, f"is {_size(info.st_size)}, more than the {_size(limit)} perfkit reads", fix)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(limit + 1 - total, 1 * MiB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # the file grew while being read
                raise InputError(field, f"is more than the {_size(limit)} perfkit reads", fix)
            if total > info.st_size:
                raise InputError(
                    field,
                    f"gave more bytes than the {info.st_size:,} its size says: a kernel pseudo-file or a file "
                    "being written, not a finished file on disk",
                    fix,
                )
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular_text(path: Path, field: str, limit: int, fix: str) -> str:
    """UTF-8 text of a regular file (see read_regular_bytes); refuses binary and undecodable files."""
    data = read_regular_bytes(path, field, limit, fix)
    if b"\0" in data:
        raise InputError(field, "holds NUL bytes: it is a binary file, not text", fix)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(field, f"is not UTF-8 text (bad byte at offset {exc.start})", "save it as UTF-8") from None


_PSEUDO_ROOTS = ("/proc", "/sys", "/dev")


def _pseudo(path: Path) -> bool:
    """Whether path, links resolved, lies in a kernel pseudo-filesystem."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    if real.startswith("/dev/shm/"):
        return False  # a memory filesystem of ordinary files
    return any(real == root or real.startswith(root + "/") for root in _PSEUDO_ROOTS)


def check_regular_file(path: Path, field: str, limit: int, fix: str) -> int:
    """Size of path after the same checks as read_regular_bytes, for readers that stream it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _open_error(exc, field, fix) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(field, f"is {_kind(info.st_mode)}, not a regular file", fix)
        if info.st_size > limit:
            raise InputError(field, f"is {_size(info.st_size)}, more than the {_size(limit)} perfkit reads", fix)
        if b"\0" in os.read(fd, 8192):
            raise InputError(field, "holds NUL bytes: it is a binary file, not text", fix)
        return info.st_size
    finally:
        os.close(fd)


def _open_error(exc: OSError, field: str, fix: str) -> InputError:
    if exc.errno == errno.ELOOP:
        return InputError(field, "is a symbolic link that loops (or chains too deep)", fix)
    if exc.errno == errno.ENOENT:
        return InputError(field, "does not exist (or is a link to nothing)", fix)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return InputError(field, "cannot be read: permission denied", fix)
    if exc.errno == errno.ENAMETOOLONG:
        return InputError(field, "names a path longer than this system allows", "pass a shorter path")
    if exc.errno == errno.ENOTDIR:
        return InputError(field, "has a file where a folder belongs on its path", fix)
    return InputError(field, f"cannot be opened ({exc.strerror})", fix)


def _size(n: int) -> str:
    return f"{n / MiB:,.1f} MiB" if n >= MiB else f"{n:,} bytes"


def check_text(value: str, field: str, limit: int, fix: str) -> str:
    """An inline text argument of at most limit characters, with no lone surrogate (a NUL is the
    tool's to judge: it is text to a lint, and no revision or path)."""
    if len(value) > limit:
        raise InputError(field, f"is {len(value):,} characters, more than the {limit:,} perfkit takes", fix)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(field, f"holds a lone surrogate at character {exc.start}", "pass valid Unicode text") from None
    return value


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_CHUNK = 8 * MiB  # brackets counted at once in long texts (bounded extra memory)


def json_depth(text: str) -> int:
    """Deepest nesting of brackets outside strings: measured before parsing, so no parser recurses on it.

    A long text (a serving result with per-request lists is tens of MB) has its strings blanked by
    one regular expression and its brackets counted with numpy, a chunk at a time: linear, and as
    fast as the parser that follows. Short texts take the plain loop, without importing numpy."""
    if len(text) > 64 * 1024:
        return _json_depth_long(text)
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _json_depth_long(text: str) -> int:
    import numpy as np

    bare = _JSON_STRING.sub("", text)
    cut = bare.find('"')  # a string left open runs to the end, as the loop above reads it
    if cut >= 0:
        bare = bare[:cut]
    brackets = _NOT_BRACKET.sub("", bare)  # a list of numbers leaves two characters
    depth = deepest = 0
    for start in range(0, len(brackets), _DEPTH_CHUNK):
        codes = np.frombuffer(brackets[start : start + _DEPTH_CHUNK].encode("ascii"), dtype=np.uint8)
        levels = depth + np.cumsum(np.where((codes == 91) | (codes == 123), 1, -1), dtype=np.int64)
        deepest = max(deepest, int(levels.max()))
        depth = int(levels[-1])
    return deepest


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-')):,} digits (more than {MAX_INT_DIGITS})")
    return int(text)


def _check_values(value: Any, field: str, fix: str) -> None:
    """Refuse a lone surrogate (json accepts '\\ud800') or a non-finite number (NaN, Infinity, 1e999)
    anywhere in a parsed value, naming the key it sits under."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, v = stack.pop()
        named = f"{field} field '{where}'" if where else field
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise InputError(named, f"holds a lone surrogate ({v[exc.start : exc.end]!a})", fix) from None
        elif isinstance(v, float) and not math.isfinite(v):
            raise InputError(named, f"must be a finite number, found {v}", "write a number JSON can hold")
        elif isinstance(v, dict):
            for k, item in v.items():
                stack.append((where, k))
                stack.append((f"{where}.{k}" if where else str(k), item))
        elif isinstance(v, list):
            stack.extend((where, item) for item in v)


class _Repeated(ValueError):
    """A key named twice in one JSON object (json would keep the last value silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Repeated(key)
        out[key] = value
    return out


_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_int=_int)
_SPACE = re.compile(r"\s*")


def _repeated(key: str) -> str:
    shown = key if len(key) <= 120 else f"{key[:120]}... ({len(key):,} characters)"
    return f"names the key {json.dumps(shown)} twice in one object"


def load_json(text: str, field: str, fix: str) -> Any:
    """One JSON value from user text, within the caps above; anything else is an InputError.

    A key named twice in one object is refused: json keeps the last value and drops the other unsaid."""
    if len(text) > MAX_JSON_LINE_CHARS:
        raise InputError(
            field, f"is {len(text):,} characters, more than the {MAX_JSON_LINE_CHARS:,} of one record", fix
        )
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise InputError(field, f"nests {depth:,} levels deep, more than the {MAX_JSON_DEPTH} perfkit reads", fix)
    try:
        value = _DECODER.decode(text)
    except _Repeated as exc:
        raise InputError(field, _repeated(exc.key), "keep one value per key") from None
    except json.JSONDecodeError as exc:
        raise InputError(field, f"is not valid JSON ({exc.msg} at column {exc.colno})", fix) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(field, f"is not valid JSON ({exc})", fix) from None
    _check_values(value, field, fix)
    return value


def load_json_values(text: str, field: str, fix: str) -> list[tuple[int, Any]]:
    """Every JSON value of a file with the line it starts on: one value, one per line (JSONL), or
    several written one after another (an appending writer). Keys are unique, as in load_json;
    numbers are as written (NaN and Infinity included: the reader decides what they may be).
    An error's field is `<field> line <n>`."""
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise InputError(field, f"nests {depth:,} levels deep, more than the {MAX_JSON_DEPTH} perfkit reads", fix)
    out: list[tuple[int, Any]] = []
    pos = _skip_space(text, 0)
    while pos < len(text):
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except _Repeated as exc:
            line = _repeat_line(text, pos, exc.key)
            raise InputError(f"{field} line {line}", _repeated(exc.key), "keep one value per key") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{field} line {exc.lineno}", f"is not valid JSON ({exc.msg})", fix) from None
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{field} line {_line_at(text, pos)}", f"is not valid JSON ({exc})", fix) from None
        out.append((_line_at(text, pos), value))
        pos = _skip_space(text, end)
    return out


def _skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _repeat_line(text: str, start: int, key: str) -> int:
    """The line of the second `"key":` from start, where the object that failed began."""
    for form in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
        hits = re.finditer(re.escape(form) + r"\s*+:", text[start:])
        first, second = next(hits, None), next(hits, None)
        if first is not None and second is not None:
            return _line_at(text, start + second.start())
    return _line_at(text, start)


def check_argument(value: str, field: str, limit: int = MAX_ARG_CHARS) -> None:
    """A string argument no longer than limit: git and the kernel refuse longer ones with E2BIG."""
    if len(value) > limit:
        raise InputError(
            field, f"is {len(value):,} characters long, longer than the {limit:,} allowed", "pass a shorter value"
        )
