# Views, slicing and indexing: what people do to reshape and pick data.
import torch

x = torch.arange(24).reshape(2, 3, 4)
print(x.shape, x.stride(), x.is_contiguous())
t = x.transpose(0, 2)
print(t.shape, t.stride(), t.is_contiguous())
print(t.contiguous().view(-1)[:6])
print(x.permute(2, 0, 1)[1])
print(x[0, 1:, ::2])
print(x[..., -1])
print(x[:, None, 1].shape)

# Writing through a view changes the base.
y = torch.zeros(3, 4)
row = y[1]
row += 5
y[:, 0] = torch.tensor([1.0, 2.0, 3.0])
col = y.t()[2]
col[:] = -1
print(y)
print(row.data_ptr() == y[1].data_ptr(), y.t().is_contiguous())

# Advanced and boolean indexing.
m = torch.arange(12.0).reshape(3, 4)
print(m[[0, 2]])
print(m[[0, 1, 2], [3, 2, 1]])
print(m[m > 6])
m[m > 8] = 0.0
print(m)
idx = torch.tensor([[0, 1], [2, 0]])
print(torch.gather(m, 1, idx))
print(m.index_select(0, torch.tensor([2, 0])))
print(torch.zeros(3, 5).scatter_(1, torch.tensor([[0], [2], [4]]), 1.0))

# Joining, splitting, broadcasting.
a, b = torch.ones(2, 2), torch.full((2, 2), 2.0)
print(torch.cat([a, b], dim=1))
print(torch.stack([a, b]).shape)
print([p.tolist() for p in torch.arange(7).chunk(3)])
print((torch.arange(3).unsqueeze(1) * torch.arange(4)).sum(dim=0))
print(torch.tensor([1, 2, 3]).expand(2, 3).stride())
print(x.flatten(1).shape, x.squeeze().shape, x[:, :1].squeeze(1).shape)
