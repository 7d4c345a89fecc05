"""The same collectives on the same inputs through ember (MPI) and PyTorch's gloo in one job:
results must be equal (exactly; half-precision sums within one rounding). argv[1]: a free TCP
port for PyTorch's rendezvous."""
import datetime
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import torch
import torch.distributed as tdist
from check import check, done

import ember
import ember.distributed as edist

rank, size = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
edist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{sys.argv[1]}", rank=rank,
                         world_size=size, timeout=datetime.timedelta(seconds=30))
OPS = ("SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")
DTYPES = ("float32", "float64", "int64", "int32", "int8", "uint8", "bool", "float16",
          "bfloat16")


def pair(array, dtype):
    t = torch.from_numpy(array.copy()).to(getattr(torch, dtype))
    e = ember.from_numpy(array.copy()).to(getattr(ember, dtype))
    return e, t


def as_np(t):
    if t.dtype in (torch.bfloat16, ember.bfloat16, torch.float16, ember.float16):
        return t.float().numpy()
    return t.numpy()


def same(e, t, what, tol=0.0):
    a, b = as_np(e), as_np(t)
    ok = a.shape == b.shape and (np.array_equal(a, b) if tol == 0 else
                                 np.allclose(a, b, rtol=tol, atol=tol))
    check(ok, f"{what}: ember {a!r} gloo {b!r}")


g = np.random.default_rng(rank)
for dtype in DTYPES:
    for op in OPS:
        if op in ("BAND", "BOR", "BXOR") and dtype in ("float32", "float64", "float16",
                                                       "bfloat16"):
            continue
        base = (g.integers(-3, 4, (3, 5)) if dtype not in ("uint8", "bool") else
                g.integers(0, 4, (3, 5)))
        e, t = pair(base.astype(np.float64), dtype)
        edist.all_reduce(e, op=getattr(edist.ReduceOp, op))
        tdist.all_reduce(t, op=getattr(tdist.ReduceOp, op))
        same(e, t, f"all_reduce {dtype} {op}")
        e, t = pair(base.astype(np.float64), dtype)
        edist.reduce(e, dst=size - 1, op=getattr(edist.ReduceOp, op))
        tdist.reduce(t, dst=size - 1, op=getattr(tdist.ReduceOp, op))
        if rank == size - 1:
            same(e, t, f"reduce {dtype} {op}")

# half-precision sums of values that do not add exactly: within one rounding of each other
for dtype in ("float16", "bfloat16"):
    e, t = pair(g.standard_normal(64) * 100, dtype)
    edist.all_reduce(e)
    tdist.all_reduce(t)
    same(e, t, f"all_reduce rounding {dtype}", tol=1e-2)

x = g.standard_normal((4, 3)).astype(np.float32)
e, t = pair(x, "float32")
edist.broadcast(e, src=1)
tdist.broadcast(t, src=1)
same(e, t, "broadcast")
e_out = [ember.zeros(4, 3) for _ in range(size)]
t_out = [torch.zeros(4, 3) for _ in range(size)]
edist.all_gather(e_out, ember.from_numpy(x))
tdist.all_gather(t_out, torch.from_numpy(x))
for a, b in zip(e_out, t_out):
    same(a, b, "all_gather")
e_cat, t_cat = ember.zeros(4 * size, 3), torch.zeros(4 * size, 3)
edist.all_gather_single(e_cat, ember.from_numpy(x))
tdist.all_gather_single(t_cat, torch.from_numpy(x))
same(e_cat, t_cat, "all_gather_single")
e, t = ember.zeros(2), torch.zeros(2)
y = (np.arange(2 * size) * (rank + 1)).astype(np.float32)
edist.reduce_scatter_single(e, ember.from_numpy(y))
tdist.reduce_scatter_single(t, torch.from_numpy(y))
same(e, t, "reduce_scatter_single")
gl_e = [ember.zeros(4, 3) for _ in range(size)] if rank == 0 else None
gl_t = [torch.zeros(4, 3) for _ in range(size)] if rank == 0 else None
edist.gather(ember.from_numpy(x), gl_e, dst=0)
tdist.gather(torch.from_numpy(x), gl_t, dst=0)
if rank == 0:
    for a, b in zip(gl_e, gl_t):
        same(a, b, "gather")
chunks = [g.standard_normal(3).astype(np.float32) for _ in range(size)]
e, t = ember.zeros(3), torch.zeros(3)
edist.scatter(e, [ember.from_numpy(c) for c in chunks] if rank == 0 else None, src=0)
tdist.scatter(t, [torch.from_numpy(c) for c in chunks] if rank == 0 else None, src=0)
same(e, t, "scatter")
data = (np.arange(2 * size * 3, dtype=np.float32) + 100 * rank).reshape(2 * size, 3)
e, t = ember.zeros(2 * size, 3), torch.zeros(2 * size, 3)
edist.all_to_all_single(e, ember.from_numpy(data))
tdist.all_to_all_single(t, torch.from_numpy(data))
same(e, t, "all_to_all_single")
e_objs, t_objs = [None] * size, [None] * size
edist.all_gather_object(e_objs, {"r": rank, "name": "x" * rank})
tdist.all_gather_object(t_objs, {"r": rank, "name": "x" * rank})
check(e_objs == t_objs, "all_gather_object")
tdist.destroy_process_group()
edist.destroy_process_group()
done()
