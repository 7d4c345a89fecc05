"""C for the scheduled kernels: one function per kernel, outer loops under an OpenMP pragma,
the innermost loop left plain enough for the compiler to vectorise (`omp simd`).

A `Kernel` is the context the IR's `inner` functions write into: `load` reads a buffer (or, for
a producer fused into this kernel, computes and stores it: NOTE [fused producers are stored
where they are computed]), `tmp` names a value (common subexpressions are named once), `inline`
computes an unrealized Pointwise in place.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dtype as dt
from ember._inductor.ir import (
    ComputedBuffer,
    Loops,
    Pointwise,
    Reduction,
    linear_index,
    numel,
    simplify_index,
)
from ember._inductor.sizes import SymSize, size_args

C_TYPES = {dt.float32: "float", dt.float64: "double", dt.int64: "int64_t", dt.int32: "int32_t",
           dt.bool_: "bool", dt.uint8: "uint8_t", dt.int8: "int8_t", dt.int16: "int16_t"}

# Below this many elements (sizes are static) a loop nest gets no parallel pragma: starting a
# thread team costs microseconds.
PARALLEL_MIN = 32768

PRELUDE = """#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#define EMBER_RESTRICT __restrict__
static inline float ember_expf(float x) {
    /* NOTE [float exp in the kernels] */
    float c = x < -87.33654f ? -87.33654f : (x > 88.8f ? 88.8f : x);
    float n = rintf(c * 1.44269504088896341f);
    float r = c - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int32_t k = (int32_t)n, h = k / 2;
    int32_t a = (h + 127) << 23, b = (k - h + 127) << 23;
    float fa, fb;
    __builtin_memcpy(&fa, &a, 4);
    __builtin_memcpy(&fb, &b, 4);
    float y = p * fa * fb;
    return x < -87.33654f ? 0.0f : (x != x ? x : y);
}
"""

# NOTE [float exp in the kernels]: float32 `exp` is `ember_expf`, written in the prelude, not
# libmvec's vector expf: that one sends a whole vector to its scalar path when any lane is
# outside its fast range, and softmax over a causal mask feeds it -inf in half the lanes
# (attention's exp ran 5x slower than on finite inputs). ember_expf is plain arithmetic that
# gcc vectorises inline: exp(x) = 2^n exp(r) with n = rint(x / ln 2), r reduced in two parts
# (Cody-Waite), exp(r) by a degree-7 polynomial, 2^n built as two exponent fields (so n down
# to -126 stays exact). Within 1 ulp of exp for normal results (NumPy's float32 exp: 2.4); a
# result below the smallest normal float (x < -87.34) is 0 instead of a subnormal (within
# 1.2e-38 of it; making subnormals costs a microcode assist per lane), above 88.72 it is inf,
# NaN stays NaN. float64 keeps libm's exp.


# NOTE [vector math]: gcc vectorises a loop that calls expf only when it knows a SIMD version
# of expf exists. glibc's libmvec (2.35 and later on x86-64: exp, log, erf, tanh, sin, cos,
# pow ...) has them, within 4 ulp; math.h announces them only under -ffast-math, which would
# also drop our NaN tests (x != x), so the kernels declare them themselves and link libmvec
# (cpp_builder.vector_math() says whether this machine has it).
VECTOR_MATH = ("exp", "log", "log1p", "expm1", "log2", "erf", "tanh", "sin", "cos")


def vector_math_declarations() -> str:
    lines = []
    for name in VECTOR_MATH:
        lines += ["#pragma omp declare simd notinbranch", f"float {name}f(float);",
                  "#pragma omp declare simd notinbranch", f"double {name}(double);"]
    lines += ["#pragma omp declare simd notinbranch", "float powf(float, float);",
              "#pragma omp declare simd notinbranch", "double pow(double, double);"]
    return "\n".join(lines) + "\n"


class NotFusable(Exception):
    """Raised while writing a fused kernel whose producer is not read at the loop's own
    positions; the scheduler then writes the producer's kernel apart."""


