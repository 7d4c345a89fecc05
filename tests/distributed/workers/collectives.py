"""Every collective on 2 or 3 ranks against NumPy results computed from all ranks' inputs."""
import datetime
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))
from check import check, done, raises, same

import ember
import ember.distributed as dist
from ember.distributed import ReduceOp

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank, size = dist.get_rank(), dist.get_world_size()
check(dist.is_initialized() and dist.get_backend() == "gloo", "initialized, backend gloo")

NP = {ember.bool: np.bool_, ember.uint8: np.uint8, ember.int8: np.int8, ember.int16: np.int16,
      ember.int32: np.int32, ember.int64: np.int64, ember.uint16: np.uint16,
      ember.uint32: np.uint32, ember.uint64: np.uint64, ember.float16: np.float16,
      ember.bfloat16: ml_dtypes.bfloat16, ember.float32: np.float32, ember.float64: np.float64,
      ember.complex64: np.complex64, ember.complex128: np.complex128,
      ember.complex32: np.complex64, ember.float8_e4m3fn: ml_dtypes.float8_e4m3fn,
      ember.float8_e5m2: ml_dtypes.float8_e5m2}
COMPLEX = (ember.complex32, ember.complex64, ember.complex128)
FLOATS = (ember.float16, ember.bfloat16, ember.float32, ember.float64, ember.float8_e4m3fn,
          ember.float8_e5m2)


def values(r, shape, dtype, seed=0):
    """Rank r's input as float64/complex128/bool NumPy values exactly representable in dtype."""
    g = np.random.default_rng(1000 * seed + r)
    if dtype is ember.bool:
        return g.integers(0, 2, shape).astype(bool)
    if dtype in COMPLEX:
        return (g.integers(-4, 5, shape) + 1j * g.integers(-4, 5, shape)) * 0.5
    if dtype in FLOATS:
        return g.integers(-6, 7, shape) * 0.5
    low = 0 if dtype in (ember.uint8, ember.uint16, ember.uint32, ember.uint64) else -3
    return g.integers(low, 4, shape).astype(np.float64)


def tensor(v, dtype):
    if dtype in COMPLEX:
        return ember.tensor(v, dtype=ember.complex128).to(dtype)
    return ember.tensor(v, dtype=ember.float64 if dtype is not ember.bool else ember.bool).to(
        dtype)


def rounded(v, dtype):
    """float64 results rounded to dtype, back as float64 (complex128, bool) for comparing."""
    if dtype is ember.bool:
        return v.astype(bool)
    if dtype is ember.complex32:
        return v.astype(np.complex64).real.astype(np.float16) + 1j * \
            v.astype(np.complex64).imag.astype(np.float16)
    out = np.asarray(v).astype(NP[dtype])
    return out.astype(np.complex128 if dtype in COMPLEX else np.float64)


def reduce_np(op, stack, dtype):
    if dtype is ember.bool:
        stack = stack.astype(bool)
        return {ReduceOp.SUM: np.any, ReduceOp.MAX: np.any, ReduceOp.BOR: np.any,
                ReduceOp.PRODUCT: np.all, ReduceOp.MIN: np.all, ReduceOp.BAND: np.all,
                ReduceOp.BXOR: lambda s, axis: np.logical_xor.reduce(s, axis=axis)}[op](
                    stack, axis=0)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        ints = stack.astype(np.int64)
        f = {ReduceOp.BAND: np.bitwise_and, ReduceOp.BOR: np.bitwise_or,
             ReduceOp.BXOR: np.bitwise_xor}[op]
        return f.reduce(ints, axis=0).astype(np.float64)
    if op is ReduceOp.AVG:
        return stack.sum(0) / size
    return {ReduceOp.SUM: np.sum, ReduceOp.PRODUCT: np.prod, ReduceOp.MIN: np.min,
            ReduceOp.MAX: np.max}[op](stack, axis=0)


def ops_for(dtype):
    if dtype in COMPLEX:
        return [ReduceOp.SUM, ReduceOp.AVG]
    ops = [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX]
    if dtype in FLOATS:
        return ops + [ReduceOp.AVG]
    return ops + [ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR]


