"""A graph network whose adjacency is built from NumPy: edge lists and the node count come from
NumPy arrays (`np.int64` sizes), the normalized adjacency is a sparse COO tensor, and a
two-layer GCN trains on it with sparse-dense products."""
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(0)
torch.manual_seed(0)
edges = rng.integers(0, 12, size=(2, 30))
V = edges.max() + 1                        # a NumPy integer
src, dst = np.concatenate([edges[0], edges[1]]), np.concatenate([edges[1], edges[0]])
loops = np.arange(V)
index = np.stack([np.concatenate([src, loops]), np.concatenate([dst, loops])])
adj = torch.sparse_coo_tensor(torch.from_numpy(index), torch.ones(index.shape[1]), (V, V))
adj = adj.coalesce()
deg = torch.sparse.sum(adj, dim=1).to_dense()
norm = deg.pow(-0.5)
i = adj.indices()
values = norm[i[0]] * adj.values() * norm[i[1]]
a_hat = torch.sparse_coo_tensor(i, values, adj.shape)
print(type(V).__name__, adj.shape, adj._nnz(), round(deg.sum().item(), 4))
shape = np.array(a_hat.shape)
print(torch.zeros(int(shape[0]), np.int64(3)).shape, torch.ones(2, 6).view(np.int64(3), -1).shape)


class GCN(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.l1 = nn.Linear(d_in, d_hidden)
        self.l2 = nn.Linear(d_hidden, d_out)

    def forward(self, a, x):
        x = torch.sparse.mm(a, self.l1(x)).relu()
        return torch.sparse.mm(a, self.l2(x))


features = torch.from_numpy(rng.standard_normal((int(V), 8)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 3, size=int(V)))
model = GCN(8, 16, 3)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(5):
    logits = model(a_hat, features)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("accuracy", (model(a_hat, features).argmax(1) == labels).float().mean().item())
