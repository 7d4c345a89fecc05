import torch
import torch.export  # noqa: F401

print(torch.ones(1))
