import torch
from torch import nn
from torchinfo import summary

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(8 * 4 * 4, 10),
)
stats = summary(model, input_size=(2, 3, 8, 8), verbose=0,
                col_names=("input_size", "output_size", "num_params", "trainable"))
print(str(stats))
print(stats.total_params, stats.trainable_params, stats.total_mult_adds)
lstm = nn.LSTM(4, 6, batch_first=True)
print(str(summary(lstm, input_size=(1, 5, 4), verbose=0)))
