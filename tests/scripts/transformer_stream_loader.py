"""A causal TransformerEncoder classifier fed by an IterableDataset split across two
DataLoader workers (get_worker_info, persistent workers), SGD with Nesterov momentum, LinearLR
warm-up and ReduceLROnPlateau, clip_grad_norm_ with error_if_nonfinite, inference_mode,
ConcatDataset with a seeded shuffle, channels_last, switches, and a TensorBoard SummaryWriter."""
import os
import tempfile

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import (
    ConcatDataset,
    DataLoader,
    IterableDataset,
    TensorDataset,
    get_worker_info,
)

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
torch.backends.cudnn.benchmark = True
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Stream(IterableDataset):
    def __init__(self, n): self.n = n
    def __iter__(self):
        info = get_worker_info()
        lo, step = (0, 1) if info is None else (info.id, info.num_workers)
        g = torch.Generator().manual_seed(10)
        data = torch.randn(self.n, 12, generator=g)
        for i in range(lo, self.n, step):
            yield data[i], (data[i].sum() > 0).long()

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.inp = nn.Linear(1, 16)
        self.cls = nn.Linear(16, 2)
    def forward(self, x):
        h = self.inp(x.unsqueeze(-1))
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        h = self.enc(h, mask=mask, is_causal=True)
        q = h[:, -1:]
        a = F.scaled_dot_product_attention(q, h, h)
        return self.cls(a.squeeze(1))

def main():
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
    dl = DataLoader(Stream(64), batch_size=16, num_workers=2, persistent_workers=True)
    for epoch in range(3):
        model.train()
        total = 0.0
        for x, y in dl:
            x, y = x.to(device, non_blocking=True), y.to(device)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, norm_type=2.0, error_if_nonfinite=True)
            opt.step(); total += loss.item()
        warm.step(); sched.step(total)
        print(f"epoch {epoch} loss {total:.4f} lr {opt.param_groups[0]['lr']:.5f}")
    model.eval()
    with torch.inference_mode():
        x = torch.randn(4, 12)
        out = model(x)
        print("inference", out.shape, out.requires_grad, torch.is_inference_mode_enabled())
    ds = ConcatDataset([TensorDataset(torch.arange(5.), torch.arange(5)), TensorDataset(torch.arange(3.), torch.arange(3))])
    dl2 = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(0), drop_last=True, pin_memory=False)
    for a, b in dl2: print("concat", a.tolist(), b.tolist())
    print("same module", model.to(memory_format=torch.channels_last) is model)
    print(sum(p.numel() for p in model.parameters() if p.requires_grad))
    print(torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark, device)
    from torch.utils.tensorboard import SummaryWriter
    with tempfile.TemporaryDirectory() as d:
        w = SummaryWriter(d)
        w.add_scalar("loss", 1.0, 0); w.add_histogram("w", model.cls.weight, 0); w.close()
        print("tb files", len(os.listdir(d)) > 0)

if __name__ == "__main__":
    main()
