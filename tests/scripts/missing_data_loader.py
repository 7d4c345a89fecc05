from torch.utils.data import DataLoader  # noqa: F401
