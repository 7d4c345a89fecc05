# Run as `python -m pkg_entry` (a package's entry point); uses torch like a user's package does.
import sys

import torch
import torch.autograd

x = torch.arange(4.0, requires_grad=True)
(grad,) = torch.autograd.grad((x * x).sum(), x)
print(__name__, sys.argv[1:], grad.tolist(), torch.__name__ in ("torch", "ember"))