# ---- all_reduce / reduce: every dtype and op, contiguous and not
for dtype in NP:
    for op in ops_for(dtype):
        shape = (3, 4)
        stack = np.stack([values(r, shape, dtype, seed=op.value) for r in range(size)])
        expected = rounded(reduce_np(op, stack, dtype), dtype)
        t = tensor(values(rank, shape, dtype, seed=op.value), dtype)
        version = t._version
        dist.all_reduce(t, op=op)
        exact = op is not ReduceOp.AVG      # a division rounds in the dtype
        same(t, expected, f"all_reduce {dtype} {op}", exact=exact, rtol=1e-2)
        check(t._version > version, f"all_reduce {dtype} bumps the version")
        # a transposed (non-contiguous) view of a bigger tensor: only its elements change
        base = tensor(np.zeros((4, 6)) if dtype is not ember.bool else np.zeros((4, 6), bool),
                      dtype)
        view = base[:, 1:4].t()
        view.copy_(tensor(values(rank, (3, 4), dtype, seed=op.value), dtype))
        dist.all_reduce(view, op=op)
        same(view, expected, f"all_reduce non-contiguous {dtype} {op}", exact=exact, rtol=1e-2)
        same(base[:, 0], rounded(np.zeros(4), dtype), f"all_reduce keeps the rest {dtype}",
             exact=True)
        t = tensor(values(rank, shape, dtype, seed=op.value), dtype)
        dist.reduce(t, dst=size - 1, op=op)
        mine = rounded(values(rank, shape, dtype, seed=op.value), dtype)
        same(t, expected if rank == size - 1 else mine, f"reduce {dtype} {op}", exact=exact,
             rtol=1e-2)

# bfloat16 sums are rounded once (not accumulated in bfloat16)
t = ember.full((1,), 256.0 if rank == 0 else 1.0, dtype=ember.bfloat16)
dist.all_reduce(t)
exact = 256.0 + (size - 1)
same(t, np.asarray([exact]).astype(ml_dtypes.bfloat16).astype(np.float64), "bf16 rounded once",
     exact=True)

raises(ValueError, lambda: dist.all_reduce(ember.ones(2, dtype=ember.complex64),
                                           op=ReduceOp.MAX), "MAX on complex")
raises(ValueError, lambda: dist.all_reduce(ember.ones(2, dtype=ember.complex64),
                                           op=ReduceOp.PRODUCT), "PRODUCT on complex")
raises(RuntimeError, lambda: dist.all_reduce(ember.ones(2), op=ReduceOp.BAND), "BAND on float")
raises(TypeError, lambda: dist.all_reduce([1.0]), "a list is not a tensor")
raises(TypeError, lambda: dist.all_reduce(ember.ones(2), op="sum"), "op must be a ReduceOp")

# ---- data movement, every dtype
for dtype in NP:
    v = [values(r, (2, 3), dtype, seed=7) for r in range(size)]
    t = tensor(v[rank], dtype)
    dist.broadcast(t, src=size - 1)
    same(t, rounded(v[size - 1], dtype), f"broadcast {dtype}", exact=True)
    outs = [tensor(np.zeros((2, 3)).astype(v[0].dtype), dtype) for _ in range(size)]
    dist.all_gather(outs, tensor(v[rank], dtype))
    for r in range(size):
        same(outs[r], rounded(v[r], dtype), f"all_gather {dtype} from {r}", exact=True)
    out = tensor(np.zeros((2 * size, 3)).astype(v[0].dtype), dtype)
    dist.all_gather_into_tensor(out, tensor(v[rank], dtype))
    same(out, rounded(np.concatenate(v), dtype), f"all_gather_into_tensor {dtype}", exact=True)

# all_gather into non-contiguous outputs, from a non-contiguous input
outs = [ember.zeros(3, 4).t() for _ in range(size)]
dist.all_gather(outs, (ember.arange(12.0).reshape(3, 4) + rank).t())
for r in range(size):
    same(outs[r], np.arange(12.0).reshape(3, 4).T + r, f"all_gather non-contiguous {r}")

