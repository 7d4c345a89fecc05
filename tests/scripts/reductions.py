# Reductions and statistics over a small batch of scores.
import torch

scores = torch.tensor([[2.0, -1.0, 0.5, 3.0],
                       [0.0, 4.0, -2.0, 1.0],
                       [1.5, 1.0, 2.5, -0.5]])

print("sum", scores.sum(), scores.sum(dim=0), scores.sum(1, keepdim=True).shape)
print("mean", scores.mean(dim=1))
print("std", scores.std(dim=1), "var", scores.var(dim=1, unbiased=False))
values, indices = scores.max(dim=1)
print("max", values, indices)
print("argmin", scores.argmin(dim=1), "amax", scores.amax(dim=0))
print("cumsum", scores.cumsum(dim=1)[0])
print("prod", scores.prod(dim=1))

# A numerically stable softmax by hand, checked against logsumexp.
shifted = scores - scores.max(dim=1, keepdim=True).values
probs = shifted.exp() / shifted.exp().sum(dim=1, keepdim=True)
print("softmax rows sum to", probs.sum(dim=1))
log_probs = scores - torch.logsumexp(scores, dim=1, keepdim=True)
print("matches", torch.allclose(probs.log(), log_probs, atol=1e-6))

top = torch.topk(scores, k=2, dim=1)
print("topk", top.values, top.indices)
sorted_scores, order = torch.sort(scores[0], descending=True)
print("sort", sorted_scores, order)
print("norm", scores.norm(), scores.norm(dim=1))
print("any/all", (scores > 3).any(), (scores > -3).all(dim=1))
print("median", scores.median(dim=1).values)
print("count", torch.count_nonzero(scores > 1.0, dim=1))
print("int sum dtype", torch.tensor([1, 2, 3], dtype=torch.int32).sum().dtype)
print("mean of ints", torch.tensor([1, 2, 4]).float().mean().item())
