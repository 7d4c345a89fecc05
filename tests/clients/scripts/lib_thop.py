import torch
from thop import clever_format, profile
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.ReflectionPad2d(1),
    nn.AvgPool2d(2), nn.Flatten(), nn.Linear(8 * 5 * 5, 10), nn.Softmax(-1),
)
macs, params = profile(model, inputs=(torch.ones(1, 3, 8, 8),), verbose=False)
print("macs", macs, "params", params)
print(clever_format([macs, params], "%.3f"))
