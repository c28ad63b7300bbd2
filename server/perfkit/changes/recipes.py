"""Recognise recipes, launchers and configs, and read what their lines set and what source lines read.

A campaign's setting lives in a file a user runs or edits (a shell launcher, a YAML config, an
example script) and names a key (an environment variable, a flag, a config entry); a new option
lives in source that reads a key with a default. Matching the two is how a setting is told from a
default the repository should ship. These are line-level patterns, not parsers: they only propose.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from perfkit.changes.models import FileRole

# Path patterns for recipes, launchers and configs. A pattern without '/' matches the file name,
# one with '/' matches the path from the repository root; '*' also crosses folders.
DEFAULT_RECIPE_GLOBS: tuple[str, ...] = (
    "*.sh",
    "*.bash",
    "*.zsh",
    "*.slurm",
    "*.sbatch",
    "*.pbs",
    "*.yaml",
    "*.yml",
    "*.toml",
    "*.json",
    "*.jsonc",
    "*.ini",
    "*.cfg",
    "*.conf",
    "*.env",
    ".env",
    "examples/*",
    "example/*",
    "recipes/*",
    "recipe/*",
    "scripts/*",
    "script/*",
    "configs/*",
    "config/*",
    "conf/*",
    "launch/*",
    "launchers/*",
    "egs/*",
    "*/examples/*",
    "*/recipes/*",
    "*/scripts/*",
    "*/configs/*",
)
LAUNCHER_EXT = {".sh", ".bash", ".zsh", ".slurm", ".sbatch", ".pbs"}
_CONFIG_EXT = {".yaml", ".yml", ".toml", ".json", ".jsonc", ".ini", ".cfg", ".conf", ".env", ".properties"}
_DOC_EXT = {".md", ".rst", ".adoc", ".txt", ".html"}
_TEST_RE = re.compile(
    r"(^|/)(tests?|testing|unittests?)/|(^|/)test_[^/]*$|_test\.[^/]+$|\.(test|spec)\.[jt]sx?$"
    r"|(^|/)conftest\.py$"
)
_DOC_RE = re.compile(r"(^|/)docs?/|(^|/)(README|CHANGELOG|CHANGES|LICENSE|NOTICE|AUTHORS)[^/]*$", re.I)
_DEP_RE = re.compile(
    r"(^|/)([^/]*requirements[^/]*\.(txt|in)|constraints[^/]*\.txt|environment[^/]*\.ya?ml"
    r"|pyproject\.toml|setup\.py|setup\.cfg|Pipfile|[^/]*Dockerfile[^/]*|[^/]*\.dockerfile)$",
    re.I,
)
_LAUNCH_CMD_RE = re.compile(
    r"\b(torchrun|deepspeed|accelerate\s+launch|mpirun|srun"
    r"|python3?\s+-m\s+torch\.distributed)"
)


def is_test(path: str) -> bool:
    return bool(_TEST_RE.search(path))


def _glob_hit(path: str, globs: list[str]) -> bool:
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(path if "/" in g else name, g) for g in globs)


def role_of(path: str, globs: list[str], first_line: str | None = None) -> FileRole:
    """Role from the path first, then the content (a shell shebang or a launch command)."""
    ext = PurePosixPath(path).suffix.lower()
    if is_test(path):
        return "test"
    if _DEP_RE.search(path):
        return "dependency"
    if _DOC_RE.search(path) and ext not in {".py", ".sh"} or ext in _DOC_EXT:
        return "doc"
    if _glob_hit(path, globs):
        if ext in LAUNCHER_EXT:
            return "launcher"
        if ext in _CONFIG_EXT or PurePosixPath(path).name == ".env":
            return "config"
        return "recipe"
    if first_line and (re.match(r"#!.*\b(ba|z|k)?sh\b", first_line) or _LAUNCH_CMD_RE.search(first_line)):
        return "launcher"
    return "source"


# ---- what a recipe, launcher or config line sets -------------------------------------------------


@dataclass(frozen=True)
class SetItem:
    key: str
    value: str | None
    style: str  # env | flag | config | kwarg


_ENV_SET = [
    re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(\S*)"),
    re.compile(r"^\s*ENV\s+([A-Za-z_][A-Za-z0-9_]*)[= ]\s*(\S*)"),
    re.compile(r"(?:^|[\s;(])([A-Z][A-Z0-9_]{2,})=(\S*)"),
    re.compile(r"os\.environ\[\s*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']\s*\]\s*=\s*([^#]+)"),
    re.compile(r"os\.environ\.setdefault\(\s*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']\s*,\s*([^)#]+)"),
    re.compile(r"\b(?:os\.putenv|setenv|_putenv)\(\s*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']\s*,\s*([^),#]+)"),
]
_FLAG_RE = re.compile(r"(?:^|\s)--([A-Za-z][\w.\-]*)(?:=(\S+)|\s+([^\s\-\\][^\s\\]*))?")
_QUOTED_FLAG_RE = re.compile(r"[\"']--([A-Za-z][\w.\-]*)[\"']")
_HYDRA_RE = re.compile(r"(?:^|\s)[+~]{0,2}([a-z_][\w]*(?:\.[\w]+)+|[a-z_]\w*)=(\S+)")
# The config patterns run on the line without its trailing whitespace and use possessive
# repeats (*+, ++): no run of spaces can be split two ways, so each is one pass over the line.
_YAML_RE = re.compile(r"^\s*+(?:-\s++)?([A-Za-z_][\w.\-]*+)\s*+:\s*+(\S.*)?$")
_TOML_RE = re.compile(r"^\s*+([A-Za-z_][\w.\-]*+)\s*+=\s*+(\S.*)$")
_JSON_RE = re.compile(r"\"([A-Za-z_][\w.\-]*+)\"\s*+:\s*+([^,{\[]++|\{|\[)\s*+,?$")
_PY_KWARG_RE = re.compile(
    r"(?<![=!<>])\b([a-z_]\w*)\s*=\s*(True|False|None|-?\d[\w.]*|\"[^\"]*\"|'[^']*')"
    r"\s*(?=[,)]|$)"
)
_PY_ATTR_RE = re.compile(r"^\s*\w+(?:\.\w+)+\.(\w+)\s*=\s*(True|False|None|-?\d[\w.]*|\"[^\"]*\"|'[^']*')\s*$")
_SHELL_WORDS = {"if", "then", "fi", "do", "done", "for", "while", "case", "esac", "local", "echo", "set"}


def _comment(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith(("#", "//", "/*", "* ", "<!--")) or s == "*"


def settings_in(line: str, role: FileRole, path: str) -> list[SetItem]:
    """Keys a recipe, launcher or config line sets (environment variables, flags, config values)."""
    return list({canon(i.key): i for i in reversed(_settings_in(line, role, path))}.values())[::-1]


def _settings_in(line: str, role: FileRole, path: str) -> list[SetItem]:
    """Environment assignments first, then what the file's kind sets: config keys, kwargs or flags."""
    if _comment(line):
        return []
    items = _env_sets(line)
    env_keys = {i.key for i in items}
    ext = PurePosixPath(path).suffix.lower()
    if role == "config" or role == "dependency" and ext in {".toml", ".cfg", ".yml", ".yaml"}:
        return items + _config_sets(line, ext, env_keys)
    if role == "dependency" and ext in {".txt", ".in", ""}:
        return items  # requirement lines: packages_in reads them
    if role in ("launcher", "recipe", "dependency"):
        if ext == ".py" or role == "recipe" and ext not in LAUNCHER_EXT:
            return items + _python_sets(line, env_keys)
        return items + _command_line_sets(line, env_keys)
    return items