# ---- reduce_scatter / reduce_scatter_tensor
for dtype in (ember.float32, ember.bfloat16, ember.int64, ember.complex64):
    v = [values(r, (size, 2), dtype, seed=11) for r in range(size)]
    expected = rounded(np.sum(np.stack(v), 0), dtype)[rank]
    out = tensor(np.zeros(2).astype(v[0].dtype), dtype)
    dist.reduce_scatter(out, [tensor(v[rank][i], dtype) for i in range(size)])
    same(out, expected, f"reduce_scatter {dtype}", exact=True)
    out = tensor(np.zeros(2).astype(v[0].dtype), dtype)
    dist.reduce_scatter_tensor(out, tensor(v[rank].reshape(-1), dtype))
    same(out, expected, f"reduce_scatter_tensor {dtype}", exact=True)
out = ember.zeros(2)
dist.reduce_scatter_tensor(out, ember.ones(2 * size) * (rank + 1), op=ReduceOp.MAX)
same(out, np.full(2, float(size)), "reduce_scatter_tensor MAX")

# ---- gather / scatter
v = [values(r, (3,), ember.float32, seed=3) for r in range(size)]
gl = [ember.zeros(3) for _ in range(size)] if rank == 0 else None
dist.gather(ember.tensor(v[rank], dtype=ember.float32), gl, dst=0)
if rank == 0:
    for r in range(size):
        same(gl[r], v[r], f"gather from {r}")
raises(ValueError, lambda: dist.gather(ember.ones(1), [ember.ones(1)] * size if rank else None,
                                       dst=0), "gather_list on the wrong rank")
t = ember.zeros(2, dtype=ember.int32)
dist.scatter(t, [ember.full((2,), 10 * r, dtype=ember.int32) for r in range(size)]
             if rank == 1 else None, src=1)
same(t, np.full(2, 10 * rank), "scatter", exact=True)

# ---- all_to_all (sizes per pair) and all_to_all_single (even and with split sizes)
outs = [ember.zeros(r + 1) for r in range(size)]        # rank r sends r + 1 values to each
ins = [ember.full((rank + 1,), 100.0 * rank + j) for j in range(size)]
dist.all_to_all(outs, ins)
for r in range(size):
    same(outs[r], np.full(r + 1, 100.0 * r + rank), f"all_to_all from {r}")
inp = ember.arange(2 * size, dtype=ember.float64) + 10 * rank
out = ember.zeros(2 * size, dtype=ember.float64)
dist.all_to_all_single(out, inp)
same(out, np.concatenate([10 * r + np.arange(2 * rank, 2 * rank + 2) for r in range(size)]),
     "all_to_all_single even")
# rank r sends (j + 1) rows to rank j; rank j receives (j + 1) rows from each rank
in_splits = [j + 1 for j in range(size)]
rows = sum(in_splits)
inp = (ember.arange(rows * 2, dtype=ember.float32).reshape(rows, 2) + 1000 * rank)
out = ember.zeros(size * (rank + 1), 2)
dist.all_to_all_single(out, inp, output_split_sizes=[rank + 1] * size,
                       input_split_sizes=in_splits)
start = sum(in_splits[:rank])
expected = np.concatenate([np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)[
    start:start + rank + 1] + 1000 * r for r in range(size)])
same(out, expected, "all_to_all_single with split sizes")

# ---- point to point
nxt, prv = (rank + 1) % size, (rank - 1) % size
if rank % 2 == 0:
    dist.send(ember.full((3,), float(rank)), dst=nxt)
    if size > 1:
        got = ember.zeros(3)
        src = dist.recv(got, src=prv)
        check(src == prv, "recv returns the sender")
        same(got, np.full(3, float(prv)), "send/recv")
else:
    got = ember.zeros(3)
    src = dist.recv(got)
    check(src == prv, "recv from any source returns the sender")
    same(got, np.full(3, float(prv)), "send/recv any source")
    dist.send(ember.full((3,), float(rank)), dst=nxt)
