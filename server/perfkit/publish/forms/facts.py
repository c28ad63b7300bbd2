"""Short answers the draft backs: the GPU, its count, a version written in the environment line.

A one-line field ("- GPU model:", an input "CUDA version") gets a value only when the draft says
it: the GPU and its count from their own fields, a version only when the draft's hardware line
names that software with a number after it. Anything else is left to the user.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfkit.publish.forms.rank import norm

_ALIASES = {"pytorch": ["pytorch", "torch"], "torch": ["pytorch", "torch"]}
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
    command: str = ""

    def _version(self, name: str) -> str | None:
        for alias in _ALIASES.get(name, [name]):
            m = re.search(rf"(?<![\w.]){re.escape(alias)}\s*v?(\d+(?:\.\d+)+\w*)", self.hardware, re.I)
            if m:
                return m.group(0)  # as the draft writes it ("CUDA 12.4"): the name says the number is a version
        return None

    def _gpu_fact(self, low: str) -> str | None:
        if re.search(r" (?:number of|num|how many|count of) (?:gpus|accelerators|devices) | gpu count ", low):
            return str(self.gpu_count) if self.gpu_count else None
        if re.search(r" world size ", low):
            ws = self.world_size or self.gpu_count
            return str(ws) if ws else None
        if not self.gpu:
            return None
        if re.search(r" (?:gpu|accelerator|device)s? (?:model|type|name) ", low):
            return self.gpu
        if re.search(r" (?:gpu|gpus|accelerator|accelerators) $", low):
            return f"{self.gpu_count} {self.gpu}" if self.gpu_count else self.gpu
        return None

    def value_for(self, label: str) -> str | None:
        """The draft's answer to a one-line field, or None."""
        low = norm(label)
        got = self._gpu_fact(low)
        if got:
            return got
        m = re.search(r" ([a-z][a-z0-9 ]{0,20}?) versions? $", low)
        if m and m.group(1).strip() not in ("os", "package", "library", "project", "framework", "software"):
            return self._version(m.group(1).strip().split(" ")[-1])
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
