import torch
import torch.distributed.pipelining as pipelining  # noqa: F401

print(torch.ones(1))
