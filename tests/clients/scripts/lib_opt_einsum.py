import opt_einsum as oe
import torch
from _show import show
from opt_einsum.contract import infer_backend

a = torch.linspace(-1, 1, 12).reshape(3, 4)
b = torch.linspace(0, 2, 20).reshape(4, 5)
c = torch.linspace(1, 3, 10).reshape(5, 2)
print("backend", infer_backend(a))
show("contract", oe.contract("ij,jk,kl->il", a, b, c))
show("contract optimal", oe.contract("ij,jk,kl->il", a, b, c, optimize="optimal"))
path, info = oe.contract_path("ij,jk,kl->il", a, b, c)
print("path", path)
expr = oe.contract_expression("ij,jk,kl->il", a.shape, b.shape, c.shape)
show("expression", expr(a, b, c))
show("tensordot path", oe.contract("abc,cd,bd->a", torch.ones(2, 3, 4), torch.ones(4, 5), torch.ones(3, 5)))
a.requires_grad_(True)
oe.contract("ij,jk,kl->il", a, b, c).sum().backward()
show("grad", a.grad)
