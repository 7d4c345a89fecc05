import torch
from _show import show
from entmax import Entmax15Loss, EntmaxBisect, SparsemaxLoss, entmax15, entmax_bisect, sparsemax

x = torch.tensor([[1.5, 0.2, -0.8, 1.1, 0.0], [0.1, 0.1, 3.0, -2.0, 0.5]], requires_grad=True)
for name, f in (("sparsemax", sparsemax), ("entmax15", entmax15)):
    y = f(x, dim=-1)
    show(name, y)
    (y * torch.arange(5.0)).sum().backward()
    show(name + " grad", x.grad)
    x.grad = None
show("bisect", entmax_bisect(x, alpha=1.3, dim=-1))
show("bisect module", EntmaxBisect(alpha=1.7)(x))
target = torch.tensor([0, 2])
show("entmax15 loss", Entmax15Loss()(x, target))
show("sparsemax loss", SparsemaxLoss()(x, target))
