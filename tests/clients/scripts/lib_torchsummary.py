import torch
from torch import nn
from torchsummary import summary

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 5),
)
summary(model, (1, 8, 8), device="cpu")