got = ember.zeros(2, dtype=ember.bfloat16)
ops = [dist.P2POp(dist.isend, ember.full((2,), rank + 0.5, dtype=ember.bfloat16), nxt),
       dist.P2POp(dist.irecv, got, prv)]
for work in dist.batch_isend_irecv(ops):
    work.wait()
same(got, np.full(2, prv + 0.5), "batch_isend_irecv")
raises(ValueError, lambda: dist.send(ember.ones(1), dst=rank), "send to itself")

# ---- async_op: Work and its Future
t = ember.ones(4) * (rank + 1)
work = dist.all_reduce(t, async_op=True)
work.wait()
check(work.is_completed() and work.is_success(), "Work completed")
same(t, np.full(4, size * (size + 1) / 2), "async all_reduce")
fut = dist.all_reduce(ember.ones(2), async_op=True).get_future()
same(fut.wait()[0], np.full(2, float(size)), "Work.get_future()")

# ---- object collectives
objs = [None] * size
dist.all_gather_object(objs, {"rank": rank, "t": ember.tensor([rank]), "s": "x" * rank})
check([o["rank"] for o in objs] == list(range(size)) and objs[-1]["s"] == "x" * (size - 1),
      "all_gather_object")
lst = [1, "two", ember.ones(2)] if rank == 0 else [None, None, None]
dist.broadcast_object_list(lst, src=0)
check(lst[:2] == [1, "two"] and lst[2].tolist() == [1.0, 1.0], "broadcast_object_list")
gl = [None] * size if rank == 0 else None
dist.gather_object(("r", rank), gl, dst=0)
check(rank != 0 or gl == [("r", r) for r in range(size)], "gather_object")
out = [None]
dist.scatter_object_list(out, [{"i": i} for i in range(size)] if rank == 0 else None, src=0)
check(out[0] == {"i": rank}, "scatter_object_list")


class Evil:
    def __reduce__(self):
        return (print, ("code ran",))


lst = [Evil()] if rank == 0 else [None]
if rank == 0:
    dist.broadcast_object_list(lst, src=0)        # sending pickles it, as PyTorch does
else:
    raises(__import__("pickle").UnpicklingError, lambda: dist.broadcast_object_list(lst, src=0),
           "an object that carries code is refused on the receiving ranks")
    check(lst == [None], "the refused object is not stored")

got = [None, None]
if rank == 0:
    dist.send_object_list([{"to": size - 1}, "x"], dst=size - 1)
elif rank == size - 1:
    sender = dist.recv_object_list(got)
    check(sender == 0 and got == [{"to": size - 1}, "x"], "send_object_list/recv_object_list")

# ---- groups
sub = dist.new_group([0, size - 1])
if rank in (0, size - 1):
    check(dist.get_world_size(sub) == 2 and dist.get_rank(sub) == (0 if rank == 0 else 1),
          "sub-group rank and size")
    t = ember.tensor([float(rank)])
    dist.all_reduce(t, group=sub)
    same(t, [float(size - 1)], "all_reduce in a sub-group")
    t = ember.tensor([float(rank)])
    dist.broadcast(t, src=size - 1, group=sub)
    same(t, [float(size - 1)], "broadcast in a sub-group takes a global rank")
else:
    check(sub == dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(sub) == -1,
          "outside the sub-group")
    check(dist.all_reduce(ember.ones(1), group=sub) is None, "collective outside the group")
mine, groups = dist.new_subgroups(1)
check(dist.get_world_size(mine) == 1 and len(groups) == size, "new_subgroups")
mine, groups = dist.new_subgroups_by_enumeration([[0], list(range(1, size))])
check(dist.get_world_size(mine) == (1 if rank == 0 else size - 1), "by enumeration")
check(dist.get_pg_count() >= 3 and dist.is_backend_available("gloo"), "pg count, available")
dist.monitored_barrier(timeout=datetime.timedelta(seconds=20))
dist.barrier()
dist.destroy_process_group()
check(not dist.is_initialized(), "destroyed")
done()