def _env_sets(line: str) -> list[SetItem]:
    items: list[SetItem] = []
    for rx in _ENV_SET:
        for m in rx.finditer(line):
            if m.group(1) not in {i.key for i in items}:
                items.append(SetItem(m.group(1), m.group(2).strip().strip("\"'") if m.group(2) else None, "env"))
    return items


def _config_sets(line: str, ext: str, env_keys: set[str]) -> list[SetItem]:
    """A key set by a JSON, TOML/INI or YAML line (the file's suffix picks the syntax)."""
    if ext in {".json", ".jsonc"}:
        rx = _JSON_RE
    elif ext in {".toml", ".ini", ".cfg", ".conf", ".env", ".properties"}:
        rx = _TOML_RE
    else:
        rx = _YAML_RE
    m = rx.search(line.rstrip())
    if not m or m.group(1) in env_keys:
        return []
    value = (m.group(2) or "").strip().strip(",").strip("\"'")
    return [SetItem(m.group(1), value, "config")] if value and value not in ("{", "[", "|", ">") else []


def _python_sets(line: str, env_keys: set[str]) -> list[SetItem]:
    """Keyword arguments, attribute assignments and quoted flags of a Python launcher or recipe."""
    items = [
        SetItem(m.group(1), m.group(2).strip("\"'"), "kwarg")
        for m in _PY_KWARG_RE.finditer(line)
        if m.group(1) not in env_keys
    ]
    attr = _PY_ATTR_RE.match(line)
    if attr:
        items.append(SetItem(attr.group(1), attr.group(2).strip("\"'"), "config"))
    for m in _QUOTED_FLAG_RE.finditer(line):  # argument lists: ["--use-fused-adam", "--lr", "0.1"]
        items.append(SetItem(m.group(1), None, "flag"))
    return items


