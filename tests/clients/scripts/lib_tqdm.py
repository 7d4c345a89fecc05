import io

import torch
from _show import show
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm, trange
from tqdm.contrib import tenumerate

data = TensorDataset(torch.arange(20.0).reshape(10, 2), torch.arange(10))
sink = io.StringIO()
total = torch.zeros(2)
bar = tqdm(DataLoader(data, batch_size=3), file=sink, desc="batches")
for x, y in bar:
    total += x.sum(0)
    bar.set_postfix(loss=float(x.mean()))
print("len", len(bar), "n", bar.n)
show("total", total)
for i in trange(3, file=sink):
    pass
for i, t in tenumerate(torch.arange(4), file=sink):
    pass
print("last", i, t.item())
print("written", "batches" in sink.getvalue())
print(tqdm.format_meter(5, 10, 1.0, prefix="x"))
