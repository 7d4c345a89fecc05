"""SyncBatchNorm's training step over a process group.

NOTE [synchronised batch statistics]: each rank sums its input and its squares per channel and
counts its elements; one all_reduce makes those sums the whole group's, so every rank
normalises with the mean and biased variance of the combined batch and updates the running
statistics with the combined unbiased variance. The all_reduce is an autograd Function whose
backward all-reduces the gradient too: each rank's input gets the gradient of the sum of every
rank's loss through the shared statistics, as batch norm on the combined batch would give it
(DDP then averages the parameters' gradients).
"""
from __future__ import annotations

import ember
from ember.autograd import Function


class _AllReduceSum(Function):
    @staticmethod
    def forward(ctx, tensor, group):
        ctx.group = group
        out = tensor.clone()
        ember.distributed.all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        ember.distributed.all_reduce(grad, group=ctx.group)
        return grad, None


def sync_batch_norm(input, weight, bias, running_mean, running_var, eps, momentum, group):
    channels = input.shape[1]
    dims = [0, *range(2, input.dim())]
    count = input.numel() // channels
    stats = ember.cat([input.sum(dims), (input * input).sum(dims),
                       ember.full((1,), float(count), dtype=input.dtype)])
    stats = _AllReduceSum.apply(stats, group)
    total = stats[-1]
    mean = stats[:channels] / total
    var = stats[channels:2 * channels] / total - mean * mean
    shape = [1, channels] + [1] * (input.dim() - 2)
    out = (input - mean.view(shape)) * ember.rsqrt(var.view(shape) + eps)
    if weight is not None:
        out = out * weight.view(shape)
    if bias is not None:
        out = out + bias.view(shape)
    if running_mean is not None:
        with ember.no_grad():
            n = float(total.item())
            if n <= 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got "
                                 f"input size {list(input.shape)}")
            running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
            running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    return out
