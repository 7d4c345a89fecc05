import torch.definitely_missing  # noqa: F401