def c_type(dtype) -> str:
    return C_TYPES[dtype]


def literal(value, dtype) -> str:
    """A Python number as a C constant of `dtype` (a size of a dynamic dim as its C
    expression: NOTE [symbolic sizes in kernels])."""
    if type(value) is SymSize:
        return f"(({c_type(dtype)})({value}))"
    if dtype.is_floating_point:
        value = float(value)
        if math.isnan(value):
            return f"(({c_type(dtype)})NAN)"
        if math.isinf(value):
            return f"(({c_type(dtype)})({'' if value > 0 else '-'}INFINITY))"
        return f"({value!r}f)" if dtype == dt.float32 else f"({value!r})"
    if dtype == dt.bool_:
        return "1" if value else "0"
    return f"(({c_type(dtype)}){int(value)}LL)"


def math_call(name: str, x: str, dtype) -> str:
    """`expf(x)` for float32, `exp(x)` for float64 (float32 exp: NOTE [float exp in the
    kernels])."""
    if dtype == dt.float32:
        return f"ember_expf({x})" if name == "exp" else f"{name}f({x})"
    return f"{name}({x})"


class Kernel:
    def __init__(self, name, fused=()):
        self.name = name
        self.params = {}          # buffer name -> (Buffer, written)
        self.fused = {b.name: b for b in fused}
        self.loop_vars = ()       # the loop variables every fused producer must be read at
        self.loop_sizes = {}
        self.lines = []
        self.cse = {}
        self.counter = 0
        self.accesses = []        # per load: {loop variable: its stride}, None if not plain
        self.size_args = []       # NOTE [symbolic sizes in kernels] (sizes.py)

    # ------------------------------------------------------------------ values
    def tmp(self, expr: str, dtype) -> str:
        key = (expr, dtype)
        found = self.cse.get(key)
        if found is not None:
            return found
        name = f"t{self.counter}"
        self.counter += 1
        self.lines.append(f"{c_type(dtype)} {name} = {expr};")
        self.cse[key] = name
        return name

    def inline(self, box, pointwise, index) -> str:
        key = ("inline", id(box), tuple(index))
        found = self.cse.get(key)
        if found is None:
            found = self.cse[key] = pointwise.inner(self, index)
        return found

    def load(self, buffer, index) -> str:
        if buffer.name in self.fused:
            return self._compute_fused(self.fused[buffer.name], index)
        self.params.setdefault(buffer.name, (buffer, False))
        index, strides = simplify_index(index, buffer.strides)
        self.accesses.append(_plain_strides(index, strides, self.loop_sizes))
        return self.tmp(f"{buffer.name}[{linear_index(index, strides, buffer.offset)}]",
                        buffer.dtype)

    def store(self, buffer, index, value) -> None:
        self.params[buffer.name] = (buffer, True)
        self.lines.append(f"{buffer.name}[{linear_index(index, buffer.strides)}] = {value};")

    # NOTE [fused producers are stored where they are computed]: a realized Pointwise fused
    # into the kernel of its consumer is computed at the consumer's load and stored there, so
    # the load must visit each of its elements exactly once: its index has to be the kernel's
    # loop variables themselves, each once (a permutation), over as many elements as the
    # producer has. Anything else (a broadcast, a shifted slice, a load after the reduction
    # loop) raises NotFusable and the producer gets its own loop.
    def _compute_fused(self, buffer, index) -> str:
        key = ("fused", buffer.name, tuple(index))
        found = self.cse.get(key)
        if found is not None:
            return found
        if sorted(index) != sorted(self.loop_vars) or len(set(index)) != len(index) or \
                any(self.loop_sizes[v] != size for v, size in zip(index, buffer.shape)):
            raise NotFusable(buffer.name)
        value = buffer.data.inner(self, list(index))
        self.store(buffer, index, value)
        self.cse[key] = value
        return value

    def scope(self):
        """Start a fresh block (lines and common subexpressions); returns the old one."""
        old = (self.lines, self.cse)
        self.lines, self.cse = [], {}
        return old

    def restore(self, old) -> list:
        lines = self.lines
        self.lines, self.cse = old
        return lines

    # ------------------------------------------------------------------ source
    def signature(self) -> str:
        # sizes passed at each call: NOTE [symbolic sizes in kernels] (sizes.py)
        self.size_args = size_args("\n".join(self.code))
        params = []
        for name, (buffer, written) in self.params.items():
            const = "" if written else "const "
            params.append(f"{const}{c_type(buffer.dtype)}* EMBER_RESTRICT {name}")
        params += [f"int64_t {name}" for name in self.size_args]
        return f"void {self.name}({', '.join(params)})"


