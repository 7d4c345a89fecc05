"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes split into a frequent "head" and rarer
tail clusters (Grave et al., "Efficient softmax approximation for GPUs"). The head scores the
shortlist classes plus one logit per cluster; a class in cluster i costs
log p(cluster i | x) + log p(class | cluster i, x), each cluster scored through a narrower
projection (in_features / div_value ** (i + 1) wide)."""
from __future__ import annotations

from collections import namedtuple

import ember
from ember.nn._functional.activation import log_softmax
from ember.nn.modules.container import ModuleList, Sequential
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: `forward(input, target)` gives each row's log-probability of its
    target and the mean negative log-likelihood; `log_prob` the full (N, n_classes) table;
    `predict` the most likely class."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        factory = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            width = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, width, bias=False, **factory)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for projection in self.tail:
            for linear in projection:
                linear.reset_parameters()

    def forward(self, input: ember.Tensor, target: ember.Tensor) -> _ASMoutput:
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input.size()}")
        elif target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target.dim() > 0
        if not batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)

        rows = target.size(0)
        output = input.new_zeros(rows)
        head_index = target.new_empty(rows)     # the head logit each row's class goes through
        covered = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            in_cluster = (target >= low) & (target < high)
            indices = in_cluster.nonzero().squeeze(1)
            if indices.numel() == 0:
                continue
            if i == 0:
                head_index.index_copy_(0, indices, target[in_cluster])
            else:
                logits = self.tail[i - 1](input.index_select(0, indices))
                within = log_softmax(logits, dim=1).gather(
                    1, (target[in_cluster] - low).unsqueeze(1))
                head_index.index_fill_(0, indices, self.shortlist_size + i - 1)
                output.index_copy_(0, indices, within.squeeze(1))
            covered += indices.numel()
        if covered != rows:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")

        head_logprob = log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input: ember.Tensor, head_output: ember.Tensor) -> ember.Tensor:
        head_logprob = log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, projection in enumerate(self.tail):
            cluster = log_softmax(projection(input), dim=1)
            parts.append(cluster + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return ember.cat(parts, dim=1)

    def log_prob(self, input: ember.Tensor) -> ember.Tensor:
        """log p(class | x) of every class, (N, n_classes), for a batch (N, in_features)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: ember.Tensor) -> ember.Tensor:
        """The most likely class of each row of a batch; the full table is computed only for
        the rows whose best head logit is a cluster's."""
        head_output = self.head(input)
        best = ember.argmax(head_output, dim=1)
        in_tail = best >= self.shortlist_size
        if bool(in_tail.any()):
            table = self._full_log_prob(input[in_tail], head_output[in_tail])
            best[in_tail] = ember.argmax(table, dim=1)
        return best
