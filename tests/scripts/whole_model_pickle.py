"""A program that pickles whole objects: torch.save(model) of a model class defined here with
attention, recurrent, convolutional and normalization layers, loaded back with
weights_only=False; the optimizer and a scheduler saved beside it; plain pickle and deepcopy of
the model; the version gate libraries use."""
import copy
import os
import pickle
import tempfile

import torch
from torch import nn

assert torch.__version__ >= (2, 0), torch.__version__
torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)
        self.norm = nn.BatchNorm1d(dim)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 5))
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, tokens):
        x = self.embed(tokens)
        x = self.norm(self.conv(x.transpose(1, 2))).transpose(1, 2).relu()
        x, _ = self.rnn(x)
        x, _ = self.attn(x, x, x, need_weights=False)
        return self.head(x) * self.scale


model = Tagger()
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
tokens = torch.randint(0, 20, (4, 7))
labels = torch.randint(0, 5, (4, 7))
for step in range(4):
    loss = nn.functional.cross_entropy(model(tokens).flatten(0, 1), labels.flatten())
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    before = model(tokens)
folder = tempfile.mkdtemp()
path = os.path.join(folder, "tagger.pt")
torch.save({"model": model, "optimizer": opt, "scheduler": sched}, path)
loaded = torch.load(path, weights_only=False)
again = loaded["model"]
print(type(again).__name__, type(again.attn).__name__, type(again.attn.out_proj).__name__)
print(type(again.attn).__module__, type(again.head[1]).__module__)
with torch.no_grad():
    print("same output", torch.allclose(again(tokens), before, atol=1e-6))
print("optimizer", type(loaded["optimizer"]).__name__, loaded["optimizer"].param_groups[0]["lr"],
      len(loaded["optimizer"].state))
print("scheduler", loaded["scheduler"].last_epoch, loaded["scheduler"].get_last_lr())
try:
    torch.load(path, weights_only=True)
except pickle.UnpicklingError as error:
    print("weights_only refuses", "Tagger" in str(error))

clone = pickle.loads(pickle.dumps(model))
twin = copy.deepcopy(model)
with torch.no_grad():
    print("pickle", torch.allclose(clone(tokens), before, atol=1e-6),
          "deepcopy", torch.allclose(twin(tokens), before, atol=1e-6))
state_path = os.path.join(folder, "state.pt")
torch.save(model.state_dict(), state_path)
fresh = Tagger()
print(fresh.load_state_dict(torch.load(state_path, weights_only=True)))
fresh.eval()
with torch.no_grad():
    print("state_dict", torch.allclose(fresh(tokens), before, atol=1e-6))
