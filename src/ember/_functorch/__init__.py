"""AOT autograd (PyTorch's `torch._functorch`): forward and backward traced ahead of time into
fx graphs, partitioned (partitioners.py) and compiled (aot_autograd.py)."""
