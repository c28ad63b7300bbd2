"""Short answers the draft backs: the GPU, its count, a version the draft's details write out.

A one-line field ("- GPU model:", an input "CUDA version") gets a value only when the draft says
it: the GPU and its count from their own fields, a version only when the draft's hardware line,
setup or shared settings name that software with a number after it ("PyTorch 2.5.1",
"torch==2.5.1", "driver 550.54"). A field that names no software ("Framework version",
"Execution Provider Library Version") is answered only when its own example names one
("ex. CUDA 11.6 or ROCm 5.1.1") and the draft states exactly one of those. A value is never
carried from one field to another: the CUDA version does not answer the driver field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfkit.publish.forms.rank import norm

_ALIASES: dict[tuple[str, ...], list[list[str]]] = {
    ("pytorch",): [["pytorch"], ["torch"]],
    ("torch",): [["pytorch"], ["torch"]],
}
# words that name no software on their own: the field's example has to
_GENERIC = {
    "execution", "provider", "providers", "library", "libraries", "lib", "framework", "frameworks", "package",
    "packages", "software", "project", "backend", "backends", "dependency", "dependencies", "toolkit", "runtime",
    "ep", "main", "relevant", "the", "your", "of", "and", "used", "installed", "current", "which", "what",
}  # fmt: skip
_NOT_SOFTWARE = {"os", "hardware", "environment", "system", "model", "command", "gpu", "gpus", "platform"}
_QUALIFIERS = {"gpu", "nvidia", "amd", "intel", "installed", "your", "the", "current", "system", "host", "local"}
_VERSION_LABEL_RE = re.compile(
    r" ([a-z][a-z0-9 ]{0,40}?) versions?(?: (?:or|and|of) (?:the )?(?:commit|commit id|sha|hash|branch|tag|build))*"
    r"(?: if applicable| optional| used| installed)? $"
)
# after a software's name: "PyTorch 2.5.1", "torch==2.5.1", "CUDA version 12.4", "triton-3.1.0"
_VERSION_AFTER_NAME = r"(?:\s++version)?\s*+(?:(?:==|=|:|-)\s*+)?v?(?P<v>\d+(?:\.\d+)+(?:[\w+.-]{0,40}\w)?)"
_HINT_NAME_RE = re.compile(  # possessive spaces: one pass over a run of them
    r"(?<![\w+-])([A-Za-z][\w+]{0,30}(?:-[A-Za-z][\w+]{0,30}){0,3})\s*+(?:(?:==|=|:)\s*+)?v?\d+(?:\.\d+)+"
)
_OS_RE = re.compile(
    r"\b(?:Ubuntu|Debian|CentOS|Rocky Linux|Red Hat|RHEL|Fedora|SUSE|Amazon Linux|Linux|macOS|Windows)"
    r"(?:\s+\d+(?:\.\d+)*(?:\s+LTS)?)?",
    re.I,
)
_PERF_WORDS = re.compile(r"\b(?:perf|performance|speed|slow|slowness|latency|throughput|efficiency)\b")
_ASKS_KIND = re.compile(r"\b(?:type|kind|category|area|what is this|issue)\b")


@dataclass
class Facts:
    gpu: str = ""
    gpu_count: int | None = None
    world_size: int | None = None
    hardware: str = ""
    model: str = ""
    job: str = ""
    command: str = ""  # the baseline's: the issue reproduces what upstream runs today
    details: str = ""  # the draft's setup and shared settings, where versions are also written

    def _said(self) -> str:
        return "\n".join(t for t in (self.hardware, self.details) if t)

    def _version(self, words: list[str]) -> str | None:
        """'<name> <version>' as the draft writes the name, when it gives that software a number."""
        for alias in _ALIASES.get(tuple(words), [words]):
            name = r"[\s_-]?".join(re.escape(w) for w in alias)
            m = re.search(rf"(?<![\w.])(?P<name>{name})" + _VERSION_AFTER_NAME, self._said(), re.I)
            if m:
                return f"{m.group('name')} {m.group('v')}"
        return None

    def _from_example(self, hint: str) -> str | None:
        """A generic version field answered through the software its own example names, when the draft states one."""
        names = {m.group(1).lower(): m.group(1) for m in _HINT_NAME_RE.finditer(hint)}
        found = {v for n in names if (v := self._version(re.split(r"[\s_-]+", n)))}
        return found.pop() if len(found) == 1 else None

    def _gpu_fact(self, low: str) -> str | None:
        if re.search(r" (?:number of|num|how many|count of) (?:gpus|accelerators|devices) | gpu count ", low):
            return str(self.gpu_count) if self.gpu_count else None
        if re.search(
            r" world size ", low
        ):  # only when the draft says it: tensor or pipeline parallelism breaks gpu_count
            return str(self.world_size) if self.world_size else None
        if not self.gpu:
            return None
        if re.search(r" (?:gpu|accelerator|device)s? (?:model|type|name) ", low):
            return self.gpu
        if re.search(r" (?:gpu|gpus|accelerator|accelerators|device|devices) $", low):
            return f"{self.gpu_count} {self.gpu}" if self.gpu_count else self.gpu
        return None

    def value_for(self, label: str, hint: str = "") -> str | None:
        """The draft's answer to a one-line field, or None. hint: the field's description and example."""
        low = norm(label)
        got = self._gpu_fact(low)
        if got:
            return got
        m = _VERSION_LABEL_RE.search(low)
        if m and m.group(1).split()[-1] not in ("os", "system", "distribution"):
            words = m.group(1).split()
            if all(w in _GENERIC for w in words):
                return self._from_example(hint)
            while len(words) > 1 and words[0] in _QUALIFIERS:
                words = words[1:]
            return self._version(words)
        bare = low.split()
        if 0 < len(bare) <= 3 and not all(w in _GENERIC for w in bare) and not _NOT_SOFTWARE.intersection(bare):
            got = self._version(bare)  # "- CUDA:", "- Driver:": the name alone asks for its version
            if got:
                return got
        if re.search(r" (?:os|operating system|platform|distribution|linux distribution)(?: version)? $", low):
            os_m = _OS_RE.search(self.hardware)
            return os_m.group(0) if os_m else None
        if re.search(r" (?:hardware|environment|system) $", low):
            return self.hardware.rstrip(".") or None
        if re.search(r" model(?: name)? $", low) and " gpu " not in low:
            return self.model.rstrip(".") or None
        if re.search(r" (?:command|command line|launch command|how (?:did|do) you run (?:it|this)) $", low):
            return f"`{self.command}`" if self.command and "`" not in self.command else None
        return None

    def backs(self, option: str, asks: str) -> bool:
        """Whether the draft says this dropdown option is true."""
        opt = norm(option)
        if not opt.strip():
            return False
        if _ASKS_KIND.search(norm(asks)) and _PERF_WORDS.search(opt):
            return True
        said = norm(" ".join((self.gpu, self.hardware, self.model, self.job)))
        return len(opt.strip()) > 1 and opt in said
