"""A sequence-reversal model as users write one: a Dataset with a collate_fn padding variable
lengths, random_split and a WeightedRandomSampler, packed bidirectional GRU, MultiheadAttention
with a key padding mask, weight_norm / spectral_norm / a custom parametrization, AdamW with
OneCycleLR and gradient accumulation, forward and full backward hooks, then a checkpoint of
model, optimizer and scheduler saved, loaded with weights_only and resumed."""
import io
import os
import tempfile

import torch
import torch.nn.functional as F
import torch.nn.utils.parametrize as P
from torch import nn
from torch.nn.utils import clip_grad_value_, spectral_norm, weight_norm
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler, random_split

torch.manual_seed(0)

class Seqs(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.items = []
        for i in range(n):
            L = int(torch.randint(3, 9, (1,), generator=g))
            x = torch.randint(1, 20, (L,), generator=g)
            self.items.append((x, x.flip(0)))
    def __len__(self): return len(self.items)
    def __getitem__(self, i): return self.items[i]

def collate(batch):
    xs, ys = zip(*batch)
    lens = torch.tensor([len(x) for x in xs])
    return pad_sequence(xs, batch_first=True), pad_sequence(ys, batch_first=True), lens

class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16, padding_idx=0)
        self.rnn = nn.GRU(16, 16, batch_first=True, bidirectional=True)
        self.att = nn.MultiheadAttention(32, 4, batch_first=True)
        self.proj = weight_norm(nn.Linear(32, 32))
        self.sq = nn.Linear(32, 32)
        P.register_parametrization(self.sq, "weight", Sym())
        self.out = spectral_norm(nn.Linear(32, 20))
        self.ln = nn.LayerNorm(32)
    def forward(self, x, lens):
        e = self.emb(x)
        packed = pack_padded_sequence(e, lens, batch_first=True, enforce_sorted=False)
        h, _ = self.rnn(packed)
        h, _ = pad_packed_sequence(h, batch_first=True, total_length=x.shape[1])
        mask = x == 0
        a, _ = self.att(h, h, h, key_padding_mask=mask)
        h = self.ln(h + a)
        h = F.gelu(self.proj(h)) + self.sq(h)
        return self.out(h)

ds = Seqs(96)
train, val = random_split(ds, [80, 16], generator=torch.Generator().manual_seed(2))
weights = torch.ones(len(train))
sampler = WeightedRandomSampler(weights, num_samples=80, replacement=True,
                                generator=torch.Generator().manual_seed(3))
dl = DataLoader(train, batch_size=8, sampler=sampler, collate_fn=collate)
vdl = DataLoader(val, batch_size=8, collate_fn=collate)

model = Model()
acts = {}
model.rnn.register_forward_hook(lambda m, i, o: acts.__setitem__("rnn", o[0].data.shape))
gnorms = []
model.out.register_full_backward_hook(lambda m, gi, go: gnorms.append(go[0].norm().item()))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=40)
accum = 2
for epoch in range(2):
    model.train()
    for step, (x, y, lens) in enumerate(dl):
        logits = model(x, lens)
        loss = F.cross_entropy(logits.reshape(-1, 20), y.reshape(-1), ignore_index=0,
                               label_smoothing=0.1) / accum
        loss.backward()
        if (step + 1) % accum == 0:
            clip_grad_value_(model.parameters(), 1.0)
            opt.step(); opt.zero_grad(set_to_none=True); sched.step()
    model.eval()
    with torch.no_grad():
        tot = n = 0
        for x, y, lens in vdl:
            pred = model(x, lens).argmax(-1)
            m = y != 0
            tot += (pred[m] == y[m]).sum().item(); n += m.sum().item()
    print(f"epoch {epoch} loss {loss.item()*accum:.4f} acc {tot/n:.4f} lr {sched.get_last_lr()[0]:.6f}")
print("hook shapes", acts["rnn"], len(gnorms), f"{sum(gnorms):.4f}")

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
m2 = Model()
missing = m2.load_state_dict(ck["model"], strict=False)
print("missing", missing.missing_keys, missing.unexpected_keys)
o2 = torch.optim.AdamW(m2.parameters(), lr=3e-3, weight_decay=0.01)
o2.load_state_dict(ck["opt"])
s2 = torch.optim.lr_scheduler.OneCycleLR(o2, max_lr=1e-2, total_steps=40)
s2.load_state_dict(ck["sched"])
print("resumed lr", s2.get_last_lr(), sorted(ck["model"].keys())[:6])
x, y, lens = next(iter(vdl))
m2.eval(); model.eval()
with torch.no_grad():
    print("same", torch.allclose(m2(x, lens), model(x, lens), atol=1e-6))
with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "ck.pt")
    torch.save(model.state_dict(), p)
    sd = torch.load(p, map_location="cpu")
    print(len(sd), type(sd).__name__)
