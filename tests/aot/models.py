"""The models the AOT autograd tests compile: an MLP, a small CNN, a GPT block (ember), and
the MLP in torch (the oracle) built from the same weights."""
import itertools

import numpy as np

import ember
import ember.nn.functional as F
from ember import nn


def mlp(sizes=(32, 64, 64, 10)):
    layers = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(x.flatten(1))


class GPTBlock(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // h) ** 0.5)
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class CharGPT(nn.Module):
    """A character language model: token and position embeddings, GPT blocks, a final layer
    norm and a head. Its backward graph reads the embeddings' input gradient both in a
    reduction (the position table's gradient, summed over the batch) and in an extern call
    (the token table's embedding_dense_backward): NOTE [a value realized after its first
    reader] in ember/_inductor/scheduler.py."""

    def __init__(self, vocab=27, block=8, d=32, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(block, d)
        self.blocks = nn.Sequential(*[GPTBlock(d) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(ember.arange(idx.shape[1]))
        return self.head(self.ln(self.blocks(x)))


def torch_copy(torch, model):
    """The same ember Sequential of Linear/ReLU in torch, same weights."""
    layers = []
    for m in model:
        if isinstance(m, nn.Linear):
            lin = torch.nn.Linear(m.in_features, m.out_features)
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(np.array(m.weight.detach().numpy())))
                lin.bias.copy_(torch.from_numpy(np.array(m.bias.detach().numpy())))
            layers.append(lin)
        else:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def clone_model(model):
    import copy
    return copy.deepcopy(model)


def inputs(name, seed=0):
    ember.manual_seed(seed)
    if name == "mlp":
        return mlp(), ember.randn(16, 32), ember.randint(0, 10, (16,))
    if name == "cnn":
        return SmallCNN(), ember.randn(4, 3, 8, 8), ember.randint(0, 10, (4,))
    if name == "char_gpt":
        return CharGPT(), ember.randint(0, 27, (4, 8)), ember.randint(0, 27, (4, 8))
    return GPTBlock(), ember.randn(2, 8, 32), None


def loss_of(name, out, target):
    if target is None:
        return (out * out).mean()
    if out.dim() == 3:
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1))
    return F.cross_entropy(out, target)