def _plain_strides(index, strides, loop_vars):
    """{loop variable: stride} for a load whose index entries are loop variables or 0;
    None when one is an expression (a reshape's or a slice's index map)."""
    found = {}
    for i, s in zip(index, strides):
        if i in loop_vars:
            found[i] = s
        elif i != "0":
            return None
    return found


def _parallel(total):
    """(whether the loop nest gets a parallel pragma, the pragma's `if` clause): a symbolic
    element count decides at run time (NOTE [symbolic sizes in kernels])."""
    if type(total) is SymSize:
        return True, f" if({total} >= {PARALLEL_MIN})"
    return total >= PARALLEL_MIN, ""


def _indent(lines, depth):
    pad = "    " * depth
    return [pad + line for line in lines]


def _loops(variables, sizes, body, pragmas):
    """Nested for-loops over `variables`; pragmas[k] (or None) goes above loop k."""
    out = []
    for depth, (var, size) in enumerate(zip(variables, sizes)):
        if pragmas[depth]:
            out.extend(_indent([pragmas[depth]], depth))
        out.extend(_indent([f"for (int64_t {var} = 0; {var} < {size}; {var}++) {{"], depth))
    out.extend(_indent(body, len(variables)))
    for depth in reversed(range(len(variables))):
        out.extend(_indent(["}"], depth))
    return out


def pointwise_kernel(name, node: ComputedBuffer, fused=(), siblings=()) -> Kernel:
    kernel = Kernel(name, fused)
    shape = node.shape
    index = [f"i{k}" for k in range(len(shape))]
    kernel.loop_vars = tuple(index)
    kernel.loop_sizes = dict(zip(index, shape))
    for each in (node, *siblings):      # NOTE [sibling kernels share a loop] (scheduler.py)
        value = each.data.inner(kernel, index)
        kernel.store(each, index, value)
    kernel.code = elementwise_loops(index, shape, kernel.lines)
    return kernel


def elementwise_loops(index, shape, body) -> list:
    """The loop nest of an elementwise body: outer loops parallel when large, the innermost
    vectorised."""
    parallel, when = _parallel(numel(shape))
    if len(shape) == 0:
        return body
    if len(shape) == 1:
        return _loops(index, shape, body, [f"#pragma omp parallel for simd{when}" if parallel
                                           else "#pragma omp simd"])
    collapse = f" collapse({len(shape) - 1})" if len(shape) > 2 else ""
    pragmas = [f"#pragma omp parallel for{collapse}{when}" if parallel else None] + \
        [None] * (len(shape) - 2) + ["#pragma omp simd"]
    return _loops(index, shape, body, pragmas)


# NOTE [values written by loops of their own]: a value that is not one expression per output
# element (cat: each part copied to its offset; an embedding's gradient: rows added at the
# indices' positions) is a `Loops` in the IR, whose `write` emits the kernel's loop nests
# itself, loading its inputs through their boxes (views stay index maps, pointwise inputs are
# computed inline). No producer is fused into it (the loops do not visit its inputs once each
# in one order), and it is never fused into a reader (scheduler.py fuses Pointwise only).
def loops_kernel(name, node: ComputedBuffer, fused=()) -> Kernel:
    if fused:
        raise NotFusable(node.name)
    kernel = Kernel(name)
    kernel.code = node.data.write(kernel, node)
    return kernel


