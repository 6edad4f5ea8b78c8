"""Compiles Triton kernels ahead of time for sm_90 (no GPU needed) and
writes each cubin plus their true modes, for the machine-code modes test.

usage: triton_kernels.py OUT_DIR

The truths use parameter ordinals (pN, 1-based) since Triton adds hidden
scratch parameters after the user's; the kernels are small and their modes
plain from the source below.
"""
import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, d * rstd * w + b, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def histogram_kernel(in_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(in_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + (v & 63), 1, mask=mask)


KERNELS = [
    (add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 1024},
     "ptr=p1,p2,p3 reads=p1,p2 writes=p3"),
    (softmax_kernel, {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32",
                      "n_cols": "i32"}, {"BLOCK": 1024}, "ptr=p1,p2 reads=p2 writes=p1"),
    (layernorm_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                        "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "stride": "i32", "n": "i32", "eps": "fp32"},
     {"BLOCK": 1024}, "ptr=p1,p2,p3,p4,p5,p6 reads=p1,p3,p4 writes=p2,p5,p6"),
    (matmul_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                     "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32", "scn": "i32"},
     {"BM": 128, "BN": 128, "BK": 64}, "ptr=p1,p2,p3 reads=p1,p2 writes=p3"),
    (histogram_kernel, {"in_ptr": "*i32", "bins_ptr": "*i32", "n": "i32"}, {"BLOCK": 1024},
     "ptr=p1,p2 reads=p1,p2 writes=p2"),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    target = GPUTarget("cuda", 90, 32)
    truths = []
    for fn, signature, constexprs, truth in KERNELS:
        sig = dict(signature)
        for name in constexprs:
            sig[name] = "constexpr"
        compiled = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=constexprs), target=target)
        name = compiled.metadata.name
        with open(os.path.join(out, fn.__name__ + ".cubin"), "wb") as f:
            f.write(compiled.asm["cubin"])
        truths.append(f"// expect {name}: {truth}\n")
    with open(os.path.join(out, "truth.txt"), "w") as f:
        f.writelines(truths)


if __name__ == "__main__":
    main()