def _command_line_sets(line: str, env_keys: set[str]) -> list[SetItem]:
    """Flags and Hydra-style key=value overrides of a shell launcher line."""
    items = [SetItem(m.group(1), m.group(2) or m.group(3), "flag") for m in _FLAG_RE.finditer(line)]
    for m in _HYDRA_RE.finditer(line):
        key = m.group(1)
        if key not in env_keys and key.split(".")[0] not in _SHELL_WORDS and not key.isupper():
            items.append(SetItem(key, m.group(2), "config"))
    return items


# ---- what a source line reads ------------------------------------------------------------------


@dataclass(frozen=True)
class OptionRead:
    key: str
    default: str | None
    style: str  # env | flag | config | kwarg


_ENV_READ = [
    re.compile(r"os\.environ\.get\(\s*+[\"']([A-Za-z_]\w*+)[\"']\s*+(?:,\s*+([^)]*+))?\)"),
    re.compile(r"os\.getenv\(\s*+[\"']([A-Za-z_]\w*+)[\"']\s*+(?:,\s*+([^)]*+))?\)"),
    re.compile(r"(?<![\w.])(?:std::)?getenv\(\s*\"([A-Za-z_]\w*)\"\s*\)()"),
    re.compile(r"os\.environ\[\s*[\"']([A-Za-z_]\w*)[\"']\s*\](?!\s*=[^=])()"),
]
_ARG_RE = re.compile(r"add_argument\(\s*(?:[\"']-\w[\"']\s*,\s*)?[\"'](--?[\w\-.]+)[\"'](.*)")
_DEFAULT_KW_RE = re.compile(r"\bdefault\s*=\s*([^,)]+)")
# A default group may keep trailing spaces: every reader strips it.
_GET_RE = re.compile(
    r"(?<!environ)\.(?:get|pop|setdefault)\(\s*+[\"']([A-Za-z_][\w.\-]*+)[\"']\s*+(?:,\s*+([^)]*+))?\)"
)
_GETATTR_RE = re.compile(r"getattr\(\s*+[\w.\[\]]++\s*+,\s*+[\"']([A-Za-z_]\w*+)[\"']\s*+,\s*+([^)]++)\)")
# An annotation is one possessive run of the characters a type is written with (spaces included),
# so the spaces before '=' are never split between it and the padding around it.
_PARAM_RE = re.compile(
    r"(?:^|[(,])\s*+([a-z_]\w*+)\s*+(?::[\w\[\]., |\"'\s]++)?=\s*+"
    r"(True|False|None|-?\d[\w.]*+|\"[^\"]*+\"|'[^']*+')\s*+(?=[,)]|$)"
)
_FIELD_RE = re.compile(
    r"^\s++([a-z_]\w*+)\s*+:[\w\[\]., |\"'\s]++=\s*+(?:field\(\s*+default\s*+=\s*+)?"
    r"(True|False|None|-?\d[\w.]*|\"[^\"]*\"|'[^']*')"
)
_OFF = {
    "false",
    "none",
    "0",
    "''",
    '""',
    "'0'",
    '"0"',
    "'false'",
    '"false"',
    "'off'",
    '"off"',
    "off",
    "no",
    "null",
    "nullptr",
}


def option_reads(line: str) -> list[OptionRead]:
    """Options a source line reads with their default: env vars, argparse flags, config keys, keyword parameters."""
    if _comment(line):
        return []
    reads: list[OptionRead] = []
    seen: set[str] = set()
    for rx in _ENV_READ:
        for m in rx.finditer(line):
            reads.append(OptionRead(m.group(1), (m.group(2) or "").strip() or None, "env"))
            seen.add(m.group(1))
    arg = _ARG_RE.search(line)
    if arg:
        rest = arg.group(2)
        d = _DEFAULT_KW_RE.search(rest)
        default = (
            d.group(1).strip()
            if d
            else ("False" if "store_true" in rest else "True" if "store_false" in rest else None)
        )
        reads.append(OptionRead(arg.group(1).lstrip("-"), default, "flag"))
        return reads
    for rx in (_GET_RE, _GETATTR_RE):
        for m in rx.finditer(line):
            if m.group(1) not in seen:
                reads.append(OptionRead(m.group(1), (m.group(2) or "").strip() or None, "config"))
                seen.add(m.group(1))
    s = line.strip()
    if (
        s.startswith(("def ", "async def "))
        or re.match(r"^[a-z_]\w*+\s*+(?::[^=]++)?=[^=]++$", s)
        and s.endswith(",")
        and not s.endswith("=,")
        or re.match(r"^[a-z_]\w*+\s*+:[^=]++=(?:[^=-]|-(?!>))++(?:->.*)?$", s)
    ):
        for m in _PARAM_RE.finditer(s.split("(", 1)[1] if s.startswith(("def ", "async def ")) else s):
            if m.group(1) not in seen and m.group(1) != "self":
                reads.append(OptionRead(m.group(1), m.group(2), "kwarg"))
                seen.add(m.group(1))
    else:
        found = _FIELD_RE.match(line)
        if found and found.group(1) not in seen:
            reads.append(OptionRead(found.group(1), found.group(2), "kwarg"))
    return reads


