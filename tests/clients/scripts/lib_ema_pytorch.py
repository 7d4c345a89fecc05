import torch
from _show import show
from ema_pytorch import EMA
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
ema = EMA(net, beta=0.9, update_after_step=2, update_every=1)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
x = torch.linspace(-1, 1, 32).reshape(8, 4)
for _ in range(6):
    opt.zero_grad()
    net(x).pow(2).mean().backward()
    opt.step()
    ema.update()
print("step", ema.step.item())
show("online", net[0].weight)
show("ema", ema.ema_model[0].weight)
ema.eval()
show("ema output", ema(x))
print(sorted(ema.state_dict())[:4])
