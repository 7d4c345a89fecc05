"""torch.func transforms, checkpointing and forward-mode AD, as a user script."""
import torch
from torch.func import grad, jacrev, vmap, hessian
from torch.utils.checkpoint import checkpoint

def f(x):
    return (x.sin() * x).sum()

x = torch.tensor([0.5, 1.0, -2.0])
print("grad", [round(v, 4) for v in grad(f)(x).tolist()])
print("jacrev", [[round(v, 4) for v in row] for row in jacrev(torch.tanh)(x).tolist()])
print("vmap", [round(v, 4) for v in vmap(lambda r: (r * r).sum())(torch.arange(6.0).reshape(3, 2)).tolist()])
print("hessian diag", [round(v, 4) for v in hessian(f)(x).diagonal().tolist()])

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
def block(h):
    return torch.relu(h @ w).exp().mean(dim=1, keepdim=True) * h
h = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
out = checkpoint(block, h, use_reentrant=False).sum()
out.backward()
print("checkpoint grads", [[round(v, 4) for v in r] for r in w.grad.tolist()], [[round(v, 4) for v in r] for r in h.grad.tolist()])
with torch.autograd.forward_ad.dual_level():
    d = torch.autograd.forward_ad.make_dual(x, torch.ones(3))
    print("jvp", [round(v, 4) for v in torch.autograd.forward_ad.unpack_dual(f(d)).tangent.reshape(1).tolist()])