_INIT = {"sum": 0, "max": -math.inf, "min": math.inf}
_OMP = {"sum": "+", "max": "max", "min": "min"}


def _init_value(kind, dtype) -> str:
    """The reduction's start: 0, or the dtype's lowest (max) or highest (min) value."""
    if kind == "sum" or dtype.is_floating_point:
        return literal(_INIT[kind], dtype)
    if dtype == dt.bool_:
        return literal(kind == "min", dtype)
    if dtype == dt.int64:
        return f"(({c_type(dtype)})({'INT64_MIN' if kind == 'max' else 'INT64_MAX'}))"
    limits = np.iinfo(dtype._np)
    return literal(limits.min if kind == "max" else limits.max, dtype)


def reduction_kernel(name, node: ComputedBuffer, fused=()) -> Kernel:
    red: Reduction = node.data
    kernel = Kernel(name, fused)
    out_index = [f"i{k}" for k in range(len(red.shape))]
    r_index = [f"r{k}" for k in range(len(red.ranges))]
    kernel.loop_vars = tuple(out_index + r_index)
    kernel.loop_sizes = dict(zip(out_index + r_index, red.shape + red.ranges))
    kind, acc_t = red.reduction_type, red.acc_dtype
    nan_flag = kind in ("max", "min") and acc_t.is_floating_point
    # The reduced loop body.
    outer = kernel.scope()
    value = red.inner(kernel, out_index, r_index)
    value = kernel.tmp(f"({c_type(acc_t)})({value})", acc_t)
    if _reduce_across_rows(kernel, red, out_index, r_index):
        return _row_reduction(kernel, node, red, out_index, r_index, value, nan_flag, outer)
    if kind == "sum":
        kernel.lines.append(f"acc += {value};")
    else:
        cmp = ">" if kind == "max" else "<"
        kernel.lines.append(f"acc = ({value} {cmp} acc) ? {value} : acc;")
        if nan_flag:
            kernel.lines.append(f"nan |= ({value} != {value});")
    body = kernel.restore(outer)
    # After the reduced loops: the stored value.
    outer = kernel.scope()
    result = "acc"
    if nan_flag:
        result = kernel.tmp(f"nan ? {literal(math.nan, acc_t)} : acc", acc_t)
    if red.post is not None:
        result = red.post(kernel, result)
    kernel.store(node, out_index, f"({c_type(node.dtype)})({result})")
    after = kernel.restore(outer)
    clauses = f"reduction({_OMP[kind]}:acc)" + (" reduction(|:nan)" if nan_flag else "")
    setup = [f"{c_type(acc_t)} acc = {_init_value(kind, acc_t)};"] + \
        (["int nan = 0;"] if nan_flag else [])
    out_total, r_total = numel(red.shape), numel(red.ranges)
    # Loops this small run on one thread: starting a team costs microseconds.
    parallel, when = _parallel(out_total * r_total)
    if len(red.shape) == 0:
        # One result: the reduced loops themselves are split between threads.
        par = f"#pragma omp parallel for {clauses}{when}" if parallel else None
        if len(r_index) == 1:
            pragmas = [f"#pragma omp parallel for simd {clauses}{when}" if parallel else
                       f"#pragma omp simd {clauses}"]
        else:
            pragmas = [par] + [None] * (len(r_index) - 2) + [f"#pragma omp simd {clauses}"]
        kernel.code = setup + _loops(r_index, red.ranges, body, pragmas) + after
        return kernel
    inner_pragmas = [None] * (len(r_index) - 1) + [f"#pragma omp simd {clauses}"]
    per_output = setup + _loops(r_index, red.ranges, body, inner_pragmas) + after
    collapse = f" collapse({len(out_index)})" if len(out_index) > 1 else ""
    pragmas = [f"#pragma omp parallel for{collapse}{when}" if parallel else None] + \
        [None] * (len(out_index) - 1)
    kernel.code = _loops(out_index, red.shape, per_output, pragmas)
    return kernel


