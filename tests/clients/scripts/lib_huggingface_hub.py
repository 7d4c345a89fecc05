import os

import torch
from _show import show, workdir
from huggingface_hub import PyTorchModelHubMixin
from torch import nn


class Net(nn.Module, PyTorchModelHubMixin):
    def __init__(self, hidden: int = 4, classes: int = 2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, hidden), nn.Tanh(), nn.Linear(hidden, classes))

    def forward(self, x):
        return self.body(x)


folder = os.path.join(workdir(), "net")
if not os.path.exists(folder):       # PyTorch's run writes it, both read it
    torch.manual_seed(0)
    Net(hidden=5, classes=3).save_pretrained(folder)
print(sorted(os.listdir(folder)))
net = Net.from_pretrained(folder)
print(net)
show("output", net(torch.linspace(-1, 1, 6).reshape(2, 3)))
