import torch
from _show import show
from torch import nn
from torch_ema import ExponentialMovingAverage

torch.manual_seed(0)
model = nn.Linear(3, 2)
ema = ExponentialMovingAverage(model.parameters(), decay=0.9)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.linspace(-1, 1, 12).reshape(4, 3)
for _ in range(4):
    opt.zero_grad()
    model(x).pow(2).sum().backward()
    opt.step()
    ema.update()
show("weight", model.weight)
with ema.average_parameters():
    show("averaged", model.weight)
show("restored", model.weight)
sd = ema.state_dict()
print(sorted(sd), sd["num_updates"])
ema.copy_to()
show("copied", model.weight)