# NOTE [reductions across rows]: a reduction whose reduced dims are the outer ones in memory
# (the column sums of a bias gradient, `x.sum(0)` of a (256, 512) matrix) would, looped as
# "each output, then its reduced elements", read memory with a stride of a whole row for
# every element: fifty times slower than a pass in order. When every load reads the last
# output dim at stride 1 and the reduced dims at other strides (or does not read the last
# output dim at all: a broadcast row statistic), the loops are turned around:
# one accumulator per element of the last output dim (a small array on the stack), the
# reduced dims outside, the last output dim innermost and vectorised, then the post step
# and the store per element.
ROW_MAX = 8192


def _reduce_across_rows(kernel, red, out_index, r_index) -> bool:
    if not out_index or not (8 <= red.shape[-1] <= ROW_MAX):
        return False
    last = out_index[-1]
    contiguous = False
    for access in kernel.accesses:
        if access is None:
            return False
        stride = access.get(last)
        if not stride:      # None or 0: the same value across the inner loop (a row's
            continue        # mean, broadcast)
        if stride != 1 or any(access.get(r) == 1 for r in r_index):
            return False
        contiguous = True
    return contiguous


def _row_reduction(kernel, node, red, out_index, r_index, value, nan_flag, saved):
    kind, acc_t = red.reduction_type, red.acc_dtype
    last = out_index[-1]
    size = red.shape[-1]
    if kind == "sum":
        kernel.lines.append(f"accs[{last}] += {value};")
    else:
        cmp = ">" if kind == "max" else "<"
        kernel.lines.append(f"accs[{last}] = ({value} {cmp} accs[{last}]) ? {value} : "
                            f"accs[{last}];")
        if nan_flag:
            kernel.lines.append(f"nans[{last}] |= ({value} != {value});")
    body = kernel.restore(saved)
    outer = kernel.scope()
    result = f"accs[{last}]"
    if nan_flag:
        result = kernel.tmp(f"nans[{last}] ? {literal(math.nan, acc_t)} : {result}", acc_t)
    if red.post is not None:
        result = red.post(kernel, result)
    kernel.store(node, out_index, f"({c_type(node.dtype)})({result})")
    after = kernel.restore(outer)
    setup = [f"{c_type(acc_t)} accs[{size}];", f"for (int64_t {last} = 0; {last} < {size}; "
             f"{last}++) accs[{last}] = {_init_value(kind, acc_t)};"]
    if nan_flag:
        setup += [f"int nans[{size}];", f"for (int64_t {last} = 0; {last} < {size}; "
                  f"{last}++) nans[{last}] = 0;"]
    reduced = _loops(r_index + [last], red.ranges + (size,), body,
                     [None] * len(r_index) + ["#pragma omp simd"])
    finish = _loops([last], (size,), after, ["#pragma omp simd"])
    per_row = setup + reduced + finish
    rows = out_index[:-1]
    parallel, when = _parallel(numel(red.shape) * numel(red.ranges))
    parallel = parallel and rows and numel(red.shape[:-1]) > 1
    collapse = f" collapse({len(rows)})" if len(rows) > 1 else ""
    pragmas = [f"#pragma omp parallel for{collapse}{when}" if parallel else None] + \
        [None] * (len(rows) - 1)
    kernel.code = _loops(rows, red.shape[:-1], per_row, pragmas) if rows else per_row
    return kernel


def kernel_for(name, node: ComputedBuffer, fused=(), siblings=()) -> Kernel:
    if type(node.data) is Loops:
        assert not siblings
        return loops_kernel(name, node, fused)
    if type(node.data) is Reduction:
        assert not siblings
        return reduction_kernel(name, node, fused)
    assert type(node.data) is Pointwise
    return pointwise_kernel(name, node, fused, siblings)


def module_source(kernels, vector_math=False) -> str:
    parts = [PRELUDE + (vector_math_declarations() if vector_math else "")]
    for kernel in kernels:
        parts.append(kernel.signature() + " {")
        parts.extend(_indent(kernel.code, 1))
        parts.append("}\n")
    return "\n".join(parts)
