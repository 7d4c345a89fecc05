import torch
from _show import show
from lion_pytorch import Lion
from torch import nn

torch.manual_seed(0)
model = nn.Linear(6, 3)
opt = Lion(model.parameters(), lr=1e-3, weight_decay=1e-2)
x = torch.linspace(-2, 2, 24).reshape(4, 6)
for step in range(5):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(f"step {step}", loss.item())
show("weight", model.weight)
show("exp_avg", opt.state[model.weight]["exp_avg"])
print(sorted(opt.state_dict()["state"][0]))
