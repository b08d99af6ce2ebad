"""Run by test_triton_compile.py in a subprocess: compile the Triton kernel of [P05] for real GPUs, with no GPU.

Triton lowers the kernel to PTX and runs its bundled ``ptxas`` for a named target, which needs no device. Prints one
JSON object (what each compilation produced); the test makes the assertions. The caller points TRITON_CACHE_DIR and
TRITON_HOME at a temporary folder, so nothing is written under ``~/.triton``.
"""

from __future__ import annotations

import json
import re

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

from icml26.papers.macko._triton import _define

# the argument types TritonMacko launches with: values fp16, packed nibbles uint8, row_ptr int32, x, y, n_rows, n_cols
ARGS = ("values_ptr", "deltas_ptr", "row_ptr_ptr", "x_ptr", "y_ptr", "n_rows", "n_cols")
# torch's CUDA allocations are 256-byte aligned, so at run time triton specializes the pointers as divisible by 16
ALIGNED = {(i,): [["tt.divisibility", 16]] for i in range(5)}


def compile_one(kernel, *, arch: int, x: str, y: str, block: int, num_warps: int) -> dict:
    sig = dict(zip(ARGS, ("*fp16", "*u8", "*i32", f"*{x}", f"*{y}", "i32", "i32"), strict=True)) | {"BLOCK": "constexpr"}
    src = triton.compiler.ASTSource(fn=kernel, signature=sig, constexprs={"BLOCK": block}, attrs=ALIGNED)
    c = triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": num_warps})
    ptx = c.asm["ptx"]
    return {"arch": arch, "x": x, "y": y, "block": block, "num_warps": num_warps,
            "target": re.search(r"^\.target (\S+)", ptx, re.MULTILINE).group(1),
            "loads": sorted(set(re.findall(r"ld\.global[\w.]*", ptx))),
            "spills": ".local" in ptx, "cubin_elf": c.asm["cubin"][:4] == b"\x7fELF",
            "cubin_bytes": len(c.asm["cubin"]), "shared": int(c.metadata.shared)}


def main() -> None:
    kernel = _define(triton, tl)
    out = []
    # the paper's GPUs (RTX 4090: sm_89), the H100/H200 (sm_90) and the A100 (sm_80), at the default launch
    for arch in (80, 89, 90):
        out.append(compile_one(kernel, arch=arch, x="fp16", y="fp16", block=256, num_warps=1))
    # every input / output dtype the class accepts, and the other launch shapes gpu_check.py tries
    for x, y in (("bf16", "fp32"), ("fp32", "fp32"), ("fp16", "fp32")):
        out.append(compile_one(kernel, arch=90, x=x, y=y, block=256, num_warps=1))
    for block, nw in ((16, 1), (128, 1), (512, 1), (512, 2), (1024, 4)):
        out.append(compile_one(kernel, arch=90, x="fp16", y="fp16", block=block, num_warps=nw))
    print(json.dumps({"triton": triton.__version__, "builds": out}))


if __name__ == "__main__":
    main()
