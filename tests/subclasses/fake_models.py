"""The benchmark models (MLP, CNN with BatchNorm and pooling, LSTM language model, a small
GPT) written once against a library (`torch` or `ember`), for fake-tensor runs in both.

Each builder returns (model, inputs, loss_fn): `loss_fn(model, *inputs, record)` runs the
forward and loss, calling `record(name, tensor)` at the intermediates worth comparing besides
the modules' outputs (which the test hooks)."""
import math


def mlp(lib):
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh(),
                          nn.Linear(64, 10))
    x = lib.randn(16, 32)
    target = lib.randint(0, 10, (16,))

    def loss_fn(model, x, target, record):
        logits = model(x)
        record("logits", logits)
        return F.cross_entropy(logits, target)

    return model, (x, target), loss_fn


def cnn(lib, channels_last=False):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(16)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(16 * 2 * 2, 10)

        def forward(self, x, record):
            x = self.pool(F.relu(self.bn1(self.conv1(x))))
            record("block1", x)
            x = F.relu(self.bn2(self.conv2(x)))
            x = F.avg_pool2d(x, 2)
            record("block2", x)
            x = lib.flatten(x, 1)
            record("flat", x)
            return self.fc(x)

    model = Net()
    x = lib.randn(4, 3, 16, 16)
    if channels_last:
        x = x.contiguous(memory_format=lib.channels_last)
    target = lib.randint(0, 10, (4,))

    def loss_fn(model, x, target, record):
        logits = model(x, record)
        record("logits", logits)
        return F.cross_entropy(logits, target)

    return model, (x, target), loss_fn


def lstm(lib):
    nn, F = lib.nn, lib.nn.functional

    class LanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(50, 16)
            self.lstm = nn.LSTM(16, 24, 2)
            self.decoder = nn.Linear(24, 50)

        def forward(self, tokens, record):
            emb = self.embedding(tokens)
            output, (h, c) = self.lstm(emb)
            record("output", output)
            record("h", h)
            record("c", c)
            return self.decoder(output)

    model = LanguageModel()
    tokens = lib.randint(0, 50, (7, 3))
    targets = lib.randint(0, 50, (7 * 3,))

    def loss_fn(model, tokens, targets, record):
        logits = model(tokens, record)
        record("logits", logits)
        return F.cross_entropy(logits.view(-1, 50), targets)

    return model, (tokens, targets), loss_fn


def gpt(lib, n_embd=32, n_head=4, block_size=16, vocab=40, n_layer=2):
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)

        def forward(self, x, record):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            record("q", q)
            record("k", k)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            record("att", att)
            mask = lib.tril(lib.ones(T, T)).view(1, 1, T, T)
            att = att.masked_fill(mask == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            record("softmax", att)
            y = att @ v
            record("att_v", y)
            y2 = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            record("sdpa", y2)
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            record("merged", y)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(n_embd)
            self.c_fc = nn.Linear(n_embd, 4 * n_embd)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * n_embd, n_embd)
            self.dropout = nn.Dropout(0.1)

        def forward(self, x, record):
            x = x + self.attn(self.ln_1(x), record)
            record("residual", x)
            return x + self.dropout(self.c_proj(self.gelu(self.c_fc(self.ln_2(x)))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, n_embd)
            self.wpe = nn.Embedding(block_size, n_embd)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.wte.weight = self.lm_head.weight        # weight tying

        def forward(self, idx, record):
            t = idx.size(1)
            pos = lib.arange(0, t, dtype=lib.long, device=idx.device)
            x = self.wte(idx) + self.wpe(pos)
            record("embedded", x)
            for block in self.h:
                x = block(x, record)
            return self.lm_head(self.ln_f(x))

    model = GPT()
    idx = lib.randint(0, vocab, (2, block_size))
    targets = lib.randint(0, vocab, (2, block_size))

    def loss_fn(model, idx, targets, record):
        logits = model(idx, record)
        record("logits", logits)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                               ignore_index=-1)

    return model, (idx, targets), loss_fn


def cnn_channels_last(lib):
    return cnn(lib, channels_last=True)


MODELS = {"mlp": mlp, "cnn": cnn, "cnn_channels_last": cnn_channels_last, "lstm": lstm,
          "gpt": gpt}
