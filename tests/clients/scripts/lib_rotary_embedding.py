import torch
from _show import show
from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb

rot = RotaryEmbedding(dim=8)
q = torch.linspace(-1, 1, 2 * 2 * 6 * 16).reshape(2, 2, 6, 16)
k = q.flip(-1)
show("q rotated", rot.rotate_queries_or_keys(q))
qr, kr = rot.rotate_queries_with_cached_keys(q, k)
show("k rotated", kr)
xpos = RotaryEmbedding(dim=8, use_xpos=True)
a, b = xpos.rotate_queries_and_keys(q, k)
show("xpos", a)
show("xpos keys", b)
freqs = rot(torch.arange(6))
show("freqs", freqs)
show("apply", apply_rotary_emb(freqs, q))
axial = RotaryEmbedding(dim=4, freqs_for="pixel", max_freq=16)
show("axial", axial.get_axial_freqs(3, 3))
