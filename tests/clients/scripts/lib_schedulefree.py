import schedulefree
import torch
from _show import show
from torch import nn

for cls in (schedulefree.AdamWScheduleFree, schedulefree.SGDScheduleFree, schedulefree.RAdamScheduleFree):
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    kwargs = {"lr": 0.05} if cls is schedulefree.RAdamScheduleFree else {"lr": 0.05, "warmup_steps": 2}
    opt = cls(model.parameters(), **kwargs)
    opt.train()
    x = torch.linspace(-1, 1, 24).reshape(6, 4)
    for _ in range(5):
        opt.zero_grad()
        loss = (model(x) - 1).pow(2).mean()
        loss.backward()
        opt.step()
    opt.eval()
    show(cls.__name__, loss.item())
    show(cls.__name__ + " w", model.weight)
