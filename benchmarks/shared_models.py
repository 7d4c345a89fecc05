"""Models and the training step more than one benchmark times (each script puts this folder
on sys.path, as for `common`)."""
from __future__ import annotations

import math


def char_gpt_class(lib):
    """A minGPT-style character model class written against `lib` (ember or torch): causal
    self-attention blocks with an explicit mask buffer, as the GPT benchmarks time it."""
    nn, F = lib.nn, lib.nn.functional


    class Block(nn.Module):
        def __init__(self, width, heads, block):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.ln2 = nn.LayerNorm(width)
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                     nn.Linear(4 * width, width))
            self.register_buffer("mask", lib.tril(lib.ones(block, block)).view(
                1, 1, block, block))

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
            y = F.softmax(att, dim=-1) @ v
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.mlp(self.ln2(x))

    class CharGPT(nn.Module):
        def __init__(self, vocab=65, width=128, heads=4, layers=4, block=64):
            super().__init__()
            self.tok = nn.Embedding(vocab, width)
            self.pos = nn.Embedding(block, width)
            self.blocks = nn.Sequential(*[Block(width, heads, block) for _ in range(layers)])
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)

        def forward(self, idx):
            t = idx.shape[1]
            x = self.tok(idx) + self.pos(lib.arange(t))
            return self.head(self.ln(self.blocks(x)))
    return CharGPT


def sgd_step(lib, loss_fn, params, x, y):
    """One timed training step: zero the grads, `loss_fn(x, y)`, backward, a plain in-place SGD
    update (lr 0.01)."""
    def step():
        for p in params:
            p.grad = None
        loss = loss_fn(x, y)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.01 * p.grad
        return loss
    return step
