import torch
import torch_optimizer as optim
from _show import show
from torch import nn


def train(make_opt, steps=5):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = make_opt(model.parameters())
    x = torch.linspace(-1, 1, 32).reshape(8, 4)
    y = x.sum(1, keepdim=True).sin()
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    return loss.item(), model[0].weight

for name, make in [
    ("RAdam", lambda p: optim.RAdam(p, lr=1e-2)),
    ("Lamb", lambda p: optim.Lamb(p, lr=1e-2)),
    ("Yogi", lambda p: optim.Yogi(p, lr=1e-2)),
    ("DiffGrad", lambda p: optim.DiffGrad(p, lr=1e-2)),
    ("AdaBound", lambda p: optim.AdaBound(p, lr=1e-2)),
    ("QHAdam", lambda p: optim.QHAdam(p, lr=1e-2)),
    ("Ranger", lambda p: optim.Ranger(p, lr=1e-2)),
    ("Lookahead(Yogi)", lambda p: optim.Lookahead(optim.Yogi(p, lr=1e-2), k=2, alpha=0.5)),
    ("AdaHessian", None),
]:
    if make is None:
        continue
    loss, w = train(make)
    show(name, loss)
    show(name + " w", w)
print(optim.get("adamp"))
