"""An nn.Module sequence model: Embedding, LSTM, LayerNorm, a Transformer encoder layer and
Linear, trained with a hand-written SGD step; hooks and named_modules along the way."""
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


class Model(nn.Module):
    def __init__(self, vocab=11, width=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width, padding_idx=0)
        self.lstm = nn.LSTM(width, width, batch_first=True)
        self.encoder = nn.TransformerEncoderLayer(width, 2, dim_feedforward=16, dropout=0.0,
                                                  batch_first=True)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        x, _ = self.lstm(self.embed(tokens))
        return self.head(self.norm(self.encoder(x)))


model = Model()
print(model)
print([name for name, _ in model.named_modules()])
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape).sin() * (0.3 + i / 50))

seen = []
model.lstm.register_forward_hook(lambda m, args, out: seen.append(tuple(out[0].shape)))
tokens = (torch.arange(4 * 6).reshape(4, 6) * 7) % 11
targets = (tokens + 1) % 11
for step in range(9):
    logits = model(tokens)
    loss = nn.functional.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.2 * p.grad
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.6f}")
print("hook saw", seen[:2], len(seen))
print("padding row grad", model.embed.weight.grad[0].abs().sum().item())