def keeps_old_behaviour(default: str | None) -> bool:
    """A default that leaves the feature off (False, None, 0, empty) or no default at all."""
    return default is None or default.strip().lower() in _OFF


def env_writes(line: str) -> list[SetItem]:
    """Environment variables a source line sets for the process (a user could export them instead)."""
    if _comment(line):
        return []
    out = []
    for rx in (_ENV_SET[3], _ENV_SET[4], _ENV_SET[5]):
        for m in rx.finditer(line):
            out.append(SetItem(m.group(1), m.group(2).strip().strip("\"'"), "env"))
    return out


def canon(key: str) -> str:
    """One spelling per key: '--use-fused-adam', 'use_fused_adam' and 'USE_FUSED_ADAM' compare equal."""
    return key.lstrip("-+~").split(".")[-1].replace("-", "_").lower()


def spellings(key: str) -> set[str]:
    base = key.lstrip("-+~").split(".")[-1]
    return {s for s in (base, base.replace("-", "_"), base.replace("_", "-")) if len(s) >= 2}


# ---- packages ----------------------------------------------------------------------------------

_KNOWN_IMPORTS = {
    "pyyaml": "yaml",
    "pillow": "PIL",
    "opencv-python": "cv2",
    "opencv-python-headless": "cv2",
    "scikit-learn": "sklearn",
    "beautifulsoup4": "bs4",
    "protobuf": "google",
    "nvidia-ml-py": "pynvml",
    "nvidia-ml-py3": "pynvml",
    "python-dateutil": "dateutil",
    "attrs": "attr",
    "msgpack-python": "msgpack",
}
_REQ_LINE = re.compile(r"^\s*+([A-Za-z0-9][A-Za-z0-9._\-]*+)\s*+(\[[^\]]*+\])?\s*+([<>=!~@].*)?(;.*)?$")
_QUOTED_REQ = re.compile(r"^\s*+[\"']([A-Za-z0-9][\w.\-]*+)(\[[^\]]*+\])?\s*+([<>=!~][^\"']*+)?[\"']\s*+,?\s*+\]?\s*+$")
_PIP_RE = re.compile(r"\b(?:pip3?|uv\s+pip|python3?\s+-m\s+pip|conda|mamba)\s+install\s+(.+)")


def packages_in(line: str, role: FileRole, path: str) -> list[str]:
    """Python packages a line installs or declares."""
    s = line.strip()
    if not s or s.startswith("#"):
        return []
    m = _PIP_RE.search(s)
    if m:
        out, skip = [], False
        for tok in m.group(1).split():
            if skip:
                skip = False
                continue
            if tok in {"-r", "-c", "-e", "--index-url", "-i", "--extra-index-url", "-f", "--find-links"}:
                skip = True
                continue
            if tok.startswith(("-", ".", "/", "$", "&", "|", ";")) or "://" in tok or tok.startswith("git+"):
                if tok in {"&&", "||", ";", "|"}:
                    break
                continue
            r = _REQ_LINE.match(tok.strip("\"'"))
            if r:
                out.append(r.group(1))
        return out
    name = PurePosixPath(path).name.lower()
    if role == "dependency" and name.endswith((".txt", ".in")):
        r = _REQ_LINE.match(s)
        return [r.group(1)] if r and not s.startswith("-") else []
    if role == "dependency" and name == "setup.cfg":
        r = _REQ_LINE.match(s)
        return [r.group(1)] if r and line[:1] in (" ", "\t") and " = " not in s else []
    if role == "dependency" and name in {"pyproject.toml", "setup.py", "pipfile"}:
        r = _QUOTED_REQ.match(s)
        return [r.group(1)] if r else []
    return []


def import_names(package: str) -> set[str]:
    """Module names a package is imported as."""
    p = package.lower()
    names = {p.replace("-", "_").replace(".", "_")}
    if p in _KNOWN_IMPORTS:
        names.add(_KNOWN_IMPORTS[p])
    return names
