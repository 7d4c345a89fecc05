import torch
from _show import show
from vector_quantize_pytorch import FSQ, ResidualVQ, VectorQuantize

torch.manual_seed(0)
vq = VectorQuantize(dim=8, codebook_size=16, decay=0.8, commitment_weight=1.0)
x = torch.randn(1, 12, 8)
quantized, indices, loss = vq(x)
show("quantized", quantized, 3)
print("indices", indices.tolist())
show("loss", loss, 3)
torch.manual_seed(0)
rvq = ResidualVQ(dim=8, num_quantizers=2, codebook_size=8)
q, idx, l = rvq(x)
show("rvq", q, 3)
print("rvq indices", idx.shape, idx[0, :3].tolist())
fsq = FSQ(levels=[8, 5, 5])
xq, ind = fsq(torch.linspace(-2, 2, 24).reshape(1, 8, 3))
show("fsq", xq, 3)
print("fsq indices", ind.tolist())
