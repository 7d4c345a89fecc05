"""A decoder-only LM as Hugging Face-style code writes it: tied embedding and head, a boolean causal
mask as a non-persistent buffer, finfo.min masking and float32 softmax, reentrant gradient
checkpointing, AdamW, then generation with a key/value cache and top-p sampling (sort, cumsum,
scatter, multinomial), bfloat16 and half conversions, and the state_dict of shared weights."""
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)

class Attn(nn.Module):
    def __init__(self, d, h, T):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)).view(1, 1, T, T), persistent=False)
    def forward(self, x, past=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        if past is not None:
            k = torch.cat([past[0], k], dim=2); v = torch.cat([past[1], v], dim=2)
        S = k.shape[2]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.shape[-1])
        att = att.masked_fill(~self.mask[:, :, S - T:S, :S], torch.finfo(att.dtype).min)
        att = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.o(y), (k, v)

class Block(nn.Module):
    def __init__(self, d, h, T):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attn(d, h, T)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d), nn.Dropout(0.1))
    def forward(self, x, past=None):
        a, kv = self.attn(self.ln1(x), past)
        x = x + a
        return x + self.mlp(self.ln2(x)), kv

class LM(nn.Module):
    def __init__(self, V=50, d=32, h=4, L=2, T=32):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, d), nn.Embedding(T, d)
        self.blocks = nn.ModuleList([Block(d, h, T) for _ in range(L)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, V, bias=False)
        self.head.weight = self.wte.weight
        self.gradient_checkpointing = False
        self.apply(self._init)
    def _init(self, m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)
    def forward(self, idx, past=None):
        off = 0 if past is None else past[0][0].shape[2]
        pos = torch.arange(off, off + idx.shape[1])
        x = self.wte(idx) + self.wpe(pos)
        new = []
        for i, b in enumerate(self.blocks):
            if self.gradient_checkpointing and self.training:
                x, kv = checkpoint(b, x, None, use_reentrant=True)
            else:
                x, kv = b(x, None if past is None else past[i])
            new.append(kv)
        return self.head(self.ln(x)), new

model = LM()
print("tied", model.head.weight is model.wte.weight, sum(p.numel() for p in model.parameters()))
model.gradient_checkpointing = True
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
data = torch.randint(0, 50, (64, 17))
for step in range(8):
    x, y = data[:, :-1], data[:, 1:]
    logits, _ = model(x)
    loss = F.cross_entropy(logits.view(-1, 50), y.reshape(-1))
    opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    if step % 4 == 0: print(step, f"{loss.item():.4f}")

@torch.no_grad()
def generate(m, idx, n, top_p=0.9, temperature=0.8):
    past = None; cur = idx
    for _ in range(n):
        logits, past = m(cur, past)
        logits = logits[:, -1, :] / temperature
        sorted_logits, sorted_idx = torch.sort(logits, descending=True)
        cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        remove = cum > top_p
        remove[..., 1:] = remove[..., :-1].clone(); remove[..., 0] = False
        mask = remove.scatter(1, sorted_idx, remove)
        logits = logits.masked_fill(mask, float("-inf"))
        nxt = torch.multinomial(F.softmax(logits, dim=-1), 1)
        idx = torch.cat([idx, nxt], dim=1); cur = nxt
    return idx

model.eval()
print(generate(model, torch.zeros(2, 1, dtype=torch.long), 10).tolist())
full, _ = model(torch.tensor([[1, 2, 3, 4]]))
l1, p = model(torch.tensor([[1, 2]])); l2, _ = model(torch.tensor([[3, 4]]), p)
print("kv cache consistent", torch.allclose(full[:, 2:], l2, atol=1e-5))
mb = LM().to(torch.bfloat16)
print(mb(torch.tensor([[1, 2, 3]]))[0].dtype, mb.wte.weight.dtype)
mh = LM().half().float()
print(next(mh.parameters()).dtype)
sd = model.state_dict()
print("keys", len(sd), "mask" in " ".join(sd), sd["head.weight"].data_ptr() == sd["wte.weight"].data_ptr())
