import torch
import torch.fx  # noqa: F401

print(torch.ones(1))
