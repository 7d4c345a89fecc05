"""Lowerings whose kernels write their own loop nests (NOTE [values written by loops of their
own] in codegen_c.py): `cat` (each part copied to its offset along the dim, read through its
views: a backward's dq, dk, dv put side by side straight from the matmul results) and
`embedding_dense_backward` (the gradient's rows added into a zeroed table at the indices)."""
from __future__ import annotations

import re

from ember._inductor.codegen_c import c_type, elementwise_loops
from ember._inductor.ir import Loops, TensorBox, numel
from ember._inductor.lowerings import _val, cast, register


@register("cat.default")
def _cat(g, node, tensors, dim=0):
    shape, dtype = _val(node)
    dim = dim % len(shape)
    # PyTorch's legacy rule: a 1-D empty tensor joins any cat (and adds nothing)
    parts = [t for t in tensors if not (len(t.shape) == 1 and t.shape[0] == 0) and
             numel(t.shape) > 0]
    if any(len(t.shape) != len(shape) for t in parts):
        return g.extern(node, (tensors, dim), {})

    def write(kernel, out):
        code, offset = [], 0
        for part in parts:
            index = [f"i{k}" for k in range(len(shape))]
            kernel.loop_sizes = dict(zip(index, part.shape))
            outer = kernel.scope()
            value = part.load(kernel, index)
            if part.dtype != dtype:
                value = cast(value, dtype)
            at = list(index)
            at[dim] = f"{index[dim]} + {offset}" if offset else index[dim]
            kernel.store(out, at, value)
            code += _split_loops(index, part.shape, kernel.restore(outer))
            offset += part.shape[dim]
        return code
    box = TensorBox(Loops(shape, dtype, write))
    g.realize(box)
    return box


# NOTE [a split innermost loop]: a part read through a reshape that splits its innermost dim
# (a (B, H, T, D) matmul result read as (B, T, H*D)) loads at `(i / D)*stride + ((i)) % D`: a
# gather per element. Its loop is split in two, `i = io*D + ii`, with `ii` innermost, so those
# loads are `io*stride + ii`, contiguous. The substitutions are exact for 0 <= ii < D.
def _split_loops(index, shape, body):
    last = index[-1] if index else None
    found = re.search(rf"\(\({last}\) / (\d+)\)", "\n".join(body)) if last else None
    size = shape[-1] if shape else None
    if found is None or type(size) is not int or size % int(found.group(1)):
        return elementwise_loops(index, shape, body)
    d = int(found.group(1))
    outer, inner = f"{last}o", f"{last}i"
    text = "\n".join(body)
    text = text.replace(f"(({last}) / {d})", f"({outer})")
    text = text.replace(f"((({last})) % {d})", f"({inner})")
    text = re.sub(rf"\b{last}\b", f"({outer}*{d} + {inner})", text)
    return elementwise_loops(index[:-1] + [outer, inner], tuple(shape[:-1]) + (size // d, d),
                             text.split("\n"))


@register("embedding_dense_backward.default")
def _embedding_dense_backward(g, node, grad, indices, num_weights, padding_idx,
                              scale_grad_by_freq):
    """The table's gradient: zeros, then each index's gradient row added at its row (rows at
    `padding_idx` left out). An index outside the table adds nothing: in a training graph the
    same indices went through the forward's embedding, which raised for it (NOTE [aranges and
    embeddings without the dispatcher] in wrapper.py), and AOT autograd's version checks keep
    them unchanged since; the check here only keeps the kernel inside its buffer."""
    shape, dtype = _val(node)
    from ember._core import dtype as dt
    if scale_grad_by_freq or indices.dtype is not dt.int64 or grad.dtype is not dtype or \
            len(shape) != 2 or tuple(grad.shape) != tuple(indices.shape) + (shape[1],):
        return g.extern(node, (grad, indices, num_weights, padding_idx, scale_grad_by_freq),
                        {})
    rows, width = shape
    lead = [f"i{k}" for k in range(len(indices.shape))]

    def write(kernel, out):
        flat = ["z0"]
        kernel.loop_sizes = {"z0": rows * width}
        outer = kernel.scope()
        kernel.store(_flat_view(out), flat, f"(({c_type(dtype)})0)")
        zero = elementwise_loops(flat, (rows * width,), kernel.restore(outer))
        kernel.loop_sizes = dict(zip(lead + ["d"], tuple(indices.shape) + (width,)))
        rows_scope = kernel.scope()
        row = indices.load(kernel, lead)
        inner = kernel.scope()
        value = grad.load(kernel, lead + ["d"])
        kernel.lines.append(f"{out.name}[({row})*{width} + d] += {value};")
        body = kernel.restore(inner)
        skip = f"{row} < 0 || {row} >= {rows}" + \
            (f" || {row} == {padding_idx}" if padding_idx >= 0 else "")
        kernel.lines += [f"if ({skip}) continue;", "#pragma omp simd",
                         f"for (int64_t d = 0; d < {width}; d++) {{"] + \
            ["    " + line for line in body] + ["}"]
        kernel.params[out.name] = (out, True)
        per_row = kernel.restore(rows_scope)
        loops = []
        for depth, (var, size) in enumerate(zip(lead, indices.shape)):
            loops.append("    " * depth + f"for (int64_t {var} = 0; {var} < {size}; {var}++) {{")
        loops += ["    " * len(lead) + line for line in per_row]
        loops += ["    " * depth + "}" for depth in reversed(range(len(lead)))]
        return zero + loops
    box = TensorBox(Loops(shape, dtype, write))
    g.realize(box)
    return box


def _flat_view(buf):
    """`buf` as one flat dim (the zero fill's loop)."""
    return buf.alias((numel(buf.shape),), (1,), buf.offset)
