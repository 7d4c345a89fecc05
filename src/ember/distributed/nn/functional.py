"""Collectives as autograd Functions: each returns new tensors (its input is left alone) and
its backward runs the collective that carries the gradients back (all_reduce's is all_reduce
of the gradients, all_gather's sends each rank the sum of its slice, broadcast's reduces to
the source)."""
from __future__ import annotations

import ember
from ember.autograd import Function
from ember.distributed import collectives
from ember.distributed.group import get_rank, get_world_size
from ember.distributed.reduce_op import ReduceOp


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group = group
        result = tensor.clone()
        collectives.all_reduce(result, op=op, group=group)
        return result

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        collectives.all_reduce(grad, op=ReduceOp.SUM, group=ctx.group)
        return None, None, grad


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        out = [ember.empty_like(tensor) for _ in range(get_world_size(group))]
        collectives.all_gather(out, tensor.contiguous(), group=group)
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        stacked = ember.stack([g.contiguous() for g in grads])
        collectives.all_reduce(stacked, op=ReduceOp.SUM, group=ctx.group)
        return None, stacked[get_rank(ctx.group)]


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        result = tensor.clone()
        collectives.broadcast(result, src, group=group)
        return result

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        collectives.reduce(grad, ctx.src, op=ReduceOp.SUM, group=ctx.group)
        if get_rank() != ctx.src:
            grad.zero_()
        return None, None, grad


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        result = tensor.clone()
        collectives.reduce(result, dst, op=op, group=group)
        return result

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        collectives.broadcast(grad, ctx.dst, group=ctx.group)
        return None, None, None, grad


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """The reduction of `tensor` over the group, as a new tensor autograd differentiates."""
    return _AllReduce.apply(op, group, tensor)


def all_gather(tensor, group=None):
    """Every rank's `tensor`, a tuple in rank order, differentiable."""
    return _AllGather.apply(group, tensor)


def broadcast(tensor, src, group=None):
    """Rank `src`'s `tensor` on every rank, differentiable."""
    return _Broadcast.apply(src, group, tensor)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None):
    """The reduction of `tensor` over the group on rank `dst`, differentiable."""
    return _Reduce.apply(dst, op, group, tensor)
