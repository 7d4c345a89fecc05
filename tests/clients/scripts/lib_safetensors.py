import os

import torch
from _show import show, workdir
from safetensors.torch import load, load_file, load_model, save, save_file, save_model
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2))
path = os.path.join(workdir(), "model.safetensors")
if not os.path.exists(path):      # written by PyTorch's run, read by both
    save_model(model, path, metadata={"by": "torch"})
fresh = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2))
missing, unexpected = load_model(fresh, path)
print("missing", missing, "unexpected", unexpected)
show("output", fresh(torch.ones(2, 3)))
tensors = {"a": torch.arange(6, dtype=torch.int16).reshape(2, 3), "b": torch.linspace(0, 1, 4).to(torch.bfloat16),
           "c": torch.ones(2, dtype=torch.float64)}
blob = save(tensors)
back = load(blob)
for k in sorted(back):
    show(k, back[k])
print("same bytes", len(blob))
other = os.path.join(workdir(), "t.safetensors")
save_file(tensors, other)
show("file a", load_file(other)["a"])
