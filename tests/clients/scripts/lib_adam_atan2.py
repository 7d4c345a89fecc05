import torch
from _show import show
from adam_atan2_pytorch import AdamAtan2
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 1))
opt = AdamAtan2(model.parameters(), lr=1e-2, weight_decay=0.1)
x = torch.linspace(-1, 1, 20).reshape(5, 4)
for _ in range(5):
    opt.zero_grad()
    loss = model(x).sin().pow(2).mean()
    loss.backward()
    opt.step()
show("loss", loss.item())
show("w", model[0].weight)
