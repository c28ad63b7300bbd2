"""The precision check the demo's compiler repository ships, as real checks do.

It accumulates each layer's partial products in the dtype the installed runtime's kernel header
selects, compares against an exact reference, and prints one PASS/FAIL line per tensor and the
max error. Pure Python, so the demo needs no accelerator and no numpy.
"""

SCRIPT = r'''"""Precision check: each layer's matmul accumulation against an exact reference."""
import math
import os
import pathlib
import struct
import sys

env = pathlib.Path(os.environ["DEMO_ENV"])
runtime = pathlib.Path((env / "runtime.path").read_text().strip())
compiler = pathlib.Path((env / "compiler.path").read_text().strip())
header = (runtime / "src" / "kernels" / "accumulate.h").read_text()
accum = "bf16" if "ACCUM_DTYPE bf16" in header else "fp32"
tile = int((compiler / "python" / "pypto" / "tiling.cfg").read_text().split("=")[1])
TOL = 1e-3


def to_fp32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def to_bf16(x):
    bits = struct.unpack("I", struct.pack("f", x))[0] & 0xFFFF0000
    return struct.unpack("f", struct.pack("I", bits))[0]


round_acc = to_bf16 if accum == "bf16" else to_fp32
seed = 12345
worst = 0.0
for name in ["q_proj", "k_proj", "v_proj", "o_proj", "gate_up", "down"]:
    values = []
    for _ in range(2048):
        seed = (1103515245 * seed + 12345) % (1 << 31)
        values.append(to_fp32(seed / (1 << 31) - 0.5))
    exact = math.fsum(values)
    acc = 0.0
    for start in range(0, len(values), tile):
        part = 0.0
        for v in values[start:start + tile]:
            part = round_acc(part + v)
        acc = round_acc(acc + part)
    err = abs(acc - exact) / max(1.0, math.fsum(abs(v) for v in values))
    worst = max(worst, err)
    print(f"{name:8s} max_abs_err={err:.3e} tol={TOL:.0e} {'PASS' if err <= TOL else 'FAIL'}")
print(f"max_abs_err={worst:.3e}")
sys.exit(0 if worst <= TOL else 1)
'''

INSTALL = r'''"""Install this checkout into the demo environment (what `pip install -e .` does for real)."""
import os
import pathlib
import sys

env = pathlib.Path(os.environ["DEMO_ENV"])
env.mkdir(parents=True, exist_ok=True)
(env / "{name}.path").write_text(str(pathlib.Path.cwd()))
print("installed {name} from", pathlib.Path.cwd())
'''
