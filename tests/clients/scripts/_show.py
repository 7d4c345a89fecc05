"""Printing shared by the client scripts: shapes, dtypes and values rounded so that the last
bits of a float (which differ between ember's NumPy kernels and PyTorch's) do not show."""
import os
import sys

import torch


def fmt(v, digits=4):
    if isinstance(v, bool) or isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        text = f"{v:.{digits}f}"
        return "0." + "0" * digits if text == "-0." + "0" * digits else text
    if isinstance(v, torch.Tensor):
        v = v.detach()
        head = f"{tuple(v.shape)} {str(v.dtype).split('.')[-1]}"
        if v.is_complex():
            v = torch.view_as_real(v)
        values = v.reshape(-1)[:8].tolist()
        return head + " [" + ", ".join(fmt(x, digits) for x in values) + "]"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x, digits) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {fmt(x, digits)}" for k, x in v.items()) + "}"
    return str(v)


def show(label, value, digits=4):
    print(label, fmt(value, digits))


def workdir():
    """The folder the test hands over (argv[1]); PyTorch's run saves weights there first."""
    path = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(path, exist_ok=True)
    return path


def saved_by_torch(path, make):
    """`make()`'s object, written with torch.save when `path` is missing (the PyTorch run),
    then read back with torch.load: under ember it is PyTorch's file that loads."""
    if not os.path.exists(path):
        torch.save(make(), path)
    return torch.load(path)
