import torch
import torch.distributed as dist  # noqa: F401

print(torch.ones(1))
